import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetryableError } from "../../workers/src/errors.js";
import { startTestApp, type TestApp } from "../support/app.js";

const install = (
  t: TestApp,
  name: string,
  handlerCode: string,
  extra: Record<string, unknown> = {},
) =>
  t.api.post("/api/skills/install", {
    name,
    version: "1.0.0",
    description: name,
    schema: { input: { type: "object" } },
    handlerCode,
    ...extra,
  });

describe("executor lifecycle", () => {
  // A fresh app, database and handler state per test.
  let t: TestApp;
  let flakyCalls = 0;
  let seenSignals: AbortSignal[] = [];
  beforeEach(async () => {
    flakyCalls = 0;
    seenSignals = [];
    t = await startTestApp({ services: { retryBackoffMs: 50 } });
    const ex = t.services.executor;
    ex.registerHandler("sleep-handler", async (_input, ctx) => {
      seenSignals.push(ctx.signal);
      await new Promise((r) => setTimeout(r, 5_000));
      return "late";
    });
    ex.registerHandler("throw-handler", async () => {
      throw new Error("kaboom: the handler failed");
    });
    ex.registerHandler("flaky-handler", async () => {
      flakyCalls++;
      if (flakyCalls <= 2) throw new RetryableError(`transient failure #${flakyCalls}`);
      return { ok: true, calls: flakyCalls };
    });
    ex.registerHandler("always-retryable", async () => {
      throw Object.assign(new Error("still down"), { retryable: true });
    });
  });
  afterEach(() => t.close());

  it("a handler that sleeps past its timeout ends as timeout and its signal fires", async () => {
    await install(t, "sleeper", "sleep-handler", { timeoutMs: 300 });
    const res = await t.api.post("/api/skills/executions", { skillName: "sleeper", input: {} });
    expect(res.status).toBe(200);
    expect(res.body.execution).toMatchObject({
      status: "timeout",
      errorCode: "timeout",
      attempts: 1,
    });
    expect(res.body.execution.errorMessage).toMatch(/timed out after 300 ms/);
    expect(seenSignals.at(-1)?.aborted).toBe(true);
  });

  it("a caller's cancel ends a running execution as error cancelled and fires the handler's signal", async () => {
    await install(t, "sleeper", "sleep-handler", { timeoutMs: 20_000 });
    const skill = (await t.services.registry.snapshot()).skills.find((s) => s.name === "sleeper")!;
    const ac = new AbortController();
    const run = t.services.executor.execute(
      skill,
      {},
      { apiKeyId: null, sessionId: "cancel-running" },
      ac.signal,
    );
    await expect.poll(() => seenSignals.length).toBe(1);
    expect(seenSignals[0]!.aborted).toBe(false);
    ac.abort();
    const execution = await run;
    expect(execution).toMatchObject({ status: "error", errorCode: "cancelled", attempts: 1 });
    expect(execution.errorMessage).toMatch(/^cancelled: /);
    expect(seenSignals[0]!.aborted).toBe(true);
    const stored = await t.api.get(`/api/skills/executions/${execution.id}`);
    expect(stored.body.execution).toMatchObject({ status: "error", errorCode: "cancelled" });
  });

  it("an execution whose caller already went away is recorded as cancelled without running", async () => {
    await install(t, "sleeper", "sleep-handler", { timeoutMs: 20_000 });
    const skill = (await t.services.registry.snapshot()).skills.find((s) => s.name === "sleeper")!;
    const execution = await t.services.executor.execute(
      skill,
      {},
      { apiKeyId: null, sessionId: "cancel-before" },
      AbortSignal.abort(),
    );
    expect(execution).toMatchObject({ status: "error", errorCode: "cancelled", attempts: 0 });
    expect(seenSignals).toHaveLength(0);
  });

  it("a handler that throws ends as error with its message", async () => {
    await install(t, "thrower", "throw-handler");
    const res = await t.api.post("/api/skills/executions", { skillName: "thrower", input: {} });
    expect(res.body.execution).toMatchObject({
      status: "error",
      errorMessage: "kaboom: the handler failed",
      attempts: 1,
    });
    expect(typeof res.body.execution.durationMs).toBe("number");
  });

  it("a retryable error twice then success yields success with attempts 3, in one row", async () => {
    await install(t, "flaky", "flaky-handler");
    const res = await t.api.post("/api/skills/executions", {
      skillName: "flaky",
      input: {},
      sessionId: "s-1",
    });
    expect(res.body.execution).toMatchObject({
      status: "success",
      attempts: 3,
      output: { ok: true, calls: 3 },
      sessionId: "s-1",
    });
    expect(res.body.execution.durationMs).toBeGreaterThanOrEqual(50 + 100);
    const rows = await t.client.execute(
      "select count(*) as n from skill_executions where skill_name = 'flaky'",
    );
    expect(Number(rows.rows[0]!.n)).toBe(1);
  });

  it("stops retrying after maxRetries attempts", async () => {
    await install(t, "down", "always-retryable");
    const res = await t.api.post("/api/skills/executions", { skillName: "down", input: {} });
    expect(res.body.execution).toMatchObject({
      status: "error",
      attempts: 3,
      errorMessage: "still down",
    });
  });

  it("success rows carry durationMs and the history filters by status, skill and session", async () => {
    await install(t, "flaky", "flaky-handler");
    await install(t, "thrower", "throw-handler");
    await t.api.post("/api/skills/executions", { skillName: "flaky", input: {}, sessionId: "s-1" });
    await t.api.post("/api/skills/executions", {
      skillName: "thrower",
      input: {},
      sessionId: "s-1",
    });
    const ok = await t.api.get("/api/skills/executions?status=success&skill=flaky&sessionId=s-1");
    expect(ok.body.total).toBe(1);
    expect(ok.body.data[0].durationMs).toBeGreaterThanOrEqual(0);
    const errs = await t.api.get("/api/skills/executions?status=error");
    expect(
      errs.body.data.map((e: { skillName: string; errorMessage: string | null }) => [
        e.skillName,
        e.errorMessage,
      ]),
    ).toEqual([["thrower", "kaboom: the handler failed"]]);
    const other = await t.api.get("/api/skills/executions?sessionId=s-2");
    expect(other.body.total).toBe(0);
  });
});

