/**
 * Execution retention (docs/execution.md#retention): finished executions (`success`, `error`,
 * `timeout`) older than a cut-off are deleted in bounded batches, so that a delete of many rows
 * never holds the database's write lock for long and executions keep being written in between.
 * `pending` and `running` rows are never deleted, whatever their age. The rows go through the
 * execution repository ({@link ExecutionRepository.deleteFinishedBatch}).
 */
import type {
  ExecutionDeleteFilter,
  ExecutionRepository,
} from "../skills/execution/execution-repository.js";

export {
  type ExecutionDeleteFilter,
  FINISHED_STATUSES,
} from "../skills/execution/execution-repository.js";

/** Rows deleted per statement by default. */
export const DEFAULT_DELETE_BATCH = 250;

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

/**
 * Deletes finished executions matching `filter`, `batchSize` rows per statement, oldest first.
 * Each statement is its own transaction; a row that finishes while the run goes on is deleted
 * only if it matches when its batch is chosen.
 * @returns how many rows went, and whether rows are left because `maxBatches` was reached.
 */
export async function deleteFinishedExecutions(
  repository: Pick<ExecutionRepository, "deleteFinishedBatch">,
  filter: ExecutionDeleteFilter,
  opts: DeleteOptions = {},
): Promise<DeleteOutcome> {
  const batchSize = Math.max(1, opts.batchSize ?? DEFAULT_DELETE_BATCH);
  let deleted = 0;
  for (let batch = 0; ; batch++) {
    if (opts.maxBatches !== undefined && batch >= opts.maxBatches) return { deleted, more: true };
    const n = await repository.deleteFinishedBatch(filter, batchSize);
    deleted += n;
    if (n < batchSize) return { deleted, more: false };
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
  repository: Pick<ExecutionRepository, "deleteFinishedBatch">,
  retentionDays: number,
  now: number,
  opts: DeleteOptions = {},
): Promise<DeleteOutcome> {
  const before = retentionCutoff(retentionDays, now);
  if (before === undefined) return { deleted: 0, more: false };
  return deleteFinishedExecutions(repository, { before }, opts);
}
