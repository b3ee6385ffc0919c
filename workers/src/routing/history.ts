/**
 * The upstream call history of each key (docs/a2a.md#memory-aware-routing): one row per LLM call a
 * gateway reports (`POST /api/routing/observations`) with provider, model, outcome, error class and
 * latency, and the per provider/model statistics over a recent window that the routing
 * recommendation reads. A key sees only its own history.
 */
import { and, desc, eq, gte, isNull } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { upstreamCalls } from "../db/schema.js";

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
}

/** A call as read back (with its time, ms since the epoch). */
export interface RecordedCall extends UpstreamCall {
  id: string;
  createdAt: number;
}

/** Most calls read for one recommendation (the newest within the window). */
export const MAX_CALLS_READ = 10_000;

/** Reads and writes the upstream call history. */
export class RoutingHistory {
  constructor(
    private readonly db: Db,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records calls of `apiKeyId` (null = management). @returns the ids written. */
  async record(apiKeyId: string | null, calls: readonly UpstreamCall[]): Promise<string[]> {
    if (calls.length === 0) return [];
    const now = this.clock();
    const rows = calls.map((c) => ({
      id: crypto.randomUUID(),
      apiKeyId,
      provider: c.provider,
      model: c.model,
      status: c.status,
      errorClass: c.status === "error" ? (c.errorClass ?? "other") : null,
      latencyMs: Math.max(0, Math.round(c.latencyMs)),
      task: c.task ?? null,
      createdAt: now,
    }));
    await this.db.insert(upstreamCalls).values(rows);
    return rows.map((r) => r.id);
  }

  /**
   * The calls of `apiKeyId` in the last `windowMs`, oldest first (the newest
   * {@link MAX_CALLS_READ} when there are more).
   */
  async recent(apiKeyId: string | null, windowMs: number): Promise<RecordedCall[]> {
    const since = this.clock() - windowMs;
    const rows = await this.db
      .select()
      .from(upstreamCalls)
      .where(
        and(
          apiKeyId === null ? isNull(upstreamCalls.apiKeyId) : eq(upstreamCalls.apiKeyId, apiKeyId),
          gte(upstreamCalls.createdAt, since),
        ),
      )
      .orderBy(desc(upstreamCalls.createdAt))
      .limit(MAX_CALLS_READ);
    return rows.reverse().map((r) => ({
      id: r.id,
      provider: r.provider,
      model: r.model,
      status: r.status,
      errorClass: (r.errorClass as ErrorClass | null) ?? null,
      latencyMs: r.latencyMs,
      task: r.task,
      createdAt: r.createdAt,
    }));
  }
}
