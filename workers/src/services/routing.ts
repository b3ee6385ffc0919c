/**
 * The routing service (docs/a2a.md#memory_aware_routing): records the upstream LLM calls a gateway
 * reports for a key and recommends a provider/model from that key's recent history.
 */
import type { RoutingHistoryRepository, UpstreamCall } from "../routing/history.js";
import { type RouteRecommendation, recommendRoute } from "../routing/recommend.js";
import { logPrefix } from "../telemetry/request-context.js";
import { WriteBuffer } from "./write-buffer.js";

/**
 * How long a gateway observation waits to be written with later ones, ms (docs/proxy.md#cost);
 * each keeps the time it was observed.
 */
export const OBSERVATION_WRITE_WINDOW_MS = 1_000;
/**
 * Observations held at most before they are written regardless of the window (in chunks, a turn
 * of the event loop apart: services/write-buffer.ts).
 */
const OBSERVATIONS_MAX = 100;

/** One observation waiting to be written. */
interface Observation {
  apiKeyId: string | null;
  call: UpstreamCall;
}

/** Upstream call history and routing recommendations, per key. */
export class RoutingService {
  /** One entry per observation (never merged), so the buffer's bound counts observations. */
  private readonly buffer: WriteBuffer<Observation>;
  private sequence = 0;

  constructor(
    private readonly history: RoutingHistoryRepository,
    private readonly clock: () => number = Date.now,
    windowMs = OBSERVATION_WRITE_WINDOW_MS,
  ) {
    this.buffer = new WriteBuffer<Observation>({
      windowMs,
      maxEntries: OBSERVATIONS_MAX,
      merge: (_, added) => added,
      write: async (entries) => {
        const byKey = new Map<string | null, UpstreamCall[]>();
        for (const [, { apiKeyId, call }] of entries) {
          const calls = byKey.get(apiKeyId);
          if (calls) calls.push(call);
          else byKey.set(apiKeyId, [call]);
        }
        for (const [apiKeyId, calls] of byKey) await this.history.record(apiKeyId, calls);
      },
      onError: (err, dropped) => {
        console.error(`${logPrefix()}recording ${dropped} routing observations failed:`, err);
      },
    });
  }

  /**
   * Records `call` of `apiKeyId` without waiting for the write (the gateway's observation of a
   * proxied request, docs/proxy.md#observability): observations are written together once per
   * {@link OBSERVATION_WRITE_WINDOW_MS}, each with its own time; a failed write is logged and lost.
   */
  recordLater(apiKeyId: string | null, call: UpstreamCall): void {
    const observed = { ...call, at: call.at ?? this.clock() };
    this.buffer.add(String(this.sequence++), { apiKeyId, call: observed });
  }

  /** True while observations wait to be written or are being written (the Worker keeps the isolate). */
  get busy(): boolean {
    return this.buffer.busy;
  }

  /** Writes the observations that wait now and settles when the writes started so far have ended. */
  async settled(): Promise<void> {
    await this.buffer.settled();
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
    await this.buffer.settled();
    const calls = await this.history.recent(apiKeyId, windowHours * 3_600_000);
    return recommendRoute(task, calls, windowHours);
  }
}
