/**
 * The metrics seam of the API. Routes and the executor report what happened through
 * {@link Metrics}; the entry point chooses the backend: Prometheus (`prom-client`) on Node,
 * Workers Analytics Engine in the Worker when an `ANALYTICS` dataset is bound, and
 * {@link noopMetrics} otherwise. Domain code never imports a metrics library.
 */
import type { ExecutionStatus } from "../skills/types.js";

/** One answered HTTP request. */
export interface RequestSample {
  /** Request method, upper case. */
  method: string;
  /** Route pattern (`/api/skills/:id`), never the raw path; `unmatched` when no route matched. */
  route: string;
  /** Response status code. */
  status: number;
  /** Time from the request reaching the app to the response, in ms. */
  durationMs: number;
}

/** One execution that reached a terminal status through the executor. */
export interface ExecutionSample {
  /** Skill name (without version). */
  skill: string;
  status: Extract<ExecutionStatus, "success" | "error" | "timeout">;
  /** Machine-readable failure code (`timeout`, `sandbox_unavailable`, ...), null on success. */
  errorCode: string | null;
  /** Run time in ms; null when nothing ran (a rejected approval). */
  durationMs: number | null;
}

/** One selection event of a skill (docs/scoring.md#selection-counters). */
export interface SelectionSample {
  /** Skill name (without version). */
  skill: string;
  /** `injected`: an AUTO pick; `called`: called when injected; `searched`: found only by `skill_search`. */
  event: "injected" | "called" | "searched";
}

/** One answered proxied request's usage, summed over its rounds (docs/limits.md#token-budgets). */
export interface TokenSample {
  /** Wire format of the request (`openai-chat`, `openai-responses`, `anthropic`, `gemini`). */
  format: string;
  inputTokens: number;
  outputTokens: number;
  rounds: number;
  ownedCalls: number;
}

/** The current values of a pull-based backend, ready to serve. */
export interface MetricsScrape {
  contentType: string;
  body: string;
}

/** Where the API reports requests and executions. Implementations never throw. */
export interface Metrics {
  observeRequest(sample: RequestSample): void;
  countExecution(sample: ExecutionSample): void;
  /** Counts one selection event (optional: backends without it ignore selection). */
  countSelection?(sample: SelectionSample): void;
  /** The ranker AUTO selection uses by default now (optional, as {@link countSelection}). */
  setRanker?(ranker: string): void;
  /** Counts a proxied request's tokens, rounds and owned calls; absent: not reported. */
  countTokens?(sample: TokenSample): void;
  /**
   * Present on pull-based backends (Prometheus): renders every metric in the Prometheus text
   * exposition format. The app serves it at `GET /metrics` when present.
   */
  scrape?(): Promise<MetricsScrape>;
}

/** Reports nothing (the default when an entry point configures no backend). */
export const noopMetrics: Metrics = {
  observeRequest() {},
  countExecution() {},
};
