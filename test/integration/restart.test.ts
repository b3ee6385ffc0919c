import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { startApiServer } from "../../workers/src/runtime/node/node.js";
import { ApiClient, tempDir } from "../support/app.js";
import { type ConsoleCapture, captureConsole } from "../support/console-capture.js";

describe("a cold registry after a restart still has every skill", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  // The entry's start-up lines (and the token it shows once) are asserted, not printed.
  let output: ConsoleCapture;
  beforeEach(() => {
    output = captureConsole();
  });
  afterEach(() => output.restore());

  it("the first request after a restart sees a skill installed before it", async () => {
    const env = { DATA_DIR: tmp.dir, PORT: "0", MGMT_TOKEN: "restart-token-123456" };
    const first = await startApiServer(env);
    const api = new ApiClient(first.url, env.MGMT_TOKEN);
    const installed = await api.post("/api/skills/install", {
      name: "survivor",
      version: "1.0.0",
      description: "stays",
      schema: { input: { type: "object" } },
      handlerCode: "echo-handler",
      mode: "on",
    });
    expect(installed.status).toBe(201);
    await first.close();
    expect(output.lines.some((l) => l.includes(`API listening on ${first.url}`))).toBe(true);

    const second = await startApiServer(env);
    try {
      const api2 = new ApiClient(second.url, env.MGMT_TOKEN);
      const run = await api2.post("/api/skills/executions", {
        skillName: "survivor",
        input: { a: 1 },
      });
      expect(run.status).toBe(200);
      expect(run.body.execution.output).toEqual({ a: 1 });
    } finally {
      await second.close();
    }
  });

  it("creates a management token on first start, readable only by the owner, and reuses it", async () => {
    const dir = tempDir();
    try {
      const env = { DATA_DIR: dir.dir, PORT: "0" };
      const { chmodSync } = await import("node:fs");
      chmodSync(dir.dir, 0o755);
      const srv = await startApiServer(env);
      await srv.close();
      const { readFileSync, statSync } = await import("node:fs");
      const path = `${dir.dir}/mgmt-token`;
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(dir.dir).mode & 0o777).toBe(0o700);
      const token = readFileSync(path, "utf8").trim();
      expect(token.length).toBeGreaterThan(40);
      // Shown once, on the start that created it.
      expect(output.lines.filter((l) => l.includes(token))).toHaveLength(1);
      const again = await startApiServer(env);
      expect(output.lines.filter((l) => l.includes(token))).toHaveLength(1);
      expect(output.lines.some((l) => l.includes("management token: see"))).toBe(true);
      try {
        const res = await new ApiClient(again.url, token).get("/api/settings");
        expect(res.status).toBe(200);
      } finally {
        await again.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});
