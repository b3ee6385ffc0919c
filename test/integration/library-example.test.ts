/**
 * The library example (examples/node-handlers) started as its own process through the package's
 * `skillgate/node` export: its in-process handler runs a skill installed over the REST API, and
 * the library refuses a handler name that a builtin already holds.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { registerOwnHandlers } from "../../workers/src/library-handlers.js";
import { ApiClient, startTestApp, tempDir } from "../support/app.js";

const TOKEN = "example-management-token-0123456789";

function startExample(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn("node_modules/.bin/tsx", ["examples/node-handlers/server.ts"], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", MGMT_TOKEN: TOKEN },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`example exited with ${code}: ${err}${out}`)));
  });
}

describe("Skillgate as a library", () => {
  let child: ChildProcess | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    cleanup?.();
  });

  it("the Node example serves the API with its own handler registered", async () => {
    const tmp = tempDir("skillgate-example-");
    cleanup = tmp.cleanup;
    const started = await startExample(tmp.dir);
    child = started.child;
    const api = new ApiClient(started.url, TOKEN);
    const installed = await api.post("/api/skills/install", {
      name: "reverse-text",
      version: "1.0.0",
      schema: {
        input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
      handlerCode: "reverse-text",
    });
    expect(installed.status).toBe(201);
    const run = await api.post("/api/skills/executions", {
      skillName: "reverse-text",
      input: { text: "skillgate" },
    });
    expect(run.body.execution).toMatchObject({ status: "success", output: { text: "etaglliks" } });
  });

  it("refuses a handler name a builtin holds", async () => {
    const t = await startTestApp();
    try {
      expect(() => registerOwnHandlers(t.services, { eval_code: async () => "replaced" })).toThrow(
        /taken/,
      );
      expect(() => registerOwnHandlers(t.services, { "bad name": async () => 1 })).toThrow(
        /must match/,
      );
    } finally {
      await t.close();
    }
  });
});
