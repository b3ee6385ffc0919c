/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, built on the 2026 client SDK)
 * against `/mcp` over real HTTP on 127.0.0.1, in both protocol eras: `--protocol-era modern`
 * (server/discover, stateless requests with `_meta` and the mirrored headers) and `legacy`
 * (the 2025 `initialize` handshake), listing and calling a skill tool with an API key.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { keyWithEchoSkill } from "../support/mcp-stand.js";

const run = promisify(execFile);
const CLI = join(
  process.cwd(),
  "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
);

let t: TestApp;
let key: { key: string; id: string };
let home: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await keyWithEchoSkill(t, "inspector", "echoInspector");
  home = mkdtempSync(join(tmpdir(), "skillgate-inspector-home-"));
});
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function inspector(era: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(
    process.execPath,
    [
      CLI,
      "--cli",
      `${t.url}/mcp`,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${key.key}`,
      "--protocol-era",
      era,
      "--stored-auth-only",
      ...args,
    ],
    // A HOME of its own: the Inspector keeps a catalog and an auth store there.
    { timeout: 60_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, HOME: home } },
  );
  return JSON.parse(stdout);
}

describe("MCP Inspector CLI in both protocol eras", () => {
  for (const era of ["modern", "legacy"]) {
    it(`lists and calls a skill tool with --protocol-era ${era}`, async () => {
      const list = await inspector(era, "--method", "tools/list");
      expect(list.tools.map((x: { name: string }) => x.name)).toContain("echoInspector_v1_0_0");
      const called = await inspector(
        era,
        "--method",
        "tools/call",
        "--tool-name",
        "echoInspector_v1_0_0",
        "--tool-arg",
        `text=${era}`,
      );
      expect(called.structuredContent.output).toEqual({ text: era });
    }, 120_000);
  }
});
