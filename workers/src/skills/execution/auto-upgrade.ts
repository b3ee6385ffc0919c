/**
 * The hybrid executor's rules (docs/execution.md#placement and docs/execution.md#auto-upgrade):
 * where an attempt runs (in process, or on the sandbox host), and when a sandbox run that ran out
 * of time or memory is run once more with doubled limits, never above the host's maxima.
 */
import type { ExecutionFailure } from "../../errors.js";
import type { AttemptLimits, Skill, UpgradeReason } from "../types.js";

export type { AttemptLimits, AttemptRecord, Placement, UpgradeReason } from "../types.js";

/** What a handler that runs in the sandbox declares (registered with its timing). */
export interface SandboxNeeds {
  /** Whether its skills upgrade by default (a skill's own `autoUpgrade` overrides it). */
  autoUpgrade: boolean;
  /** True when a call asks for its own limits (such calls never upgrade). */
  explicitLimits?: (input: unknown) => boolean;
}

/** The limits a sandbox run reported with its result, and the host's maxima. */
export interface ReportedLimits {
  timeoutMs: number;
  memoryMb: number;
  maxTimeoutMs: number;
  maxMemoryMb: number;
}

/** Reads the `limits` a sandbox host reports on a run result; undefined when absent. */
export function reportedLimits(output: unknown): ReportedLimits | undefined {
  const limits = (output as { limits?: unknown } | null)?.limits as
    | Partial<Record<keyof ReportedLimits, unknown>>
    | undefined;
  if (!limits || typeof limits !== "object") return undefined;
  const { timeoutMs, memoryMb, maxTimeoutMs, maxMemoryMb } = limits;
  if (
    typeof timeoutMs !== "number" ||
    typeof memoryMb !== "number" ||
    typeof maxTimeoutMs !== "number" ||
    typeof maxMemoryMb !== "number"
  ) {
    return undefined;
  }
  return { timeoutMs, memoryMb, maxTimeoutMs, maxMemoryMb };
}

/**
 * What a failed sandbox attempt ran out of: `timeout` when the run result says `timedOut`,
 * `out_of_memory` when it says `oomKilled`; undefined for any other failure (a non-zero exit,
 * an unreachable host, the execution's own deadline).
 */
export function exhaustedResource(failure: ExecutionFailure): UpgradeReason | undefined {
  const out = failure.output as { timedOut?: unknown; oomKilled?: unknown } | null | undefined;
  if (out?.oomKilled === true) return "out_of_memory";
  if (out?.timedOut === true) return "timeout";
  return undefined;
}

/** Whether executions of `skill` with `input` may upgrade (docs/execution.md#auto-upgrade). */
export function upgradeEnabled(
  needs: SandboxNeeds | undefined,
  skill: Skill,
  input: unknown,
): boolean {
  if (!needs) return false;
  if (needs.explicitLimits?.(input)) return false;
  return skill.autoUpgrade ?? needs.autoUpgrade;
}

/**
 * The limits of the upgrade attempt: both limits doubled, each capped at the host's maximum
 * (`maxTimeoutMs` also at `handlerMaxMs`). Undefined when the limit that ran out cannot grow (it
 * is already at the maximum), or when the host did not report its limits for a memory upgrade.
 * @param previous limits of the attempt that failed (its time limit as the executor set it).
 * @param reported what the host reported on that attempt's result, if anything.
 */
export function upgradedLimits(
  reason: UpgradeReason,
  previous: AttemptLimits,
  reported: ReportedLimits | undefined,
  handlerMaxMs: number | undefined,
): AttemptLimits | undefined {
  const maxTime = Math.min(reported?.maxTimeoutMs ?? Infinity, handlerMaxMs ?? Infinity);
  const timeoutMs = Math.min(previous.timeoutMs * 2, maxTime);
  const memoryBefore = reported?.memoryMb ?? previous.memoryMb;
  const memoryMb =
    memoryBefore !== null && reported !== undefined
      ? Math.min(memoryBefore * 2, reported.maxMemoryMb)
      : null;
  if (reason === "timeout" && !(timeoutMs > previous.timeoutMs)) return undefined;
  if (reason === "out_of_memory" && (memoryMb === null || !(memoryMb > (memoryBefore ?? 0)))) {
    return undefined;
  }
  return {
    timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : previous.timeoutMs * 2,
    memoryMb,
  };
}
