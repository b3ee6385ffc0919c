/**
 * Every setting is documented: each variable of the API's configuration schema
 * (`workers/src/config.ts`), of the sandbox host's (`sandbox-host/src/config.ts`), and each
 * variable the Node entry points read from `process.env` directly appears, in backticks, in
 * docs/configuration.md.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { hostEnvSchema } from "../../sandbox-host/src/env-schema.js";
import { configSchema } from "../../workers/src/config.js";

const ROOT = resolve(import.meta.dirname, "../..");
const DOC = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");

/** The Node entry points, which alone read `process.env` (docs/architecture.md#layers). */
const NODE_ENTRIES = [
  "workers/src/node.ts",
  "workers/src/node-deps.ts",
  "workers/src/library-node.ts",
  "sandbox-host/src/main.ts",
  "scripts/start.ts",
];

/** `NAME` of every `process.env.NAME` / `process.env["NAME"]` in the files that exist. */
function envReadsOf(files: string[]): string[] {
  return files.flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(join(ROOT, file), "utf8");
    } catch {
      return [];
    }
    return [...text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\["([A-Z][A-Z0-9_]*)"\])/g)].map(
      (m) => (m[1] ?? m[2])!,
    );
  });
}

const documented = (name: string) => DOC.includes(`\`${name}\``);

describe("docs/configuration.md documents every setting", () => {
  it("reads the variables it checks", () => {
    expect(Object.keys(configSchema.shape)).toContain("MCP_TOOL_PREFIX");
    expect(Object.keys(hostEnvSchema.shape)).toContain("SKILLS_SANDBOX_TIMEOUT_MS");
    expect(documented("MGMT_TOKEN")).toBe(true);
    expect(documented("NOT_A_SETTING_OF_THIS_PROJECT")).toBe(false);
  });

  it("every variable of the API's configuration schema", () => {
    expect(Object.keys(configSchema.shape).filter((k) => !documented(k))).toEqual([]);
  });

  it("every variable of the sandbox host's configuration schema", () => {
    expect(Object.keys(hostEnvSchema.shape).filter((k) => !documented(k))).toEqual([]);
  });

  it("every variable the Node entry points read directly", () => {
    const names = [...new Set(envReadsOf(NODE_ENTRIES))];
    expect(names.filter((k) => !documented(k))).toEqual([]);
  });
});
