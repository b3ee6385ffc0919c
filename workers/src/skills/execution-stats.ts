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

/** Both chart aggregates of one window. */
export interface ExecutionSummary {
  hourly: HourlyBucket[];
  perSkill: SkillStat[];
}

/** Nearest-rank percentile of sorted `values` (`p` in 0..100). */
function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/** Read-only aggregate queries over the execution history. */
export class ExecutionStats {
  constructor(private readonly db: Db) {}

  /**
   * Executions per hour by status for the `hours` hours ending at the hour containing `now`, and
   * per skill the median / p95 duration (nearest rank) and error rate of the executions of that
   * window that ended. One read of the window through the covering chart index.
   * @param apiKeyId one key's executions; undefined = all.
   * @param limit most skills listed (most executed first).
   */
  async summary(
    apiKeyId: string | undefined,
    now: number,
    hours = 24,
    limit = 20,
  ): Promise<ExecutionSummary> {
    const firstHour = Math.floor(now / HOUR_MS) - hours + 1;
    const rows = await this.db.all<{
      created_at: number;
      status: ExecutionStatus;
      skill_name: string;
      duration_ms: number | null;
    }>(sql`
      SELECT created_at, status, skill_name, duration_ms FROM skill_executions
      WHERE created_at >= ${firstHour * HOUR_MS} AND ${keyCondition(apiKeyId)}`);
    const hourly: HourlyBucket[] = [];
    for (let i = 0; i < hours; i++) {
      const counts = Object.fromEntries(STATUSES.map((st) => [st, 0])) as Record<
        ExecutionStatus,
        number
      >;
      hourly.push({ hourStart: (firstHour + i) * HOUR_MS, counts });
    }
    const bySkill = new Map<string, { durations: number[]; errors: number }>();
    for (const r of rows) {
      const bucket = hourly[Math.floor(Number(r.created_at) / HOUR_MS) - firstHour];
      if (bucket && r.status in bucket.counts) bucket.counts[r.status]++;
      if (r.status !== "success" && r.status !== "error" && r.status !== "timeout") continue;
      let s = bySkill.get(r.skill_name);
      if (!s) {
        s = { durations: [], errors: 0 };
        bySkill.set(r.skill_name, s);
      }
      s.durations.push(Number(r.duration_ms ?? 0));
      if (r.status !== "success") s.errors++;
    }
    const perSkill = [...bySkill.entries()]
      .sort((a, b) => b[1].durations.length - a[1].durations.length || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([skillName, s]) => {
        const sorted = s.durations.sort((a, b) => a - b);
        return {
          skillName,
          finished: sorted.length,
          medianMs: nearestRank(sorted, 50),
          p95Ms: nearestRank(sorted, 95),
          errorRate: s.errors / sorted.length,
        };
      });
    return { hourly, perSkill };
  }
}
