/**
 * Per-key execution limits inside workerd through the Worker entry (docs/rate-limits.md): a
 * limit of 0 answers 403 `limit_blocked` with the RateLimit fields and no Retry-After, and the
 * daily usage is kept in the real libSQL engine over HTTP.
 */
import { describe, expect, it } from "vitest";
import { call, createKey, installBody } from "./support.js";

describe("Worker entry in workerd: per-key limits", () => {
  it("blocks an execution of a key whose limit is 0 with 403 and counts only the admitted ones", async () => {
    const key = await createKey("workerd-limits");
    const name = `limited-echo-${crypto.randomUUID().slice(0, 8)}`;
    const installed = await call("POST", "/api/skills/install", {
      body: installBody(name, { apiKeyId: key.id }),
    });
    expect(installed.status).toBe(201);
    const put = await call("PUT", `/api/keys/${key.id}/limits`, {
      body: { executionsPerMinute: 0 },
    });
    expect(put.status).toBe(200);
    const body = { skillName: name, input: { text: "hi" } };
    const refused = await call("POST", "/api/skills/executions", { token: key.key, body });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: "limit_blocked",
      message: "This API key is blocked from starting executions (executionsPerMinute is 0)",
      details: { limit: "executionsPerMinute", value: 0 },
    });
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(refused.headers.get("ratelimit-policy")).toBe('"executions-per-minute";q=0;w=60');
    expect(refused.headers.get("ratelimit")).toBe('"executions-per-minute";r=0');

    await call("PUT", `/api/keys/${key.id}/limits`, { body: {} });
    const ok = await call("POST", "/api/skills/executions", { token: key.key, body });
    expect(ok.status).toBe(200);
    const read = await call("GET", `/api/keys/${key.id}`);
    expect(read.body.limits.overrides).toEqual({});
    expect(read.body.limits.usage).toMatchObject({ executionsToday: 1, sandboxRunsToday: 0 });
  });
});
