/**
 * The execute API against a real sandbox host with one slot: when the host has no room, the
 * program does not run, the API answers 429 `sandbox_busy` with Retry-After and the row says the
 * program did not run (never a 200 with an error row); a queued run waits at most its queue wait
 * and then ends `queue_timeout` (never a timeout), and the wait is not taken from the program's
 * limit. And
 * the timeout of a run that did start names the limit the call asked for (the runaway-loop case through the
 * API, no container left).
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "./helpers.js";

/** Starts a host with `env` and an app using it; runs `body`; closes both. */
async function withHostAndApp(
  name: string,
  env: Record<string, string>,
  body: (host: TestHost, app: TestApp) => Promise<void>,
): Promise<void> {
  await requireDocker();
  const host = await startTestHost(name, env);
  const app = await startTestApp({ deps: { sandbox: host.client } });
  try {
    await body(host, app);
  } finally {
    await app.close();
    await host.close();
  }
  expect(await host.containers()).toEqual([]);
}

/** Occupies the host's only slot with a sleeping run until the returned stop() is called. */
async function occupySlot(host: TestHost): Promise<{ stop(): Promise<void> }> {
  const runId = `hog-${randomBytes(4).toString("hex")}`;
  const running = host.client
    .run({ language: "python", code: "import time\ntime.sleep(50)", timeoutMs: 55_000, runId })
    .catch(() => undefined);
  const deadline = Date.now() + 15_000;
  while ((await host.client.health()).running === 0 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  expect((await host.client.health()).running).toBe(1);
  return {
    stop: async () => {
      await host.client.kill(runId);
      await running;
    },
  };
}

const evalCode = (app: TestApp, code: string, timeoutMs: number) =>
  app.api.post("/api/skills/executions", {
    skillName: "eval_code",
    input: { language: "python", code, timeoutMs },
  });

describe.skipIf(SKIP_DOCKER)("a saturated sandbox host through the execute API", () => {
  it("no free slot and no queue: 429 sandbox_busy with Retry-After; the row says it did not run", async () => {
    await withHostAndApp(
      "busy-api",
      { SANDBOX_MAX_CONCURRENCY: "1", SANDBOX_MAX_QUEUE: "0" },
      async (host, app) => {
        const hog = await occupySlot(host);
        try {
          const res = await evalCode(app, "print('never')", 2_500);
          expect(res.status).toBe(429);
          expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
          expect(res.body.error.code).toBe("sandbox_busy");
          expect(res.body.error.message).toMatch(/did not run/);
          const row = res.body.error.details.execution;
          expect(row).toMatchObject({
            skillName: "eval_code",
            status: "error",
            errorCode: "sandbox_busy",
            output: null,
          });
          expect(row.attempts).toBeGreaterThanOrEqual(2);
          const stored = await app.api.get(`/api/skills/executions/${row.id}`);
          expect(stored.body.execution).toMatchObject({
            status: "error",
            errorCode: "sandbox_busy",
            output: null,
          });
          expect(stored.body.execution.errorMessage).toMatch(/did not run/);
          expect((await host.containers()).length).toBe(1);
        } finally {
          await hog.stop();
        }
      },
    );
  });

  it("a queued run that gets no slot within its queue wait ends 429 queue_timeout, never a timeout", async () => {
    await requireDocker();
    const host = await startTestHost("queue-api", {
      SANDBOX_MAX_CONCURRENCY: "1",
      SANDBOX_MAX_QUEUE: "1",
      SANDBOX_QUEUE_TIMEOUT_MS: "60000",
    });
    // The API waits 1.5 s for a slot (SANDBOX_QUEUE_WAIT_MS), apart from the program's 10 s.
    const client = createSandboxClient({
      baseUrl: host.host.url,
      secret: host.secret,
      queueWaitMs: 1_500,
    });
    const app = await startTestApp({
      deps: { sandbox: client },
      env: { SANDBOX_QUEUE_WAIT_MS: "1500" },
    });
    try {
      const hog = await occupySlot(host);
      try {
        const res = await evalCode(app, "print('never')", 10_000);
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe("queue_timeout");
        const row = res.body.error.details.execution;
        expect(row).toMatchObject({ status: "error", errorCode: "queue_timeout", output: null });
        expect(row.errorMessage).toMatch(/never started/);
        expect(row.errorMessage).not.toMatch(/timed out/);
        const stored = (await app.api.get(`/api/skills/executions/${row.id}`)).body.execution;
        expect(stored.sandbox).toEqual({
          host: new URL(host.host.url).origin,
          queueWaitMs: 1_500,
          programMs: null,
        });
        expect((await host.client.health()).queued).toBe(0);
      } finally {
        await hog.stop();
      }
    } finally {
      await app.close();
      await host.close();
    }
    expect(await host.containers()).toEqual([]);
  });

  it("a burst on one slot: a 200 only for runs that started, a 429 busy row for the others", async () => {
    await withHostAndApp(
      "burst-api",
      { SANDBOX_MAX_CONCURRENCY: "1", SANDBOX_MAX_QUEUE: "0" },
      async (_host, app) => {
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) => evalCode(app, `print(${i} * 7)`, 4_000)),
        );
        for (const res of answers) {
          if (res.status === 200) {
            // It ran: a success, or (on a loaded machine, with what was left of the limit after
            // waiting for the slot) a timeout with the run's own result.
            expect(["success", "timeout"]).toContain(res.body.execution.status);
            expect(res.body.execution.output).toMatchObject({ image: expect.any(String) });
          } else {
            expect(res.status).toBe(429);
            expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
            expect(res.body.error.details.execution).toMatchObject({
              status: "error",
              errorCode: "sandbox_busy",
            });
          }
        }
        const statuses = answers.map((r) => r.status);
        expect(statuses).toContain(200);
        expect(statuses).toContain(429);
        const rows = (await app.api.get("/api/skills/executions?skill=eval_code&limit=50")).body;
        expect(rows.total).toBe(6);
        const busy = rows.data.filter((e: { errorCode: string }) => e.errorCode === "sandbox_busy");
        expect(busy.length).toBe(statuses.filter((s) => s === 429).length);
        expect(rows.data.filter((e: { status: string }) => e.status === "error").length).toBe(
          busy.length,
        );
      },
    );
  });
});

