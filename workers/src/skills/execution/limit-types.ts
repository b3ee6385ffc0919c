/**
 * Shapes of the per-key execution limits (docs/rate-limits.md): the limits of a key, the storage
 * port of daily usage, an admission and its ticket, and the limiter's options. The limiter is
 * limits.ts.
 */
import type { CallerContext, Skill } from "../types.js";
import type { PlatformRateLimiter, ShortWindowCounters } from "./limit-counters.js";

/** The limits of one key; null = no limit. Units: executions, runs, whole seconds. */
export interface ExecutionLimits {
  executionsPerMinute: number | null;
  concurrentSandboxRuns: number | null;
  dailySandboxSeconds: number | null;
}

/** Names of the limits, in the order the API shows them. */
export const LIMIT_NAMES = [
  "executionsPerMinute",
  "concurrentSandboxRuns",
  "dailySandboxSeconds",
] as const satisfies readonly (keyof ExecutionLimits)[];

/** No limit at all (the default of a fresh install). */
export const NO_LIMITS: ExecutionLimits = {
  executionsPerMinute: null,
  concurrentSandboxRuns: null,
  dailySandboxSeconds: null,
};

/** One key's usage on one UTC day. Units: executions, runs, ms. */
export interface DailyUsage {
  executions: number;
  sandboxRuns: number;
  /** Sandbox time of finished runs, ms. */
  sandboxMs: number;
  /** Sandbox time held by runs still going (their time limits), ms. */
  reservedMs: number;
}

/** Where daily usage is kept (the drizzle implementation is in `db/repositories/key-usage.ts`). */
export interface UsageStore {
  /**
   * Counts one admitted execution of `apiKeyId` on `day` and, when `reserveMs` is set, one
   * sandbox run holding `reserveMs` ms — all in one atomic step that happens only when
   * `budgetMs` is null or settled + reserved + `reserveMs` ≤ `budgetMs`.
   * @returns true when counted; false (nothing changed) when the budget refused.
   */
  admit(
    apiKeyId: string,
    day: string,
    opts: { count: boolean; reserveMs: number | null; budgetMs: number | null },
  ): Promise<boolean>;
  /**
   * Reserves `reserveMs` more ms for a sandbox run already counted on `day` (its upgraded phase),
   * in one atomic step that happens only when `budgetMs` is null or settled + reserved +
   * `reserveMs` ≤ `budgetMs`. @returns true when reserved; false (nothing changed) when refused.
   */
  reserve(
    apiKeyId: string,
    day: string,
    reserveMs: number,
    budgetMs: number | null,
  ): Promise<boolean>;
  /** Releases `reservedMs` held on `day` and adds `actualMs` of sandbox time there. */
  settle(apiKeyId: string, day: string, reservedMs: number, actualMs: number): Promise<void>;
  /** Usage of `apiKeyId` on `day` (zeros when none). */
  usage(apiKeyId: string, day: string): Promise<DailyUsage>;
}

/** What one admission covers. */
export interface AdmissionRequest {
  /** The execution's time limit (ms): what a sandbox run reserves of the daily budget. */
  limitMs: number;
  /** Counts toward executions per minute (a new execution, not the run of an approved one). */
  count: boolean;
  /** The skill runs now (false: it only waits for approval). */
  run: boolean;
}

/** An admitted execution; settle it exactly once when the run has ended. */
export interface AdmissionTicket {
  /**
   * Reserves `ms` more of the daily sandbox budget for the run's upgraded phase
   * (docs/execution.md#auto-upgrade), atomically like the admission's own reservation; the ticket
   * then settles both reservations to the run's actual time. @returns false when the key's budget
   * cannot cover `ms` (nothing is reserved; the caller must not run the phase).
   */
  reserveMore(ms: number): Promise<boolean>;
  /**
   * Ends the run: frees its concurrency slot and settles its sandbox time (its wall time). Never
   * rejects: a storage failure is logged and leaves the reservation held.
   */
  settle(): Promise<void>;
}

/** What the executor asks before it writes an execution (see {@link ExecutionLimiter}). */
export interface ExecutionAdmission {
  /**
   * Admits an execution of `skill` for `ctx`'s key. @throws AppError 429 (`rate_limited`,
   * `concurrency_limited`, `quota_exceeded`) when a limit refuses it, or 403 `limit_blocked`
   * when that limit is 0; nothing is counted then.
   */
  admit(skill: Skill, ctx: CallerContext, req: AdmissionRequest): Promise<AdmissionTicket>;
}

/** Options of {@link ExecutionLimiter}. */
export interface ExecutionLimiterOptions {
  /** The effective limits of a key (its overrides over the `defaultLimits` setting). */
  limitsFor: (apiKeyId: string) => Promise<ExecutionLimits>;
  usage: UsageStore;
  /** Handler names whose runs use the sandbox host (`eval_code`, `execute_command`, code skills). */
  sandboxHandlers: Iterable<string>;
  /**
   * The platform's rate limiting binding (Workers) and the default executions per minute its
   * fixed limit stands for, consulted besides the in-process window ({@link bindingHolds}).
   */
  platform?: { limiter: PlatformRateLimiter; defaultPerMinute: () => Promise<number | null> };
  /**
   * Where executions per minute and concurrent sandbox runs are counted; default in process
   * ({@link InProcessWindows}). The Worker passes its Durable Object counters.
   */
  windows?: ShortWindowCounters;
  /**
   * Which way to fail when `windows` cannot be reached (docs/rate-limits.md#when-the-limiter-is-unreachable),
   * for executions per minute and for sandbox runs: `open` counts in process instead (a limit per
   * isolate), `closed` refuses with 503 `limiter_unavailable`. Default: executions `open`,
   * sandbox runs `closed`.
   */
  onUnreachable?: { executions: FailDirection; sandbox: FailDirection };
  /** ms since the epoch. */
  clock?: () => number;
}

/** Which way a limit fails when its counters cannot be reached. */
export type FailDirection = "open" | "closed";

/**
 * How long a concurrency slot stays held past its run's time limit when its release never
 * arrives (an isolate that died mid-run), in ms.
 */
export const LEASE_GRACE_MS = 60_000;
