/**
 * Runs programs in hardened containers (docs/sandbox.md#how-a-run-ends): concurrency limit +
 * queue, fresh or pooled container (container-acquire.ts), the handover of the program, removal
 * after inspection (a pooled container's removal and its replacement after the answer);
 * `kill(runId)`, `killAll()` and the leftover sweep. The program's own time (time limit, output
 * caps, OOM, first-output timing) is supervised by program.ts.
 */
import type {
  SandboxLanguage,
  SandboxRunRequest,
  SandboxRunResult,
} from "@skillgate/sandbox-protocol";
import type { HostConfig } from "./config.js";
import { LABEL_SANDBOX, LABEL_SLOT, type SandboxContainer } from "./container.js";
import { type AcquiredContainer, acquireContainer, removeContainer } from "./container-acquire.js";
import type { DockerClient } from "./docker-client.js";
import { HostError } from "./errors.js";
import type { ImageStore } from "./images.js";
import type { Limiter } from "./limiter.js";
import { type HostMetrics, noopHostMetrics, type RunOutcome, timed } from "./metrics.js";
import { planRun, type RunPlan } from "./plan.js";
import type { WarmPool } from "./pool.js";
import { ENGINE_SLACK_MS, superviseProgram } from "./program.js";

interface ActiveRun {
  killed: boolean;
  /** The program has been handed over (or is about to be: the start was acknowledged). */
  started: boolean;
  /** Aborts the queue wait when the run is killed before it starts. */
  abort: AbortController;
  container?: SandboxContainer;
}

/** Everything the runner works with. `owned` holds the slot ids of this process's containers. */
export interface RunnerDeps {
  /** The Docker engine seam. */
  docker: DockerClient;
  config: HostConfig;
  images: ImageStore;
  limiter: Limiter;
  pool: WarmPool;
  owned: Set<string>;
  /** Receives runs, refusals, queue waits, pool takes and container step times. */
  metrics?: HostMetrics;
}

/** What a run's caller learns when its program is about to be handed over. */
export interface RunStart {
  runId: string;
  /** Time from the run's arrival to the handover: slot wait and container start, in ms. */
  queueWaitMs: number;
}

/**
 * Called once per run just before its program is handed over (docs/sandbox.md#at-most-once). The
 * runner waits for the returned promise (the acknowledgement reaching the caller's connection)
 * and hands the program over only when the run was not killed meanwhile.
 */
export type OnRunStart = (start: RunStart) => Promise<void> | void;

/** What {@link Runner.kill} found. */
export interface KillOutcome {
  /** The run was queued or running. */
  known: boolean;
  /** Its program had been handed over (or its start acknowledged) before the kill. */
  started: boolean;
}

/** The outcome label of a finished run (see {@link RunOutcome}). */
export function outcomeOf(result: SandboxRunResult, killed: boolean): RunOutcome {
  if (result.timedOut) return "timeout";
  if (result.oomKilled) return "oom";
  if (killed) return "killed";
  return result.exitCode === 0 ? "success" : "failure";
}

/** Waits for `work`, or until `signal` aborts (then rejects). */
function abortable(work: Promise<void> | void, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new Error("aborted"));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(work).then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/** Executes runs and tracks them by run id. */
export class Runner {
  private readonly runs = new Map<string, ActiveRun>();
  /** Background removals of pooled containers still in progress. */
  private readonly removals = new Set<Promise<void>>();
  private closed = false;
  private readonly metrics: HostMetrics;

  constructor(private readonly deps: RunnerDeps) {
    this.metrics = deps.metrics ?? noopHostMetrics;
  }

  /** Runs in flight (queued or executing). */
  get active(): number {
    return this.runs.size;
  }

