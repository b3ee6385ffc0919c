/**
 * Prometheus backend of {@link Metrics} for the Node entry, with `prom-client`. Each instance
 * owns its registry (several apps in one process never share counters). Metric names follow the
 * Prometheus naming conventions (base units: seconds; `_total` on counters):
 *
 * - `skillgate_http_requests_total{method,route,status}` and
 *   `skillgate_http_request_duration_seconds{method,route,status}` (histogram);
 * - `skillgate_executions_total{skill,status}` and
 *   `skillgate_execution_duration_seconds{skill,status}` (histogram; executions that ran);
 * - `skillgate_selection_injected_total{skill}`, `skillgate_selection_called_total{skill}` (called
 *   when injected: precision is called / injected) and `skillgate_selection_search_found_total{skill}`
 *   (found only through `skill_search`), and `skillgate_selection_ranker{ranker}` (1 for the
 *   default ranker; docs/scoring.md#selection-counters);
 * - the client's default process metrics (`process_*`, `nodejs_*`).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Metrics, MetricsScrape } from "./types.js";

/** Histogram buckets of request latency, in seconds. */
export const REQUEST_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Histogram buckets of execution run time, in seconds (handlers may run up to 10 minutes). */
export const EXECUTION_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 600];

/** A Prometheus-backed {@link Metrics} with its registry. */
export interface PrometheusMetrics extends Metrics {
  readonly registry: Registry;
  scrape(): Promise<MetricsScrape>;
}

/**
 * Creates the metrics and their registry.
 * @param opts.defaultMetrics also collect the process metrics of `prom-client` (default true).
 */
export function createPrometheusMetrics(
  opts: { defaultMetrics?: boolean } = {},
): PrometheusMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "skillgate_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status code",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: "skillgate_http_request_duration_seconds",
    help: "Time to answer an HTTP request, in seconds",
    labelNames: ["method", "route", "status"] as const,
    buckets: REQUEST_BUCKETS_S,
    registers: [registry],
  });
  const executions = new Counter({
    name: "skillgate_executions_total",
    help: "Executions that reached a terminal status, by skill name and status",
    labelNames: ["skill", "status"] as const,
    registers: [registry],
  });
  const tokens = new Counter({
    name: "skillgate_proxy_tokens_total",
    help: "Model tokens of answered proxied requests, summed over their rounds, by wire format and direction (per key: GET /api/keys/{id}/token-usage)",
    labelNames: ["format", "direction"] as const,
    registers: [registry],
  });
  const proxyRounds = new Counter({
    name: "skillgate_proxy_rounds_total",
    help: "Upstream rounds of answered proxied requests, by wire format",
    labelNames: ["format"] as const,
    registers: [registry],
  });
  const ownedCalls = new Counter({
    name: "skillgate_proxy_owned_calls_total",
    help: "Tool calls of answered proxied requests that Skillgate ran itself, by wire format",
    labelNames: ["format"] as const,
    registers: [registry],
  });
  const executionSeconds = new Histogram({
    name: "skillgate_execution_duration_seconds",
    help: "Run time of executions (retries included), in seconds",
    labelNames: ["skill", "status"] as const,
    buckets: EXECUTION_BUCKETS_S,
    registers: [registry],
  });
  const selection = {
    injected: new Counter({
      name: "skillgate_selection_injected_total",
      help: "Times a skill was injected as an AUTO pick, by skill name",
      labelNames: ["skill"] as const,
      registers: [registry],
    }),
    called: new Counter({
      name: "skillgate_selection_called_total",
      help: "Times a model called a skill that was injected for it, by skill name",
      labelNames: ["skill"] as const,
      registers: [registry],
    }),
    searched: new Counter({
      name: "skillgate_selection_search_found_total",
      help: "Times skill_search found a skill the ranker had not injected, by skill name",
      labelNames: ["skill"] as const,
      registers: [registry],
    }),
  };
  const ranker = new Gauge({
    name: "skillgate_selection_ranker",
    help: "The default ranker of AUTO selection (1 for the current one)",
    labelNames: ["ranker"] as const,
    registers: [registry],
  });
  return {
    registry,
    countSelection(s) {
      selection[s.event].inc({ skill: s.skill });
    },
    setRanker(name) {
      ranker.reset();
      ranker.set({ ranker: name }, 1);
    },
    observeRequest(s) {
      const labels = { method: s.method, route: s.route, status: String(s.status) };
      requests.inc(labels);
      requestSeconds.observe(labels, s.durationMs / 1000);
    },
    countTokens(s) {
      tokens.inc({ format: s.format, direction: "input" }, s.inputTokens);
      tokens.inc({ format: s.format, direction: "output" }, s.outputTokens);
      proxyRounds.inc({ format: s.format }, s.rounds);
      ownedCalls.inc({ format: s.format }, s.ownedCalls);
    },
    countExecution(s) {
      const labels = { skill: s.skill, status: s.status };
      executions.inc(labels);
      if (s.durationMs !== null) executionSeconds.observe(labels, s.durationMs / 1000);
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
