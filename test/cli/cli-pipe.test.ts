/**
 * The `skillgate` CLI writing into a pipe whose reader went away (docs/cli.md#output):
 * `skillgate executions list | head` ends quietly with exit code 0, no `EPIPE` error and no stack
 * trace; and the bin runs the prebuilt bundle (docs/cli.md#start-up).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";

const BIN = join(process.cwd(), "cli", "skillgate.mjs");
let t: TestApp;

beforeEach(async () => {
  t = await startTestApp();
  await t.api.post("/api/skills/install", {
    name: "pipe-echo",
    version: "1.0.0",
    handlerCode: "echo-handler",
  });
  for (let i = 0; i < 25; i++) {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "pipe-echo",
      input: { i, pad: "x".repeat(200) },
    });
    expect(res.status).toBe(200);
  }
});
afterEach(async () => {
  await t.close();
});

const env = () => ({ ...process.env, SKILLGATE_URL: t.url, SKILLGATE_TOKEN: MGMT_TOKEN });

describe("skillgate into a closed pipe", () => {
  it("exits 0 without an EPIPE error when the reader has gone", async () => {
    // The reader closes its end before the CLI writes anything.
    const child = spawn(process.execPath, [BIN, "--json", "executions", "list"], {
      env: env(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  }, 60_000);

  it("`executions list | head -n 1` prints one line and nothing on stderr", async () => {
    // Async: the server under test answers from this process.
    const child = spawn(
      "sh",
      ["-c", `"${process.execPath}" "${BIN}" --json executions list | head -n 1; echo "rc=$?"`],
      { env: env(), stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    await new Promise((r) => child.on("close", r));
    expect(stdout.split("\n").filter(Boolean)).toEqual(["{", "rc=0"]);
    expect(stderr).toBe("");
    expect(existsSync(join(process.cwd(), "cli", "dist", "skillgate.mjs"))).toBe(true);
  }, 60_000);
});
