/**
 * The `skill_executions` table behind the executor's {@link ExecutionRepository} (drizzle over
 * libSQL; docs/execution.md#lifecycle). An execution that runs at once costs two writes, its
 * `running` row and its terminal state (docs/execution.md#what-an-execution-costs); the lifecycle
 * writes of concurrent executions share one batch (one transaction, one round trip) through a
 * {@link WriteBatcher}.
 */
import { and, count, desc, eq, sql } from "drizzle-orm";
import { NotFoundError } from "../../errors.js";
import {
  DEFAULT_STORED_SIZE_LIMITS,
  type ExecutionDeleteFilter,
  type ExecutionEnd,
  type ExecutionFilter,
  type ExecutionRepository,
  type StoredSizeLimits,
} from "../../skills/execution/execution-repository.js";
import type { ExecutionSummary } from "../../skills/execution/execution-stats.js";
import { storedJson } from "../../skills/execution/stored-json.js";
import type {
  ApprovalState,
  AttemptRecord,
  Execution,
  NotificationDelivery,
  Skill,
} from "../../skills/types.js";
import { currentRequestId } from "../../telemetry/request-context.js";
import type { Db } from "../client.js";
import { type ExecutionRow, skillExecutions } from "../schema.js";
import type { WriteBatcher } from "../write-batcher.js";
import { executionWhere } from "./execution-filters.js";
import {
  deleteFinishedRows,
  expireApprovalRows,
  recoverInterruptedRows,
} from "./execution-maintenance.js";
import { executionSummary, pruneExecutionRollups } from "./execution-stats.js";
import { type EndPatch, ExecutionWrites } from "./execution-writes.js";
import { executionFromRow } from "./mappers.js";

/** Drizzle implementation of {@link ExecutionRepository}. */
export class DrizzleExecutionRepository implements ExecutionRepository {
  /** The compiled lifecycle writes, sent through a shared {@link WriteBatcher}. */
  private readonly rows: ExecutionWrites;
  /**
   * Rows of executions this repository started and has not ended yet: their end is written
   * without reading the row back.
   */
  private readonly live = new Map<string, ExecutionRow>();

  /** @param writes the batcher to write through (default: one of its own over `db`'s client). */
  constructor(
    private readonly db: Db,
    private readonly clock: () => number,
    readonly limits: StoredSizeLimits = DEFAULT_STORED_SIZE_LIMITS,
    writes?: WriteBatcher,
  ) {
    this.rows = new ExecutionWrites(db, writes);
  }

  /** The write-coalescing queue of this repository (its counters tell the writes made). */
  get writes(): WriteBatcher {
    return this.rows.batcher;
  }

  /** Chart aggregates; see {@link ExecutionRepository.summary}. */
  summary(
    apiKeyId: string | undefined,
    now: number,
    hours = 24,
    limit = 20,
  ): Promise<ExecutionSummary> {
    return executionSummary(this.db, apiKeyId, now, hours, limit);
  }

  /** See {@link ExecutionRepository.pruneRollups}. */
  pruneRollups(now: number): Promise<number> {
    return pruneExecutionRollups(this.db, now);
  }

  /** Latest `updated_at` of any execution (0 when none); one step down `skill_executions_updated_idx`. */
  async changeStamp(): Promise<number> {
    const [row] = await this.db
      .select({ at: sql<number | null>`max(${skillExecutions.updatedAt})` })
      .from(skillExecutions);
    return Number(row?.at ?? 0);
  }

  /** Whether `input` is kept whole in a row (an execution awaiting approval needs it whole). */
  inputFits(input: unknown): boolean {
    return !storedJson(input, this.limits.maxInputBytes).truncated;
  }

  /**
   * Inserts a row: `pending` (awaiting approval, or not started yet), or `running` with its start
   * time when `opts.running` is set (an execution that starts at once: one write instead of two).
   * An input over the cap is stored as a prefix with `input_truncated`.
   * @returns the new execution, with the complete `input`.
   */
  async create(
    skill: Skill,
    input: unknown,
    ctx: { apiKeyId: string | null; sessionId: string | null },
    opts: { approval?: ApprovalState; timeoutMs: number; running?: boolean },
  ): Promise<Execution> {
    const now = this.clock();
    const stored = storedJson(input, this.limits.maxInputBytes);
    const row: ExecutionRow = {
      id: crypto.randomUUID(),
      skillId: skill.id,
      skillName: skill.name,
      version: skill.version,
      apiKeyId: ctx.apiKeyId,
      sessionId: ctx.sessionId,
      requestId: currentRequestId(),
      status: opts.running ? "running" : "pending",
      approval: opts.approval ?? "none",
      input: stored.text,
      output: null,
      inputTruncated: stored.truncated,
      outputTruncated: false,
      errorMessage: null,
      errorCode: null,
      durationMs: null,
      attempts: 0,
      attemptLog: null,
      notificationLog: null,
      timeoutMs: opts.timeoutMs,
      codeSha256: skill.handler?.type === "code" ? skill.handler.sha256 : null,
      sandboxHost: null,
      sandboxQueueMs: null,
      sandboxProgramMs: null,
      createdAt: now,
      updatedAt: now,
      startedAt: opts.running ? now : null,
      finishedAt: null,
    };
    await this.rows.insert(row);
    if (opts.running) this.live.set(row.id, row);
    return { ...executionFromRow(row), input: input ?? null, inputTruncated: false };
  }

  /**
   * Approves a row awaiting approval and marks it `running` in one write, only if it is still
   * awaiting (docs/policies.md#approval). @returns true when this call won the transition.
   */
  startApproved(id: string, timeoutMs: number): Promise<boolean> {
    return this.rows.startApproved(id, timeoutMs, this.clock());
  }

