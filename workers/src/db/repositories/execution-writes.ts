/**
 * The lifecycle writes of `skill_executions` (docs/execution.md#what-an-execution-costs), compiled
 * once from drizzle queries and sent through a {@link WriteBatcher}, so that concurrent executions
 * share transactions and a hot write does not rebuild its SQL. A write that ends an execution
 * carries the upsert of its hourly rollup (execution-rollups.ts) in the same transaction.
 */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { FINISHED_STATUSES } from "../../skills/execution/execution-repository.js";
import type { Db } from "../client.js";
import { type ExecutionRow, skillExecutions } from "../schema.js";
import {
  bindTemplate,
  compileTemplate,
  rowsOf,
  type StatementTemplate,
  sqlStatement,
  WriteBatcher,
} from "../write-batcher.js";
import {
  addEndedRowStatement,
  addEndingRowStatement,
  addRowsWhere,
  refreshRollupsWhere,
  rollupKeyOf,
  rollupKeysWhere,
  subtractRowsWhere,
} from "./execution-rollups.js";

/** Columns written when an execution ends; `approval` null keeps the stored approval state. */
export interface EndPatch {
  status: "success" | "error" | "timeout";
  output: string | null;
  outputTruncated: boolean;
  errorMessage: string | null;
  errorCode: string | null;
  durationMs: number;
  attempts: number;
  /** JSON text of the attempt records; null keeps the stored log. */
  attemptLog: string | null;
  finishedAt: number;
  updatedAt: number;
  approval: ExecutionRow["approval"] | null;
  /** The last sandbox attempt's host and times (ms); null keeps the stored values. */
  sandboxHost: string | null;
  sandboxQueueMs: number | null;
  sandboxProgramMs: number | null;
}

const p = (name: string) => sql.placeholder(name);
const COLUMNS = Object.keys(getTableColumns(skillExecutions));
const ENDED: readonly string[] = FINISHED_STATUSES;

/** Compiled lifecycle statements over one database. */
export class ExecutionWrites {
  readonly batcher: WriteBatcher;
  private readonly insertTpl: StatementTemplate;
  private readonly endTpl: StatementTemplate;
  private readonly endReturningTpl: StatementTemplate;
  /** The end of a row that has not ended yet (the common case: its rollup is only added to). */
  private readonly endOpenTpl: StatementTemplate;
  private readonly endOpenReturningTpl: StatementTemplate;
  private readonly attemptsTpl: StatementTemplate;
  private readonly startApprovedTpl: StatementTemplate;

  /** @param batcher the queue to write through (default: one of its own over `db`'s client). */
  constructor(
    private readonly db: Db,
    batcher?: WriteBatcher,
  ) {
    this.batcher = batcher ?? new WriteBatcher(db.$client);
    const values = Object.fromEntries(COLUMNS.map((k) => [k, p(k)]));
    this.insertTpl = compileTemplate(
      db.insert(skillExecutions).values(values as unknown as ExecutionRow),
    );
    const endSet = {
      status: p("status"),
      output: p("output"),
      outputTruncated: p("outputTruncated"),
      errorMessage: p("errorMessage"),
      errorCode: p("errorCode"),
      durationMs: p("durationMs"),
      attempts: p("attempts"),
      attemptLog: sql`coalesce(${p("attemptLog")}, ${skillExecutions.attemptLog})`,
      finishedAt: p("finishedAt"),
      updatedAt: p("updatedAt"),
      approval: sql`coalesce(${p("approval")}, ${skillExecutions.approval})`,
      sandboxHost: sql`coalesce(${p("sandboxHost")}, ${skillExecutions.sandboxHost})`,
      sandboxQueueMs: sql`coalesce(${p("sandboxQueueMs")}, ${skillExecutions.sandboxQueueMs})`,
      sandboxProgramMs: sql`coalesce(${p("sandboxProgramMs")}, ${skillExecutions.sandboxProgramMs})`,
    } as unknown as Partial<ExecutionRow>;
    const end = db
      .update(skillExecutions)
      .set(endSet)
      .where(eq(skillExecutions.id, p("id")));
    this.endTpl = compileTemplate(end);
    this.endReturningTpl = compileTemplate(end.returning());
    const endOpen = db
      .update(skillExecutions)
      .set(endSet)
      .where(
        and(
          eq(skillExecutions.id, p("id")),
          sql`${skillExecutions.status} NOT IN (${sql.raw(ENDED.map((s) => `'${s}'`).join(", "))})`,
        ),
      );
    this.endOpenTpl = compileTemplate(endOpen);
    this.endOpenReturningTpl = compileTemplate(endOpen.returning());
    this.attemptsTpl = compileTemplate(
      db
        .update(skillExecutions)
        .set({
          attempts: p("attempts"),
          updatedAt: p("updatedAt"),
          attemptLog: sql`coalesce(${p("attemptLog")}, ${skillExecutions.attemptLog})`,
          timeoutMs: sql`coalesce(${p("timeoutMs")}, ${skillExecutions.timeoutMs})`,
        } as unknown as ExecutionRow)
        .where(eq(skillExecutions.id, p("id"))),
    );
    this.startApprovedTpl = compileTemplate(
      db
        .update(skillExecutions)
        .set({
          status: "running",
          approval: "approved",
          startedAt: p("now"),
          updatedAt: p("now"),
          timeoutMs: p("timeoutMs"),
        } as unknown as ExecutionRow)
        .where(
          and(
            eq(skillExecutions.id, p("id")),
            eq(skillExecutions.status, "pending"),
            eq(skillExecutions.approval, "required"),
          ),
        )
        .returning({ id: skillExecutions.id }),
    );
  }

