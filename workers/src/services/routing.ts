/**
 * The routing service (docs/a2a.md#memory_aware_routing): records the upstream LLM calls a gateway
 * reports for a key and recommends a provider/model from that key's recent history.
 */
import type { RoutingHistoryRepository, UpstreamCall } from "../routing/history.js";
import { type RouteRecommendation, recommendRoute } from "../routing/recommend.js";
import { logPrefix } from "../telemetry/request-context.js";

/** Upstream call history and routing recommendations, per key. */
export class RoutingService {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly history: RoutingHistoryRepository) {}

  /**
   * Records `call` of `apiKeyId` without waiting for the write (the gateway's observation of a
   * proxied request, docs/proxy.md#observability); a failed write is logged and lost.
   */
  recordLater(apiKeyId: string | null, call: UpstreamCall): void {
    const write = this.history
      .record(apiKeyId, [call])
      .then(() => {})
      .catch((err: unknown) => {
        console.error(`${logPrefix()}recording a routing observation failed:`, err);
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** True while observation writes are in flight (the Worker keeps the isolate for them). */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Settles when the writes in flight now have ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  /** Records calls of `apiKeyId` (null = management). @returns the ids written. */
  record(apiKeyId: string | null, calls: readonly UpstreamCall[]): Promise<string[]> {
    return this.history.record(apiKeyId, calls);
  }

  /**
   * Recommends a provider/model for `task` from the calls of `apiKeyId` in the last
   * `windowHours` hours.
   */
  async recommend(
    apiKeyId: string | null,
    task: string,
    windowHours: number,
  ): Promise<RouteRecommendation> {
    const calls = await this.history.recent(apiKeyId, windowHours * 3_600_000);
    return recommendRoute(task, calls, windowHours);
  }
}
