/**
 * Aggregates over `skill_executions` for charts (docs/dashboard.md#charts): executions per hour by
 * status, and per skill the median / p95 duration and the error rate. Both read one time window
 * through the `created_at` indexes, never the whole table.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import type { ExecutionStatus } from "./types.js";

/** Executions started in one hour, by status. */
export interface HourlyBucket {
  /** Start of the hour, ms since epoch. */
  hourStart: number;
  counts: Record<ExecutionStatus, number>;
}

/** Duration and error figures of one skill over a window. */
export interface SkillStat {
  skillName: string;
  /** Executions that ended (success, error, timeout). */
  finished: number;
  /** Median duration in ms (nearest-rank). */
  medianMs: number;
  /** 95th percentile duration in ms (nearest-rank). */
  p95Ms: number;
  /** Share of finished executions that ended in error or timeout, 0..1. */
  errorRate: number;
}

const HOUR_MS = 3_600_000;
const STATUSES: ExecutionStatus[] = ["pending", "running", "success", "error", "timeout"];

function keyCondition(apiKeyId: string | undefined) {
  return apiKeyId === undefined ? sql`1 = 1` : sql`api_key_id = ${apiKeyId}`;
}

/** Read-only aggregate queries over the execution history. */
export class ExecutionStats {
  constructor(private readonly db: Db) {}

  /**
   * Executions per hour by status for the `hours` hours ending at the hour containing `now`.
   * @param apiKeyId one key's executions; undefined = all.
   * @returns `hours` buckets, oldest first, empty hours included.
   */
  async hourly(apiKeyId: string | undefined, now: number, hours = 24): Promise<HourlyBucket[]> {
    const first = (Math.floor(now / HOUR_MS) - hours + 1) * HOUR_MS;
    const rows = await this.db.all<{ h: number; status: ExecutionStatus; n: number }>(sql`
      SELECT created_at / ${sql.raw(String(HOUR_MS))} AS h, status, count(*) AS n FROM skill_executions
      WHERE created_at >= ${first} AND ${keyCondition(apiKeyId)}
      GROUP BY h, status`);
    const buckets: HourlyBucket[] = [];
    for (let i = 0; i < hours; i++) {
      const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<
        ExecutionStatus,
        number
      >;
      buckets.push({ hourStart: first + i * HOUR_MS, counts });
    }
    for (const r of rows) {
      const bucket = buckets[Number(r.h) - first / HOUR_MS];
      if (bucket && r.status in bucket.counts) bucket.counts[r.status] += Number(r.n);
    }
    return buckets;
  }

  /**
   * Per-skill duration percentiles and error rate of executions that ended since `since`.
   * @param apiKeyId one key's executions; undefined = all.
   * @returns at most `limit` skills, most executed first.
   */
  async perSkill(apiKeyId: string | undefined, since: number, limit = 20): Promise<SkillStat[]> {
    const rows = await this.db.all<{
      skill_name: string;
      n: number;
      med: number | null;
      p95: number | null;
      errors: number;
    }>(sql`
      WITH d AS (
        SELECT skill_name, status, coalesce(duration_ms, 0) AS ms,
          row_number() OVER (PARTITION BY skill_name ORDER BY coalesce(duration_ms, 0)) AS rn,
          count(*) OVER (PARTITION BY skill_name) AS n
        FROM skill_executions
        WHERE created_at >= ${since} AND status IN ('success', 'error', 'timeout')
          AND ${keyCondition(apiKeyId)}
      )
      SELECT skill_name, n,
        max(CASE WHEN rn = (n + 1) / 2 THEN ms END) AS med,
        max(CASE WHEN rn = CAST((95 * n + 99) / 100 AS INTEGER) THEN ms END) AS p95,
        sum(CASE WHEN status = 'success' THEN 0 ELSE 1 END) AS errors
      FROM d GROUP BY skill_name, n ORDER BY n DESC, skill_name LIMIT ${limit}`);
    return rows.map((r) => ({
      skillName: r.skill_name,
      finished: Number(r.n),
      medianMs: Number(r.med ?? 0),
      p95Ms: Number(r.p95 ?? 0),
      errorRate: Number(r.n) ? Number(r.errors) / Number(r.n) : 0,
    }));
  }
}
