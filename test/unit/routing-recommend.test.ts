/**
 * Memory-aware routing rules (workers/src/routing/recommend.ts): no history → no recommendation,
 * too few calls → none, the order (success rate, p95, p50, calls), nearest-rank percentiles,
 * error classes, and the similar-task basis.
 */
import { describe, expect, it } from "vitest";
import type { RecordedCall } from "../../workers/src/routing/history.js";
import { MIN_CALLS, modelStats, recommendRoute } from "../../workers/src/routing/recommend.js";

let n = 0;
const call = (
  provider: string,
  model: string,
  latencyMs: number,
  extra: Partial<RecordedCall> = {},
): RecordedCall => ({
  id: `c${n++}`,
  provider,
  model,
  status: "success",
  errorClass: null,
  latencyMs,
  task: null,
  createdAt: n,
  ...extra,
});

describe("recommendRoute", () => {
  it("says there is no history instead of recommending", () => {
    const r = recommendRoute("anything", [], 24);
    expect(r).toMatchObject({
      recommendation: null,
      basis: "none",
      callsConsidered: 0,
      candidates: [],
    });
    expect(r.reason).toContain("No upstream calls");
  });

  it(`needs ${MIN_CALLS} calls for a candidate`, () => {
    const r = recommendRoute("x", [call("a", "m", 10), call("a", "m", 20)], 24);
    expect(r.recommendation).toBeNull();
    expect(r.reason).toContain(`at least ${MIN_CALLS} calls`);
    expect(r.candidates).toHaveLength(1);
  });

  it("prefers the success rate, then p95, then p50, and reports the numbers", () => {
    const calls = [
      ...[100, 200, 300, 400].map((l) => call("fast", "flaky", l)),
      call("fast", "flaky", 50, { status: "error", errorClass: "timeout" }),
      ...[900, 1000, 1100].map((l) => call("slow", "steady", l)),
      ...[500, 600, 700].map((l) => call("mid", "steady", l)),
    ];
    const r = recommendRoute("x", calls, 24);
    expect(r.recommendation).toMatchObject({ provider: "mid", model: "steady" });
    expect(r.candidates.map((c) => c.provider)).toEqual(["mid", "slow", "fast"]);
    expect(r.candidates[2]).toMatchObject({
      calls: 5,
      successes: 4,
      successRate: 0.8,
      latencyP50Ms: 200,
      latencyP95Ms: 400,
      errorClasses: { timeout: 1 },
    });
  });

  it("uses only calls of similar tasks when a candidate has enough of them", () => {
    const calls = [
      ...[10, 20, 30].map((l) => call("general", "m", l)),
      ...[300, 310, 320].map((l) => call("coder", "m", l, { task: "refactor typescript code" })),
    ];
    const similar = recommendRoute("Refactor this TypeScript module", calls, 24);
    expect(similar).toMatchObject({ basis: "similar-tasks", callsConsidered: 3 });
    expect(similar.recommendation?.provider).toBe("coder");
    const other = recommendRoute("write a poem", calls, 24);
    expect(other).toMatchObject({ basis: "all-calls", callsConsidered: 6 });
    expect(other.recommendation?.provider).toBe("general");
  });

  it("computes nearest-rank percentiles", () => {
    const stats = modelStats(Array.from({ length: 20 }, (_, i) => call("p", "m", i + 1)));
    expect(stats[0]).toMatchObject({ latencyP50Ms: 10, latencyP95Ms: 19 });
  });
});
