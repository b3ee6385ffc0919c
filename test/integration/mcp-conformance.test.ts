/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against `/mcp`, over
 * real HTTP on 127.0.0.1: every server scenario that applies to Skillgate must pass. The suite
 * sends no credentials, so it talks to a local forwarder that adds the API key and passes `Host`
 * and `Origin` through. Scenarios that need the suite's own fixture tools, resources, prompts,
 * logging, completions, sampling, elicitation or SSE streams do not apply (docs/mcp.md#conformance).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { type AuthForwarder, startAuthForwarder } from "../support/auth-forwarder.js";

const run = promisify(execFile);
const CLI = join(process.cwd(), "node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** The server scenarios that apply to Skillgate's `/mcp`. */
const APPLICABLE = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

let t: TestApp;
let forwarder: AuthForwarder;
let out: { dir: string };

beforeAll(async () => {
  t = await startTestApp();
  const key = await t.api.createKey("conformance");
  forwarder = await startAuthForwarder(t.url, key.key);
  out = { dir: mkdtempSync(join(tmpdir(), "skillgate-conformance-")) };
});
afterAll(async () => {
  await forwarder?.close();
  await t?.close();
  if (out) rmSync(out.dir, { recursive: true, force: true });
});

describe("MCP conformance suite: applicable server scenarios", () => {
  for (const scenario of APPLICABLE) {
    it(`passes ${scenario}`, async () => {
      const dir = join(out.dir, scenario);
      await run(
        process.execPath,
        [CLI, "server", "--url", `${forwarder.url}/mcp`, "--scenario", scenario, "-o", dir],
        { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      );
      const [resultDir] = readdirSync(dir);
      const checks = JSON.parse(readFileSync(join(dir, resultDir!, "checks.json"), "utf8")) as {
        id: string;
        status: string;
        errorMessage?: string;
      }[];
      expect(checks.length).toBeGreaterThan(0);
      for (const check of checks) expect(check, check.id).toMatchObject({ status: "SUCCESS" });
    }, 90_000);
  }
});
