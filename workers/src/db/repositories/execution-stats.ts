/**
 * Chart aggregates (docs/dashboard.md#charts): executions per hour by status, and per skill the
 * median / p95 duration and the error rate. Ended executions are read from the hourly rollups
 * (`execution_hourly_rollups`, kept by triggers on `skill_executions`), so a read costs two
 * passes over at most hours × skills × keys × 3 covering index entries, plus the rollup rows of
 * the listed skills, whatever the number of executions;
 * executions still `pending` or `running` are counted from their rows through
 * `skill_executions_status_created_idx` (a handful at any time).
 */
import { sql } from "drizzle-orm";
import { BUCKET_COLUMNS, estimatePercentile } from "../../skills/execution/duration-histogram.js";
import type { ExecutionSummary, HourlyBucket } from "../../skills/execution/execution-stats.js";
import type { ExecutionStatus } from "../../skills/types.js";
import type { Db } from "../client.js";

const HOUR_MS = 3_600_000;
/** Rollup hours kept by {@link pruneExecutionRollups}: twice the chart window. */
export const ROLLUP_RETENTION_MS = 48 * HOUR_MS;
const STATUSES: ExecutionStatus[] = ["pending", "running", "success", "error", "timeout"];
const BUCKET_SUMS = sql.raw(BUCKET_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(", "));

function emptyHours(firstHour: number, hours: number): HourlyBucket[] {
  return Array.from({ length: hours }, (_, i) => ({
    hourStart: (firstHour + i) * HOUR_MS,
    counts: Object.fromEntries(STATUSES.map((st) => [st, 0])) as Record<ExecutionStatus, number>,
  }));
}

/**
 * Executions per hour by status for the `hours` hours ending at the hour containing `now`, and
 * per skill (at most `limit`, most executed first, ties by name) the estimated nearest-rank median /
 * p95 duration in ms (log buckets; error bound in duration-histogram.ts) and the error rate of
 * the executions of that window that ended. Hours are those of `created_at`.
 * @param apiKeyId one key's executions; null = the management token's; undefined = all.
 */
export async function executionSummary(
  db: Db,
  apiKeyId: string | null | undefined,
  now: number,
  hours: number,
  limit: number,
): Promise<ExecutionSummary> {
  const firstHour = Math.floor(now / HOUR_MS) - hours + 1;
  const since = firstHour * HOUR_MS;
  const rollupKey = apiKeyId === undefined ? sql`1 = 1` : sql`api_key_id = ${apiKeyId ?? ""}`;
  const rowKey =
    apiKeyId === undefined
      ? sql`1 = 1`
      : apiKeyId === null
        ? sql`api_key_id IS NULL`
        : sql`api_key_id = ${apiKeyId}`;
  const [endedRows, liveRows, ranked] = await Promise.all([
    db.all<{ h: number; status: ExecutionStatus; n: number }>(sql`
        SELECT hour_start AS h, status, sum(count) AS n FROM execution_hourly_rollups
        WHERE hour_start >= ${since} AND ${rollupKey} GROUP BY hour_start, status`),
    db.all<{ h: number; status: ExecutionStatus; n: number }>(sql`
        SELECT created_at / ${sql.raw(String(HOUR_MS))} * ${sql.raw(String(HOUR_MS))} AS h,
          status, count(*) AS n
        FROM skill_executions WHERE status IN ('pending', 'running') AND created_at >= ${since}
          AND ${rowKey} GROUP BY h, status`),
    // The ranking reads only the covering index; the histograms only the listed skills' rows.
    db.all<{ skill_name: string; n: number; errors: number }>(sql`
        SELECT skill_name, sum(count) AS n, sum(error_count) AS errors
        FROM execution_hourly_rollups WHERE hour_start >= ${since} AND ${rollupKey}
        GROUP BY skill_name ORDER BY n DESC, skill_name LIMIT ${limit}`),
  ]);
  const names = ranked.map((r) => r.skill_name);
  const histograms = names.length
    ? await db.all<Record<string, number> & { skill_name: string }>(sql`
        SELECT skill_name, min(min_ms) AS min_ms, max(max_ms) AS max_ms, ${BUCKET_SUMS}
        FROM execution_hourly_rollups
        WHERE hour_start >= ${since} AND ${rollupKey}
          AND skill_name IN (${sql.join(
            names.map((n) => sql`${n}`),
            sql`, `,
          )})
        GROUP BY skill_name`)
    : [];
  const byName = new Map(histograms.map((r) => [r.skill_name, r]));
  const hourly = emptyHours(firstHour, hours);
  for (const r of [...endedRows, ...liveRows]) {
    const bucket = hourly[Number(r.h) / HOUR_MS - firstHour];
    if (bucket && r.status in bucket.counts) bucket.counts[r.status] += Number(r.n);
  }
  const perSkill = ranked.map((r) => {
    const n = Number(r.n);
    const h = byName.get(r.skill_name);
    const counts = BUCKET_COLUMNS.map((c) => Number(h?.[c] ?? 0));
    const bounds = { minMs: Number(h?.min_ms ?? 0), maxMs: Number(h?.max_ms ?? 0) };
    return {
      skillName: r.skill_name,
      finished: n,
      medianMs: estimatePercentile(counts, 50, bounds),
      p95Ms: estimatePercentile(counts, 95, bounds),
      errorRate: n ? Number(r.errors) / n : 0,
    };
  });
  return { hourly, perSkill };
}

/**
 * Deletes rollup hours that started more than {@link ROLLUP_RETENTION_MS} before `now` (ms since
 * epoch); the charts never read them. @returns the number of rollup rows deleted.
 */
export async function pruneExecutionRollups(db: Db, now: number): Promise<number> {
  const rs = await db.run(
    sql`DELETE FROM execution_hourly_rollups WHERE hour_start < ${now - ROLLUP_RETENTION_MS}`,
  );
  return rs.rowsAffected;
}
