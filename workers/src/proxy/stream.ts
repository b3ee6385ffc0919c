/**
 * Streaming proxy requests (docs/proxy.md#streaming): `stream: true`, or Gemini's
 * `:streamGenerateContent`. The first upstream call is made before the client gets an answer,
 * so an upstream error status passes through as it is; after that the client receives one
 * server-sent event stream built by the format's translator, and every later round streams on
 * in it. Owned calls run when their turn ends, with the format's own keep-alive event keeping
 * the connection alive (and the client informed) meanwhile. A client that goes away aborts the
 * upstream request and no further round starts. The time budget covers the whole stream: when it
 * runs out (or the upstream falls silent past the idle timeout) the stream ends with the format's
 * error event and running skills are cancelled (docs/proxy.md#time-budget). Only web streams are
 * used, so this runs in the Worker and on Node.
 */

import { sseComment } from "../formats/sse-frame.js";
import type { Emit } from "../formats/stream-types.js";
import { jsonDepthExceeds, MAX_VALUE_DEPTH } from "../json-depth.js";
import { getFormatAdapter, type InterceptResult, type JsonObject } from "./domain.js";
import { argumentsTooLarge, checkArguments, trailerText } from "./limits.js";
import {
  appendTurn,
  clientHistoryLength,
  failureResult,
  type ProxyRequest,
  type ProxyServices,
  passThroughError,
  prepareRequest,
} from "./loop.js";
import { rememberMixedTurn, splitMixedTurn, turnStore } from "./mixed-turn.js";
import { readSse } from "./sse.js";
import { callUpstream, readUpstreamText, TimeBudget, UpstreamFailure } from "./upstream.js";

function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/** Answers a streaming request (see the module docs). */
export async function streamProxy(svc: ProxyServices, req: ProxyRequest): Promise<Response> {
  const budget = new TimeBudget(svc.timeBudgetMs, svc.clock);
  try {
    return await streamRounds(svc, req, budget);
  } catch (err) {
    budget.dispose();
    throw err;
  }
}

