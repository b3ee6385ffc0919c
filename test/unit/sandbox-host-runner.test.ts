/**
 * The sandbox host's runner, warm pool and leftover sweep against a stand-in engine
 * (test/support/stand-in-engine.ts) behind the engine seam: outcomes (exit, timeout with SIGTERM
 * then SIGKILL, OOM, output cap, kill), a kill that races the program's own exit, engine failures
 * mapped to the protocol's error codes, and cleanup of every container. No Docker needed; the
 * same paths run against real Docker in test/sandbox.
 */
import type { SandboxRunRequest } from "@skillgate/sandbox-protocol";
import { describe, expect, it, vi } from "vitest";
import { parseHostConfig } from "../../sandbox-host/src/config.js";
import { LABEL_SANDBOX, LABEL_SLOT } from "../../sandbox-host/src/container.js";
import { EngineError } from "../../sandbox-host/src/docker-client.js";
import { HostError } from "../../sandbox-host/src/errors.js";
import { ImageStore } from "../../sandbox-host/src/images.js";
import { Limiter } from "../../sandbox-host/src/limiter.js";
import {
  type ContainerPhase,
  type HostMetrics,
  noopHostMetrics,
} from "../../sandbox-host/src/metrics.js";
import { WarmPool } from "../../sandbox-host/src/pool.js";
import { Runner } from "../../sandbox-host/src/runner.js";
import { type Program, StandInEngine } from "../support/stand-in-engine.js";

/** Never exits on its own. */
const forever: Program = () => new Promise(() => {});

function setup(env: Record<string, string> = {}) {
  const engine = new StandInEngine();
  const config = parseHostConfig({
    SANDBOX_SECRET: "unit-test-secret-0123456789",
    SANDBOX_INSTANCE: "unit",
    SANDBOX_KILL_GRACE_MS: "0",
    ...env,
  });
  for (const image of Object.values(config.images)) engine.images.add(image);
  const owned = new Set<string>();
  const limiter = new Limiter(config.maxConcurrency, config.maxQueue, config.queueTimeoutMs);
  const pool = new WarmPool(engine, config, owned, () => {});
  const images = new ImageStore(engine, config.pullTimeoutMs, () => {});
  const runner = new Runner({ docker: engine, config, images, limiter, pool, owned });
  return { engine, config, owned, pool, images, runner };
}

async function hostErrorOf(p: Promise<unknown>): Promise<HostError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HostError);
  return err as HostError;
}

const python = (extra: Partial<SandboxRunRequest> = {}): SandboxRunRequest => ({
  language: "python",
  code: "print(6*7)",
  ...extra,
});

