/**
 * The server-side tool loop of one non-streaming proxy request (docs/proxy.md#the-loop):
 * inject once → call the upstream → extract the calls → run the owned ones with interception's
 * policies → append the assistant turn and the provider-native results → call again, until the
 * model answers without an owned call or a limit (rounds, time budget) is reached; then the last
 * answer is returned as it is and the limit is named in a header.
 */
import type { ErrorCode } from "@skillgate/errors";
import { jsonDepthExceeds, MAX_VALUE_DEPTH } from "../json-depth.js";
import type { UpstreamLimits } from "../services/proxy.js";
import { type RoundContent, roundContent, withEarlierContent } from "./answer.js";
import {
  asArray,
  getFormatAdapter,
  type InjectedRef,
  type InjectResult,
  type InterceptResult,
  type JsonObject,
  type WireFormat,
} from "./domain.js";
import { proxyFormat, sumUsage } from "./formats.js";
import { checkArguments, executionHeaders } from "./limits.js";
import {
  rememberMixedTurn,
  restoreMixedTurns,
  splitMixedTurn,
  type TurnCache,
} from "./mixed-turn.js";
import { restoreResponseChain } from "./response-chain.js";
import {
  callUpstream,
  readUpstreamText,
  TimeBudget,
  type UpstreamConfig,
  UpstreamFailure,
} from "./upstream.js";

/** What the loop needs from the services (built from them in proxy/routes.ts). */
export interface ProxyServices {
  fetch: typeof fetch;
  upstream: UpstreamConfig;
  /** Storage of the removed part of mixed turns (the proxy service). */
  cache: TurnCache;
  maxRounds: number;
  /** Time budget of the whole request (headers, bodies, streams, skills), in ms. */
  timeBudgetMs: number;
  /** Longest silence of an upstream body or stream between reads, in ms. */
  idleTimeoutMs: number;
  /** Size limits of upstream answers (docs/proxy.md#limits). */
  limits: UpstreamLimits;
  /** Interval of the format's keep-alive events while skills run in a stream, in ms. */
  keepAliveMs: number;
  clock: () => number;
  /**
   * Records an answered request's usage summed over its rounds, its rounds and its owned calls
   * (the token usage service's `record`; docs/limits.md#token-budgets).
   */
  recordUsage?(
    apiKeyId: string | null,
    format: WireFormat,
    usage: unknown,
    rounds: number,
    ownedCalls: number,
  ): void;
  /** Injects the caller's skills into `request` (the tools service's `inject`). */
  inject(format: WireFormat, request: JsonObject, apiKeyId: string | null): Promise<InjectResult>;
  /**
   * Runs the owned calls of `response` with interception's policies and the model-call policy
   * floors (the tools service's `intercept`); a call's failure is an error result.
   */
  intercept(call: {
    format: WireFormat;
    response: JsonObject;
    apiKeyId: string | null;
    sessionId: string;
    injected: readonly InjectedRef[];
    /** Tools the client declared itself: an undeclared builtin call is then Skillgate's to answer. */
    clientTools: readonly string[];
    /**
     * The client's disconnect or the end of the time budget: cancels the running skills (they
     * end `error` `cancelled`).
     */
    signal?: AbortSignal;
  }): Promise<InterceptResult>;
}

/** One proxy request. */
export interface ProxyRequest {
  format: WireFormat;
  body: JsonObject;
  /** Gemini model from the path. */
  model?: string;
  headers: Headers;
  apiKeyId: string | null;
  sessionId: string;
  signal: AbortSignal;
}

/** The answer to the client. */
export interface ProxyResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Headers of an upstream error kept for the client (rate limits, request ids). */
const KEPT = /^(retry-after|x-ratelimit-.*|anthropic-ratelimit-.*|x-request-id|request-id)$/i;
/** Most upstream headers kept, and the longest value kept (docs/proxy.md#limits). */
const KEPT_MAX_HEADERS = 24;
const KEPT_MAX_VALUE_CHARS = 256;

/**
 * An upstream error answer, passed through with its status and body (so each SDK raises its own
 * error), with its rate-limit and request-id headers (at most 24, values cut to 256 characters).
 * @param maxBytes largest body read (`PROXY_MAX_UPSTREAM_BODY_BYTES`).
 * @throws UpstreamFailure as {@link readUpstreamText}.
 */
