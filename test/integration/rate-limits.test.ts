/**
 * Per-key execution limits (docs/rate-limits.md) through the real HTTP surface on a real libSQL
 * file: management of defaults and overrides, executions per minute, concurrent sandbox runs and
 * the daily sandbox budget (429 with Retry-After and the RateLimit-Policy / RateLimit fields), and
 * the tool error a model's call gets instead. The app's clock is the test's, so window edges never
 * move under a test; "sandbox" runs are those of a handler counted as a sandbox handler, whose
 * duration the test sets by moving that clock.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CODE_HANDLER_NAME } from "../../workers/src/skills/handlers/code.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp } from "../support/mcp.js";
import { chatResponse, json } from "../unit/providers-fixtures.js";

/** 2026-03-04T10:20:15Z: 45 s left in the minute, 49 185 s left in the UTC day. */
const START = Date.UTC(2026, 2, 4, 10, 20, 15);

let t: TestApp;
let now: number;
let key: { key: string; id: string };
/** Runs of the "sandbox" handler wait here until the test lets them go. */
let gates: (() => void)[];
let started: number;

async function install(name: string, handlerCode: string, timeoutMs?: number, policy = "auto") {
  const res = await t.api.post("/api/skills/install", {
    name,
    version: "1.0.0",
    description: `Test skill ${name}`,
    schema: { input: { text: { type: "string" } } },
    handlerCode,
    apiKeyId: key.id,
    policy,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  expect(res.status).toBe(201);
}

beforeEach(async () => {
  now = START;
  gates = [];
  started = 0;
  t = await startTestApp({ deps: { clock: () => now } });
  t.services.executor.registerHandler("box-handler", async (input) => {
    started++;
    await new Promise<void>((resolve) => gates.push(resolve));
    // The run "takes" the seconds it was asked to, on the app's clock.
    now += ((input as { seconds?: number }).seconds ?? 0) * 1000;
    return { ran: true };
  });
  t.services.limiter.countAsSandbox("box-handler");
  key = await t.api.createKey(`limits-${Math.random().toString(36).slice(2)}`);
  await install("echoer", "echo-handler");
  await install("boxed", "box-handler", 5_000);
});
afterEach(() => t.close());

const asKey = () => t.api.as(key.key);
const run = (skillName: string, input: object = {}) =>
  asKey().post("/api/skills/executions", { skillName, input });
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

describe("managing limits", () => {
  it("starts with no limits and shows defaults, overrides and usage on GET /api/keys/{id}", async () => {
    const res = await t.api.get(`/api/keys/${key.id}`);
    expect(res.status).toBe(200);
    expect(res.body.limits).toEqual({
      limits: { executionsPerMinute: null, concurrentSandboxRuns: null, dailySandboxSeconds: null },
      overrides: {},
      usage: {
        day: "2026-03-04",
        executionsToday: 0,
        sandboxRunsToday: 0,
        sandboxSecondsToday: 0,
        reservedSandboxSeconds: 0,
        remainingSandboxSeconds: null,
        executionsThisMinute: 0,
        concurrentSandboxRuns: 0,
      },
    });
    // Without limits, executions are still counted for the key's usage.
    expect((await run("echoer", { text: "a" })).status).toBe(200);
    const after = await t.api.get(`/api/keys/${key.id}`);
    expect(after.body.limits.usage).toMatchObject({ executionsToday: 1, executionsThisMinute: 1 });
  });

  it("applies defaultLimits from the settings, merged field by field, under the key's overrides", async () => {
    const put = await t.api.put("/api/settings", {
      defaultLimits: { executionsPerMinute: 60, dailySandboxSeconds: 3600 },
    });
    expect(put.status).toBe(200);
    expect(put.body.settings.defaultLimits).toEqual({
      executionsPerMinute: 60,
      concurrentSandboxRuns: null,
      dailySandboxSeconds: 3600,
    });
    await t.api.put("/api/settings", { defaultLimits: { concurrentSandboxRuns: 2 } });
    const own = await t.api.put(`/api/keys/${key.id}/limits`, {
      executionsPerMinute: 5,
      dailySandboxSeconds: null,
    });
    expect(own.status).toBe(200);
    expect(own.body.limits.limits).toEqual({
      executionsPerMinute: 5,
      concurrentSandboxRuns: 2,
      dailySandboxSeconds: null,
    });
    expect(own.body.limits.overrides).toEqual({
      executionsPerMinute: 5,
      dailySandboxSeconds: null,
    });
    // PUT replaces the overrides: a field left out follows the defaults again.
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 10 });
    const read = await t.api.get(`/api/keys/${key.id}`);
    expect(read.body.limits.limits).toEqual({
      executionsPerMinute: 60,
      concurrentSandboxRuns: 2,
      dailySandboxSeconds: 10,
    });
    expect((await t.api.get("/api/settings")).body.settings.defaultLimits).toEqual({
      executionsPerMinute: 60,
      concurrentSandboxRuns: 2,
      dailySandboxSeconds: 3600,
    });
  });

  it.each([
    [{ executionsPerMinute: -1 }, "executionsPerMinute"],
    [{ concurrentSandboxRuns: 1.5 }, "concurrentSandboxRuns"],
    [{ dailySandboxSeconds: "60" }, "dailySandboxSeconds"],
    [{ perHour: 5 }, ""],
  ])("refuses %j with 400 invalid_input and changes nothing", async (body, field) => {
    await t.api.put(`/api/keys/${key.id}/limits`, { executionsPerMinute: 7 });
    const res = await t.api.put(`/api/keys/${key.id}/limits`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_input");
    expect(JSON.stringify(res.body.error.details)).toContain(field);
    const settings = await t.api.put("/api/settings", { defaultLimits: body });
    expect(settings.status).toBe(400);
    const read = await t.api.get(`/api/keys/${key.id}`);
    expect(read.body.limits.overrides).toEqual({ executionsPerMinute: 7 });
    expect(read.body.limits.limits.dailySandboxSeconds).toBeNull();
  });

  it("answers 404 api_key_not_found for the limits of an unknown key, and 403 to an API key", async () => {
    const res = await t.api.put("/api/keys/no-such-key/limits", { executionsPerMinute: 1 });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("api_key_not_found");
    const byKey = await asKey().put(`/api/keys/${key.id}/limits`, { executionsPerMinute: null });
    expect(byKey.status).toBe(403);
  });
});

describe("sandbox runs", () => {
  it("counts the sandbox builtins and code skills as sandbox runs, and nothing else", async () => {
    const uses = async (ref: string) =>
      t.services.limiter.usesSandbox(await t.services.skills.resolveRef(ref, null));
    expect(await uses("eval_code")).toBe(true);
    expect(await uses("execute_command")).toBe(true);
    expect(await uses("browser")).toBe(true);
    expect(await uses("http_request")).toBe(false);
    expect(await uses("file_read")).toBe(false);
    // A code skill runs under the code handler (docs/custom-skills.md#code-skills).
    const http = await t.services.skills.resolveRef("http_request", null);
    expect(t.services.limiter.usesSandbox({ ...http, handlerCode: CODE_HANDLER_NAME })).toBe(true);
  });
});

describe("executions per minute", () => {
  it("answers 429 rate_limited with Retry-After and RateLimit fields once the minute's executions are used", async () => {
    await t.api.put(`/api/keys/${key.id}/limits`, { executionsPerMinute: 2 });
    expect((await run("echoer", { text: "a" })).status).toBe(200);
    expect((await run("echoer", { text: "b" })).status).toBe(200);
    const refused = await run("echoer", { text: "c" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("45");
    expect(refused.headers.get("ratelimit-policy")).toBe('"executions-per-minute";q=2;w=60');
    expect(refused.headers.get("ratelimit")).toBe('"executions-per-minute";r=0;t=45');
    expect(refused.body).toEqual({
      error: {
        code: "rate_limited",
        message: "Rate limit reached for this API key: 2 executions per minute; retry in 45 s",
        details: { limit: "executionsPerMinute", value: 2, retryAfterS: 45 },
      },
    });
    // Nothing was recorded for the refused call.
    expect((await asKey().get("/api/skills/executions")).body.total).toBe(2);
    // Management is never limited; the next minute starts a new window.
    const global = await t.api.post("/api/skills/install", {
      name: "global-echo",
      version: "1.0.0",
      description: "Echo for everyone",
      schema: { input: {} },
      handlerCode: "echo-handler",
    });
    expect(global.status).toBe(201);
    const asManagement = await t.api.post("/api/skills/executions", {
      skillName: "global-echo",
      input: {},
    });
    expect(asManagement.status).toBe(200);
    now += 45_000;
    expect((await run("echoer", { text: "d" })).status).toBe(200);
    const usage = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(usage).toMatchObject({ executionsToday: 3, executionsThisMinute: 1 });
  });

  it("gives a model's intercepted call a tool error saying the limit was reached; the turn goes on", async () => {
    await t.api.put(`/api/keys/${key.id}/limits`, { executionsPerMinute: 3 });
    // The response calls the skill twice (call_1, call_3) beside a client tool (call_2).
    const response = json(chatResponse("echoer_v1_0_0"));
    const first = await asKey().post("/api/skills/intercept", { format: "openai-chat", response });
    expect(first.status).toBe(200);
    expect(first.body.toolResults.map((r: { status: string }) => r.status)).toEqual([
      "success",
      "success",
    ]);
    const second = await asKey().post("/api/skills/intercept", { format: "openai-chat", response });
    expect(second.status).toBe(200);
    const results = second.body.toolResults as { status: string; error?: string; callId: string }[];
    expect(results.map((r) => r.status).sort()).toEqual(["error", "success"]);
    const refused = results.find((r) => r.status === "error")!;
    const message = "Rate limit reached for this API key: 3 executions per minute; retry in 45 s";
    expect(refused.error).toBe(message);
    // The model gets it as the call's tool message; the client's own call still passes through.
    const toolMessage = second.body.messages.find(
      (m: { tool_call_id: string }) => m.tool_call_id === refused.callId,
    );
    expect(JSON.parse(toolMessage.content)).toEqual({ status: "error", error: message });
    expect(second.body.passThrough).toEqual(["call_2"]);
  });

  it("answers an MCP tools/call over the limit with a tool error result (isError), recording nothing", async () => {
    await t.api.put(`/api/keys/${key.id}/limits`, { executionsPerMinute: 1 });
    const client = await connectMcp(t.url, key.key);
    try {
      const ok = await callTool(client, "echoer_v1_0_0", { text: "x" });
      expect(ok.isError).toBeFalsy();
      const refused = await callTool(client, "echoer_v1_0_0", { text: "y" });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({
        status: "error",
        error: "Rate limit reached for this API key: 1 execution per minute; retry in 45 s",
        executionId: null,
      });
    } finally {
      await client.close();
    }
    expect((await asKey().get("/api/skills/executions")).body.total).toBe(1);
  });
});

describe("concurrent sandbox runs", () => {
  it("refuses a second run while the first goes, with 429 concurrency_limited, and admits one after", async () => {
    await t.api.put(`/api/keys/${key.id}/limits`, {
      concurrentSandboxRuns: 1,
      executionsPerMinute: 100,
    });
    const first = run("boxed");
    await until(() => started === 1);
    const refused = await run("boxed");
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("concurrency_limited");
    expect(refused.body.error.details).toEqual({
      limit: "concurrentSandboxRuns",
      value: 1,
      retryAfterS: 1,
    });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("ratelimit-policy")).toBe(
      '"executions-per-minute";q=100;w=60, "concurrent-sandbox-runs";q=1;qu="concurrent-requests"',
    );
    expect(refused.headers.get("ratelimit")).toBe('"concurrent-sandbox-runs";r=0');
    // Runs that do not use the sandbox are not held back.
    expect((await run("echoer")).status).toBe(200);
    expect((await t.api.get(`/api/keys/${key.id}`)).body.limits.usage.concurrentSandboxRuns).toBe(
      1,
    );
    gates.shift()!();
    expect((await first).status).toBe(200);
    const again = run("boxed");
    await until(() => started === 2);
    gates.shift()!();
    expect((await again).status).toBe(200);
  });
});

describe("daily sandbox seconds", () => {
  it("lets exactly one of many concurrent callers reserve the last of the budget", async () => {
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 5 });
    const answers: number[] = [];
    const calls = Array.from({ length: 8 }, () =>
      run("boxed", { seconds: 2 }).then((r) => {
        answers.push(r.status);
        return r;
      }),
    );
    // Seven are refused while the winner's run holds its whole time limit (5 s) in reserve.
    await until(() => answers.length === 7);
    expect(started).toBe(1);
    const reserved = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(reserved).toMatchObject({ reservedSandboxSeconds: 5, remainingSandboxSeconds: 0 });
    gates.shift()!();
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(7);
    expect(new Set(refused.map((r) => r.body.error.code))).toEqual(new Set(["quota_exceeded"]));
    // The run settled to what it took (2 s of 5), so 3 s are left: a 5 s run no longer fits.
    const usage = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(usage).toMatchObject({
      sandboxRunsToday: 1,
      sandboxSecondsToday: 2,
      reservedSandboxSeconds: 0,
      remainingSandboxSeconds: 3,
      executionsToday: 1,
    });
    const over = await run("boxed", { seconds: 1 });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("quota_exceeded");
    expect(over.body.error.message).toBe(
      "Daily sandbox budget reached for this API key: 5 s per UTC day, 3 s left; this run needs 5 s free (its time limit). Ask for a smaller timeoutMs, or retry after 00:00 UTC",
    );
    const toMidnight = String((Date.UTC(2026, 2, 5) - (START + 2000)) / 1000);
    expect(over.headers.get("retry-after")).toBe(toMidnight);
    expect(over.headers.get("ratelimit-policy")).toBe(
      '"daily-sandbox-seconds";q=5;w=86400;skillgate-unit="sandbox-seconds"',
    );
    expect(over.headers.get("ratelimit")).toBe(`"daily-sandbox-seconds";r=3;t=${toMidnight}`);
  });

  it("starts a new budget on the next UTC day", async () => {
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 5 });
    const first = run("boxed", { seconds: 4 });
    await until(() => started === 1);
    gates.shift()!();
    expect((await first).status).toBe(200);
    expect((await run("boxed")).status).toBe(429);
    now = Date.UTC(2026, 2, 5, 0, 0, 1);
    const next = run("boxed", { seconds: 1 });
    await until(() => started === 2);
    gates.shift()!();
    expect((await next).status).toBe(200);
    const usage = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(usage).toMatchObject({ day: "2026-03-05", sandboxSecondsToday: 1 });
  });
});

