import { afterAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../workers/src/node.js";
import { ApiClient, tempDir } from "../support/app.js";

describe("a cold registry after a restart still has every skill", () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

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
      const again = await startApiServer(env);
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
