/**
 * Auto-upgrade of sandbox runs (docs/execution.md#auto-upgrade), end to end: the REST API, the
 * executor, a real sandbox host on 127.0.0.1 and real containers. A run that ran out of time or
 * memory runs once more with doubled limits, capped at the host's maxima, and the execution row
 * records every attempt with its limits and the reason of the upgrade.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "./helpers.js";

/** A Python program that holds `mb` MB of written memory, then prints "held". */
const hold = (mb: number) => `x = b"a" * (${mb} * 1024 * 1024)\nprint("held", len(x) // 1048576)`;

describe.skipIf(SKIP_DOCKER)("auto-upgrade of sandbox runs", () => {
  let host: TestHost;
  let small: TestHost;
  let capped: TestHost;
  let t: TestApp;
  let tMemory: TestApp;
  let tSmall: TestApp;
  let tCapped: TestApp;
  beforeAll(async () => {
    await requireDocker();
    host = await startTestHost("upgrade");
    // Hosts whose maximum is the default memory (256 MB) or 1.5 times it.
    small = await startTestHost("upgrade-max256", { SANDBOX_MAX_MEMORY_MB: "256" });
    capped = await startTestHost("upgrade-max384", { SANDBOX_MAX_MEMORY_MB: "384" });
    // A short default limit for the timeout cases; a long one where memory runs out (at 0.1 CPU,
    // writing hundreds of MB takes a while).
    t = await startTestApp({
      env: { SKILLS_SANDBOX_TIMEOUT_MS: "2000" },
      deps: { sandbox: host.client },
    });
    const env = { SKILLS_SANDBOX_TIMEOUT_MS: "20000" };
    tMemory = await startTestApp({ env, deps: { sandbox: host.client } });
    tSmall = await startTestApp({ env, deps: { sandbox: small.client } });
    tCapped = await startTestApp({ env, deps: { sandbox: capped.client } });
  });
  afterAll(async () => {
    await Promise.all([t?.close(), tMemory?.close(), tSmall?.close(), tCapped?.close()]);
    await Promise.all([host?.close(), small?.close(), capped?.close()]);
  });

  const run = (app: TestApp, input: Record<string, unknown>) =>
    app.api.post("/api/skills/executions", { skillName: "eval_code", input });

  it("reruns a run that timed out with double the time, and it succeeds", async () => {
    const res = await run(t, {
      language: "node",
      code: "setTimeout(() => console.log('finished'), 2500)",
    });
    expect(res.status).toBe(200);
    const ex = res.body.execution;
    expect(ex).toMatchObject({ status: "success", attempts: 2, errorCode: null });
    expect(ex.output.stdout).toBe("finished\n");
    expect(ex.attemptLog).toMatchObject([
      {
        attempt: 1,
        placement: "sandbox",
        timeoutMs: 2000,
        memoryMb: 256,
        status: "timeout",
        errorCode: "timeout",
        upgradeReason: null,
      },
      {
        attempt: 2,
        placement: "sandbox",
        timeoutMs: 4000,
        memoryMb: 512,
        status: "success",
        errorCode: null,
        upgradeReason: "timeout",
      },
    ]);
    // The stored row says the same.
    const read = await t.api.get(`/api/skills/executions/${ex.id}`);
    expect(read.body.execution.attemptLog).toEqual(ex.attemptLog);
  });

  it("reruns a run killed for memory with double the memory, and it succeeds", async () => {
    const res = await run(tMemory, { language: "python", code: hold(320) });
    const ex = res.body.execution;
    expect(ex).toMatchObject({ status: "success", attempts: 2 });
    expect(ex.output.stdout).toBe("held 320\n");
    expect(ex.attemptLog.map((a: Record<string, unknown>) => [a.memoryMb, a.errorCode])).toEqual([
      [256, "oom_killed"],
      [512, null],
    ]);
    expect(ex.attemptLog[1].upgradeReason).toBe("out_of_memory");
  });

  it("ends with the upgraded attempt's failure when the upgrade is not enough, capped at the host's maximum", async () => {
    const res = await run(tCapped, { language: "python", code: hold(450) });
    const ex = res.body.execution;
    expect(ex).toMatchObject({ status: "error", errorCode: "oom_killed", attempts: 2 });
    expect(ex.output.oomKilled).toBe(true);
    expect(ex.attemptLog.map((a: Record<string, unknown>) => a.memoryMb)).toEqual([256, 384]);
    expect(ex.attemptLog[1]).toMatchObject({ upgradeReason: "out_of_memory", status: "error" });
  });

  it("does not upgrade past the host's maximum memory", async () => {
    const res = await run(tSmall, { language: "python", code: hold(320) });
    const ex = res.body.execution;
    expect(ex).toMatchObject({ status: "error", errorCode: "oom_killed", attempts: 1 });
    expect(ex.attemptLog).toHaveLength(1);
    expect(ex.attemptLog[0]).toMatchObject({ memoryMb: 256, upgradeReason: null });
  });

  it("does not upgrade a run that asked for its own limits", async () => {
    const res = await run(t, {
      language: "node",
      code: "setTimeout(() => console.log('late'), 1500)",
      timeoutMs: 500,
    });
    const ex = res.body.execution;
    expect(ex).toMatchObject({ status: "timeout", attempts: 1 });
    expect(ex.attemptLog).toMatchObject([{ timeoutMs: 500, status: "timeout" }]);
  });

  it("does not upgrade the runs of a skill whose autoUpgrade is off", async () => {
    const installed = await t.api.post("/api/skills/install", {
      name: `slow-${Date.now()}`,
      version: "1.0.0",
      handler: { type: "code", language: "node", code: "setTimeout(() => {}, 1500)" },
      timeoutMs: 500,
      autoUpgrade: false,
    });
    expect(installed.status).toBe(201);
    expect(installed.body.skill.autoUpgrade).toBe(false);
    const res = await t.api.post("/api/skills/executions", {
      skillName: installed.body.skill.name,
      input: {},
    });
    expect(res.body.execution).toMatchObject({ status: "timeout", attempts: 1 });
    // Turned on, the same skill upgrades (500 → 1000 ms is still too short; 2 attempts).
    const on = await t.api.put(`/api/skills/${installed.body.skill.id}`, {
      autoUpgrade: true,
    });
    expect(on.body.skill.autoUpgrade).toBe(true);
    const again = await t.api.post("/api/skills/executions", {
      skillName: installed.body.skill.name,
      input: {},
    });
    expect(again.body.execution).toMatchObject({ status: "timeout", attempts: 2 });
    expect(
      again.body.execution.attemptLog.map((a: Record<string, unknown>) => a.timeoutMs),
    ).toEqual([500, 1000]);
  });
  it("does not upgrade when the key's daily sandbox budget cannot cover the doubled time limit", async () => {
    const key = await t.api.createKey(`upgrade-budget-${Date.now()}`);
    // 2 s are reserved by the first phase; the upgraded phase would need 4 s more (6 > 5).
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 5 });
    const res = await t.api.as(key.key).post("/api/skills/executions", {
      skillName: "eval_code",
      input: { language: "python", code: "while True: pass" },
    });
    expect(res.status).toBe(200);
    const ex = res.body.execution;
    expect(ex).toMatchObject({ status: "timeout", attempts: 1, errorCode: "timeout" });
    expect(ex.attemptLog).toHaveLength(1);
    expect(ex.attemptLog[0]).toMatchObject({ timeoutMs: 2000, upgradeReason: null });
    expect(ex.errorMessage).toBe(
      "Skill execution timed out after 2000 ms; not upgraded: the key's daily sandbox budget cannot cover the upgraded run's 4000 ms time limit",
    );
    const read = await t.api.get(`/api/skills/executions/${ex.id}`);
    expect(read.body.execution.errorMessage).toBe(ex.errorMessage);
    const usage = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(usage.reservedSandboxSeconds).toBe(0);
    expect(usage.sandboxRunsToday).toBe(1);
    expect(usage.sandboxSecondsToday).toBeGreaterThan(0);
    expect(usage.sandboxSecondsToday).toBeLessThanOrEqual(5);
  });

  it("upgrades when the key's daily sandbox budget covers both phases, and settles both", async () => {
    const key = await t.api.createKey(`upgrade-budget-ok-${Date.now()}`);
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 6 });
    const res = await t.api.as(key.key).post("/api/skills/executions", {
      skillName: "eval_code",
      input: { language: "node", code: "setTimeout(() => console.log('finished'), 2500)" },
    });
    expect(res.body.execution).toMatchObject({ status: "success", attempts: 2 });
    const usage = (await t.api.get(`/api/keys/${key.id}`)).body.limits.usage;
    expect(usage.reservedSandboxSeconds).toBe(0);
    expect(usage.sandboxRunsToday).toBe(1);
    expect(usage.sandboxSecondsToday).toBeGreaterThan(2);
  });
});
