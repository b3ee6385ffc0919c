/**
 * The gateway service (docs/proxy.md, docs/architecture.md#the-gateway): answers one proxied
 * request of any wire format. With the master switch off the request goes upstream untouched;
 * otherwise it is prepared (mixed turns restored, skills injected) and the one round loop
 * ({@link runRounds}) drives a renderer: the JSON collector or the SSE emitter. Observers see
 * every event of every request. It never throws: every failure is an answer in the format's own
 * error shape.
 */

import { describeNetworkError } from "@skillgate/sandbox-protocol";
import { AppError, isStorageFull, STORAGE_FULL_MESSAGE } from "../../errors.js";
import { getFormatAdapter } from "../../formats/index.js";
import type { CallOutcome } from "../../formats/types.js";
import {
  ANTHROPIC_TOOL_SEARCH_HEADER,
  ANTHROPIC_TOOL_SEARCH_MODES,
  isAnthropicToolSearchMode,
} from "../../skills/search/anthropic-tool-search.js";
import { logPrefix } from "../../telemetry/request-context.js";
import { type CallWrapper, isRankerName, RANKER_NAMES, type RankerName } from "../tools.js";
import { failureAnswer, JsonCollector } from "./json-renderer.js";
import { runRounds } from "./loop.js";
import { passThrough } from "./passthrough.js";
import { prepareRequest } from "./prepare.js";
import { streamAnswer } from "./sse-renderer.js";
import type {
  GatewayAnswer,
  GatewayDeps,
  GatewayEvent,
  GatewayRequest,
  RoundContext,
} from "./types.js";
import { TimeBudget } from "./upstream.js";

export type * from "./types.js";
export { UpstreamFailure } from "./upstream.js";

/**
 * Answers `req` (see the module docs) within the time budget: when it runs out while the upstream
 * answers, a 504 `upstream_timeout`; while skills run, they are cancelled and the answer is a 504
 * `time_budget_exceeded` (docs/proxy.md#time-budget). A client that went away gets a 499
 * `client_closed`; a full disk a 503 `storage_full`; anything unexpected a 500 `internal_error`.
 */
export async function runGateway(
  deps: GatewayDeps,
  req: GatewayRequest,
  skillsEnabled: boolean,
): Promise<GatewayAnswer> {
  const adapter = getFormatAdapter(req.format);
  const fail = (status: number, message: string, code: Parameters<typeof failureAnswer>[3]) =>
    failureAnswer(adapter, status, message, code);
  const watch = watchRequest(deps, req);
  watch.observe({ type: "start" });
  const answer = await answerGateway(
    { ...deps, fetch: watch.fetch },
    req,
    skillsEnabled,
    watch,
    fail,
  );
  // A stream answered 200 by the loop reports its own end when the loop is over; a passed-through
  // one (the master switch off) ends for its observers with its headers.
  if (!skillsEnabled || !("stream" in answer && answer.status === 200)) watch.end(answer.status);
  return answer;
}

/** Answers `req` (see {@link runGateway}) with `deps.fetch` watched by `watch`. */
async function answerGateway(
  deps: GatewayDeps,
  req: GatewayRequest,
  skillsEnabled: boolean,
  watch: RequestWatch,
  fail: (
    status: number,
    message: string,
    code: Parameters<typeof failureAnswer>[3],
  ) => GatewayAnswer,
): Promise<GatewayAnswer> {
  try {
    // The master switch off: the request goes to the upstream untouched (docs/proxy.md#master-switch).
    if (!skillsEnabled) {
      const r = await passThrough(deps.fetch, deps.upstream, {
        format: req.format,
        model: req.model,
        stream: req.stream,
        raw: req.raw,
        headers: req.headers,
        signal: req.signal,
        timeBudgetMs: deps.timeBudgetMs,
        idleMs: deps.idleTimeoutMs,
      });
      if (!(r instanceof Response)) return r;
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        headers[k] = v;
      });
      return { status: r.status, headers, stream: r.body };
    }
    const ranker = req.ranker;
    if (ranker !== undefined && !isRankerName(ranker))
      return fail(
        400,
        `x-skillgate-ranker must be one of ${RANKER_NAMES.join(", ")}`,
        "invalid_input",
      );
    const toolSearch = req.headers.get(ANTHROPIC_TOOL_SEARCH_HEADER)?.trim().toLowerCase();
    if (toolSearch !== undefined && !isAnthropicToolSearchMode(toolSearch))
      return fail(
        400,
        `${ANTHROPIC_TOOL_SEARCH_HEADER} must be one of ${ANTHROPIC_TOOL_SEARCH_MODES.join(", ")}`,
        "invalid_input",
      );
    return await loopAnswer(deps, req, ranker, watch);
  } catch (err) {
    if (req.signal.aborted) return fail(499, "The client closed the request", "client_closed");
    if (!(err instanceof AppError && err.status < 500) && isStorageFull(err)) {
      // A full disk refused a write as a whole (docs/execution.md#a-full-disk).
      console.error(
        `[skillgate] storage_full on the ${req.format} proxy: the database's disk is full`,
      );
      return fail(503, STORAGE_FULL_MESSAGE, "storage_full");
    }
    console.error(`[skillgate] proxy ${req.format} failed:`, err);
    return fail(500, "Internal server error", "internal_error");
  }
}

