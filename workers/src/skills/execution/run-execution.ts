/**
 * Running an execution whose row is already `running` to its terminal status
 * (docs/execution.md#retries, docs/execution.md#auto-upgrade): one phase of attempts, and for a
 * sandbox skill whose run ran out of time or memory one upgraded phase with doubled limits; then
 * the single terminal write. Also the metrics report of a terminal execution.
 */
import { isStorageFull } from "../../errors.js";
import type { Metrics } from "../../metrics/types.js";
import type {
  AttemptLimits,
  AttemptRecord,
  CallerContext,
  Execution,
  SandboxReport,
  Skill,
  SkillHandler,
} from "../types.js";
import {
  exhaustedResource,
  reportedLimits,
  upgradedLimits,
  upgradeEnabled,
} from "./auto-upgrade.js";
import type { DeferredFinishes } from "./deferred-finishes.js";
import type { ExecutionEnd, ExecutionRepository } from "./execution-repository.js";
import { type PhaseDeps, runPhase } from "./phase.js";
import type { HandlerTiming } from "./timing.js";

/** What one run needs from the executor. */
export interface RunDeps {
  /** Where the execution is recorded. */
  store: ExecutionRepository;
  /** The skill's registered handler. */
  handler: SkillHandler;
  /** How the handler's runs are timed; undefined = a `direct` handler without grace. */
  timing: HandlerTiming | undefined;
  clock: () => number;
  /** Total attempts allowed over the whole execution. */
  maxAttempts: number;
  /** Base of the linear retry backoff, ms. */
  retryBackoffMs: number;
  /**
   * Reserves the time limit (ms) of an upgraded phase of the key's daily sandbox budget
   * (`AdmissionTicket.reserveMore`); false = the budget cannot cover it, and the run is not
   * upgraded. Absent: always covered.
   */
  reserveUpgrade?: (ms: number) => Promise<boolean>;
  /**
   * Where an outcome goes when the database refuses its terminal write because the disk is full
   * (written again once there is space). Absent: such a row is left to the interrupted-run sweep.
   */
  deferred?: DeferredFinishes;
}

/** What the row's error message gains when the daily sandbox budget refused an upgrade. */
export function upgradeSkippedNote(timeoutMs: number): string {
  return `not upgraded: the key's daily sandbox budget cannot cover the upgraded run's ${timeoutMs} ms time limit`;
}

/** The terminal execution of a run, with a saturated service's Retry-After (s) when it sent one. */
export interface RunOutcome {
  execution: Execution;
  retryAfterS?: number;
}

/**
 * Runs the row `id` (already marked `running`) within `limit` ms and writes the outcome: one
 * phase of attempts (docs/execution.md#retries), and for a sandbox skill whose run ran out of time
 * or memory, one upgraded phase with doubled limits (docs/execution.md#auto-upgrade). Never throws
 * for handler failures; a storage failure mid-run leaves an `internal_error` row and propagates.
 * `cancel` aborting ends it as `error` `cancelled` (never upgraded). An upgrade the key's daily
 * sandbox budget cannot cover (`deps.reserveUpgrade`) does not run: the execution ends with the
 * first phase's outcome, its error message saying why ({@link upgradeSkippedNote}).
 */
export async function runExecution(
  deps: RunDeps,
  id: string,
  skill: Skill,
  input: unknown,
  ctx: CallerContext,
  limit: number,
  cancel?: AbortSignal,
): Promise<RunOutcome> {
  const { store, timing, clock } = deps;
  const log: AttemptRecord[] = [];
  // The last sandbox attempt's host and times (a new attempt's host starts a new record).
  let sandbox: ExecutionEnd["sandbox"];
  const reportSandbox = (report: SandboxReport) => {
    const base =
      report.host !== undefined && report.host !== sandbox?.host
        ? { host: report.host, queueWaitMs: null, programMs: null }
        : (sandbox ?? { host: null, queueWaitMs: null, programMs: null });
    sandbox = {
      host: base.host,
      queueWaitMs: report.queueWaitMs ?? base.queueWaitMs,
      programMs: report.programMs ?? base.programMs,
    };
  };
  const phaseDeps: PhaseDeps = {
    handler: deps.handler,
    graceMs: timing?.graceMs ?? 0,
    placement: timing?.sandbox ? "sandbox" : "direct",
    clock,
    maxAttempts: deps.maxAttempts,
    retryBackoffMs: deps.retryBackoffMs,
    setAttempts: (attempts, attemptLog) => store.setAttempts(id, attempts, { attemptLog }),
    cancel,
    reportSandbox,
  };
  const started = clock();
  /** The outcome went to `deps.deferred`: the fallback below must not replace it. */
  let deferred = false;
  try {
    let limits: AttemptLimits = { timeoutMs: limit, memoryMb: null };
    let phase = await runPhase(phaseDeps, id, skill, input, ctx, limits, null, log);
    const reason = phase.failure && !phase.aborted ? exhaustedResource(phase.failure) : undefined;
    if (reason && upgradeEnabled(timing?.sandbox, skill, input)) {
      const next = upgradedLimits(
        reason,
        limits,
        reportedLimits(phase.failure?.output),
        timing?.maxLimitMs,
      );
      if (next && !(await (deps.reserveUpgrade?.(next.timeoutMs) ?? true))) {
        const end = phase.end;
        const note = upgradeSkippedNote(next.timeoutMs);
        phase = {
          ...phase,
          end: { ...end, errorMessage: end.errorMessage ? `${end.errorMessage}; ${note}` : note },
        };
      } else if (next) {
        limits = next;
        await store.setAttempts(id, log.length + 1, {
          attemptLog: log,
          timeoutMs: next.timeoutMs,
        });
        phase = await runPhase(phaseDeps, id, skill, input, ctx, limits, reason, log);
      }
    }
    const end: ExecutionEnd = {
      ...phase.end,
      durationMs: clock() - started,
      attempts: log.length,
      attemptLog: log,
      sandbox,
    };
    const execution = await store.finish(id, end).catch((err: unknown) => {
      deferred = isStorageFull(err) && deps.deferred?.defer(id, end) === true;
      throw err;
    });
    return { execution, retryAfterS: phase.retryAfterS };
  } catch (err) {
    if (deferred) throw err;
    // A storage failure mid-run: still try to leave a terminal row behind.
    const fallback: ExecutionEnd = {
      status: "error",
      errorMessage: `internal error: ${(err as Error).message}`,
      errorCode: "internal_error",
      durationMs: clock() - started,
      attempts: log.length,
      attemptLog: log,
      sandbox,
    };
    await store.finish(id, fallback).catch((again: unknown) => {
      if (isStorageFull(again)) deps.deferred?.defer(id, fallback);
    });
    throw err;
  }
}

/**
 * Reports `execution` to `metrics` when it is terminal (`success`, `error`, `timeout`), with
 * `durationMs` (ms, or null for one that never ran). @returns the execution unchanged.
 */
export function countTerminal(
  metrics: Pick<Metrics, "countExecution"> | undefined,
  execution: Execution,
  durationMs: number | null = execution.durationMs,
): Execution {
  if (
    execution.status === "success" ||
    execution.status === "error" ||
    execution.status === "timeout"
  ) {
    metrics?.countExecution({
      skill: execution.skillName,
      status: execution.status,
      errorCode: execution.errorCode,
      durationMs,
    });
  }
  return execution;
}