  /**
   * Runs one request to completion. `signal` (the HTTP request's) kills the run when it aborts.
   * Queue wait and program time are separate (docs/sandbox.md#queue-wait-and-program-time): the
   * run waits at most its `queueTimeoutMs` for a slot (429 `queue_timeout` past it: it never
   * starts), and its program then gets its whole `timeoutMs`. `onStart` is told just before the
   * program is handed over ({@link OnRunStart}). Output: the result, with `queueWaitMs`.
   * @throws HostError 400/422 from the policy, 409 `run_exists` / `killed`, 429 `busy` /
   *   `queue_timeout`, 503 `image_unavailable` / `docker_unavailable` / `shutting_down`.
   */
  async run(
    req: SandboxRunRequest,
    signal?: AbortSignal,
    onStart?: OnRunStart,
  ): Promise<SandboxRunResult> {
    try {
      return await this.runOnce(planRun(req, this.deps.config), signal, onStart);
    } catch (err) {
      this.metrics.countRefusedRun(err instanceof HostError ? err.code : "internal_error");
      throw err;
    }
  }

  /**
   * Runs a plan built by the host itself (the browser's), with the same queue, limits, kill and
   * removal as {@link run}. Output and errors: as {@link run}.
   */
  async runPlan(plan: RunPlan, signal?: AbortSignal): Promise<SandboxRunResult> {
    try {
      return await this.runOnce(plan, signal);
    } catch (err) {
      this.metrics.countRefusedRun(err instanceof HostError ? err.code : "internal_error");
      throw err;
    }
  }

