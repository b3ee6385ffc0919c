/**
 * The one fetch wrapper every upstream LLM call goes through (docs/proxy.md#upstream): builds the
 * provider URL from the operator's base URL, sets the upstream credential (the request's
 * `x-upstream-api-key`, else the configured key), forwards the client's provider headers and
 * never the Skillgate key, and turns network failures into 502 and timeouts into 504.
 * Upstream URLs are operator configuration: they do not go through the outbound guard of
 * `http_request`.
 */

import type { ErrorCode } from "@skillgate/errors";
import { describeNetworkError } from "@skillgate/sandbox-protocol";
import { getFormatAdapter } from "../../formats/index.js";
import type { FormatAdapter, WireFormat } from "../../formats/types.js";
import type { UpstreamConfig } from "../proxy.js";
import { requestSignal } from "./signals.js";

/**
 * A failure of the upstream itself, or of its answer: 502 unreachable / broken / too large, 504
 * silent (headers, body or stream) past the idle timeout or the time budget. `code` is the
 * error registry's code the client sees (packages/errors).
 */
export class UpstreamFailure extends Error {
  readonly code: ErrorCode;
  constructor(
    readonly status: 502 | 504,
    message: string,
    code?: ErrorCode,
  ) {
    super(message);
    this.name = "UpstreamFailure";
    this.code = code ?? (status === 504 ? "upstream_timeout" : "upstream_unreachable");
  }
}

/**
 * The time budget of one proxy request (`PROXY_TIME_BUDGET_MS`, docs/proxy.md#time-budget): its
 * `signal` aborts once `ms` milliseconds have passed since it was created, whatever is in flight
 * (the upstream's headers, body or stream, or skills). {@link TimeBudget.dispose} stops its timer.
 */
export class TimeBudget {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly started: number;

  constructor(
    readonly ms: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.started = clock();
    this.timer = setTimeout(() => this.controller.abort(new Error("time budget spent")), ms);
  }

  /** Aborts when the budget is spent. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once the budget is spent (its timer fired). */
  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  /** Milliseconds left by the clock (at least 1). */
  remainingMs(): number {
    return Math.max(1, this.ms - (this.clock() - this.started));
  }

