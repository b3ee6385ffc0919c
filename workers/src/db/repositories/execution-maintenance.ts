/**
 * Bulk maintenance of `skill_executions` (docs/execution.md#crash-recovery,
 * docs/execution.md#retention): rows a crash left behind, approvals nobody gave in time, and the
 * deletion of finished executions in batches. Each is one statement over the rows it changes,
 * with the statements that keep their hourly rollups (execution-rollups.ts) in the same batch.
 */
import { and, eq, inArray, lt, ne, or, type SQL, sql } from "drizzle-orm";
import type { ExecutionDeleteFilter } from "../../skills/execution/execution-repository.js";
import type { Db } from "../client.js";
import { skillExecutions } from "../schema.js";
import { deleteWhere, finishedOnly } from "./execution-filters.js";
import {
  addRowsWhere,
  type RollupKey,
  refreshRollupsWhere,
  rollupKeyOf,
  rollupKeysWhere,
  subtractRowsWhere,
} from "./execution-rollups.js";

/** Most rollups refreshed by one statement (4 parameters each; SQLite allows 32 766). */
const REFRESH_CHUNK = 1_000;

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
  const where = and(...conds)!;
  const durationMs = sql`case when ${skillExecutions.startedAt} is null then null else ${now} - ${skillExecutions.startedAt} end`;
  const [, rows] = await db.batch([
    db.run(addRowsWhere(where, sql`'error'`, durationMs)),
    db
      .update(skillExecutions)
      .set({
        status: "error",
        errorMessage: "interrupted: the execution was still running when its process stopped",
        errorCode: "interrupted",
        finishedAt: now,
        updatedAt: now,
        durationMs,
      })
      .where(where)
      .returning({ id: skillExecutions.id }),
  ]);
  return rows.length;
}

/**
 * Ends approvals requested more than `ttlMs` ms before `now` as `error` (approval `expired`).
 * @returns the number of rows ended.
 */
export async function expireApprovalRows(db: Db, now: number, ttlMs: number): Promise<number> {
  const where = and(
    eq(skillExecutions.status, "pending"),
    eq(skillExecutions.approval, "required"),
    lt(skillExecutions.createdAt, now - ttlMs),
  )!;
  const [, rows] = await db.batch([
    db.run(addRowsWhere(where, sql`'error'`, sql`${skillExecutions.durationMs}`)),
    db
      .update(skillExecutions)
      .set({
        status: "error",
        approval: "expired",
        errorMessage: "approval expired: nobody approved the execution in time",
        errorCode: "approval_expired",
        finishedAt: now,
        updatedAt: now,
      })
      .where(where)
      .returning({ id: skillExecutions.id }),
  ]);
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
  const chosen = await db
    .select({
      id: skillExecutions.id,
      createdAt: skillExecutions.createdAt,
      apiKeyId: skillExecutions.apiKeyId,
      skillName: skillExecutions.skillName,
      status: skillExecutions.status,
    })
    .from(skillExecutions)
    .where(deleteWhere(filter))
    .orderBy(skillExecutions.createdAt)
    .limit(batchSize);
  if (chosen.length === 0) return 0;
  // The status is checked again on delete: a row chosen above cannot be a running one. The
  // rollups lose what the rows still there contribute, read in the same transaction.
  const where = and(
    inArray(
      skillExecutions.id,
      chosen.map((r) => r.id),
    ),
    finishedOnly,
  )!;
  const [, rows] = await db.batch([
    db.run(subtractRowsWhere(where)),
    db.delete(skillExecutions).where(where).returning({ id: skillExecutions.id }),
    ...refreshStatements(db, chosen.map(rollupKeyOf)),
  ]);
  return rows.length;
}

/**
 * The statements that put right the rollups `keys` after rows of theirs were subtracted and
 * deleted: empty ones deleted, the least and greatest duration of the others read again.
 */
export function refreshStatements(db: Db, keys: readonly RollupKey[]) {
  const distinct = [...new Map(keys.map((k) => [k.join("\u0000"), k])).values()];
  const out = [];
  for (let i = 0; i < distinct.length; i += REFRESH_CHUNK) {
    const where = rollupKeysWhere(distinct.slice(i, i + REFRESH_CHUNK));
    out.push(...refreshRollupsWhere(where).map((q) => db.run(q)));
  }
  return out;
}
