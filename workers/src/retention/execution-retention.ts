/**
 * Execution retention (docs/execution.md#retention): finished executions (`success`, `error`,
 * `timeout`) older than a cut-off are deleted in bounded batches, so that a delete of many rows
 * never holds the database's write lock for long and executions keep being written in between.
 * `pending` and `running` rows are never deleted, whatever their age.
 */
import { and, eq, gte, inArray, isNull, lt, type SQL } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { skillExecutions } from "../db/schema.js";

/** Statuses of finished executions; only these are ever deleted. */
export const FINISHED_STATUSES = ["success", "error", "timeout"] as const;

/** Rows deleted per statement by default. */
export const DEFAULT_DELETE_BATCH = 250;

/** What to delete (every field narrows; at least one of them must be set by a caller). */
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

/** Options of one deletion run. */
export interface DeleteOptions {
  /** Rows per statement (default {@link DEFAULT_DELETE_BATCH}). */
  batchSize?: number;
  /** Stop after this many statements (the Worker's cron bounds its work per run); default none. */
  maxBatches?: number;
  /** Awaited between batches (Node: yields the event loop so executions interleave). */
  pause?: () => Promise<void>;
}

/** Outcome of a deletion run. */
export interface DeleteOutcome {
  /** Rows deleted. */
  deleted: number;
  /** True when `maxBatches` stopped the run before every matching row was gone. */
  more: boolean;
}

function conditions(filter: ExecutionDeleteFilter): SQL {
  const conds: SQL[] = [inArray(skillExecutions.status, [...FINISHED_STATUSES])];
  if (filter.before !== undefined) conds.push(lt(skillExecutions.createdAt, filter.before));
  if (filter.after !== undefined) conds.push(gte(skillExecutions.createdAt, filter.after));
  if (filter.apiKeyId === null) conds.push(isNull(skillExecutions.apiKeyId));
  else if (filter.apiKeyId !== undefined) conds.push(eq(skillExecutions.apiKeyId, filter.apiKeyId));
  if (filter.skill) {
    const at = filter.skill.indexOf("@");
    if (at < 0) conds.push(eq(skillExecutions.skillName, filter.skill));
    else {
      conds.push(eq(skillExecutions.skillName, filter.skill.slice(0, at)));
      conds.push(eq(skillExecutions.version, filter.skill.slice(at + 1)));
    }
  }
  return and(...conds)!;
}

/**
 * Deletes finished executions matching `filter`, `batchSize` rows per statement, oldest first.
 * Each statement is its own transaction; a row that finishes while the run goes on is deleted
 * only if it matches when its batch is chosen.
 * @returns how many rows went, and whether rows are left because `maxBatches` was reached.
 */
export async function deleteFinishedExecutions(
  db: Db,
  filter: ExecutionDeleteFilter,
  opts: DeleteOptions = {},
): Promise<DeleteOutcome> {
  const batchSize = Math.max(1, opts.batchSize ?? DEFAULT_DELETE_BATCH);
  const where = conditions(filter);
  let deleted = 0;
  for (let batch = 0; ; batch++) {
    if (opts.maxBatches !== undefined && batch >= opts.maxBatches) return { deleted, more: true };
    const chosen = db
      .select({ id: skillExecutions.id })
      .from(skillExecutions)
      .where(where)
      .orderBy(skillExecutions.createdAt)
      .limit(batchSize);
    // The status is checked again on delete: a row chosen above cannot be a running one.
    const rows = await db
      .delete(skillExecutions)
      .where(
        and(
          inArray(skillExecutions.id, chosen),
          inArray(skillExecutions.status, [...FINISHED_STATUSES]),
        ),
      )
      .returning({ id: skillExecutions.id });
    deleted += rows.length;
    if (rows.length < batchSize) return { deleted, more: false };
    if (opts.pause) await opts.pause();
  }
}

/**
 * The retention cut-off for `retentionDays` at `now` (ms since the epoch).
 * @returns `now - retentionDays × 86 400 000`, or undefined when `retentionDays` is 0 (keep all).
 */
export function retentionCutoff(retentionDays: number, now: number): number | undefined {
  return retentionDays > 0 ? now - retentionDays * 86_400_000 : undefined;
}

/**
 * One retention pass: deletes finished executions created before the cut-off of
 * `EXECUTION_RETENTION_DAYS`. Does nothing when retention is 0.
 * @returns the outcome (zero rows when retention is off).
 */
export async function applyRetention(
  db: Db,
  retentionDays: number,
  now: number,
  opts: DeleteOptions = {},
): Promise<DeleteOutcome> {
  const before = retentionCutoff(retentionDays, now);
  if (before === undefined) return { deleted: 0, more: false };
  return deleteFinishedExecutions(db, { before }, opts);
}
