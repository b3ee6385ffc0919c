/**
 * Per-key execution limits inside workerd through the Worker entry (docs/rate-limits.md): the
 * 429 answer with Retry-After and the RateLimit fields, and the daily usage kept in the real
 * libSQL engine over HTTP.
 */
import { describe, expect, it } from "vitest";
import { call, createKey, installBody } from "./support.js";

describe("Worker entry in workerd: per-key limits", () => {
  it("refuses an execution over the key's limit with 429 and counts only the admitted ones", async () => {
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
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: "rate_limited",
      message: "This API key may not start executions (executionsPerMinute is 0)",
      details: { limit: "executionsPerMinute", value: 0 },
    });
    const t = Number(refused.headers.get("retry-after"));
    expect(t).toBeGreaterThanOrEqual(1);
    expect(t).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-policy")).toBe('"executions-per-minute";q=0;w=60');
    expect(refused.headers.get("ratelimit")).toBe(`"executions-per-minute";r=0;t=${t}`);

    await call("PUT", `/api/keys/${key.id}/limits`, { body: {} });
    const ok = await call("POST", "/api/skills/executions", { token: key.key, body });
    expect(ok.status).toBe(200);
    const read = await call("GET", `/api/keys/${key.id}`);
    expect(read.body.limits.overrides).toEqual({});
    expect(read.body.limits.usage).toMatchObject({ executionsToday: 1, sandboxRunsToday: 0 });
  });
});