/** The loop's answer: prepared, then rendered as JSON or as a stream. */
async function loopAnswer(
  deps: GatewayDeps,
  req: GatewayRequest,
  ranker: RankerName | undefined,
  watch: RequestWatch,
): Promise<GatewayAnswer> {
  const budget = new TimeBudget(deps.timeBudgetMs, deps.clock);
  let streaming = false;
  try {
    const adapter = getFormatAdapter(req.format);
    const store = deps.store(req.apiKeyId, req.format);
    const started = deps.clock();
    const prepared = await prepareRequest(adapter, store, req.body, (request) =>
      deps.inject(req, request, ranker),
    );
    // What the rounds offer: the inject's tools, then the skills `skill_search` found.
    let injected = prepared.injected;
    const ctx: RoundContext = {
      req,
      adapter,
      store,
      budget,
      maxRounds: deps.maxRounds,
      timeBudgetMs: deps.timeBudgetMs,
      limits: deps.limits,
      clock: deps.clock,
      started,
      prepared,
      intercept: (response, signal, round) =>
        deps.intercept(req, {
          response,
          injected,
          clientTools: prepared.clientTools,
          link: prepared.link,
          signal,
          aroundCall: watch.aroundCall(round),
        }),
      offerFound: async (request, results) => {
        const next = await deps.offerFound(req, request, injected, results);
        injected = next.injected;
        return next.request;
      },
    };
    const { observe } = watch;
    if (req.stream) {
      // The stream disposes of the budget when it ends.
      streaming = true;
      return await streamAnswer(ctx, deps, (renderer) =>
        runRounds(ctx, renderer, observe).finally(() => watch.end(watch.failedStatus())),
      );
    }
    const collector = new JsonCollector(ctx, deps);
    await runRounds(ctx, collector, observe);
    return collector.answer();
  } catch (err) {
    if (streaming) budget.dispose();
    throw err;
  } finally {
    if (!streaming) budget.dispose();
  }
}

/** One request's view for its observers: events, a watched fetch and its end (reported once). */
interface RequestWatch {
  observe(event: GatewayEvent): void;
  /** The observers' call wrappers of round `round`, nested; undefined when none has one. */
  aroundCall(round: number): CallWrapper | undefined;
  /** `deps.fetch`, reporting an `upstream` event per call. */
  fetch: typeof fetch;
  /** Reports the `end` with `status` unless the loop did already. */
  end(status: number): void;
  /**
   * The status of a stream that ended without an `end`: 499 when the client went away, else the
   * last upstream error status, else 502 (the stream broke).
   */
  failedStatus(): number;
}

/** The {@link RequestWatch} of `req`: every event goes to every observer of `deps`. */
function watchRequest(deps: GatewayDeps, req: GatewayRequest): RequestWatch {
  let ended = false;
  let round = 0;
  let calls = 0;
  let lastError: number | null = null;
  const observe = (event: GatewayEvent) => {
    if (event.type === "end") {
      if (ended) return;
      ended = true;
    } else if (event.type === "round") round = event.round;
    for (const o of deps.observers) {
      try {
        o.onEvent(req, event);
      } catch (err) {
        console.error(`${logPrefix()}a gateway observer failed:`, err);
      }
    }
  };
  const watchedFetch: typeof fetch = async (input, init) => {
    const host = hostOf(input);
    const n = ++calls;
    try {
      const res = await deps.fetch(input, init);
      lastError = res.ok ? null : res.status;
      observe({ type: "upstream", round: n, host, status: res.status });
      return res;
    } catch (err) {
      if (!req.signal.aborted) {
        lastError = 502;
        // The network cause (connection refused, name not resolved, ...), not undici's "fetch failed".
        const error = describeNetworkError(err).phrase;
        observe({ type: "upstream", round: n, host, status: null, error });
      }
      throw err;
    }
  };
  const end = (status: number) => observe({ type: "end", round, status });
  const wrapping = deps.observers.filter((o) => o.aroundCall);
  const aroundCall = (n: number): CallWrapper | undefined =>
    wrapping.length === 0
      ? undefined
      : (call, run) =>
          wrapping.reduceRight<() => Promise<CallOutcome>>(
            (inner, o) => () => o.aroundCall!(req, n, call, inner),
            run,
          )();
  return {
    observe,
    aroundCall,
    fetch: watchedFetch,
    end,
    failedStatus: () => (req.signal.aborted ? 499 : (lastError ?? 502)),
  };
}

/** The host name of a fetch target (never its path or query, which may carry a credential). */
function hostOf(input: Parameters<typeof fetch>[0]): string {
  try {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return new URL(url).host;
  } catch {
    return "unknown";
  }
}
