/**
 * The upstream call history of each key (docs/a2a.md#memory_aware_routing): one row per LLM call a
 * gateway reports (`POST /api/routing/observations`) with provider, model, outcome, error class and
 * latency, and the per provider/model statistics over a recent window that the routing
 * recommendation reads. A key sees only its own history.
 */

/** Error classes of a failed upstream call. */
export const ERROR_CLASSES = [
  "rate_limit",
  "timeout",
  "server_error",
  "invalid_request",
  "auth",
  "other",
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** One reported upstream call. */
export interface UpstreamCall {
  provider: string;
  model: string;
  status: "success" | "error";
  /** Required for `error`, ignored for `success`. */
  errorClass?: ErrorClass | null;
  /** Wall time of the upstream call, ms. */
  latencyMs: number;
  /** Short description of the task the call served. */
  task?: string | null;
  /** When the call was observed, ms since the epoch (default: when it is written). */
  at?: number;
}

/** A call as read back (with its time, ms since the epoch). */
export interface RecordedCall extends UpstreamCall {
  id: string;
  createdAt: number;
}

/** Most calls read for one recommendation (the newest within the window). */
export const MAX_CALLS_READ = 10_000;

/** Reads and writes the upstream call history; implemented in `db/repositories/upstream-calls.ts`. */
export interface RoutingHistoryRepository {
  /** Records calls of `apiKeyId` (null = management). @returns the ids written. */
  record(apiKeyId: string | null, calls: readonly UpstreamCall[]): Promise<string[]>;
  /**
   * The calls of `apiKeyId` in the last `windowMs`, oldest first (the newest
   * {@link MAX_CALLS_READ} when there are more).
   */
  recent(apiKeyId: string | null, windowMs: number): Promise<RecordedCall[]>;
}
