/**
 * The routing service (docs/a2a.md#memory_aware_routing): records the upstream LLM calls a gateway
 * reports for a key and recommends a provider/model from that key's recent history.
 */
import type { RoutingHistoryRepository, UpstreamCall } from "../routing/history.js";
import { type RouteRecommendation, recommendRoute } from "../routing/recommend.js";

/** Upstream call history and routing recommendations, per key. */
export class RoutingService {
  constructor(private readonly history: RoutingHistoryRepository) {}

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
