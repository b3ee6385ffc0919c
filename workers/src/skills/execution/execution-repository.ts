/**
 * Storage of executions, as the executor needs it (docs/execution.md#lifecycle): every lifecycle
 * step is a write, so that an execution's state survives a crash and can be recovered. The
 * drizzle implementation is in `workers/src/db/repositories/executions.ts`.
 */
import type { ApprovalState, CallerContext, Execution, ExecutionStatus, Skill } from "../types.js";

/** Filters of execution listings. */
export interface ExecutionFilter {
  /** Restrict to one key; null = rows without a key (management runs); undefined = all keys. */
  apiKeyId?: string | null;
  status?: ExecutionStatus;
  /** `name` or `name@version`. */
  skill?: string;
  sessionId?: string;
  approval?: ApprovalState;
}

/** Fields written when an execution ends. */
export interface ExecutionEnd {
  status: "success" | "error" | "timeout";
  output?: unknown;
  errorMessage?: string | null;
  errorCode?: string | null;
  durationMs: number;
  attempts: number;
  approval?: ApprovalState;
}

/** Reads and writes executions. Times are ms. */
export interface ExecutionRepository {
  /** Inserts a `pending` row with the time budget it will run with. @returns the new execution. */
  create(
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    opts: { approval?: ApprovalState; timeoutMs: number },
  ): Promise<Execution>;
  /** Marks a row `running` (with its start time and time budget). */
  markRunning(id: string, timeoutMs: number, approval?: ApprovalState): Promise<void>;
  /** Records the attempt count while running. */
  setAttempts(id: string, attempts: number): Promise<void>;
  /** Writes the terminal state. @returns the final execution. */
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
}