describe("approvals", () => {
  it("counts a model's call awaiting approval once, and holds its approval to the sandbox limits", async () => {
    await install("held", "box-handler", 4_000, "hybrid");
    await t.api.put(`/api/keys/${key.id}/limits`, {
      executionsPerMinute: 1,
      dailySandboxSeconds: 3,
    });
    const response = json(chatResponse("held_v1_0_0"));
    const asked = await asKey().post("/api/skills/intercept", { format: "openai-chat", response });
    const statuses = asked.body.toolResults.map((r: { status: string }) => r.status).sort();
    // Two calls of the skill in one turn: one awaits approval, the other is over the minute's limit.
    expect(statuses).toEqual(["error", "pending_approval"]);
    const id = asked.body.toolResults.find(
      (r: { status: string }) => r.status === "pending_approval",
    ).executionId as string;
    // The run needs 4 s of a 3 s budget: approving answers 429 and the execution stays pending.
    const refused = await t.api.post(`/api/skills/executions/${id}/approve`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("quota_exceeded");
    const still = await t.api.get(`/api/skills/executions/${id}`);
    expect(still.body.execution).toMatchObject({ status: "pending", approval: "required" });
    // With room in the budget the approval runs it; it does not count as a new execution.
    await t.api.put(`/api/keys/${key.id}/limits`, {
      executionsPerMinute: 1,
      dailySandboxSeconds: 10,
    });
    const approving = t.api.post(`/api/skills/executions/${id}/approve`);
    await until(() => started === 1);
    gates.shift()!();
    const approved = await approving;
    expect(approved.status).toBe(200);
    expect(approved.body.execution.status).toBe("success");
    const usage = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(usage).toMatchObject({
      executionsToday: 1,
      sandboxRunsToday: 1,
      reservedSandboxSeconds: 0,
    });
  });
});
