/**
 * `/api/routing` over real HTTP: recording upstream calls for the calling key (management for a
 * key), strict input handling, and the recommendation read back with the numbers it used, each
 * key seeing only its own history.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp;

const calls = (provider: string, model: string, latencies: number[], extra: object = {}) =>
  latencies.map((latencyMs) => ({ provider, model, status: "success", latencyMs, ...extra }));

beforeAll(async () => {
  t = await startTestApp();
});

/** Two fresh keys per test, so that no test sees another's history. */
const freshKeys = async () => ({
  keyA: await t.api.createKey(`routing-a-${crypto.randomUUID()}`),
  keyB: await t.api.createKey(`routing-b-${crypto.randomUUID()}`),
});
afterAll(() => t?.close());

describe("/api/routing", () => {
  it("records calls for the key and recommends from them; other keys see none of it", async () => {
    const { keyA, keyB } = await freshKeys();
    const a = t.api.as(keyA.key);
    const recorded = await a.post("/api/routing/observations", {
      calls: [
        ...calls("openai", "gpt-4.1", [400, 500, 600]),
        ...calls("anthropic", "claude-sonnet", [300, 350], {}),
        {
          provider: "anthropic",
          model: "claude-sonnet",
          status: "error",
          errorClass: "server_error",
          latencyMs: 30,
        },
      ],
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body.ids).toHaveLength(6);
    const rows = await t.client.execute({
      sql: "select count(*) as n from upstream_calls where api_key_id = ?",
      args: [keyA.id],
    });
    expect(Number(rows.rows[0]!.n)).toBe(6);

    const rec = await a.get("/api/routing/recommendation?task=summaries&windowHours=2");
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({
      recommendation: { provider: "openai", model: "gpt-4.1" },
      basis: "all-calls",
      windowHours: 2,
      callsConsidered: 6,
    });
    expect(rec.body.candidates[1]).toMatchObject({
      provider: "anthropic",
      successRate: 0.6667,
      errorClasses: { server_error: 1 },
    });

    const forB = await t.api.as(keyB.key).get("/api/routing/recommendation");
    expect(forB.body).toMatchObject({ recommendation: null, basis: "none" });
    const viaMgmt = await t.api.get(`/api/routing/recommendation?apiKeyId=${keyA.id}`);
    expect(viaMgmt.body.callsConsidered).toBe(6);
  });

  it("lets management record for a key, and refuses a key acting for another", async () => {
    const { keyA, keyB } = await freshKeys();
    const recorded = await t.api.post("/api/routing/observations", {
      calls: calls("google", "gemini-flash", [90]),
      apiKeyId: keyB.id,
    });
    expect(recorded.status).toBe(201);
    const forB = await t.api.as(keyB.key).get("/api/routing/recommendation");
    expect(forB.body.callsConsidered).toBe(1);
    const foreign = await t.api.as(keyA.key).post("/api/routing/observations", {
      calls: calls("x", "y", [1]),
      apiKeyId: keyB.id,
    });
    expect(foreign.status).toBe(403);
  });

  it("answers invalid input with 400 naming the field, and records nothing", async () => {
    const { keyA } = await freshKeys();
    const a = t.api.as(keyA.key);
    const before = await t.client.execute("select count(*) as n from upstream_calls");
    for (const body of [
      { calls: [] },
      { calls: [{ provider: "p", model: "m", status: "maybe", latencyMs: 1 }] },
      { calls: [{ provider: "p", model: "m", status: "success", latencyMs: -1 }] },
      { calls: calls("p", "m", [1]), extra: true },
    ]) {
      const res = await a.post("/api/routing/observations", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_input");
    }
    expect((await a.get("/api/routing/recommendation?windowHours=0")).status).toBe(400);
    const after = await t.client.execute("select count(*) as n from upstream_calls");
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});
