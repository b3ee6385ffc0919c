/**
 * The statements that keep `execution_hourly_rollups` equal to the ended rows of
 * `skill_executions` (docs/dashboard.md#charts, docs/architecture.md#execution-rollups). They are
 * written by the code that writes the rows, in the same batch (one transaction):
 * - an execution that ends adds itself with one short upsert whose bucket column is chosen in
 *   code ({@link addEndedRowStatement}, {@link addEndingRowStatement});
 * - the bulk writes (crash recovery, expired approvals, deletions) add or subtract the rows they
 *   change with one grouped statement each ({@link addRowsWhere}, {@link subtractRowsWhere}),
 *   then put the least and greatest duration of the rollups they touched right
 *   ({@link refreshRollupsWhere}).
 * A rollup is keyed by the hour of `created_at`, the key (`''` for the management token), the
 * skill name and the ended status; its buckets are those of duration-histogram.ts (a null
 * duration counts as 0 ms).
 */
import { type SQL, sql } from "drizzle-orm";
import { BUCKET_COLUMNS, bucketOf, EDGES } from "../../skills/execution/duration-histogram.js";
import { FINISHED_STATUSES } from "../../skills/execution/execution-repository.js";
import type { Statement } from "../write-batcher.js";

const HOUR_MS = 3_600_000;
const ENDED_SQL = FINISHED_STATUSES.map((s) => `'${s}'`).join(", ");
const KEY_COLUMNS = "hour_start, api_key_id, skill_name, status";
const VALUE_COLUMNS = `${KEY_COLUMNS}, count, error_count, duration_sum_ms, min_ms, max_ms`;
const ON_CONFLICT = `ON CONFLICT (${KEY_COLUMNS}) DO UPDATE SET count = count + excluded.count, error_count = error_count + excluded.error_count, duration_sum_ms = duration_sum_ms + excluded.duration_sum_ms, min_ms = min(min_ms, excluded.min_ms), max_ms = max(max_ms, excluded.max_ms)`;

/** One upsert per bucket column: `bNN` is the only bucket an ended row adds to. */
const ADD_VALUES_SQL = BUCKET_COLUMNS.map(
  (b) =>
    `INSERT INTO execution_hourly_rollups (${VALUE_COLUMNS}, ${b}) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, 1) ${ON_CONFLICT}, ${b} = ${b} + 1`,
);

/**
 * The same upsert for a row being ended: its hour, key and skill are read from the row, and it
 * adds only while the row has not ended yet (placed before the write that ends it).
 */
const ADD_ENDING_SQL = BUCKET_COLUMNS.map(
  (b) =>
    `INSERT INTO execution_hourly_rollups (${VALUE_COLUMNS}, ${b}) SELECT created_at / ${HOUR_MS} * ${HOUR_MS}, coalesce(api_key_id, ''), skill_name, ?, 1, ?, ?, ?, ?, 1 FROM skill_executions WHERE id = ? AND status NOT IN (${ENDED_SQL}) ${ON_CONFLICT}, ${b} = ${b} + 1`,
);

/** What an ended row contributes to its rollup. */
export interface RollupContribution {
  /** `created_at` of the row, ms since the epoch. */
  createdAt: number;
  apiKeyId: string | null;
  skillName: string;
  status: "success" | "error" | "timeout";
  /** ms; null counts as 0. */
  durationMs: number | null;
}

/** Adds a row inserted already ended (same batch as the insert). */
export function addEndedRowStatement(row: RollupContribution): Statement {
  const d = row.durationMs ?? 0;
  return {
    sql: ADD_VALUES_SQL[bucketOf(row.durationMs)]!,
    args: [
      Math.floor(row.createdAt / HOUR_MS) * HOUR_MS,
      row.apiKeyId ?? "",
      row.skillName,
      row.status,
      row.status === "success" ? 0 : 1,
      d,
      d,
      d,
    ],
  };
}

/**
 * Adds execution `id` as it is about to end with `status` and `durationMs`, unless it has ended
 * already or does not exist. Must run before the update that ends it, in the same batch.
 */
export function addEndingRowStatement(
  id: string,
  status: RollupContribution["status"],
  durationMs: number | null,
): Statement {
  const d = durationMs ?? 0;
  return {
    sql: ADD_ENDING_SQL[bucketOf(durationMs)]!,
    args: [status, status === "success" ? 0 : 1, d, d, d, id],
  };
}

/** `CASE` giving the bucket (0..31) of the integer-valued expression `d` (ms, already coalesced). */
const BUCKET_CASE = `CASE WHEN d < 1 THEN 0 ${EDGES.slice(1)
  .map((edge, i) => `WHEN d < ${edge} THEN ${i + 1}`)
  .join(" ")} ELSE ${BUCKET_COLUMNS.length - 1} END`;

const GROUP_SUMS = sql.raw(
  `count(*) AS n, sum(st <> 'success') AS e, sum(d) AS sd, min(d) AS lo, max(d) AS hi, ${BUCKET_COLUMNS.map(
    (b, i) => `sum(b = ${i}) AS ${b}`,
  ).join(", ")}`,
);

