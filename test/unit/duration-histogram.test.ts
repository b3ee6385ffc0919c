/**
 * The log-scale duration histogram of the chart rollups (docs/dashboard.md#charts): bucket bounds,
 * and percentile estimates within the documented error bound of the exact nearest-rank value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bucketOf,
  bucketRange,
  DURATION_BUCKETS,
  DURATION_OVERFLOW_MS,
  estimatePercentile,
  PERCENTILE_RELATIVE_ERROR,
} from "../../workers/src/skills/execution/duration-histogram.js";

function nearestRank(sorted: number[], p: number): number {
  const k = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[k - 1]!;
}

describe("duration histogram", () => {
  it("puts every integer duration in the bucket whose range holds it", () => {
    expect(bucketOf(null)).toBe(0);
    expect(bucketOf(-5)).toBe(0);
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(1)).toBe(1);
    expect(bucketOf(DURATION_OVERFLOW_MS - 1)).toBe(DURATION_BUCKETS - 2);
    expect(bucketOf(DURATION_OVERFLOW_MS)).toBe(DURATION_BUCKETS - 1);
    expect(bucketOf(10 * DURATION_OVERFLOW_MS)).toBe(DURATION_BUCKETS - 1);
    for (let d = 0; d < DURATION_OVERFLOW_MS; d += d < 2_000 ? 1 : 37) {
      const [lo, hi] = bucketRange(bucketOf(d));
      expect(d >= lo && d <= hi).toBe(true);
    }
    for (let i = 1; i < DURATION_BUCKETS - 1; i++) {
      const [lo, hi] = bucketRange(i);
      expect(lo).toBeLessThanOrEqual(hi);
      expect(hi / lo).toBeLessThanOrEqual((1 + PERCENTILE_RELATIVE_ERROR) ** 2 + 1e-9);
    }
    expect(PERCENTILE_RELATIVE_ERROR).toBeCloseTo(0.2152, 3);
  });

  it("estimates median and p95 within the documented bound", () => {
    const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
    let exactHits = 0;
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 300 }), unit, (draws, s) => {
        const n = draws.length;
        const spread = 10 ** (1 + s * 4); // up to 100 s
        const values = draws.map((d) => Math.floor(d ** 3 * spread));
        const counts = Array<number>(DURATION_BUCKETS).fill(0);
        for (const v of values) counts[bucketOf(v)]!++;
        const sorted = [...values].sort((a, b) => a - b);
        const bounds = { minMs: sorted[0]!, maxMs: sorted[n - 1]! };
        for (const p of [50, 95, 99]) {
          const exact = nearestRank(sorted, p);
          const estimate = estimatePercentile(counts, p, bounds);
          expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(
            PERCENTILE_RELATIVE_ERROR * exact + 0.5,
          );
          if (estimate === exact) exactHits++;
        }
      }),
      { numRuns: 400 },
    );
    expect(exactHits).toBeGreaterThan(0);
  });

  it("reads the greatest and least exactly, and zero for no executions", () => {
    const counts = Array<number>(DURATION_BUCKETS).fill(0);
    for (const v of [3, 250, 300]) counts[bucketOf(v)]!++;
    expect(estimatePercentile(counts, 95, { minMs: 3, maxMs: 300 })).toBe(300);
    expect(estimatePercentile(counts, 1, { minMs: 3, maxMs: 300 })).toBe(3);
    expect(estimatePercentile(Array(DURATION_BUCKETS).fill(0), 50)).toBe(0);
    const slow = Array<number>(DURATION_BUCKETS).fill(0);
    slow[DURATION_BUCKETS - 1] = 4;
    const over = estimatePercentile(slow, 50, { minMs: 130_000, maxMs: 480_000 });
    expect(over).toBeGreaterThanOrEqual(130_000);
    expect(over).toBeLessThanOrEqual(480_000);
  });
});
