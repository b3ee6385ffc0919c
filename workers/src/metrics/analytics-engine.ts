/**
 * Workers Analytics Engine backend of {@link Metrics} for the Worker, used when the `ANALYTICS`
 * dataset binding exists (wrangler.toml `[[analytics_engine_datasets]]`). One data point per
 * answered request and per finished execution (Cloudflare Workers docs, "Workers Analytics
 * Engine": `writeDataPoint` takes up to 20 blobs, 20 doubles and one index of at most 96 bytes;
 * it does not wait and never throws into the request):
 *
 * | event | index | blob1 | blob2 | blob3 | blob4 | double1 | double2 |
 * |---|---|---|---|---|---|---|---|
 * | request | `request` | `request` | method | route pattern | status | duration (ms) | status |
 * | execution | `execution` | `execution` | skill name | status | error code or "" | duration (ms, -1 when nothing ran) | — |
 */
import type { Metrics } from "./types.js";

/** The part of the Analytics Engine dataset binding this backend uses. */
export interface AnalyticsEngineDatasetLike {
  writeDataPoint(point: { indexes?: string[]; blobs?: string[]; doubles?: number[] }): void;
}

/** Creates the backend over a dataset binding. */
export function createAnalyticsEngineMetrics(dataset: AnalyticsEngineDatasetLike): Metrics {
  const write = (point: { indexes: string[]; blobs: string[]; doubles: number[] }) => {
    try {
      dataset.writeDataPoint(point);
    } catch {
      // Metrics never break a request.
    }
  };
  return {
    observeRequest(s) {
      write({
        indexes: ["request"],
        blobs: ["request", s.method, s.route, String(s.status)],
        doubles: [s.durationMs, s.status],
      });
    },
    countExecution(s) {
      write({
        indexes: ["execution"],
        blobs: ["execution", s.skill, s.status, s.errorCode ?? ""],
        doubles: [s.durationMs ?? -1],
      });
    },
  };
}
