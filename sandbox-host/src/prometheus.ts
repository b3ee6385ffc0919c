/**
 * Prometheus backend of {@link HostMetrics} (`prom-client`), one registry per host. Names follow
 * the Prometheus naming conventions (seconds, `_total` counters):
 *
 * - `skillgate_sandbox_http_requests_total{method,route,status}`,
 *   `skillgate_sandbox_http_request_duration_seconds{method,route,status}`;
 * - `skillgate_sandbox_runs_total{language,outcome,pooled}`,
 *   `skillgate_sandbox_run_duration_seconds{language,outcome}`, where `language` is the run's
 *   language or `browser` for a browse (whose driver runs on Node but is counted apart);
 * - `skillgate_sandbox_runs_refused_total{code}`;
 * - `skillgate_sandbox_queue_wait_seconds`, gauges `skillgate_sandbox_queue_depth` and
 *   `skillgate_sandbox_runs_running`;
 * - `skillgate_sandbox_pool_takes_total{language,result="hit"|"miss"}`, gauge
 *   `skillgate_sandbox_pool_ready{image}`;
 * - `skillgate_sandbox_container_phase_seconds{phase}` (create, start, handover, program, output,
 *   drain, inspect, remove: metrics.ts `ContainerPhase`);
 * - the client's default process metrics (`process_*`, `nodejs_*`).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { HostMetrics, HostState } from "./metrics.js";

/** Buckets of short operations (requests, container steps, queue waits), in seconds. */
const SHORT_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Buckets of program run time (up to the 60 s limit plus grace), in seconds. */
const RUN_BUCKETS_S = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 90];

/** A Prometheus-backed {@link HostMetrics} with its registry. */
export interface PrometheusHostMetrics extends HostMetrics {
  readonly registry: Registry;
  scrape(): Promise<{ contentType: string; body: string }>;
}

/**
 * Creates the metrics and their registry.
 * @param opts.defaultMetrics also collect the process metrics of `prom-client` (default true).
 */
export function createPrometheusHostMetrics(
  opts: { defaultMetrics?: boolean } = {},
): PrometheusHostMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let state: HostState | undefined;

  const requests = new Counter({
    name: "skillgate_sandbox_http_requests_total",
    help: "HTTP requests answered by the sandbox host, by method, route pattern and status code",
    labelNames: ["method", "route", "status"] as const,
    registers,
  });
  const requestSeconds = new Histogram({
    name: "skillgate_sandbox_http_request_duration_seconds",
    help: "Time to answer an HTTP request, in seconds (a run's request lasts as long as the run)",
    labelNames: ["method", "route", "status"] as const,
    buckets: RUN_BUCKETS_S,
    registers,
  });
  const runs = new Counter({
    name: "skillgate_sandbox_runs_total",
    help: "Runs that started in a container, by language (browser for a browse), outcome and whether a pooled container served them",
    labelNames: ["language", "outcome", "pooled"] as const,
    registers,
  });
  const runSeconds = new Histogram({
    name: "skillgate_sandbox_run_duration_seconds",
    help: "Run time of programs from stdin written to exit, in seconds, by language (browser for a browse) and outcome",
    labelNames: ["language", "outcome"] as const,
    buckets: RUN_BUCKETS_S,
    registers,
  });
  const refused = new Counter({
    name: "skillgate_sandbox_runs_refused_total",
    help: "Runs refused before they started, by error code",
    labelNames: ["code"] as const,
    registers,
  });
  const queueWait = new Histogram({
    name: "skillgate_sandbox_queue_wait_seconds",
    help: "Time runs waited for a concurrency slot, in seconds",
    buckets: SHORT_BUCKETS_S,
    registers,
  });
  new Gauge({
    name: "skillgate_sandbox_image_runtime_info",
    help: "Image and container runtime of each kind of run (value 1)",
    labelNames: ["kind", "image", "runtime"] as const,
    registers,
    collect() {
      this.reset();
      for (const row of state?.images() ?? []) this.set(row, 1);
    },
  });
  new Gauge({
    name: "skillgate_sandbox_queue_depth",
    help: "Runs waiting for a concurrency slot",
    registers,
    collect() {
      this.set(state?.queued() ?? 0);
    },
  });
  new Gauge({
    name: "skillgate_sandbox_runs_running",
    help: "Runs holding a concurrency slot",
    registers,
    collect() {
      this.set(state?.running() ?? 0);
    },
  });
  const poolTakes = new Counter({
    name: "skillgate_sandbox_pool_takes_total",
    help: "Poolable runs that found a ready container (hit) or created one (miss)",
    labelNames: ["language", "result"] as const,
    registers,
  });
  new Gauge({
    name: "skillgate_sandbox_pool_ready",
    help: "Ready pre-started containers, by image",
    labelNames: ["image"] as const,
    registers,
    collect() {
      this.reset();
      for (const [image, n] of Object.entries(state?.poolReady() ?? {})) this.set({ image }, n);
    },
  });
  const phaseSeconds = new Histogram({
    name: "skillgate_sandbox_container_phase_seconds",
    help: "Time of container lifecycle steps (create with attach, start, remove), in seconds",
    labelNames: ["phase"] as const,
    buckets: SHORT_BUCKETS_S,
    registers,
  });

  return {
    registry,
    observeRequest(s) {
      const labels = { method: s.method, route: s.route, status: String(s.status) };
      requests.inc(labels);
      requestSeconds.observe(labels, s.durationMs / 1000);
    },
    observeRun(s) {
      runs.inc({ language: s.kind, outcome: s.outcome, pooled: String(s.pooled) });
      runSeconds.observe({ language: s.kind, outcome: s.outcome }, s.durationMs / 1000);
    },
    countRefusedRun(code) {
      refused.inc({ code });
    },
    observeQueueWait(ms) {
      queueWait.observe(ms / 1000);
    },
    countPoolTake(language, hit) {
      poolTakes.inc({ language, result: hit ? "hit" : "miss" });
    },
    observeContainerPhase(phase, ms) {
      phaseSeconds.observe({ phase }, ms / 1000);
    },
    watch(s) {
      state = s;
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