  private async runOnce(
    plan: RunPlan,
    signal?: AbortSignal,
    onStart?: OnRunStart,
  ): Promise<SandboxRunResult> {
    if (this.closed) throw new HostError(503, "shutting_down", "Sandbox host is shutting down");
    if (this.runs.has(plan.runId))
      throw new HostError(409, "run_exists", `Run ${plan.runId} is already active`);
    const arrived = performance.now();
    const active: ActiveRun = { killed: false, started: false, abort: new AbortController() };
    this.runs.set(plan.runId, active);
    const onAbort = () => this.kill(plan.runId);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal?.aborted)
        throw new HostError(409, "killed", "Run was cancelled before it started");
      await this.deps.images.ensure(plan.image);
      // The wait for a slot has its own bound; a run that gets no slot within it is refused
      // (429 queue_timeout) without starting, and the program's limit is not touched by it.
      const queuedAt = performance.now();
      const release = await this.deps.limiter.acquire(active.abort.signal, plan.queueTimeoutMs);
      this.metrics.observeQueueWait(performance.now() - queuedAt);
      try {
        const result = await this.execute(plan, active, arrived, onStart);
        this.metrics.observeRun({
          kind: plan.kind,
          outcome: outcomeOf(result, active.killed),
          durationMs: result.durationMs,
          pooled: result.pooled,
        });
        return result;
      } finally {
        release();
      }
    } finally {
      signal?.removeEventListener("abort", onAbort);
      this.runs.delete(plan.runId);
    }
  }

  /**
   * Kills a queued or running run with SIGKILL. Output: whether the run was known, and whether
   * its program had been handed over ({@link KillOutcome}).
   */
  kill(runId: string): KillOutcome {
    const active = this.runs.get(runId);
    if (!active) return { known: false, started: false };
    active.killed = true;
    active.abort.abort();
    void active.container?.kill("SIGKILL").catch(() => {});
    return { known: true, started: active.started };
  }

  /**
   * Kills every run (queued and executing) and waits until their containers are gone. With
   * `shutdown`, later runs are refused with 503 `shutting_down`.
   */
  async killAll(shutdown = false): Promise<void> {
    if (shutdown) this.closed = true;
    this.deps.limiter.rejectAll();
    for (const runId of [...this.runs.keys()]) this.kill(runId);
    const deadline = Date.now() + ENGINE_SLACK_MS;
    while (this.runs.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await Promise.all([...this.removals]);
  }

  /**
   * Removes this instance's labelled containers that no live run or pool slot of this process
   * owns (leftovers of a crash or restart). Output: how many were removed.
   * @throws the engine error when Docker cannot be listed.
   */
  async sweep(): Promise<number> {
    const { docker, config, owned } = this.deps;
    const list = await docker.listByLabel(LABEL_SANDBOX, config.instance);
    const stale = list.filter((c) => !owned.has(c.labels[LABEL_SLOT] ?? ""));
    // Hosts named in SANDBOX_SWEEP_INSTANCES no longer exist: every container of theirs is left over.
    for (const other of config.sweepInstances)
      stale.push(...(await docker.listByLabel(LABEL_SANDBOX, other)));
    await Promise.all(stale.map((c) => docker.remove(c.id).catch(() => {})));
    return stale.length;
  }

  /** A container for `plan` (container-acquire.ts); `beforeStart` runs before its start. */
  private acquireContainer(
    plan: RunPlan,
    beforeStart?: () => Promise<void>,
  ): Promise<AcquiredContainer> {
    return acquireContainer({ ...this.deps, metrics: this.metrics }, plan, beforeStart);
  }

  private async execute(
    plan: RunPlan,
    active: ActiveRun,
    arrived: number,
    onStart?: OnRunStart,
  ): Promise<SandboxRunResult> {
    if (active.killed) throw new HostError(409, "killed", "Run was killed before it started");
    let queueWaitMs = 0;
    // From the announcement on the run counts as started: a kill reports it so, and a caller that
    // was told (onStart) never sends it again. What the program is reaches the container only
    // after it: its stdin for node/python, the container's start for a shell command (argv).
    const announce = async () => {
      queueWaitMs = Math.round(performance.now() - arrived);
      if (active.killed) throw new HostError(409, "killed", "Run was killed before it started");
      active.started = true;
      if (onStart) {
        // Killed (or the caller went away) before the acknowledgement was out: nothing is sent.
        await abortable(onStart({ runId: plan.runId, queueWaitMs }), active.abort.signal).catch(
          () => {},
        );
      }
      if (active.killed) throw new HostError(409, "killed", "Run was killed before it started");
    };
    const stdinProgram = plan.input !== undefined;
    const { container, pooled } = await this.acquireContainer(
      plan,
      stdinProgram ? undefined : announce,
    );
    active.container = container;
    if (stdinProgram) {
      try {
        await timed(this.metrics, "handover", announce);
      } catch (err) {
        if (pooled) this.disposeLater(container, plan.language);
        else await this.dispose(container);
        throw err;
      }
    }
    try {
      return await superviseProgram(container, plan, {
        killGraceMs: this.deps.config.killGraceMs,
        maxMemoryMb: this.deps.config.maxMemoryMb,
        metrics: this.metrics,
        isKilled: () => active.killed,
        queueWaitMs,
        pooled,
      });
    } finally {
      // A pooled run's answer does not wait for the removal (20–80 ms of engine work) nor for
      // its replacement's create and start: its exit code, OOM flag and output are already read,
      // and the slot stays owned until the container is gone, so the sweep spares it and shutdown
      // waits for it.
      if (pooled) this.disposeLater(container, plan.language);
      else await this.dispose(container);
    }
  }

  /**
   * Removes a pooled container in the background ({@link killAll}, so shutdown, waits for it), and
   * has the pool replace it after the current turn of the event loop, so the run's answer is
   * written before the engine gets the replacement's create.
   * Docs: docs/sandbox.md#concurrency-queue-and-warm-pool.
   */
  private disposeLater(container: SandboxContainer, language: SandboxLanguage): void {
    const removal = this.dispose(container).finally(() => this.removals.delete(removal));
    this.removals.add(removal);
    setImmediate(() => this.deps.pool.replenish(language));
  }

  /** Removals of pooled containers that ran a program and are not yet confirmed gone. */
  get pendingRemovals(): number {
    return this.removals.size;
  }

  /** Removes a container; on failure the slot is released anyway and the sweep removes it later. */
  private dispose(container: SandboxContainer): Promise<void> {
    return removeContainer({ owned: this.deps.owned, metrics: this.metrics }, container);
  }
}