/**
 * The rows of `skill_executions` matching `where`, grouped by rollup: columns h, k, s, st, n, e,
 * sd, lo, hi, b00..b31. `status` and `duration` are the ended status and duration to count each
 * row under (default: the stored ones).
 */
function grouped(where: SQL, status: SQL, duration: SQL): SQL {
  return sql`SELECT h, k, s, st, ${GROUP_SUMS} FROM (SELECT *, ${sql.raw(BUCKET_CASE)} AS b FROM (
    SELECT created_at / ${sql.raw(String(HOUR_MS))} * ${sql.raw(String(HOUR_MS))} AS h,
      coalesce(api_key_id, '') AS k, skill_name AS s, ${status} AS st,
      coalesce(${duration}, 0) AS d
    FROM skill_executions WHERE ${where})) WHERE st IN (${sql.raw(ENDED_SQL)}) GROUP BY h, k, s, st`;
}

/**
 * Adds the rows matching `where` as they are about to be ended with the status and duration the
 * SQL expressions `status` / `duration` give (evaluated on each row before the update). Must run
 * before that update, in the same batch, with the same `where`.
 */
export function addRowsWhere(where: SQL, status: SQL, duration: SQL): SQL {
  return sql`INSERT INTO execution_hourly_rollups (${sql.raw(VALUE_COLUMNS)}, ${sql.raw(BUCKET_COLUMNS.join(", "))})
    SELECT h, k, s, st, n, e, sd, lo, hi, ${sql.raw(BUCKET_COLUMNS.join(", "))}
    FROM (${grouped(where, status, duration)}) WHERE true
    ${sql.raw(ON_CONFLICT)}, ${sql.raw(BUCKET_COLUMNS.map((b) => `${b} = ${b} + excluded.${b}`).join(", "))}`;
}

/**
 * Subtracts the ended rows matching `where` from their rollups (count, errors, duration sum,
 * buckets). Must run before the statement that deletes or changes them, in the same batch; then
 * {@link refreshRollupsWhere} over the rollups touched.
 */
export function subtractRowsWhere(where: SQL): SQL {
  return sql`UPDATE execution_hourly_rollups SET count = count - g.n, error_count = error_count - g.e,
    duration_sum_ms = duration_sum_ms - g.sd,
    ${sql.raw(BUCKET_COLUMNS.map((b) => `${b} = execution_hourly_rollups.${b} - g.${b}`).join(", "))}
    FROM (${grouped(sql`(${where}) AND status IN (${sql.raw(ENDED_SQL)})`, sql.raw("status"), sql.raw("duration_ms"))}) AS g
    WHERE hour_start = g.h AND api_key_id = g.k AND skill_name = g.s AND status = g.st`;
}

/**
 * After rows were subtracted: deletes the rollups matching `rollupWhere` (SQL over
 * `execution_hourly_rollups`) that count nothing any more, and reads the least and greatest
 * duration of the others again from their rows, one seek each of
 * `skill_executions_rollup_group_idx` (the right-hand sides are expressions, not bare columns, so
 * that no column affinity keeps SQLite from matching the index's expressions). @returns the two statements, to run in this order.
 */
export function refreshRollupsWhere(rollupWhere: SQL): [SQL, SQL] {
  const group = sql.raw(
    `FROM skill_executions e WHERE e.skill_name = execution_hourly_rollups.skill_name AND e.status = execution_hourly_rollups.status AND coalesce(e.api_key_id, '') = coalesce(execution_hourly_rollups.api_key_id, '') AND e.created_at / ${HOUR_MS} = execution_hourly_rollups.hour_start / ${HOUR_MS}`,
  );
  return [
    sql`DELETE FROM execution_hourly_rollups WHERE count <= 0 AND (${rollupWhere})`,
    sql`UPDATE execution_hourly_rollups SET
      min_ms = coalesce((SELECT min(coalesce(e.duration_ms, 0)) ${group}), min_ms),
      max_ms = coalesce((SELECT max(coalesce(e.duration_ms, 0)) ${group}), max_ms)
      WHERE (${rollupWhere})`,
  ];
}

/** A rollup's key: hour start (ms), key (`''` for none), skill name, status. */
export type RollupKey = readonly [number, string, string, string];

/** The rollup an ended row counts in. */
export function rollupKeyOf(row: {
  createdAt: number;
  apiKeyId: string | null;
  skillName: string;
  status: string;
}): RollupKey {
  return [
    Math.floor(row.createdAt / HOUR_MS) * HOUR_MS,
    row.apiKeyId ?? "",
    row.skillName,
    row.status,
  ];
}

/** SQL over `execution_hourly_rollups` matching the rollups `keys` (distinct, non-empty). */
export function rollupKeysWhere(keys: readonly RollupKey[]): SQL {
  return sql`(hour_start, api_key_id, skill_name, status) IN (VALUES ${sql.join(
    keys.map(([h, k, s, st]) => sql`(${h}, ${k}, ${s}, ${st})`),
    sql`, `,
  )})`;
}