describe.skipIf(SKIP_DOCKER)("timeouts through the execute API", () => {
  it("C13: timeoutMs 2000 ends as timeout 'after 2000 ms' in one attempt, container gone", async () => {
    await withHostAndApp("c13-api", {}, async (host, app) => {
      const res = await evalCode(app, "print('tick', flush=True)\nwhile True: pass", 2_000);
      expect(res.status).toBe(200);
      expect(res.body.execution).toMatchObject({
        status: "timeout",
        errorCode: "timeout",
        errorMessage: "Skill execution timed out after 2000 ms",
        attempts: 1,
      });
      expect(res.body.execution.output).toMatchObject({ timedOut: true, stdout: "tick\n" });
      expect(await host.containers()).toEqual([]);
    });
  });
});

describe.skipIf(SKIP_DOCKER)("the host's queue and the run's limit", () => {
  it("a wait for a slot is not taken from the program's limit; both times are reported", async () => {
    await requireDocker();
    const host = await startTestHost("queue-limit", {
      SANDBOX_MAX_CONCURRENCY: "1",
      SANDBOX_MAX_QUEUE: "1",
      SANDBOX_QUEUE_TIMEOUT_MS: "60000",
    });
    try {
      const first = host.client.run({
        language: "python",
        code: "import time\ntime.sleep(1.5)",
        timeoutMs: 20_000,
      });
      const deadline = Date.now() + 15_000;
      while ((await host.client.health()).running === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const second = await host.client.run({
        language: "python",
        code: "while True: pass",
        timeoutMs: 3_000,
      });
      expect((await first).exitCode).toBe(0);
      expect(second.timedOut).toBe(true);
      // It waited for the slot, then its program had the whole 3 s of its limit.
      expect(second.queueWaitMs).toBeGreaterThanOrEqual(500);
      expect(second.durationMs).toBeGreaterThanOrEqual(3_000);
      expect(second.limits?.timeoutMs).toBe(3_000);
    } finally {
      await host.close();
    }
    expect(await host.containers()).toEqual([]);
  });
});
