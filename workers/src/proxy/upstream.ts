/**
 * The one fetch wrapper every upstream LLM call goes through (docs/proxy.md#upstream): builds the
 * provider URL from the operator's base URL, sets the upstream credential (the request's
 * `x-upstream-api-key`, else the configured key), forwards the client's provider headers and
 * never the Skillgate key, and turns network failures into 502 and timeouts into 504.
 * Upstream URLs are operator configuration: they do not go through the outbound guard of
 * `http_request`.
 */

import type { UpstreamConfig } from "../services/proxy.js";
import type { WireFormat } from "./domain.js";
import { proxyFormat, type UpstreamFamily } from "./formats.js";

export type { UpstreamConfig } from "../services/proxy.js";

/** A failure of the upstream itself (no HTTP answer): 502 unreachable, 504 timed out. */
export class UpstreamFailure extends Error {
  constructor(
    readonly status: 502 | 504,
    message: string,
  ) {
    super(message);
    this.name = "UpstreamFailure";
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

/** The client's headers worth forwarding to the upstream of `family`. */
export function forwardedHeaders(client: Headers, family: UpstreamFamily): Headers {
  const out = new Headers();
  client.forEach((value, name) => {
    const n = name.toLowerCase();
    if (NEVER.has(n)) return;
    const provider =
      (family === "anthropic" && n.startsWith("anthropic-")) ||
      (family === "openai" && n.startsWith("openai-"));
    if (provider || FORWARDED.has(n)) out.set(n, value);
  });
  if (family === "anthropic" && !out.has("anthropic-version"))
    out.set("anthropic-version", "2023-06-01");
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
  /** Aborts with the client (disconnect) or the proxy's time budget. */
  signal: AbortSignal;
  /** Longest wait for the response headers, in ms. */
  timeoutMs: number;
}

/** The provider URL of a request. */
export function upstreamUrl(config: UpstreamConfig, req: UpstreamRequest): string {
  const fmt = proxyFormat(req.format);
  const base = config.baseUrls[fmt.family].replace(/\/+$/, "");
  if (req.format === "openai-chat") return `${base}/chat/completions`;
  if (req.format === "openai-responses") return `${base}/responses`;
  if (req.format === "anthropic") return `${base}/v1/messages`;
  const model = encodeURIComponent(req.model ?? "");
  return req.stream
    ? `${base}/v1beta/models/${model}:streamGenerateContent?alt=sse`
    : `${base}/v1beta/models/${model}:generateContent`;
}

/**
 * Sends `req` with `fetchFn`.
 * @returns the upstream response, whatever its status (errors pass through to the client).
 * @throws UpstreamFailure 504 when no answer came within `timeoutMs`, 502 when the upstream
 *   could not be reached; the abort of `req.signal` by the client rethrows its reason.
 */
export async function callUpstream(
  fetchFn: typeof fetch,
  config: UpstreamConfig,
  req: UpstreamRequest,
): Promise<Response> {
  const fmt = proxyFormat(req.format);
  const headers = forwardedHeaders(req.clientHeaders, fmt.family);
  headers.set("content-type", "application/json");
  headers.set("accept", req.stream ? "text/event-stream" : "application/json");
  const key = req.clientHeaders.get("x-upstream-api-key")?.trim() || config.apiKeys[fmt.family];
  if (key) headers.set(fmt.upstreamKeyHeader, fmt.family === "openai" ? `Bearer ${key}` : key);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), req.timeoutMs);
  const signal = AbortSignal.any([req.signal, timeout.signal]);
  try {
    return await fetchFn(upstreamUrl(config, req), {
      method: "POST",
      headers,
      body: req.raw && typeof req.body === "string" ? req.body : JSON.stringify(req.body),
      signal,
    });
  } catch (err) {
    if (req.signal.aborted) throw err;
    if (timeout.signal.aborted)
      throw new UpstreamFailure(504, `The upstream did not answer within ${req.timeoutMs} ms`);
    const why = err instanceof Error ? err.message : String(err);
    throw new UpstreamFailure(502, `The upstream could not be reached: ${why}`);
  } finally {
    clearTimeout(timer);
  }
}
