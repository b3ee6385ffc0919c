/**
 * Aggregates over `skill_executions` for charts (docs/dashboard.md#charts): executions per hour by
 * status, and per skill the median / p95 duration and the error rate. Both read one time window
 * through the `created_at` indexes, never the whole table.
 */
import { sql } from "drizzle-orm";
import type { ExecutionSummary, HourlyBucket } from "../../skills/execution/execution-stats.js";
import type { ExecutionStatus } from "../../skills/types.js";
import type { Db } from "../client.js";

const HOUR_MS = 3_600_000;
const STATUSES: ExecutionStatus[] = ["pending", "running", "success", "error", "timeout"];

function keyCondition(apiKeyId: string | undefined) {
  return apiKeyId === undefined ? sql`1 = 1` : sql`api_key_id = ${apiKeyId}`;
}

/**
 * Executions per hour by status for the `hours` hours ending at the hour containing `now`, and
 * per skill the median / p95 duration (nearest rank) and error rate of the executions of that
 * window that ended. Counts are grouped through the covering chart index; percentiles read
 * each listed skill's rows of the window through `skill_executions_skill_created_idx`, which
 * covers them (status, duration and key are in the index).
 * @param apiKeyId one key's executions; undefined = all.
 * @param limit most skills listed (most executed first).
 */
export async function executionSummary(
  db: Db,
  apiKeyId: string | undefined,
  now: number,
  hours: number,
  limit: number,
): Promise<ExecutionSummary> {
  const firstHour = Math.floor(now / HOUR_MS) - hours + 1;
  const since = firstHour * HOUR_MS;
  const key = keyCondition(apiKeyId);
  const ended = sql`status IN ('success', 'error', 'timeout')`;
  const [hourRows, skillRows] = await Promise.all([
    db.all<{ h: number; status: ExecutionStatus; n: number }>(sql`
        SELECT created_at / ${sql.raw(String(HOUR_MS))} AS h, status, count(*) AS n
        FROM skill_executions WHERE created_at >= ${since} AND ${key} GROUP BY h, status`),
    db.all<{ skill_name: string; n: number; errors: number }>(sql`
        SELECT skill_name, count(*) AS n, sum(status <> 'success') AS errors
        FROM skill_executions WHERE created_at >= ${since} AND ${ended} AND ${key}
        GROUP BY skill_name ORDER BY n DESC, skill_name LIMIT ${limit}`),
  ]);
  const hourly: HourlyBucket[] = [];
  for (let i = 0; i < hours; i++) {
    const counts = Object.fromEntries(STATUSES.map((st) => [st, 0])) as Record<
      ExecutionStatus,
      number
    >;
    hourly.push({ hourStart: (firstHour + i) * HOUR_MS, counts });
  }
  for (const r of hourRows) {
    const bucket = hourly[Number(r.h) - firstHour];
    if (bucket && r.status in bucket.counts) bucket.counts[r.status] += Number(r.n);
  }
  // Nearest-rank percentiles: the k-th smallest duration of each skill's ended executions,
  // read with ORDER BY ... LIMIT 1 OFFSET k-1 over that skill's rows of the window.
  const rank = async (skill: string, n: number, p: number): Promise<number> => {
    const k = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
    const [row] = await db.all<{ ms: number }>(sql`
        SELECT coalesce(duration_ms, 0) AS ms FROM skill_executions
        WHERE skill_name = ${skill} AND created_at >= ${since} AND ${ended} AND ${key}
        ORDER BY ms LIMIT 1 OFFSET ${k}`);
    return Number(row?.ms ?? 0);
  };
  const perSkill = await Promise.all(
    skillRows.map(async (r) => {
      const n = Number(r.n);
      const [medianMs, p95Ms] = await Promise.all([
        rank(r.skill_name, n, 50),
        rank(r.skill_name, n, 95),
      ]);
      return {
        skillName: r.skill_name,
        finished: n,
        medianMs,
        p95Ms,
        errorRate: n ? Number(r.errors) / n : 0,
      };
    }),
  );
  return { hourly, perSkill };
}