/** The stream of {@link streamProxy}; `budget` is disposed when the stream ends. */
async function streamRounds(
  svc: ProxyServices,
  req: ProxyRequest,
  budget: TimeBudget,
): Promise<Response> {
  const started = svc.clock();
  const abort = new AbortController();
  const onClientAbort = () => abort.abort(req.signal.reason);
  if (req.signal.aborted) abort.abort(req.signal.reason);
  else req.signal.addEventListener("abort", onClientAbort, { once: true });
  const signal = abort.signal;
  const adapter = getFormatAdapter(req.format);
  const store = turnStore(svc.cache, req.apiKeyId, req.format);
  const { request: prepared, injected, clientTools } = await prepareRequest(svc, req);
  let request = prepared;
  const skillsSignal = AbortSignal.any([signal, budget.signal]);
  const call = (body: JsonObject) =>
    callUpstream(svc.fetch, svc.upstream, {
      format: req.format,
      model: req.model,
      stream: true,
      body: adapter.streamingBody(body),
      clientHeaders: req.headers,
      signal,
      budget,
      idleMs: svc.idleTimeoutMs,
    });
  const baseHeaders = { "x-skillgate-session": req.sessionId };
  let first: Response;
  try {
    first = await call(request);
    if (!first.ok) {
      const r = await passThroughError(req.format, first, svc.limits.maxBodyBytes);
      budget.dispose();
      return jsonResponse(r.status, r.body, { ...baseHeaders, ...r.headers });
    }
  } catch (err) {
    if (err instanceof UpstreamFailure) {
      budget.dispose();
      const r = failureResult(req.format, err.status, err.message, err.code);
      return jsonResponse(r.status, r.body, baseHeaders);
    }
    throw err;
  }

  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  // Resolves at the first bytes for the client (or the end): the response starts with them.
  let begin!: () => void;
  const firstBytes = new Promise<void>((resolve) => {
    begin = resolve;
  });
  const emit: Emit = (text) => {
    if (closed) return;
    controller.enqueue(encoder.encode(text));
    begin();
  };
  const close = () => {
    begin();
    budget.dispose();
    if (closed) return;
    closed = true;
    req.signal.removeEventListener("abort", onClientAbort);
    controller.close();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel(reason) {
      closed = true;
      begin();
      abort.abort(reason);
    },
  });
  const t = adapter.streamTranslator(emit, req.body);
  const executions: string[] = [];

  let firstId: unknown;
  const drive = async () => {
    let res = first;
    for (let round = 1; ; round++) {
      t.beginRound();
      let outcome: "continue" | "end" | "error" = "continue";
      const maxArgs = svc.limits.maxArgumentsChars;
      let calls: ReturnType<typeof adapter.extractCalls>;
      let response: JsonObject;
      try {
        for await (const ev of readSse(res.body!, svc.limits)) {
          if (jsonDepthExceeds(ev.data, MAX_VALUE_DEPTH)) {
            void res.body?.cancel().catch(() => {});
            t.fail(502, `The upstream sent an event nested deeper than ${MAX_VALUE_DEPTH} levels`);
            return;
          }
          outcome = t.onEvent(ev);
          if (outcome !== "continue") break;
          const longest = t.longestArguments?.();
          if (longest !== undefined && longest > maxArgs)
            throw argumentsTooLarge(undefined, maxArgs);
        }
        if (outcome === "error") {
          void res.body?.cancel().catch(() => {});
          return;
        }
        if (!t.roundEnded()) {
          t.fail(502, "The upstream stream ended without its final event");
          return;
        }
        response = t.roundResponse();
        calls = adapter.extractCalls(response);
        checkArguments(calls, maxArgs);
      } catch (err) {
        // The upstream connection is closed (a limit stopped the round mid-stream).
        void res.body?.cancel().catch(() => {});
        if (signal.aborted) return;
        if (err instanceof UpstreamFailure) t.fail(err.status, err.message, err.code);
        else
          t.fail(
            502,
            `The upstream stream failed: ${err instanceof Error ? err.message : String(err)}`,
          );
        return;
      }
      if (round === 1) firstId = response.id;
      // Before the terminal events: a client that continues at once finds the mapping.
      const chain = async () => {
        await adapter.responseChain?.remember(store, firstId, response.id);
      };
      const trailer = (limit?: string) => emit(sseComment(trailerText(round, executions, limit)));
      if (calls.length === 0) {
        await chain();
        trailer();
        t.finish(new Set());
        return;
      }
      const all = new Set(calls.map((c) => c.index));
      const limit =
        round >= svc.maxRounds
          ? "rounds"
          : budget.expired || svc.clock() - started >= svc.timeBudgetMs
            ? "time"
            : undefined;
      if (limit) {
        console.warn(
          `[skillgate] proxy ${req.format} stream: ${limit} limit reached after ${round} rounds`,
        );
        await chain();
        trailer(limit);
        t.finish(all);
        return;
      }
      // A visible sign in the client's own format, at once and then every PROXY_KEEPALIVE_MS.
      t.keepAlive();
      const keepAlive = setInterval(() => t.keepAlive(), svc.keepAliveMs);
      let result: InterceptResult;
      try {
        result = await svc.intercept({
          format: req.format,
          response,
          apiKeyId: req.apiKeyId,
          sessionId: req.sessionId,
          injected,
          clientTools,
          signal: skillsSignal,
        });
      } finally {
        clearInterval(keepAlive);
      }
      for (const r of result.toolResults) if (r.executionId) executions.push(r.executionId);
      if (signal.aborted) return;
      if (budget.expired) {
        trailer();
        t.fail(
          504,
          `The time budget of ${svc.timeBudgetMs} ms ran out while skills ran; they were cancelled`,
          "time_budget_exceeded",
        );
        return;
      }
      const owned = new Set(result.toolResults.map((r) => r.callId));
      const clientCalls = new Set(calls.filter((c) => !owned.has(c.callId)).map((c) => c.index));
      if (owned.size === 0 || clientCalls.size > 0) {
        if (owned.size > 0) {
          const split = splitMixedTurn(
            req.format,
            result.response,
            owned,
            result.messages,
            clientHistoryLength(req),
          );
          if (split) await rememberMixedTurn(store, split.keys, split.entry);
        }
        await chain();
        trailer();
        t.finish(clientCalls);
        return;
      }
      // The forced round is over: the next one lets the model answer (docs/proxy.md#the-loop).
      request = adapter.relaxToolChoice(
        appendTurn(req.format, request, adapter.replayTurn(response), result.messages),
      );
      try {
        res = await call(request);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof UpstreamFailure) t.fail(err.status, err.message, err.code);
        else t.fail(502, err instanceof Error ? err.message : String(err));
        return;
      }
      if (!res.ok) {
        const text = await readUpstreamText(res, svc.limits.maxBodyBytes).catch(() => "");
        t.fail(
          res.status,
          `The upstream answered ${res.status} in round ${round + 1}: ${text.slice(0, 500)}`,
        );
        return;
      }
    }
  };
  drive()
    .catch((err: unknown) => {
      if (!signal.aborted) {
        console.error(`[skillgate] proxy ${req.format} stream failed:`, err);
        t.fail(500, "Internal server error");
      }
    })
    .finally(close);

  // Headers and the first event leave together: one write for the client to wait on, not two.
  await firstBytes;
  return new Response(stream, {
    status: 200,
    headers: {
      ...baseHeaders,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      // An open-ended body: said so, the Node adapter writes the headers and each event at once
      // instead of first waiting a timer tick to see whether the body ends (a content length).
      "transfer-encoding": "chunked",
    },
  });
}