describe("Runner against a stand-in engine", () => {
  it("runs a program with its code on stdin, reports the exit and removes the container", async () => {
    const { engine, runner, owned } = setup();
    const result = await runner.run(python({ runId: "ok-1" }));
    expect(result).toMatchObject({
      runId: "ok-1",
      exitCode: 0,
      signal: null,
      stdout: "print(6*7)",
      stderr: "",
      truncated: false,
      timedOut: false,
      oomKilled: false,
      image: "python:3.12-alpine",
      pooled: false,
    });
    expect(engine.containers.size).toBe(0);
    expect(owned.size).toBe(0);
    expect(runner.active).toBe(0);
  });

  it("creates the container with the sandbox flags and the python command", async () => {
    const { engine, runner } = setup();
    let seen: Record<string, unknown> | undefined;
    engine.program = (io) => {
      seen = io.options as unknown as Record<string, unknown>;
      io.exit(0);
    };
    await runner.run(python());
    expect(seen).toMatchObject({
      Image: "python:3.12-alpine",
      Cmd: ["python3", "-u", "-"],
      User: "65534:65534",
      NetworkDisabled: true,
      HostConfig: {
        NetworkMode: "none",
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        PidsLimit: 100,
        ReadonlyRootfs: true,
        NanoCpus: 100_000_000,
        Memory: 256 * 1_048_576,
        MemorySwap: 256 * 1_048_576,
      },
    });
  });

  it("ends a run past its time limit with SIGTERM and reports timedOut", async () => {
    const { engine, runner } = setup();
    engine.program = forever;
    const result = await runner.run(python({ timeoutMs: 20 }));
    expect(result).toMatchObject({ timedOut: true, exitCode: 143, signal: "SIGTERM" });
    expect(engine.calls.filter((c) => c.startsWith("kill"))).toEqual(["kill c1 SIGTERM true"]);
    expect(engine.containers.size).toBe(0);
  });

  it("sends SIGKILL after the grace when the program ignores SIGTERM", async () => {
    const { engine, runner } = setup({ SANDBOX_KILL_GRACE_MS: "5" });
    engine.program = (io) => {
      io.onSignal(() => {});
      return new Promise(() => {});
    };
    const result = await runner.run(python({ timeoutMs: 20 }));
    expect(result).toMatchObject({ timedOut: true, exitCode: 137, signal: "SIGKILL" });
    expect(engine.calls.filter((c) => c.startsWith("kill"))).toEqual([
      "kill c1 SIGTERM true",
      "kill c1 SIGKILL true",
    ]);
  });

  it("reports the OOM killer from the engine's state, apart from the exit code", async () => {
    const { engine, runner } = setup();
    engine.program = (io) => io.exit(137, { oomKilled: true });
    const result = await runner.run(python());
    expect(result).toMatchObject({
      oomKilled: true,
      exitCode: 137,
      signal: "SIGKILL",
      timedOut: false,
    });
  });

  it("takes a kill that races the program's own exit (engine: not running) as the exit", async () => {
    const { engine, runner } = setup();
    engine.program = forever;
    engine.beforeKill = (id) => engine.exitNow(id, 0);
    const result = await runner.run(python({ timeoutMs: 20 }));
    expect(engine.calls.filter((c) => c.startsWith("kill"))[0]).toBe("kill c1 SIGTERM false");
    expect(result).toMatchObject({ exitCode: 0, signal: null });
    expect(engine.containers.size).toBe(0);
  });

  it("stops a run whose output passes the cap and marks it truncated", async () => {
    const { engine, runner } = setup({ SKILLS_MAX_SANDBOX_OUTPUT_CHARS: "10" });
    engine.program = (io) => {
      io.stdout("x".repeat(100));
      return new Promise(() => {});
    };
    const result = await runner.run(python());
    expect(result).toMatchObject({
      stdout: "x".repeat(10),
      stdoutTruncated: true,
      truncated: true,
      exitCode: 137,
      timedOut: false,
    });
    expect(engine.calls).toContain("kill c1 SIGKILL true");
  });

  it("kill(runId) stops a running program; an unknown run id is not killed", async () => {
    const { engine, runner } = setup();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    engine.program = () => {
      started();
      return new Promise(() => {});
    };
    let announced!: () => void;
    const handedOver = new Promise<void>((r) => (announced = r));
    const pending = runner.run(python({ runId: "to-kill", timeoutMs: 60_000 }), undefined, () =>
      announced(),
    );
    await Promise.all([running, handedOver]);
    // The program is handed over in the microtasks after the acknowledgement.
    await new Promise((r) => setTimeout(r, 0));
    expect(runner.kill("to-kill")).toEqual({ known: true, started: true });
    expect(runner.kill("unknown")).toEqual({ known: false, started: false });
    const result = await pending;
    expect(result).toMatchObject({ exitCode: 137, signal: "SIGKILL", timedOut: false });
  });

  it("refuses a second run with an active run id (409 run_exists)", async () => {
    const { engine, runner } = setup();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    engine.program = () => {
      started();
      return new Promise(() => {});
    };
    const first = runner.run(python({ runId: "dup", timeoutMs: 60_000 }));
    await running;
    const err = await hostErrorOf(runner.run(python({ runId: "dup" })));
    expect([err.status, err.code]).toEqual([409, "run_exists"]);
    runner.kill("dup");
    await first;
  });

  it("answers 503 image_unavailable when the image vanished before the create, and checks it again next time", async () => {
    const { engine, runner } = setup();
    await runner.run(python());
    engine.images.delete("python:3.12-alpine");
    const err = await hostErrorOf(runner.run(python()));
    expect([err.status, err.code]).toEqual([503, "image_unavailable"]);
    expect(err.retryable).toBe(false);
    const again = await hostErrorOf(runner.run(python()));
    expect(again.code).toBe("image_unavailable");
    expect(engine.calls).toContain("pull python:3.12-alpine");
  });

  it("answers 503 docker_unavailable when the engine cannot start the container, and removes it", async () => {
    const { engine, runner, owned } = setup();
    engine.failStart = true;
    const err = await hostErrorOf(runner.run(python()));
    expect([err.status, err.code, err.retryable]).toEqual([503, "docker_unavailable", true]);
    expect(err.cause).toBeInstanceOf(EngineError);
    expect(engine.containers.size).toBe(0);
    expect(owned.size).toBe(0);
  });

  it("answers 503 docker_unavailable when the engine is down", async () => {
    const { engine, runner } = setup();
    engine.down = true;
    const err = await hostErrorOf(runner.run(python()));
    expect([err.status, err.code]).toEqual([503, "docker_unavailable"]);
  });

  it("refuses runs with 503 shutting_down after killAll(true)", async () => {
    const { runner } = setup();
    await runner.killAll(true);
    const err = await hostErrorOf(runner.run(python()));
    expect([err.status, err.code]).toEqual([503, "shutting_down"]);
  });
});

