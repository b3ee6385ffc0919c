/**
 * How the executor times the runs of a handler (docs/execution.md#time-budget): the limit of one
 * execution from what the call asks, the skill's own limit, the handler's default and maximum.
 */
import type { Skill } from "../types.js";
import type { SandboxNeeds } from "./auto-upgrade.js";

/** How the executor times the runs of one handler. Units: ms. */
export interface HandlerTiming {
  /**
   * The limit a call asks for in its input (e.g. `eval_code`'s `timeoutMs`), or undefined when
   * it asks for none.
   */
  limitFromInput?: (input: unknown) => number | undefined;
  /** Limit when neither the call nor the skill sets one. Default: the executor's (30 000). */
  defaultLimitMs?: number;
  /** Largest limit the handler honours (e.g. 60 000 for sandbox runs). */
  maxLimitMs?: number;
  /**
   * Time the executor waits past the deadline for the handler to report a run its service
   * stopped at the limit (container start and removal, the HTTP round trip). Default 0.
   */
  graceMs?: number;
  /**
   * Set by handlers whose work runs on the sandbox host: their attempts are placed `sandbox`, and
   * may upgrade (docs/execution.md#placement). Unset = `direct` (in process).
   */
  sandbox?: SandboxNeeds;
}

/**
 * The time limit of one execution of `skill` with `input`, in ms: the call's own ask (from its
 * input, when the handler reads one), capped by the skill's `timeoutMs`; else the skill's
 * `timeoutMs`; else the handler's default; else `executorDefaultMs`; never above the handler's
 * maximum, never below 1.
 */
export function limitOf(
  timing: HandlerTiming | undefined,
  skill: Skill,
  input: unknown,
  executorDefaultMs: number,
): number {
  const asked = timing?.limitFromInput?.(input);
  const own = skill.timeoutMs ?? undefined;
  let limit =
    asked !== undefined && asked > 0
      ? Math.min(asked, own ?? asked)
      : (own ?? timing?.defaultLimitMs ?? executorDefaultMs);
  if (timing?.maxLimitMs !== undefined) limit = Math.min(limit, timing.maxLimitMs);
  return Math.max(1, Math.floor(limit));
}
