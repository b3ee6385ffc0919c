/**
 * Bulk maintenance of `skill_executions` (docs/execution.md#crash-recovery,
 * docs/execution.md#retention): rows a crash left behind, approvals nobody gave in time, and the
 * deletion of finished executions in batches. Each is one statement over the rows it changes.
 */
import { and, eq, inArray, lt, ne, or, type SQL, sql } from "drizzle-orm";
import type { ExecutionDeleteFilter } from "../../skills/execution/execution-repository.js";
import type { Db } from "../client.js";
import { skillExecutions } from "../schema.js";
import { deleteWhere, finishedOnly } from "./execution-filters.js";

/**
 * Ends rows a crash left behind: `running`, and `pending` not awaiting approval, as `error`
 * "interrupted". With `staleAfterMs`, only rows whose budget (timeout_ms, default
 * `defaultTimeoutMs`) plus `staleAfterMs` has passed since they were last touched (Worker cron).
 * @param now the current time, ms since the epoch.
 * @returns the number of rows ended.
 */
export async function recoverInterruptedRows(
  db: Db,
  now: number,
  opts: { staleAfterMs?: number; defaultTimeoutMs: number },
): Promise<number> {
  const conds: SQL[] = [
    or(
      eq(skillExecutions.status, "running"),
      and(eq(skillExecutions.status, "pending"), ne(skillExecutions.approval, "required")),
    )!,
  ];
  if (opts.staleAfterMs !== undefined) {
    conds.push(
      lt(
        sql`${skillExecutions.updatedAt} + coalesce(${skillExecutions.timeoutMs}, ${opts.defaultTimeoutMs}) + ${opts.staleAfterMs}`,
        now,
      ),
    );
  }
  const rows = await db
    .update(skillExecutions)
    .set({
      status: "error",
      errorMessage: "interrupted: the execution was still running when its process stopped",
      errorCode: "interrupted",
      finishedAt: now,
      updatedAt: now,
      durationMs: sql`case when ${skillExecutions.startedAt} is null then null else ${now} - ${skillExecutions.startedAt} end`,
    })
    .where(and(...conds))
    .returning({ id: skillExecutions.id });
  return rows.length;
}

/**
 * Ends approvals requested more than `ttlMs` ms before `now` as `error` (approval `expired`).
 * @returns the number of rows ended.
 */
export async function expireApprovalRows(db: Db, now: number, ttlMs: number): Promise<number> {
  const rows = await db
    .update(skillExecutions)
    .set({
      status: "error",
      approval: "expired",
      errorMessage: "approval expired: nobody approved the execution in time",
      errorCode: "approval_expired",
      finishedAt: now,
      updatedAt: now,
    })
    .where(
      and(
        eq(skillExecutions.status, "pending"),
        eq(skillExecutions.approval, "required"),
        lt(skillExecutions.createdAt, now - ttlMs),
      ),
    )
    .returning({ id: skillExecutions.id });
  return rows.length;
}

/**
 * Deletes up to `batchSize` finished executions matching `filter`, oldest first.
 * @returns the number of rows deleted.
 */
export async function deleteFinishedRows(
  db: Db,
  filter: ExecutionDeleteFilter,
  batchSize: number,
): Promise<number> {
  const chosen = db
    .select({ id: skillExecutions.id })
    .from(skillExecutions)
    .where(deleteWhere(filter))
    .orderBy(skillExecutions.createdAt)
    .limit(batchSize);
  // The status is checked again on delete: a row chosen above cannot be a running one.
  const rows = await db
    .delete(skillExecutions)
    .where(and(inArray(skillExecutions.id, chosen), finishedOnly))
    .returning({ id: skillExecutions.id });
  return rows.length;
}