export async function passThroughError(
  format: WireFormat,
  res: Response,
  maxBytes: number,
): Promise<ProxyResult> {
  const headers: Record<string, string> = {};
  let kept = 0;
  res.headers.forEach((v, k) => {
    if (kept < KEPT_MAX_HEADERS && KEPT.test(k)) {
      headers[k] = v.slice(0, KEPT_MAX_VALUE_CHARS);
      kept++;
    }
  });
  const text = await readUpstreamText(res, maxBytes);
  let body: unknown;
  try {
    if (jsonDepthExceeds(text, MAX_VALUE_DEPTH)) throw new SyntaxError("nested too deep");
    body = JSON.parse(text);
  } catch {
    body = proxyFormat(format).errorBody(
      res.status,
      text.slice(0, 2000) || res.statusText,
      "upstream_error",
    );
  }
  return { status: res.status, body, headers };
}

/** The body a 502/504 (or other Skillgate failure) takes in the client's format. */
export function failureResult(
  format: WireFormat,
  status: number,
  message: string,
  code: ErrorCode,
): ProxyResult {
  return { status, body: proxyFormat(format).errorBody(status, message, code), headers: {} };
}

/**
 * Runs the loop for `req` (see the module docs) within the time budget: when it runs out while
 * the upstream answers, a 504 `upstream_timeout`; while skills run, they are cancelled and the
 * answer is a 504 `time_budget_exceeded` (docs/proxy.md#time-budget).
 */
export async function runProxyLoop(svc: ProxyServices, req: ProxyRequest): Promise<ProxyResult> {
  const budget = new TimeBudget(svc.timeBudgetMs, svc.clock);
  try {
    return await loopRounds(svc, req, budget);
  } finally {
    budget.dispose();
  }
}

