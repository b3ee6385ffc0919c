/**
 * One phase of an execution (docs/execution.md#retries, docs/execution.md#auto-upgrade): the
 * attempts run under one time limit, with the retries of retryable failures inside it. An
 * execution has one phase, or two when its sandbox run was upgraded. A phase decides the outcome
 * but writes nothing terminal: the executor writes the row once the last phase ends.
 */
import { ExecutionFailure } from "../../errors.js";
import type {
  AttemptLimits,
  AttemptRecord,
  CallerContext,
  Placement,
  SandboxReport,
  Skill,
  SkillHandler,
  UpgradeReason,
} from "../types.js";
import { reportedLimits } from "./auto-upgrade.js";
import { runAttempt, sleepUnlessAborted } from "./execution-attempt.js";
import type { ExecutionEnd } from "./execution-repository.js";

/** What a phase needs from the executor. */
export interface PhaseDeps {
  handler: SkillHandler;
  /** Time waited past the deadline for the handler's service to report (ms). */
  graceMs: number;
  placement: Placement;
  clock: () => number;
  /** Total attempts allowed over the whole execution. */
  maxAttempts: number;
  /** Base of the linear retry backoff, ms. */
  retryBackoffMs: number;
  /** Records the attempt count (and log) while running. */
  setAttempts: (attempts: number, log: AttemptRecord[]) => Promise<void>;
  /** Fires when the caller went away (a client that disconnected): the phase ends `cancelled`. */
  cancel?: AbortSignal;
  /** Receives the sandbox reports of the attempts (HandlerContext `reportSandbox`). */
  reportSandbox?: (report: SandboxReport) => void;
}

/** Error message of an execution whose caller went away (error code `cancelled`). */
export const CANCELLED_MESSAGE = "cancelled: the caller went away before the skill finished";

/** How a phase ended. `end` lacks the totals the executor adds (`durationMs`, `attempts`). */
export interface PhaseOutcome {
  end: Omit<ExecutionEnd, "durationMs" | "attempts">;
  /** The failure of the last attempt (undefined on success). */
  failure?: ExecutionFailure;
  /** The phase's deadline fired (the handler did not report its own limit in time). */
  aborted: boolean;
  /** A saturated service's Retry-After (s), for the caller's answer. */
  retryAfterS?: number;
}

/**
 * Runs attempts of `skill` within `limits.timeoutMs` ms from now, appending one record per
 * attempt to `log` (the first one marked with `reason` when the phase is an upgrade). Retryable
 * failures are retried while attempts remain and the backoff (1 s × attempt, or the service's
 * Retry-After when longer) ends before the deadline. `deps.cancel` firing ends the phase as `error`
 * `cancelled` (marked `aborted`, so it is never upgraded). Never throws for handler failures;
 * storage failures propagate.
 */
export async function runPhase(
  deps: PhaseDeps,
  id: string,
  skill: Skill,
  input: unknown,
  ctx: CallerContext,
  limits: AttemptLimits,
  reason: UpgradeReason | null,
  log: AttemptRecord[],
): Promise<PhaseOutcome> {
  const limit = limits.timeoutMs;
  const phaseStart = deps.clock();
  const deadline = phaseStart + limit;
  const timedOut = `Skill execution timed out after ${limit} ms`;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new ExecutionFailure(timedOut, { status: "timeout" })),
    limit + deps.graceMs,
  );
  const cancelled = new ExecutionFailure(CANCELLED_MESSAGE, { code: "cancelled" });
  const onCancel = () => controller.abort(cancelled);
  if (deps.cancel?.aborted) onCancel();
  else deps.cancel?.addEventListener("abort", onCancel, { once: true });
  const cancelledOutcome: PhaseOutcome = {
    end: { status: "error", errorMessage: CANCELLED_MESSAGE, errorCode: "cancelled" },
    failure: cancelled,
    aborted: true,
  };
  const record = (
    started: number,
    status: AttemptRecord["status"],
    errorCode: string | null,
    output: unknown,
    upgradeReason: UpgradeReason | null,
    host?: string,
  ): void => {
    log.push({
      attempt: log.length + 1,
      placement: deps.placement,
      timeoutMs: limit,
      memoryMb: reportedLimits(output)?.memoryMb ?? limits.memoryMb,
      status,
      errorCode,
      durationMs: deps.clock() - started,
      upgradeReason,
      ...(host !== undefined ? { host } : {}),
    });
  };
  let first = true;
  try {
    for (;;) {
      if (controller.signal.reason === cancelled) return cancelledOutcome;
      const attempt = log.length + 1;
      if (attempt > 1) await deps.setAttempts(attempt, log);
      const started = deps.clock();
      let host: string | undefined;
      const outcome = await runAttempt(deps.handler, input, {
        ...ctx,
        executionId: id,
        signal: controller.signal,
        skill,
        attempt,
        timeoutMs: Math.max(1, deadline - deps.clock()),
        ...(limits.memoryMb !== null ? { memoryMb: limits.memoryMb } : {}),
        reportSandbox: (report) => {
          if (report.host !== undefined) host = report.host;
          deps.reportSandbox?.(report);
        },
      });
      const upgradeMark = first ? reason : null;
      first = false;
      if (outcome.ok) {
        record(started, "success", null, outcome.output, upgradeMark, host);
        return { end: { status: "success", output: outcome.output }, aborted: false };
      }
      const failure = outcome.failure;
      if (controller.signal.reason === cancelled) {
        record(started, "error", "cancelled", failure.output, upgradeMark, host);
        return cancelledOutcome;
      }
      if (controller.signal.aborted || failure.status === "timeout") {
        record(started, "timeout", "timeout", failure.output, upgradeMark, host);
        return {
          end: {
            status: "timeout",
            output: failure.output,
            errorMessage: timedOut,
            errorCode: "timeout",
          },
          failure,
          aborted: controller.signal.aborted,
        };
      }
      record(started, "error", failure.code, failure.output, upgradeMark, host);
      const backoff = Math.max(deps.retryBackoffMs * attempt, (failure.retryAfterS ?? 0) * 1000);
      if (failure.retryable && attempt < deps.maxAttempts && deps.clock() + backoff < deadline) {
        await sleepUnlessAborted(backoff, controller.signal);
        if (!controller.signal.aborted || controller.signal.reason === cancelled) continue;
      }
      const aborted = controller.signal.aborted;
      return {
        end: {
          status: aborted ? "timeout" : "error",
          output: failure.output,
          errorMessage: aborted ? timedOut : failure.message,
          errorCode: aborted ? "timeout" : failure.code,
        },
        failure,
        aborted,
        ...(!aborted && failure.retryAfterS !== undefined
          ? { retryAfterS: failure.retryAfterS }
          : {}),
      };
    }
  } finally {
    clearTimeout(timer);
    deps.cancel?.removeEventListener("abort", onCancel);
    if (!controller.signal.aborted) controller.abort(new Error("execution finished"));
  }
}