  /** Marks a row `running` (with its start time and time budget). */
  async markRunning(id: string, timeoutMs: number, approval?: ApprovalState): Promise<void> {
    const now = this.clock();
    await this.db
      .update(skillExecutions)
      .set({
        status: "running",
        startedAt: now,
        updatedAt: now,
        timeoutMs,
        ...(approval ? { approval } : {}),
      })
      .where(eq(skillExecutions.id, id));
  }

  /** Appends one approval-notification delivery (SQLite `json_insert`, one statement). */
  async recordNotification(id: string, delivery: NotificationDelivery): Promise<void> {
    await this.db
      .update(skillExecutions)
      .set({
        notificationLog: sql`json_insert(coalesce(${skillExecutions.notificationLog}, '[]'), '$[#]', json(${JSON.stringify(delivery)}))`,
      })
      .where(eq(skillExecutions.id, id));
  }

  /** Records the attempt count while running, with the attempts so far and a new budget. */
  async setAttempts(
    id: string,
    attempts: number,
    opts: { attemptLog?: AttemptRecord[]; timeoutMs?: number } = {},
  ): Promise<void> {
    await this.rows.setAttempts(id, attempts, this.clock(), {
      attemptLog: opts.attemptLog ? JSON.stringify(opts.attemptLog) : null,
      timeoutMs: opts.timeoutMs ?? null,
    });
  }

  /**
   * Writes the terminal state; an output over the cap is stored as a prefix with
   * `output_truncated`. The end of an execution this repository started is written without
   * reading the row back.
   * @returns the final execution, with the complete `output`.
   * @throws NotFoundError `execution_not_found` when no execution has this id.
   */
  async finish(id: string, end: ExecutionEnd): Promise<Execution> {
    const now = this.clock();
    const stored =
      end.output === undefined ? null : storedJson(end.output, this.limits.maxOutputBytes);
    const patch: EndPatch = {
      status: end.status,
      output: stored?.text ?? null,
      outputTruncated: stored?.truncated ?? false,
      errorMessage: end.errorMessage ?? null,
      errorCode: end.errorCode ?? null,
      durationMs: end.durationMs,
      attempts: end.attempts,
      attemptLog: end.attemptLog ? JSON.stringify(end.attemptLog) : null,
      finishedAt: now,
      updatedAt: now,
      approval: end.approval ?? null,
      sandboxHost: end.sandbox?.host ?? null,
      sandboxQueueMs: end.sandbox?.queueWaitMs ?? null,
      sandboxProgramMs: end.sandbox?.programMs ?? null,
    };
    const base = this.live.get(id);
    this.live.delete(id);
    const written = await this.rows.end(id, patch, base === undefined);
    const row = base
      ? {
          ...base,
          ...patch,
          approval: patch.approval ?? base.approval,
          attemptLog: patch.attemptLog ?? base.attemptLog,
          sandboxHost: patch.sandboxHost ?? base.sandboxHost,
          sandboxQueueMs: patch.sandboxQueueMs ?? base.sandboxQueueMs,
          sandboxProgramMs: patch.sandboxProgramMs ?? base.sandboxProgramMs,
        }
      : written;
    if (!row) throw new NotFoundError(`Execution ${id} not found`, "execution_not_found");
    const execution = executionFromRow(row);
    return end.output === undefined
      ? execution
      : { ...execution, output: end.output, outputTruncated: false };
  }

  /**
   * Moves a row awaiting approval to a new approval state, only if it is still awaiting.
   * @returns true when this call won the transition (approvals race safely).
   */
  async claimApproval(id: string, to: "approved" | "rejected" | "expired"): Promise<boolean> {
    const res = await this.db
      .update(skillExecutions)
      .set({ approval: to, updatedAt: this.clock() })
      .where(
        and(
          eq(skillExecutions.id, id),
          eq(skillExecutions.status, "pending"),
          eq(skillExecutions.approval, "required"),
        ),
      )
      .returning({ id: skillExecutions.id });
    return res.length === 1;
  }

  /** One execution by id, or undefined. */
  async get(id: string): Promise<Execution | undefined> {
    const [row] = await this.db
      .select()
      .from(skillExecutions)
      .where(eq(skillExecutions.id, id))
      .limit(1);
    return row ? executionFromRow(row) : undefined;
  }

  /** A page of executions, newest first. */
  async list(filter: ExecutionFilter, limit: number, offset: number): Promise<Execution[]> {
    const rows = await this.db
      .select()
      .from(skillExecutions)
      .where(executionWhere(filter))
      .orderBy(desc(skillExecutions.createdAt), desc(skillExecutions.id))
      .limit(limit)
      .offset(offset);
    return rows.map(executionFromRow);
  }

  /** Number of executions matching `filter`. */
  async count(filter: ExecutionFilter): Promise<number> {
    const [row] = await this.db
      .select({ n: count() })
      .from(skillExecutions)
      .where(executionWhere(filter));
    return row?.n ?? 0;
  }

  /** See {@link recoverInterruptedRows}. @returns the number of rows ended. */
  recoverInterrupted(opts: { staleAfterMs?: number; defaultTimeoutMs: number }): Promise<number> {
    return recoverInterruptedRows(this.db, this.clock(), opts);
  }

  /** Ends approvals older than `ttlMs` as `error` (approval `expired`). @returns the number ended. */
  expireApprovals(ttlMs: number): Promise<number> {
    return expireApprovalRows(this.db, this.clock(), ttlMs);
  }

  /** See {@link ExecutionRepository.deleteFinishedBatch}. */
  deleteFinishedBatch(filter: ExecutionDeleteFilter, batchSize: number): Promise<number> {
    return deleteFinishedRows(this.db, filter, batchSize);
  }
}
