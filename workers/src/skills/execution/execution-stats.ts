/**
 * Shapes of the chart aggregates over the execution history (docs/dashboard.md#charts):
 * executions per hour by status, and per skill the median / p95 duration and the error rate. The
 * queries (over the hourly rollups) are in `workers/src/db/repositories/execution-stats.ts`.
 */
import type { ExecutionStatus } from "../types.js";

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
  /** Median duration in ms: the nearest-rank value estimated from log buckets (duration-histogram.ts). */
  medianMs: number;
  /** 95th percentile duration in ms, estimated as {@link SkillStat.medianMs}. */
  p95Ms: number;
  /** Share of finished executions that ended in error or timeout, 0..1. */
  errorRate: number;
}

/** Both chart aggregates of one window. */
export interface ExecutionSummary {
  hourly: HourlyBucket[];
  perSkill: SkillStat[];
}
