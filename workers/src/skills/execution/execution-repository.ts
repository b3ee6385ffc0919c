/**
 * Storage of executions, as the executor needs it (docs/execution.md#lifecycle): every lifecycle
 * step is a write, so that an execution's state survives a crash and can be recovered. The
 * drizzle implementation is in `workers/src/db/repositories/executions.ts`.
 */

import type {
  ApprovalState,
  AttemptRecord,
  CallerContext,
  Execution,
  ExecutionStatus,
  NotificationDelivery,
  Skill,
} from "../types.js";
import type { ExecutionSummary } from "./execution-stats.js";

/** Filters of execution listings. */
export interface ExecutionFilter {
  /** Restrict to one key; null = rows without a key (management runs); undefined = all keys. */
  apiKeyId?: string | null;
  status?: ExecutionStatus;
  /** `name` or `name@version`. */
  skill?: string;
  sessionId?: string;
  approval?: ApprovalState;
  /** Created at or after this time (ms since epoch). */
  since?: number;
  /** Created before this time (ms since epoch). */
  until?: number;
}

/** Fields written when an execution ends. */
export interface ExecutionEnd {
  status: "success" | "error" | "timeout";
  output?: unknown;
  errorMessage?: string | null;
  errorCode?: string | null;
  durationMs: number;
  attempts: number;
  /** Each attempt's record (docs/execution.md#auto-upgrade); omitted = left as it is. */
  attemptLog?: AttemptRecord[];
  approval?: ApprovalState;
  /** The last sandbox attempt's host, queue wait and program time (ms); omitted = none. */
  sandbox?: { host: string | null; queueWaitMs: number | null; programMs: number | null };
}

/** Caps of what a history row keeps, in UTF-8 bytes of JSON text. */
export interface StoredSizeLimits {
  maxInputBytes: number;
  maxOutputBytes: number;
}

/** Defaults of {@link StoredSizeLimits} (256 KiB each), as the configuration's. */
export const DEFAULT_STORED_SIZE_LIMITS: StoredSizeLimits = {
  maxInputBytes: 262_144,
  maxOutputBytes: 262_144,
};

/**
 * Reads and writes executions. Times are ms. The input and output kept in a row are capped in
 * bytes (see stored-json.ts); the values returned by `create` and `finish` are the complete ones
 * the caller handed in, so the immediate answer is never cut.
 */
export interface ExecutionRepository {
  /** The caps of what a row keeps. */
  readonly limits: StoredSizeLimits;
  /** Whether `input` is kept whole in a row (an execution awaiting approval needs it whole). */
  inputFits(input: unknown): boolean;
  /**
   * Inserts a row with the time budget it will run with: `pending`, or `running` with its start
   * time when `opts.running` is set (an execution that starts at once costs one write to start;
   * docs/execution.md#what-an-execution-costs). An input over the cap is stored as a prefix with
   * `input_truncated`. @returns the new execution, with the complete input.
   */
  create(
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    opts: { approval?: ApprovalState; timeoutMs: number; running?: boolean },
  ): Promise<Execution>;
  /**
   * Approves a row awaiting approval and marks it `running` with its time budget in one write,
   * only if it is still awaiting. @returns true when this call won the transition.
   */
  startApproved(id: string, timeoutMs: number): Promise<boolean>;
  /** Marks a row `running` (with its start time and time budget). */
  markRunning(id: string, timeoutMs: number, approval?: ApprovalState): Promise<void>;
  /** Appends one approval-notification delivery to an execution's record (one atomic update). */
  recordNotification(id: string, delivery: NotificationDelivery): Promise<void>;
  /**
   * Records the attempt count while running, with the attempts so far and, for an upgraded
   * phase, its new time budget in ms (crash recovery reads it).
   */
  setAttempts(
    id: string,
    attempts: number,
    opts?: { attemptLog?: AttemptRecord[]; timeoutMs?: number },
  ): Promise<void>;
  /**
   * Writes the terminal state; an output over the cap is stored as a prefix with
   * `output_truncated`. @returns the final execution, with the complete `output`.
   * @throws NotFoundError `execution_not_found` when no execution has this id.
   */
  finish(id: string, end: ExecutionEnd): Promise<Execution>;
  /**
   * Moves a row awaiting approval to a new approval state, only if it is still awaiting.
   * @returns true when this call won the transition (approvals race safely).
   */
  claimApproval(id: string, to: "approved" | "rejected" | "expired"): Promise<boolean>;
  /** One execution by id, or undefined. */
  get(id: string): Promise<Execution | undefined>;
  /** A page of executions, newest first. */
  list(filter: ExecutionFilter, limit: number, offset: number): Promise<Execution[]>;
  /** Number of executions matching `filter`. */
  count(filter: ExecutionFilter): Promise<number>;
  /**
   * Ends rows a crash left behind (docs/execution.md#crash-recovery): `running`, and `pending` not
   * awaiting approval, as `error` "interrupted". With `staleAfterMs`, only rows whose budget
   * (their time limit, default `defaultTimeoutMs`) plus `staleAfterMs` has passed since they
   * were last touched. @returns the number of rows ended.
   */
  recoverInterrupted(opts: { staleAfterMs?: number; defaultTimeoutMs: number }): Promise<number>;
  /** Ends approvals older than `ttlMs` as `error` (approval `expired`). @returns the number ended. */
  expireApprovals(ttlMs: number): Promise<number>;
  /**
   * Chart aggregates (docs/dashboard.md#charts) of the `hours` hours ending at the hour containing
   * `now` (ms since epoch): executions per hour by status, and per skill (at most `limit`, most
   * executed first) the median / p95 duration in ms, estimated from log-scale buckets (error
   * bound in duration-histogram.ts), and the error rate of the ended ones. Read from hourly
   * rollups of the ended executions, so the cost does not grow with the number of executions.
   * @param apiKeyId one key's executions; undefined = all.
   */
  summary(
    apiKeyId: string | undefined,
    now: number,
    hours?: number,
    limit?: number,
  ): Promise<ExecutionSummary>;
  /**
   * The latest `updatedAt` (ms since epoch) of any execution, 0 when there is none. Every create
   * and status change moves it, so cached aggregates keyed by it are fresh (deletions do not).
   */
  changeStamp(): Promise<number>;
  /**
   * Deletes the chart rollups of hours that started more than 48 hours before `now` (ms since
   * epoch); the charts read 24. @returns the number of rollup rows deleted.
   */
  pruneRollups(now: number): Promise<number>;

  /**
   * Deletes at most `batchSize` finished executions (`success`, `error`, `timeout`) matching
   * `filter`, oldest first, in one statement; `pending` and `running` rows are never deleted
   * (docs/execution.md#retention). @returns the number of rows deleted.
   */
  deleteFinishedBatch(filter: ExecutionDeleteFilter, batchSize: number): Promise<number>;
}

/** Statuses of finished executions; only these are ever deleted. */
export const FINISHED_STATUSES = ["success", "error", "timeout"] as const;

/** Which finished executions to delete (every field narrows). */
export interface ExecutionDeleteFilter {
  /** Only executions created strictly before this time (ms since the epoch). */
  before?: number;
  /** Only executions created at or after this time (ms since the epoch). */
  after?: number;
  /** `name` or `name@version`. */
  skill?: string;
  /** Only this key's executions; null = executions without a key (management runs). */
  apiKeyId?: string | null;
}
