/**
 * The API side against a real host started in-process on 127.0.0.1: the signing client and the
 * `eval_code` / `execute_command` handlers, with the outcome mapping of docs/execution.md#outcomes,
 * abort → kill through the host, and `sandbox_unavailable` / `sandbox_busy` that never hang.
 */
import { createServer, type Server } from "node:net";
import { createClient } from "@libsql/client";
import type { SandboxRunResult } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import { createDb } from "../../workers/src/db/client.js";
import type { AppDeps } from "../../workers/src/deps.js";
import { createSandboxClient, sandboxClientFromConfig } from "../../workers/src/sandbox/client.js";
import {
  createSandboxHandlers,
  SANDBOX_REPORT_GRACE_MS,
  sandboxDefinitions,
} from "../../workers/src/skills/builtins/sandbox.js";
import type { HandlerContext, Skill } from "../../workers/src/skills/types.js";
import { expectFailure } from "../support/fakes/handler-context.js";
import {
  imageOnEngine,
  requireDocker,
  SKIP_DOCKER,
  signedFetch,
  startTestHost,
  type TestHost,
} from "./helpers.js";

const skill: Skill = {
  id: "builtin-eval",
  name: "eval_code",
  version: "1.0.0",
  description: "",
  schema: { input: { type: "object" } },
  handlerCode: "eval_code",
  handler: null,
  instructions: null,
  enabled: true,
  mode: "auto",
  policy: "hybrid",
  sourceProvider: "builtin",
  sourceRef: null,
  tags: [],
  installCount: 0,
  timeoutMs: null,
  autoUpgrade: null,
  apiKeyId: null,
  createdAt: new Date(0).toISOString(),
  updatedAt: new Date(0).toISOString(),
};

function ctxOf(signal = new AbortController().signal, timeoutMs = 65_000): HandlerContext {
  return {
    apiKeyId: null,
    sessionId: null,
    executionId: "execution-1",
    signal,
    skill,
    attempt: 1,
    timeoutMs,
  };
}

function depsOf(env: Record<string, string>): AppDeps {
  const config = parseConfig(env);
  return {
    db: createDb(createClient({ url: ":memory:" })),
    cache: new MemoryCache(),
    config,
    sandbox: sandboxClientFromConfig(config),
  };
}

describe("sandbox builtin declarations", () => {
  it("declare their default policies and a limit of the call's timeoutMs, default and cap", () => {
    const config = parseConfig({});
    const evalCode = sandboxDefinitions.find((d) => d.name === "eval_code")!;
    const exec = sandboxDefinitions.find((d) => d.name === "execute_command")!;
    expect(evalCode).toMatchObject({ policy: "hybrid", mode: "auto" });
    expect(evalCode.tags).toEqual(expect.arrayContaining(["code", "python", "javascript", "run"]));
    expect(exec.policy).toBe("manual");
    const timing = evalCode.timing!(config);
    expect(timing.limitFromInput!({ language: "python", code: "1" })).toBeUndefined();
    expect(timing.limitFromInput!({ timeoutMs: 2000 })).toBe(2000);
    expect(timing).toMatchObject({
      defaultLimitMs: 10_000,
      maxLimitMs: 60_000,
      // The wait for a slot comes on top of the program's limit (SANDBOX_QUEUE_WAIT_MS, 10 s).
      graceMs: SANDBOX_REPORT_GRACE_MS + 10_000,
    });
    expect(exec.timing!(parseConfig({ SKILLS_SANDBOX_TIMEOUT_MS: "3000" })).defaultLimitMs).toBe(
      3000,
    );
  });

  it("fail with a retryable sandbox_unavailable when no host is configured", async () => {
    const handlers = createSandboxHandlers(depsOf({}));
    const f = await expectFailure(
      handlers.eval_code!({ language: "python", code: "print(1)" }, ctxOf()),
    );
    expect(f).toMatchObject({ code: "sandbox_unavailable", retryable: true, status: "error" });
  });
});