describe("leftover sweep against a stand-in engine", () => {
  it("removes this instance's containers no live run owns, and nothing else", async () => {
    const { engine, runner, owned } = setup();
    const stale = engine.leftover({ [LABEL_SANDBOX]: "unit", [LABEL_SLOT]: "gone-slot" });
    owned.add("live-slot");
    const live = engine.leftover({ [LABEL_SANDBOX]: "unit", [LABEL_SLOT]: "live-slot" });
    const other = engine.leftover({ [LABEL_SANDBOX]: "another-host", [LABEL_SLOT]: "x" });
    expect(await runner.sweep()).toBe(1);
    expect([...engine.containers.keys()].sort()).toEqual([live, other].sort());
    expect(engine.containers.has(stale)).toBe(false);
  });
});

describe("warm pool against a stand-in engine", () => {
  it("serves a default run from a pre-started container and starts a replacement", async () => {
    const { engine, runner, pool } = setup({ SANDBOX_POOL_SIZE: "1" });
    pool.start();
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 1 }));
    const result = await runner.run(python());
    expect(result).toMatchObject({ pooled: true, exitCode: 0, stdout: "print(6*7)" });
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 1 }));
    const custom = await runner.run(python({ env: { TZ: "UTC" } }));
    expect(custom.pooled).toBe(false);
    await pool.close();
    expect(engine.containers.size).toBe(0);
  });

  it("answers a pooled run before its container is removed, and removes it afterwards", async () => {
    const { engine, runner, pool } = setup({ SANDBOX_POOL_SIZE: "2" });
    pool.start();
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 2 }));
    let releaseRemovals!: () => void;
    engine.holdRemovals = new Promise<void>((r) => (releaseRemovals = r));
    const result = await runner.run(python());
    expect(result).toMatchObject({ pooled: true, exitCode: 0 });
    // Answered while the engine is still removing: the exited container is still there.
    const exited = () => [...engine.containers.values()].filter((c) => c.state === "exited");
    expect(exited()).toHaveLength(1);
    expect(runner.pendingRemovals).toBe(1);
    releaseRemovals();
    await vi.waitFor(() => expect(exited()).toHaveLength(0));
    expect(runner.pendingRemovals).toBe(0);
    engine.holdRemovals = undefined;
    await pool.close();
    expect(engine.containers.size).toBe(0);
  });

  it("waits at shutdown for the removals of answered pooled runs", async () => {
    const { engine, runner, pool } = setup({ SANDBOX_POOL_SIZE: "2" });
    pool.start();
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 2 }));
    let releaseRemovals!: () => void;
    engine.holdRemovals = new Promise<void>((r) => (releaseRemovals = r));
    await runner.run(python());
    let closed = false;
    const closing = runner.killAll(true).then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    releaseRemovals();
    await closing;
    expect([...engine.containers.values()].filter((c) => c.state === "exited")).toHaveLength(0);
    engine.holdRemovals = undefined;
    await pool.close();
    expect(engine.containers.size).toBe(0);
  });

  it("creates a taken container's replacement after the run answered, or at once when the pool ran dry", async () => {
    const { engine, runner, pool } = setup({ SANDBOX_POOL_SIZE: "2" });
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    engine.program = async (io) => {
      io.stdout(await io.stdin);
      await finished;
      io.exit(0);
    };
    pool.start();
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 2 }));
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "node:22-alpine": 2 }));
    const creates = () => engine.calls.filter((c) => c.startsWith("create")).length;
    const filled = creates();
    const first = runner.run(python());
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 1 }));
    await new Promise((r) => setTimeout(r, 20));
    // One container is still ready: no replacement while the run is in flight.
    expect(creates()).toBe(filled);
    // The second take empties the pool: its refill starts at once.
    const second = runner.run(python());
    await vi.waitFor(() => expect(creates()).toBeGreaterThan(filled));
    finish();
    expect(await first).toMatchObject({ pooled: true, exitCode: 0 });
    expect(await second).toMatchObject({ pooled: true, exitCode: 0 });
    await vi.waitFor(() => expect(pool.sizes()).toMatchObject({ "python:3.12-alpine": 2 }));
    await runner.killAll(true);
    await pool.close();
    expect(engine.containers.size).toBe(0);
  });

  it("times a run's first output apart from its exit, and reports no first output for a silent run", async () => {
    const { engine, config, owned, pool, images } = setup();
    const seen: ContainerPhase[] = [];
    const metrics: HostMetrics = {
      ...noopHostMetrics,
      observeContainerPhase: (phase) => void seen.push(phase),
    };
    const limiter = new Limiter(config.maxConcurrency, config.maxQueue, config.queueTimeoutMs);
    const runner = new Runner({ docker: engine, config, images, limiter, pool, owned, metrics });
    await runner.run(python());
    expect(seen).toEqual(expect.arrayContaining(["program", "output", "inspect", "remove"]));
    seen.length = 0;
    engine.program = async (io) => {
      await io.stdin;
      io.exit(0);
    };
    await runner.run(python());
    expect(seen).toContain("program");
    expect(seen).not.toContain("output");
  });
});
