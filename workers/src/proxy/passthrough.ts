/**
 * The proxy with the master switch off (docs/proxy.md#master-switch): the client's request goes
 * to the upstream byte for byte (only the credentials change, as for every upstream call), and
 * the upstream's answer comes back as it is, status, body and stream included; nothing is
 * injected, intercepted or recorded.
 */
import type { WireFormat } from "./domain.js";
import { failureResult, type ProxyResult } from "./loop.js";
import { callUpstream, type UpstreamConfig, UpstreamFailure } from "./upstream.js";

/** Upstream response headers that describe the transfer, not the content (fetch decoded it). */
const TRANSFER = new Set([
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
]);

/** One forwarded request. */
export interface PassThroughRequest {
  format: WireFormat;
  /** Gemini model from the path. */
  model?: string;
  /** Whether the client asked for a stream (`stream: true`, `:streamGenerateContent`). */
  stream: boolean;
  /** The request body exactly as the client sent it. */
  raw: string;
  headers: Headers;
  signal: AbortSignal;
  /** Longest wait for the upstream's response headers, in ms (`PROXY_TIME_BUDGET_MS`). */
  timeoutMs: number;
}

/**
 * Forwards `req` to its upstream and answers with the upstream's response as it is.
 * @returns the upstream response, or a 502/504 in the client's format ({@link ProxyResult})
 *   when the upstream could not be reached or did not answer in time.
 * @throws the client's abort reason when the client went away.
 */
export async function passThrough(
  fetchFn: typeof fetch,
  config: UpstreamConfig,
  req: PassThroughRequest,
): Promise<Response | ProxyResult> {
  let res: Response;
  try {
    res = await callUpstream(fetchFn, config, {
      format: req.format,
      model: req.model,
      stream: req.stream,
      body: req.raw,
      raw: true,
      clientHeaders: req.headers,
      signal: req.signal,
      timeoutMs: req.timeoutMs,
    });
  } catch (err) {
    if (!(err instanceof UpstreamFailure)) throw err;
    return failureResult(
      req.format,
      err.status,
      err.message,
      err.status === 504 ? "upstream_timeout" : "upstream_unreachable",
    );
  }
  const headers = new Headers();
  res.headers.forEach((value, name) => {
    if (!TRANSFER.has(name.toLowerCase())) headers.set(name, value);
  });
  // An event stream is open-ended: said so, the Node adapter forwards each event at once.
  if (headers.get("content-type")?.includes("event-stream"))
    headers.set("transfer-encoding", "chunked");
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