async function loopRounds(
  svc: ProxyServices,
  req: ProxyRequest,
  budget: TimeBudget,
): Promise<ProxyResult> {
  const fmt = proxyFormat(req.format);
  const adapter = getFormatAdapter(req.format);
  const started = svc.clock();
  const prepared = await prepareRequest(svc, req);
  const { injected, clientTools } = prepared;
  let request = prepared.request;
  let usage: unknown;
  /** What the earlier rounds said, put before the last round's content (as a stream shows it). */
  const earlier: RoundContent[] = [];
  const executions: string[] = [];
  const headers = (rounds: number, limit?: string): Record<string, string> => {
    const h: Record<string, string> = {
      "x-skillgate-rounds": String(rounds),
      "x-skillgate-session": req.sessionId,
      ...executionHeaders(executions, req.sessionId),
    };
    if (limit) h["x-skillgate-limit"] = limit;
    return h;
  };
  const skillsSignal = AbortSignal.any([req.signal, budget.signal]);
  for (let round = 1; ; round++) {
    let response: JsonObject;
    let calls: ReturnType<typeof adapter.extractCalls>;
    try {
      const res = await callUpstream(svc.fetch, svc.upstream, {
        format: req.format,
        model: req.model,
        stream: false,
        body: request,
        clientHeaders: req.headers,
        signal: req.signal,
        budget,
        idleMs: svc.idleTimeoutMs,
      });
      if (!res.ok)
        return withHeaders(
          await passThroughError(req.format, res, svc.limits.maxBodyBytes),
          headers(round),
        );
      const text = await readUpstreamText(res, svc.limits.maxBodyBytes);
      if (jsonDepthExceeds(text, MAX_VALUE_DEPTH))
        return withHeaders(
          failureResult(
            req.format,
            502,
            `The upstream answer nests deeper than ${MAX_VALUE_DEPTH} levels`,
            "upstream_invalid",
          ),
          headers(round),
        );
      response = JSON.parse(text) as JsonObject;
      calls = adapter.extractCalls(response);
      checkArguments(calls, svc.limits.maxArgumentsChars);
    } catch (err) {
      if (err instanceof UpstreamFailure)
        return withHeaders(
          failureResult(req.format, err.status, err.message, err.code),
          headers(round),
        );
      if (err instanceof SyntaxError)
        return withHeaders(
          failureResult(
            req.format,
            502,
            "The upstream answered with invalid JSON",
            "upstream_invalid",
          ),
          headers(round),
        );
      throw err;
    }
    const roundUsage = response[fmt.usageField];
    if (roundUsage !== undefined) usage = sumUsage(usage, roundUsage);
    const finish = (last: JsonObject, limit?: string): ProxyResult => {
      svc.recordUsage?.(req.apiKeyId, req.format, usage, round, executions.length);
      const body = withEarlierContent(req.format, last, earlier);
      return {
        status: 200,
        body: usage === undefined ? body : { ...body, [fmt.usageField]: usage },
        headers: headers(round, limit),
      };
    };
    if (calls.length === 0) return finish(response);
    const elapsed = svc.clock() - started;
    const limit =
      round >= svc.maxRounds
        ? "rounds"
        : budget.expired || elapsed >= svc.timeBudgetMs
          ? "time"
          : undefined;
    if (limit) {
      console.warn(
        `[skillgate] proxy ${req.format}: ${limit} limit reached after ${round} rounds; last answer returned as is`,
      );
      return finish(response, limit);
    }
    const result = await svc.intercept({
      format: req.format,
      response,
      apiKeyId: req.apiKeyId,
      sessionId: req.sessionId,
      injected,
      clientTools,
      signal: skillsSignal,
    });
    if (req.signal.aborted) throw req.signal.reason;
    for (const r of result.toolResults) if (r.executionId) executions.push(r.executionId);
    if (budget.expired)
      return withHeaders(
        failureResult(
          req.format,
          504,
          `The time budget of ${svc.timeBudgetMs} ms ran out while skills ran; they were cancelled`,
          "time_budget_exceeded",
        ),
        headers(round),
      );
    if (result.toolResults.length === 0) return finish(result.response);
    if (result.passThrough.length > 0) {
      const owned = new Set(result.toolResults.map((r) => r.callId));
      const split = splitMixedTurn(
        req.format,
        result.response,
        owned,
        result.messages,
        clientHistoryLength(req),
      );
      if (split) {
        await rememberMixedTurn(svc.cache, req.apiKeyId, req.format, split.keys, split.entry);
        return finish(split.response);
      }
    }
    earlier.push(roundContent(req.format, response));
    // The forced round is over: the next one lets the model answer (docs/proxy.md#the-loop).
    request = adapter.relaxToolChoice(
      appendTurn(req.format, request, adapter.replayTurn(response), result.messages),
    );
  }
}

/** A request ready for the upstream, with the names of the tools its client declared itself. */
export interface PreparedRequest extends InjectResult {
  clientTools: string[];
}

/** The request to send upstream: mixed turns of the history restored, skills injected. */
export async function prepareRequest(
  svc: ProxyServices,
  req: ProxyRequest,
): Promise<PreparedRequest> {
  const fmt = proxyFormat(req.format);
  const restored = await restoreMixedTurns(
    svc.cache,
    req.apiKeyId,
    req.format,
    req.body,
    fmt.historyField,
  );
  const chained =
    req.format === "openai-responses"
      ? await restoreResponseChain(svc.cache, req.apiKeyId, restored)
      : restored;
  const clientTools = [...getFormatAdapter(req.format).clientToolNames(chained)];
  return { ...(await svc.inject(req.format, chained, req.apiKeyId)), clientTools };
}

/** How many items the client's own history holds (where a turn it is handed will stand). */
export function clientHistoryLength(req: ProxyRequest): number {
  return asArray(req.body[proxyFormat(req.format).historyField]).length;
}

/** `request` with the assistant turn and the owned calls' results appended to its history. */
export function appendTurn(
  format: WireFormat,
  request: JsonObject,
  turn: readonly object[],
  results: readonly object[],
): JsonObject {
  const field = proxyFormat(format).historyField;
  const current = request[field];
  const history = Array.isArray(current)
    ? current
    : typeof current === "string"
      ? [{ role: "user", content: current }]
      : [];
  return { ...request, [field]: [...history, ...turn, ...results] };
}

function withHeaders(r: ProxyResult, h: Record<string, string>): ProxyResult {
  return { ...r, headers: { ...h, ...r.headers } };
}
