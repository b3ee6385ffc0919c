/**
 * The executor owns an execution's deadline: the limit comes from the call, the skill or the
 * handler's default; handlers get what remains of it; a timeout's message states the limit (a
 * handler's reporting grace stays internal); retries of a saturated service fit inside the limit,
 * and when nothing ran the execute API answers 429 with Retry-After and the row says so.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ExecutionFailure } from "../../workers/src/errors.js";
import { retryAfterSeconds } from "../../workers/src/sandbox/client.js";
import type { Skill } from "../../workers/src/skills/types.js";
import { startTestApp, type TestApp } from "../support/app.js";

const askedTimeout = (input: unknown) => {
  const t = (input as { timeoutMs?: unknown } | null)?.timeoutMs;
  return typeof t === "number" ? t : undefined;
};

const waitFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

let t: TestApp;
const seenLimits = new Map<string, number[]>();
// Each test reads only the limits its own calls handed to the handlers (tests run in any order).
beforeEach(() => seenLimits.clear());
let busyOnceCalls = 0;

beforeAll(async () => {
  t = await startTestApp({ services: { retryBackoffMs: 20 } });
  const ex = t.services.executor;
  // Stops its own run at the limit it was given and reports a timeout, as the sandbox host does.
  ex.registerHandler(
    "paced-handler",
    async (_input, ctx) => {
      seenLimits.set(ctx.skill.name, [...(seenLimits.get(ctx.skill.name) ?? []), ctx.timeoutMs]);
      await waitFor(ctx.timeoutMs, ctx.signal);
      throw new ExecutionFailure(`stopped at ${ctx.timeoutMs} ms`, { status: "timeout" });
    },
    { limitFromInput: askedTimeout, defaultLimitMs: 400, graceMs: 5_000 },
  );
  // Ignores its limit: only the executor's deadline plus the grace stops it.
  ex.registerHandler(
    "stubborn-handler",
    async (_input, ctx) => {
      await waitFor(60_000, ctx.signal);
      return { aborted: ctx.signal.aborted };
    },
    { limitFromInput: askedTimeout, graceMs: 100 },
  );
  ex.registerHandler(
    "busy-handler",
    async () => {
      throw new ExecutionFailure("Service is busy: the program did not run", {
        code: "sandbox_busy",
        retryable: true,
        retryAfterS: 2,
      });
    },
    { limitFromInput: askedTimeout },
  );
  ex.registerHandler(
    "busy-once-handler",
    async (_input, ctx) => {
      busyOnceCalls++;
      if (ctx.attempt === 1)
        throw new ExecutionFailure("busy", { code: "sandbox_busy", retryable: true });
      return { attempt: ctx.attempt, remaining: ctx.timeoutMs };
    },
    { limitFromInput: askedTimeout },
  );
  for (const [name, handlerCode, extra] of [
    ["paced", "paced-handler", {}],
    ["paced-capped", "paced-handler", { timeoutMs: 250 }],
    ["stubborn", "stubborn-handler", {}],
    ["busy", "busy-handler", {}],
    ["busy-once", "busy-once-handler", {}],
  ] as const) {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      schema: { input: { type: "object" } },
      handlerCode,
      ...extra,
    });
    expect(res.status).toBe(201);
  }
});
afterAll(() => t.close());

const run = (skillName: string, input: object) =>
  t.api.post("/api/skills/executions", { skillName, input });

describe("timeout messages state the limit", () => {
  it("the call's timeoutMs is the limit: 'timed out after 300 ms', never the limit plus grace", async () => {
    const res = await run("paced", { timeoutMs: 300 });
    expect(res.status).toBe(200);
    expect(res.body.execution).toMatchObject({
      status: "timeout",
      errorCode: "timeout",
      errorMessage: "Skill execution timed out after 300 ms",
      attempts: 1,
    });
    const [limit] = seenLimits.get("paced") ?? [];
    expect(limit).toBeGreaterThan(0);
    expect(limit).toBeLessThanOrEqual(300);
  });

  it("without an ask the handler's default is the limit", async () => {
    const res = await run("paced", {});
    expect(res.body.execution.errorMessage).toBe("Skill execution timed out after 400 ms");
  });

  it("the skill's timeoutMs caps what a call asks for", async () => {
    const res = await run("paced-capped", { timeoutMs: 5_000 });
    expect(res.body.execution.errorMessage).toBe("Skill execution timed out after 250 ms");
    expect(Math.max(...(seenLimits.get("paced-capped") ?? [Infinity]))).toBeLessThanOrEqual(250);
  });

  it("a handler that ignores its limit is stopped by the executor, and the message names the limit", async () => {
    const res = await run("stubborn", { timeoutMs: 200 });
    expect(res.body.execution).toMatchObject({
      status: "timeout",
      errorMessage: "Skill execution timed out after 200 ms",
    });
  });
});

describe("the limit of an execution", () => {
  const skillOf = (handlerCode: string, timeoutMs: number | null): Skill => ({
    id: "limit-probe",
    name: "limit-probe",
    version: "1.0.0",
    description: "",
    schema: { input: { type: "object" } },
    handlerCode,
    handler: null,
    instructions: null,
    enabled: true,
    mode: "on",
    policy: "auto",
    sourceProvider: "local",
    sourceRef: null,
    tags: [],
    installCount: 0,
    timeoutMs,
    autoUpgrade: null,
    apiKeyId: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  });
  const cases: Array<[string, number | null, object, number]> = [
    ["paced-handler", null, { timeoutMs: 2_000 }, 2_000],
    ["paced-handler", 1_000, { timeoutMs: 2_000 }, 1_000],
    ["paced-handler", 3_000, { timeoutMs: 2_000 }, 2_000],
    ["paced-handler", 1_000, {}, 1_000],
    ["paced-handler", null, {}, 400],
    ["eval_code", null, { timeoutMs: 90_000 }, 60_000],
    ["eval_code", null, {}, 10_000],
    ["eval_code", null, { timeoutMs: 2_000 }, 2_000],
    ["http_request", null, {}, 15_000],
    ["echo-handler", null, { timeoutMs: 5 }, 30_000],
    ["echo-handler", 700, {}, 700],
  ];
  it.each(cases)("handler %s, skill timeoutMs %j, input %j → %i ms", (h, own, input, limit) => {
    expect(t.services.executor.limitFor(skillOf(h, own), input)).toBe(limit);
  });
});

describe("retries of a saturated service", () => {
  it("stop at the deadline; the execute API answers 429 with the service's Retry-After", async () => {
    const res = await run("busy", { timeoutMs: 500 });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.body.error.code).toBe("sandbox_busy");
    expect(res.body.error.message).toMatch(/did not run/);
    const execution = res.body.error.details.execution;
    expect(execution).toMatchObject({
      skillName: "busy",
      status: "error",
      errorCode: "sandbox_busy",
      output: null,
      attempts: 1,
    });
    const stored = await t.api.get(`/api/skills/executions/${execution.id}`);
    expect(stored.body.execution).toMatchObject({
      status: "error",
      errorCode: "sandbox_busy",
      errorMessage: "Service is busy: the program did not run",
    });
  });

  it("a retry that finds room succeeds in the same row, within the limit", async () => {
    const before = busyOnceCalls;
    const res = await run("busy-once", { timeoutMs: 5_000 });
    expect(res.status).toBe(200);
    expect(res.body.execution).toMatchObject({ status: "success", attempts: 2 });
    expect(res.body.execution.output.attempt).toBe(2);
    expect(res.body.execution.output.remaining).toBeLessThan(5_000);
    expect(busyOnceCalls - before).toBe(2);
  });
});

describe("retryAfterSeconds", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");
  it.each([
    ["3", 3],
    ["0", 1],
    [" 12 ", 12],
    ["Tue, 01 Jan 2030 00:00:05 GMT", 5],
    ["Tue, 01 Jan 2030 00:00:00 GMT", 1],
  ])("reads %j as %i s", (value, seconds) => {
    expect(retryAfterSeconds(value, now)).toBe(seconds);
  });
  it.each([[null], [""], ["soon"], ["-4"]])("ignores %j", (value) => {
    expect(retryAfterSeconds(value, now)).toBeUndefined();
  });
});
