/**
 * When the per-key limiter cannot be reached (docs/rate-limits.md#when-the-limiter-is-unreachable):
 * each limit fails the way the operator set — by default executions per minute fail open (counted
 * in process instead, still limited per process) and sandbox runs fail closed (503
 * `limiter_unavailable`, nothing recorded, nothing run). The limiter here is the Worker's Durable
 * Object client pointed at a closed port on 127.0.0.1: every call fails to connect.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DurableObjectWindows } from "../../workers/src/runtime/worker/durable-windows.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { captureConsole } from "../support/console-capture.js";

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startWithUnreachableLimiter(env: Record<string, string> = {}) {
  const port = await closedPort();
  const namespace = {
    idFromName: (name: string) => name,
    get: () => ({
      fetch: (_url: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}/`, init),
    }),
  };
  const t = await startTestApp({
    env,
    deps: { shortWindows: new DurableObjectWindows(namespace, 1000) },
  });
  t.services.executor.registerHandler("plain-run", async () => ({ ran: true }));
  t.services.executor.registerHandler("boxed-run", async () => ({ ran: true }));
  t.services.limiter.countAsSandbox("boxed-run");
  const key = await t.api.post("/api/keys", { name: "unreachable-limiter" });
  expect(key.status).toBe(201);
  for (const [name, handlerCode] of [
    ["plain-skill", "plain-run"],
    ["boxed-skill", "boxed-run"],
  ]) {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description: name,
      schema: { input: { type: "object" } },
      handlerCode,
    });
    expect(res.status).toBe(201);
  }
  const put = await t.api.put(`/api/keys/${key.body.apiKey.id}/limits`, {
    executionsPerMinute: 1,
    concurrentSandboxRuns: 5,
  });
  expect(put.status).toBe(200);
  const run = (skillName: string) =>
    t.api.as(key.body.key).post("/api/skills/executions", { skillName, input: {} });
  const rows = async () =>
    Number((await t.client.execute("select count(*) as n from skill_executions")).rows[0]?.n);
  return { t, run, rows };
}

describe("the per-key limiter unreachable", () => {
  let t: TestApp | undefined;
  const capture = captureConsole();
  afterAll(() => capture.restore());
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("by default: executions fail open (limited in process), sandbox runs fail closed with 503", async () => {
    const s = await startWithUnreachableLimiter();
    t = s.t;
    const first = await s.run("plain-skill");
    expect(first.status).toBe(200);
    expect(first.body.execution.output).toEqual({ ran: true });
    // Still limited, in process: the key's one execution this minute is spent.
    const second = await s.run("plain-skill");
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe("rate_limited");
    const boxed = await s.run("boxed-skill");
    expect(boxed.status).toBe(503);
    expect(boxed.body.error.code).toBe("limiter_unavailable");
    expect(boxed.headers.get("retry-after")).toBe("1");
    expect(await s.rows()).toBe(1);
    expect(capture.lines.some((l) => l.includes("per-key limiter could not be reached"))).toBe(
      true,
    );
  });

  it("sandbox runs set to fail open run, counted in process", async () => {
    const s = await startWithUnreachableLimiter({ KEY_LIMITER_ON_UNREACHABLE_SANDBOX: "open" });
    t = s.t;
    const boxed = await s.run("boxed-skill");
    expect(boxed.status).toBe(200);
    expect(boxed.body.execution.output).toEqual({ ran: true });
    expect(await s.rows()).toBe(1);
  });

  it("executions set to fail closed answer 503 and record nothing", async () => {
    const s = await startWithUnreachableLimiter({
      KEY_LIMITER_ON_UNREACHABLE_EXECUTIONS: "closed",
    });
    t = s.t;
    const plain = await s.run("plain-skill");
    expect(plain.status).toBe(503);
    expect(plain.body.error.code).toBe("limiter_unavailable");
    expect(await s.rows()).toBe(0);
  });

  it("rejects a fail direction that is neither open nor closed at start-up", async () => {
    await expect(
      startTestApp({ env: { KEY_LIMITER_ON_UNREACHABLE_SANDBOX: "maybe" } }),
    ).rejects.toThrow(/KEY_LIMITER_ON_UNREACHABLE_SANDBOX/);
  });
});