describe.skipIf(SKIP_DOCKER)("sandbox client and builtins against a real host", () => {
  let t: TestHost;
  let busy: TestHost;
  let deps: AppDeps;
  let handlers: ReturnType<typeof createSandboxHandlers>;

  beforeAll(async () => {
    await requireDocker();
    t = await startTestHost("builtins");
    busy = await startTestHost("busy", { SANDBOX_MAX_CONCURRENCY: "1", SANDBOX_MAX_QUEUE: "0" });
    deps = depsOf({ SANDBOX_URL: t.host.url, SANDBOX_SECRET: t.secret, SANDBOX_KEY_ID: "k1" });
    handlers = createSandboxHandlers(deps);
  });

  afterAll(async () => {
    await Promise.all([t?.close(), busy?.close()]);
    if (t) expect(await t.containers()).toEqual([]);
    if (busy) expect(await busy.containers()).toEqual([]);
  });

  it("eval_code python print(6*7) succeeds with stdout 42", async () => {
    const out = (await handlers.eval_code!(
      { language: "python", code: "print(6*7)" },
      ctxOf(),
    )) as SandboxRunResult;
    expect(out).toMatchObject({ exitCode: 0, stdout: "42\n", timedOut: false, oomKilled: false });
    const js = (await handlers.eval_code!(
      { language: "javascript", code: "console.log([1, 2].map((x) => x * 21).join(','))" },
      ctxOf(),
    )) as SandboxRunResult;
    expect(js.stdout).toBe("21,42\n");
  });

  it("execute_command passes mixed arguments as argv", async () => {
    const out = (await handlers.execute_command!(
      { command: "echo", args: ["a b", 7, true] },
      ctxOf(),
    )) as SandboxRunResult;
    expect(out).toMatchObject({ exitCode: 0, stdout: "a b 7 true\n" });
  });

  it("a timed-out run ends as status timeout with its partial output", async () => {
    const f = await expectFailure(
      handlers.eval_code!(
        {
          language: "python",
          code: "print('tick', flush=True)\nwhile True: pass",
          timeoutMs: 2000,
        },
        ctxOf(undefined, 2000),
      ),
    );
    expect(f.status).toBe("timeout");
    expect(f.output).toMatchObject({ timedOut: true, stdout: "tick\n" });
    expect(await t.containers()).toEqual([]);
  });

  it("a memory bomb ends as error with oomKilled in the output", async () => {
    const f = await expectFailure(
      handlers.eval_code!({ language: "python", code: "b = bytearray(10**9)" }, ctxOf()),
    );
    expect(f).toMatchObject({ status: "error", code: "oom_killed" });
    expect(f.message).toMatch(/memory/);
    expect(f.output).toMatchObject({ oomKilled: true });
  });

  it("a non-zero exit is an error that keeps the whole result", async () => {
    const f = await expectFailure(
      handlers.eval_code!(
        { language: "python", code: "import sys\nprint('out')\nsys.exit(3)" },
        ctxOf(),
      ),
    );
    expect(f).toMatchObject({ status: "error", code: "nonzero_exit", retryable: false });
    expect(f.message).toContain("exited with code 3");
    expect(f.output).toMatchObject({ exitCode: 3, stdout: "out\n" });
  });

  it("aborting the execution kills the run through the host", async () => {
    const controller = new AbortController();
    const pending = handlers.eval_code!(
      { language: "python", code: "import time\ntime.sleep(50)", timeoutMs: 55_000 },
      ctxOf(controller.signal),
    );
    await new Promise((r) => setTimeout(r, 1500));
    controller.abort();
    const f = await expectFailure(pending);
    expect(f.code).toBe("aborted");
    const gone = async () => (await t.containers()).length === 0 && t.host.runner.active === 0;
    const deadline = Date.now() + 10_000;
    while (!(await gone()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await gone()).toBe(true);
  });

  it("an unreachable host fails fast with a retryable sandbox_unavailable", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const down = createSandboxHandlers(
      depsOf({ SANDBOX_URL: `http://127.0.0.1:${port}`, SANDBOX_SECRET: t.secret }),
    );
    const f = await expectFailure(
      down.eval_code!({ language: "python", code: "print(1)" }, ctxOf()),
    );
    expect(f).toMatchObject({ code: "sandbox_unavailable", retryable: true });
  });

  it("a host that accepts but never answers does not hang the client", async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as { port: number }).port;
    try {
      const client = createSandboxClient({
        baseUrl: `http://127.0.0.1:${port}`,
        secret: t.secret,
        runOverheadMs: 500,
        controlTimeoutMs: 500,
        queueWaitMs: 500,
      });
      const f = await expectFailure(
        client.run({ language: "python", code: "print(1)", timeoutMs: 500 }),
      );
      // It never acknowledged the start, but a silent host may still start it: the run's outcome
      // is unknown and it is not retried (docs/sandbox.md#at-most-once).
      expect(f).toMatchObject({ code: "sandbox_outcome_unknown", retryable: false });
      await expect(client.health()).rejects.toMatchObject({ code: "sandbox_unavailable" });
    } finally {
      silent.close();
    }
  });

  it("a saturated host answers 429 with Retry-After, a retryable sandbox_busy for the client", async () => {
    const long = busy.client.run({
      language: "python",
      code: "import time\ntime.sleep(20)",
      timeoutMs: 20_000,
      runId: "hog",
    });
    const deadline = Date.now() + 10_000;
    while ((await busy.client.health()).running === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const f = await expectFailure(
      busy.client.run({ language: "python", code: "print(1)", timeoutMs: 5000 }),
    );
    expect(f).toMatchObject({ code: "sandbox_busy", retryable: true, retryAfterS: 1 });
    expect(f.message).toMatch(/did not run/);
    const raw = await signedFetch(busy.host.url, "/v1/run", {
      secret: busy.secret,
      body: JSON.stringify({ language: "python", code: "print(1)", timeoutMs: 5000 }),
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await busy.client.kill("hog");
    // Killed: SIGKILL (137) once its program was handed over, 409 killed while its container was
    // still being made ready.
    expect(
      await long.then(
        (r) => r.exitCode,
        (e: { code?: string }) => e.code,
      ),
    ).toSatisfy((v: unknown) => v === 137 || v === "killed");
  });

  it("reports the host's health through the client", async () => {
    const health = await deps.sandbox!.health();
    expect(health).toMatchObject({ ok: true, docker: true, running: 0, queued: 0 });
    expect(health.images.python).toBe("skillgate-local/python:latest");
    expect(health.images.browser).toBe("skillgate-local/browser:latest");
    expect(health.imagesPresent).toMatchObject({ node: true, python: true, shell: true });
    expect(health.imagesPresent?.browser).toBe(
      await imageOnEngine("skillgate-local/browser:latest"),
    );
    expect(Number.isNaN(Date.parse(health.imagesCheckedAt ?? ""))).toBe(false);
  });
});