  /** Inserts `row` (every column); an ended row with its rollup, in the same transaction. */
  async insert(row: ExecutionRow): Promise<void> {
    const insert = bindTemplate(this.insertTpl, row as unknown as Record<string, unknown>);
    if (!ENDED.includes(row.status)) {
      await this.batcher.run(insert);
      return;
    }
    await this.batcher.runAll([
      insert,
      addEndedRowStatement({ ...row, status: row.status as EndPatch["status"] }),
    ]);
  }

  /**
   * Writes the end of execution `id` with the upsert of its rollup, in one transaction. With
   * `returning`, @returns the stored row afterwards (undefined when no row has that id); without
   * it, undefined. A row that had ended already (a second end, rare) moves its contribution from
   * its old rollup to the new one (one more transaction).
   */
  async end(id: string, patch: EndPatch, returning: boolean): Promise<ExecutionRow | undefined> {
    const values = { ...patch, id } as unknown as Record<string, unknown>;
    const [, rs] = await this.batcher.runAll([
      addEndingRowStatement(id, patch.status, patch.durationMs),
      bindTemplate(returning ? this.endOpenReturningTpl : this.endOpenTpl, values),
    ]);
    if ((returning ? rs!.rows.length : rs!.rowsAffected) === 0)
      return this.endAgain(id, values, returning);
    return returning ? rowsOf<ExecutionRow>(skillExecutions, rs!)[0] : undefined;
  }

  /** The end of a row that had ended already, or of no row. */
  private async endAgain(
    id: string,
    values: Record<string, unknown>,
    returning: boolean,
  ): Promise<ExecutionRow | undefined> {
    const [before] = await this.db
      .select({
        createdAt: skillExecutions.createdAt,
        apiKeyId: skillExecutions.apiKeyId,
        skillName: skillExecutions.skillName,
        status: skillExecutions.status,
      })
      .from(skillExecutions)
      .where(eq(skillExecutions.id, id));
    if (!before) return undefined;
    const byId = eq(skillExecutions.id, id);
    // Out of the old rollup, the row written, into the new one; then the old one's bounds.
    const results = await this.batcher.runAll([
      sqlStatement(subtractRowsWhere(byId)),
      bindTemplate(returning ? this.endReturningTpl : this.endTpl, values),
      sqlStatement(addRowsWhere(byId, sql.raw("status"), sql.raw("duration_ms"))),
      ...refreshRollupsWhere(rollupKeysWhere([rollupKeyOf(before)])).map(sqlStatement),
    ]);
    return returning ? rowsOf<ExecutionRow>(skillExecutions, results[1]!)[0] : undefined;
  }

  /**
   * Records the attempt count of a running execution; `attemptLog` (JSON text) and `timeoutMs`
   * replace the stored values when not null.
   */
  async setAttempts(
    id: string,
    attempts: number,
    now: number,
    opts: { attemptLog: string | null; timeoutMs: number | null },
  ): Promise<void> {
    await this.batcher.run(
      bindTemplate(this.attemptsTpl, { id, attempts, updatedAt: now, ...opts }),
    );
  }

  /** Approves and starts a row awaiting approval. @returns false when it was no longer awaiting. */
  async startApproved(id: string, timeoutMs: number, now: number): Promise<boolean> {
    const rs = await this.batcher.run(bindTemplate(this.startApprovedTpl, { id, timeoutMs, now }));
    return rs.rows.length === 1;
  }
}
