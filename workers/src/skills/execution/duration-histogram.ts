/**
 * Fixed log-scale histogram of execution durations (docs/dashboard.md#charts), the shape of the
 * hourly rollups: 32 buckets over integer milliseconds. Bucket 0 holds 0 ms; buckets 1..30 split
 * 1 ms .. 120 s into ranges whose largest value is at most `RATIO` (≈ 1.477) times their
 * smallest; bucket 31 holds 120 s and more. A percentile read from the counts is the geometric
 * middle of the bucket holding the nearest-rank value, brought within the least and greatest
 * duration seen, so below 120 s it is off by at most {@link PERCENTILE_RELATIVE_ERROR} of that
 * value, plus 0.5 ms of rounding (values under 5 ms are exact). The rollup writes
 * (db/repositories/execution-rollups.ts) build their SQL from these bounds, and the backfill of
 * the migration `execution_hourly_rollups` spells them out: stored rollups are counted with them,
 * so they must not change without a migration that counts the rollups again.
 */

/** Number of buckets. */
export const DURATION_BUCKETS = 32;

/** Smallest duration of the overflow bucket, ms. */
export const DURATION_OVERFLOW_MS = 120_000;

/** Ratio between the ends of a log bucket: 120 000 ^ (1/30). */
export const RATIO = DURATION_OVERFLOW_MS ** (1 / 30);

/** Largest relative error of a percentile estimate below the overflow bucket: √RATIO − 1 (≈ 0.215). */
export const PERCENTILE_RELATIVE_ERROR = Math.sqrt(RATIO) - 1;

/**
 * Lower bounds (ms, inclusive) of buckets 1..31: `EDGES[i - 1]` starts bucket `i`; bucket `i`
 * (1..30) holds the integers in `[EDGES[i - 1], EDGES[i])`.
 */
export const EDGES: readonly number[] = Array.from({ length: 31 }, (_, i) =>
  i === 0 ? 1 : i === 30 ? DURATION_OVERFLOW_MS : Math.ceil(RATIO ** i - 1e-9),
);

/** Column names of the buckets in the rollup table: `b00` .. `b31`. */
export const BUCKET_COLUMNS = Array.from(
  { length: DURATION_BUCKETS },
  (_, i) => `b${String(i).padStart(2, "0")}`,
);

/**
 * The bucket (0..31) of a duration in ms; null and negative durations count as 0 ms (an execution
 * that ended without running, e.g. a rejected approval), fractions are floored.
 */
export function bucketOf(durationMs: number | null): number {
  const d = Math.floor(durationMs ?? 0);
  if (d < 1) return 0;
  let lo = 0;
  let hi = EDGES.length; // answer in 1..31: the number of edges <= d
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (EDGES[mid]! <= d) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The smallest and largest integer duration (ms) bucket `i` can hold (the overflow: its start). */
export function bucketRange(i: number): [number, number] {
  if (i <= 0) return [0, 0];
  if (i >= DURATION_BUCKETS - 1) return [DURATION_OVERFLOW_MS, DURATION_OVERFLOW_MS];
  return [EDGES[i - 1]!, EDGES[i]! - 1];
}

/**
 * Estimated nearest-rank `p`-th percentile (0 < p ≤ 100) of the durations counted in `counts`
 * (one count per bucket), in whole ms: the geometric middle of the part of the bucket holding
 * the k-th smallest duration (k = ⌈p/100 · n⌉) that lies within `bounds` (the least and greatest
 * duration counted, or a wider range); for k = n the greatest, for k = 1 the least. In the
 * overflow bucket (120 s and more) that part is [120 000, greatest]. @returns 0 when the counts are all zero.
 */
export function estimatePercentile(
  counts: readonly number[],
  p: number,
  bounds: { minMs: number; maxMs: number } = { minMs: 0, maxMs: Number.POSITIVE_INFINITY },
): number {
  const n = counts.reduce((a, b) => a + b, 0);
  if (n <= 0) return 0;
  const k = Math.min(n, Math.max(1, Math.ceil((p / 100) * n)));
  // The smallest and the greatest are known exactly when the bounds are tight.
  if (k === n && Number.isFinite(bounds.maxMs)) return Math.round(bounds.maxMs);
  if (k === 1 && bounds.minMs > 0) return Math.round(bounds.minMs);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= k) {
      const [first, last] = bucketRange(i);
      const top = i === DURATION_BUCKETS - 1 ? Math.max(last, bounds.maxMs) : last;
      const lo = Math.min(Math.max(first, bounds.minMs), top);
      const hi = Math.max(Math.min(top, bounds.maxMs), lo);
      return Math.round(Number.isFinite(hi) ? Math.sqrt(lo * hi) : lo);
    }
  }
  return DURATION_OVERFLOW_MS;
}