  /** Stops the timer (the request is over). */
  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** Client headers forwarded as they are (lower case), besides the `anthropic-` and `openai-` families. */
const FORWARDED = new Set(["x-goog-user-project", "user-agent", "accept-language", "x-request-id"]);
/** Never forwarded: credentials of the client, hop-by-hop and body framing headers. */
const NEVER = new Set([
  "authorization",
  "x-api-key",
  "x-goog-api-key",
  "x-upstream-api-key",
  "cookie",
]);

/** Whether `name` (lower case) matches one of `rules`: a name, or a prefix ending in `*`. */
function matchesRule(name: string, rules: readonly string[]): boolean {
  return rules.some((r) => (r.endsWith("*") ? name.startsWith(r.slice(0, -1)) : name === r));
}

/**
 * The client's headers worth forwarding to the upstream of `adapter`: its provider headers
 * (`anthropic-*`, `openai-*`), a few general ones, those matching `extra`
 * (`PROXY_FORWARD_HEADERS`: names, or prefixes ending in `*`), and the format's defaults where
 * the client sent none; never the client's credentials (docs/proxy.md#chains-with-other-gateways).
 */
export function forwardedHeaders(
  client: Headers,
  adapter: FormatAdapter,
  extra: readonly string[] = [],
): Headers {
  const out = new Headers();
  const prefix = adapter.providerHeaderPrefix;
  client.forEach((value, name) => {
    const n = name.toLowerCase();
    if (NEVER.has(n)) return;
    if ((prefix !== undefined && n.startsWith(prefix)) || FORWARDED.has(n) || matchesRule(n, extra))
      out.set(n, value);
  });
  for (const [name, value] of Object.entries(adapter.defaultHeaders))
    if (!out.has(name)) out.set(name, value);
  return out;
}

/** One upstream call. */
export interface UpstreamRequest {
  format: WireFormat;
  /** Gemini model id from the path (`gemini-2.5-flash`). */
  model?: string;
  stream: boolean;
  /** The body: JSON-encoded, or sent as it is when `raw` is set (a string). */
  body: unknown;
  /** True when `body` is the client's own request text, forwarded byte for byte. */
  raw?: boolean;
  clientHeaders: Headers;
  /** Aborts with the client (disconnect). */
  signal: AbortSignal;
  /** The request's time budget: it bounds the wait for the headers and every read of the body. */
  budget: TimeBudget;
  /** Longest silence of the body between two reads, in ms (`PROXY_IDLE_TIMEOUT_MS`). */
  idleMs: number;
}

/** The provider URL of a request. */
export function upstreamUrl(config: UpstreamConfig, req: UpstreamRequest): string {
  const adapter = getFormatAdapter(req.format);
  const base = config.baseUrls[adapter.family].replace(/\/+$/, "");
  return `${base}${adapter.upstreamPath(req.model, req.stream)}`;
}

/**
 * Sends `req` with `fetchFn`.
 * @returns the upstream response, whatever its status (errors pass through to the client); its
 *   body is guarded: a read fails with UpstreamFailure 504 after `req.idleMs` of silence or once
 *   the budget is spent, 502 when the connection breaks, and with the client's abort reason when
 *   the client went away.
 * @throws UpstreamFailure 504 when no answer came within the budget, 502 when the upstream
 *   could not be reached; the abort of `req.signal` by the client rethrows its reason.
 */
export async function callUpstream(
  fetchFn: typeof fetch,
  config: UpstreamConfig,
  req: UpstreamRequest,
): Promise<Response> {
  const adapter = getFormatAdapter(req.format);
  const headers = forwardedHeaders(req.clientHeaders, adapter, config.forwardHeaders);
  headers.set("content-type", "application/json");
  headers.set("accept", req.stream ? "text/event-stream" : "application/json");
  const key = req.clientHeaders.get("x-upstream-api-key")?.trim() || config.apiKeys[adapter.family];
  if (key) headers.set(adapter.upstreamKeyHeader, adapter.upstreamCredential(key));
  const idle = new AbortController();
  const signal = requestSignal([req.signal, req.budget.signal, idle.signal]);
  const url = upstreamUrl(config, req);
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: "POST",
      headers,
      body: req.raw && typeof req.body === "string" ? req.body : JSON.stringify(req.body),
      signal,
    });
  } catch (err) {
    if (req.signal.aborted) throw err;
    if (req.budget.expired)
      throw new UpstreamFailure(504, `The upstream did not answer within ${req.budget.ms} ms`);
    const why = describeNetworkError(err).phrase;
    // The host only: a URL's path or query is never shown (docs/proxy.md#observability); the
    // gateway's observer writes the one log line.
    throw new UpstreamFailure(
      502,
      `The upstream ${new URL(url).host} could not be reached: ${why}`,
    );
  }
  if (!res.body) return res;
  const body = guardBody(res.body, req, idle);
  return new Response(body, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/**
 * `src` read under the request's limits: each read waits at most `req.idleMs` and never past
 * the budget; a read that fails says why as an {@link UpstreamFailure} (or the client's abort
 * reason). Pull-based (high-water mark 0): nothing is read before the consumer asks, so the idle
 * timer only runs while the consumer waits on the upstream.
 */
function guardBody(
  src: ReadableStream<Uint8Array>,
  req: UpstreamRequest,
  idle: AbortController,
): ReadableStream<Uint8Array> {
  const reader = src.getReader();
  const stop = requestSignal([req.signal, req.budget.signal, idle.signal]);
  /**
   * The next read, rejected with the stop's reason when the request stops first. The abort
   * listener lives for this read only: racing every read against one promise that never settles
   * would add a reaction to it per read, kept until the stream ends.
   */
  const nextRead = () =>
    new Promise<ReadableStreamReadResult<Uint8Array>>((resolve, reject) => {
      if (stop.aborted) {
        reject(stop.reason);
        return;
      }
      const onStop = () => reject(stop.reason);
      stop.addEventListener("abort", onStop, { once: true });
      reader.read().then(
        (r) => {
          stop.removeEventListener("abort", onStop);
          resolve(r);
        },
        (err: unknown) => {
          stop.removeEventListener("abort", onStop);
          reject(err);
        },
      );
    });
  const why = (err: unknown): unknown => {
    if (req.signal.aborted) return req.signal.reason;
    if (idle.signal.aborted)
      return new UpstreamFailure(504, `The upstream sent nothing for ${req.idleMs} ms`);
    if (req.budget.expired)
      return new UpstreamFailure(
        504,
        `The upstream's answer did not end within the time budget of ${req.budget.ms} ms`,
      );
    const text = err instanceof Error ? err.message : String(err);
    return new UpstreamFailure(502, `The upstream connection failed: ${text}`);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const timer = setTimeout(() => idle.abort(new Error("upstream idle")), req.idleMs);
        try {
          const r = await nextRead();
          if (r.done) controller.close();
          else controller.enqueue(r.value);
        } catch (err) {
          reader.cancel().catch(() => {});
          controller.error(why(err));
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The whole body of `res` as text, read under its guard (see {@link callUpstream}).
 * @param maxBytes largest body accepted (`PROXY_MAX_UPSTREAM_BODY_BYTES`).
 * @throws UpstreamFailure 502 `upstream_too_large` past `maxBytes` (the body is cancelled), or
 *   the guard's failure.
 */
export async function readUpstreamText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const tooLarge = () =>
    new UpstreamFailure(
      502,
      `The upstream's answer is larger than ${maxBytes} bytes`,
      "upstream_too_large",
    );
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await res.body.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder("utf-8");
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}
