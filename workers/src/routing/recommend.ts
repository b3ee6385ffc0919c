/**
 * Memory-aware routing (docs/a2a.md#memory_aware_routing): recommends an upstream provider and
 * model for a described task from a key's own upstream call history, and shows the numbers it
 * used. Pure: the caller reads the history.
 *
 * Rules:
 * - statistics per provider/model over the window: calls, success rate, latency p50 / p95 (ms,
 *   nearest-rank over every call), error classes counted;
 * - when calls that served a similar task exist (a task token of 3+ characters in common with the
 *   described task) and at least one candidate has {@link MIN_CALLS} of them, only those calls count
 *   (`basis: "similar-tasks"`), otherwise all calls do (`basis: "all-calls"`);
 * - candidates need {@link MIN_CALLS} calls; the best has the highest success rate, then the lowest
 *   p95, then the lowest p50, then the most calls, then provider/model by name;
 * - no call in the window, or no candidate with enough calls → no recommendation, and the answer
 *   says why instead of inventing one.
 */
import type { RecordedCall } from "./history.js";

/** Default and largest window of a recommendation, hours. */
export const DEFAULT_WINDOW_HOURS = 24;
export const MAX_WINDOW_HOURS = 24 * 30;

/** Calls a provider/model needs before it can be recommended. */
export const MIN_CALLS = 3;

/** Statistics of one provider/model. */
export interface ModelStats {
  provider: string;
  model: string;
  calls: number;
  successes: number;
  /** successes / calls, 0..1, rounded to 4 decimals. */
  successRate: number;
  latencyP50Ms: number;
  latencyP95Ms: number;
  /** Error class → count (failed calls only). */
  errorClasses: Record<string, number>;
}

/** The answer of {@link recommendRoute}. */
export interface RouteRecommendation {
  /** Null when the history does not support a recommendation (see `reason`). */
  recommendation: { provider: string; model: string; reason: string } | null;
  /** Why there is no recommendation; null when there is one. */
  reason: string | null;
  basis: "similar-tasks" | "all-calls" | "none";
  windowHours: number;
  /** Calls counted (after the similar-task filter). */
  callsConsidered: number;
  /** Every provider/model seen, best first. */
  candidates: ModelStats[];
}

function tokens(text: string | null | undefined): Set<string> {
  return new Set((text ?? "").toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/** Per provider/model statistics of `calls`, best first (see the module docs for the order). */
export function modelStats(calls: readonly RecordedCall[]): ModelStats[] {
  const groups = new Map<string, RecordedCall[]>();
  for (const c of calls) {
    const key = `${c.provider}\u0000${c.model}`;
    const list = groups.get(key);
    if (list) list.push(c);
    else groups.set(key, [c]);
  }
  const stats: ModelStats[] = [];
  for (const list of groups.values()) {
    const latencies = list.map((c) => c.latencyMs).sort((a, b) => a - b);
    const successes = list.filter((c) => c.status === "success").length;
    const errorClasses: Record<string, number> = {};
    for (const c of list) {
      if (c.status === "error") {
        const k = c.errorClass ?? "other";
        errorClasses[k] = (errorClasses[k] ?? 0) + 1;
      }
    }
    stats.push({
      provider: list[0]!.provider,
      model: list[0]!.model,
      calls: list.length,
      successes,
      successRate: Math.round((successes / list.length) * 10_000) / 10_000,
      latencyP50Ms: percentile(latencies, 50),
      latencyP95Ms: percentile(latencies, 95),
      errorClasses,
    });
  }
  return stats.sort(
    (a, b) =>
      b.successRate - a.successRate ||
      a.latencyP95Ms - b.latencyP95Ms ||
      a.latencyP50Ms - b.latencyP50Ms ||
      b.calls - a.calls ||
      a.provider.localeCompare(b.provider) ||
      a.model.localeCompare(b.model),
  );
}

/**
 * Recommends a provider/model for `task` from `calls` (a key's calls within the window).
 * @param windowHours the window the calls were read for (reported back).
 */
export function recommendRoute(
  task: string,
  calls: readonly RecordedCall[],
  windowHours: number,
): RouteRecommendation {
  const none = (reason: string, considered: RecordedCall[], candidates: ModelStats[]) => ({
    recommendation: null,
    reason,
    basis: considered.length === 0 ? ("none" as const) : ("all-calls" as const),
    windowHours,
    callsConsidered: considered.length,
    candidates,
  });
  if (calls.length === 0)
    return none(
      `No upstream calls recorded for this key in the last ${windowHours} h: there is no history to base a recommendation on.`,
      [],
      [],
    );
  const wanted = tokens(task);
  const similar = calls.filter((c) => [...tokens(c.task)].some((t) => wanted.has(t)));
  const similarStats = modelStats(similar);
  const useSimilar = similarStats.some((s) => s.calls >= MIN_CALLS);
  const considered = useSimilar ? similar : [...calls];
  const candidates = useSimilar ? similarStats : modelStats(calls);
  const best = candidates.find((s) => s.calls >= MIN_CALLS);
  if (!best)
    return none(
      `No provider/model has at least ${MIN_CALLS} calls in the last ${windowHours} h (${calls.length} calls in all): too little history to recommend one.`,
      considered,
      candidates,
    );
  const pct = (r: number) => `${Math.round(r * 1000) / 10}%`;
  return {
    recommendation: {
      provider: best.provider,
      model: best.model,
      reason: `${pct(best.successRate)} success over ${best.calls} ${useSimilar ? "similar " : ""}calls, latency p50 ${best.latencyP50Ms} ms / p95 ${best.latencyP95Ms} ms; the best success rate, then the lowest p95, among candidates with at least ${MIN_CALLS} calls.`,
    },
    reason: null,
    basis: useSimilar ? "similar-tasks" : "all-calls",
    windowHours,
    callsConsidered: considered.length,
    candidates,
  };
}