describe("approval flow and crash recovery", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  /** Installs the global `crashy` skill (echo-handler) and returns it from the registry. */
  const installCrashy = async () => {
    const { body } = await install(t, "crashy", "echo-handler");
    return (await t.services.registry.snapshot()).getById(body.skill.id)!;
  };

  it("a pending approval runs when approved and ends as error when rejected", async () => {
    const key = await t.api.createKey("approver");
    const { body } = await t.api.post("/api/skills/install", {
      name: "needs-ok",
      version: "1.0.0",
      schema: { input: { type: "object", properties: { v: { type: "integer" } } } },
      handlerCode: "echo-handler",
      policy: "hybrid",
      apiKeyId: key.id,
    });
    const snapshot = await t.services.registry.snapshot();
    const skill = snapshot.getById(body.skill.id)!;
    const first = await t.services.executor.requestApproval(
      skill,
      { v: 1 },
      { apiKeyId: key.id, sessionId: "s" },
    );
    const second = await t.services.executor.requestApproval(
      skill,
      { v: 2 },
      { apiKeyId: key.id, sessionId: "s" },
    );
    expect(first).toMatchObject({ status: "pending", approval: "required" });

    const waiting = await t.api.as(key.key).get("/api/skills/executions?approval=required");
    expect(waiting.body.total).toBe(2);
    const other = await t.api.createKey("stranger");
    expect(
      (await t.api.as(other.key).post(`/api/skills/executions/${first.id}/approve`)).status,
    ).toBe(404);

    const approved = await t.api.as(key.key).post(`/api/skills/executions/${first.id}/approve`);
    expect(approved.body.execution).toMatchObject({
      status: "success",
      approval: "approved",
      output: { v: 1 },
    });
    expect((await t.api.post(`/api/skills/executions/${first.id}/approve`)).status).toBe(409);

    const rejected = await t.api.post(`/api/skills/executions/${second.id}/reject`, {
      reason: "not today",
    });
    expect(rejected.body.execution).toMatchObject({
      status: "error",
      approval: "rejected",
      errorMessage: "rejected: not today",
    });
  });

  it("recovery ends running and unapproved-pending rows as interrupted, keeping approvals", async () => {
    const skill = await installCrashy();
    const store = t.services.executor.store;
    const running = await store.create(
      skill,
      {},
      { apiKeyId: null, sessionId: null },
      { timeoutMs: 1000 },
    );
    await store.markRunning(running.id, 1000);
    const pending = await store.create(
      skill,
      {},
      { apiKeyId: null, sessionId: null },
      { timeoutMs: 1000 },
    );
    const awaiting = await t.services.executor.requestApproval(
      skill,
      {},
      { apiKeyId: null, sessionId: null },
    );

    expect(await store.recoverInterrupted({ defaultTimeoutMs: 30_000 })).toBe(2);
    expect(await store.get(running.id)).toMatchObject({
      status: "error",
      errorCode: "interrupted",
    });
    expect(await store.get(pending.id)).toMatchObject({
      status: "error",
      errorCode: "interrupted",
    });
    expect(await store.get(awaiting.id)).toMatchObject({ status: "pending", approval: "required" });
  });

  it("cron-style recovery only ends rows older than their budget plus the grace", async () => {
    const skill = await installCrashy();
    const store = t.services.executor.store;
    const fresh = await store.create(
      skill,
      {},
      { apiKeyId: null, sessionId: null },
      { timeoutMs: 1000 },
    );
    await store.markRunning(fresh.id, 1000);
    expect(await store.recoverInterrupted({ staleAfterMs: 60_000, defaultTimeoutMs: 30_000 })).toBe(
      0,
    );
    await t.client.execute(
      "update skill_executions set updated_at = updated_at - 62000 where id = ?",
      [fresh.id],
    );
    expect(await store.recoverInterrupted({ staleAfterMs: 60_000, defaultTimeoutMs: 30_000 })).toBe(
      1,
    );
  });

  it("expires approvals nobody decided in time", async () => {
    const skill = await installCrashy();
    const awaiting = await t.services.executor.requestApproval(
      skill,
      {},
      { apiKeyId: null, sessionId: null },
    );
    await t.client.execute(
      "update skill_executions set created_at = created_at - 100000000 where id = ?",
      [awaiting.id],
    );
    const res = await t.api.post(`/api/skills/executions/${awaiting.id}/approve`);
    expect(res.status).toBe(409);
    expect(await t.services.executor.store.get(awaiting.id)).toMatchObject({
      status: "error",
      approval: "expired",
    });
  });
});
