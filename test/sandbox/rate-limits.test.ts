/**
 * Per-key sandbox limits with real Docker (docs/rate-limits.md): `eval_code` runs count against
 * the key's concurrent sandbox runs and its daily budget of sandbox seconds, which settles to what
 * the run took.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "./helpers.js";

describe.skipIf(SKIP_DOCKER)("sandbox limits of a key with real Docker", () => {
  let host: TestHost;
  let t: TestApp;
  beforeAll(async () => {
    await requireDocker();
    host = await startTestHost("limits");
    t = await startTestApp({ deps: { sandbox: host.client } });
  });
  afterAll(async () => {
    await t?.close();
    await host?.close();
  });

  const evalAs = (key: string, code: string, timeoutMs: number) =>
    t.api.as(key).post("/api/skills/executions", {
      skillName: "eval_code",
      input: { language: "python", code, timeoutMs },
    });
  interface Usage {
    sandboxRunsToday: number;
    sandboxSecondsToday: number;
    reservedSandboxSeconds: number;
    concurrentSandboxRuns: number;
  }
  const usageOf = async (id: string): Promise<Usage> =>
    (await t.api.get(`/api/keys/${id}`)).body.limits.usage;

  it("accounts an eval_code run's seconds and refuses a run whose time limit no longer fits", async () => {
    const key = await t.api.createKey("sandbox-budget");
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: 30 });
    const ok = await evalAs(key.key, "print(6*7)", 3_000);
    expect(ok.status).toBe(200);
    expect(ok.body.execution.output.stdout).toBe("42\n");
    const used = await usageOf(key.id);
    expect(used.sandboxRunsToday).toBe(1);
    expect(used.reservedSandboxSeconds).toBe(0);
    expect(used.sandboxSecondsToday).toBeGreaterThan(0);
    expect(used.sandboxSecondsToday).toBeLessThan(30);
    // Leave less than 3 s of budget: the next 3 s run is refused before anything runs.
    const budget = Math.ceil(used.sandboxSecondsToday) + 2;
    await t.api.put(`/api/keys/${key.id}/limits`, { dailySandboxSeconds: budget });
    const refused = await evalAs(key.key, "print(1)", 3_000);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("quota_exceeded");
    expect(refused.headers.get("ratelimit")).toMatch(/^"daily-sandbox-seconds";r=[0-2];t=\d+$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await t.api.as(key.key).get("/api/skills/executions")).body.total).toBe(1);
    // A run that asks for less time still fits.
    expect((await evalAs(key.key, "print(2)", 1_000)).status).toBe(200);
  });

  it("refuses a second concurrent eval_code run of a key limited to one", async () => {
    const key = await t.api.createKey("sandbox-concurrency");
    await t.api.put(`/api/keys/${key.id}/limits`, { concurrentSandboxRuns: 1 });
    const first = evalAs(key.key, "import time\ntime.sleep(1.5)\nprint('done')", 10_000);
    while ((await usageOf(key.id)).concurrentSandboxRuns !== 1) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const refused = await evalAs(key.key, "print(1)", 3_000);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("concurrency_limited");
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body.execution.output.stdout).toBe("done\n");
    expect((await usageOf(key.id)).concurrentSandboxRuns).toBe(0);
    expect((await evalAs(key.key, "print(3)", 3_000)).status).toBe(200);
  });
});
