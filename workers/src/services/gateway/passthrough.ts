/**
 * The proxy with the master switch off (docs/proxy.md#master-switch): the client's request goes
 * to the upstream byte for byte (only the credentials change, as for every upstream call), and
 * the upstream's answer comes back as it is, status, body and stream included; nothing is
 * injected, intercepted or recorded.
 */
import { getFormatAdapter } from "../../formats/index.js";
import type { WireFormat } from "../../formats/types.js";
import type { UpstreamConfig } from "../proxy.js";
import { failureAnswer, type JsonAnswer } from "./json-renderer.js";
import { relayStream } from "./relay.js";
import { callUpstream, TimeBudget, UpstreamFailure } from "./upstream.js";

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
  /** Time budget of the whole answer, headers and body, in ms (`PROXY_TIME_BUDGET_MS`). */
  timeBudgetMs: number;
  /** Longest silence of the upstream's body between reads, in ms (`PROXY_IDLE_TIMEOUT_MS`). */
  idleMs: number;
}

/**
 * Forwards `req` to its upstream and answers with the upstream's response as it is. The time
 * budget and the idle timeout cover the relayed body too: past them the body is cut (the
 * client's SDK raises a connection error), since the bytes already sent are the upstream's own.
 * @returns the upstream response, or a 502/504 in the client's format ({@link JsonAnswer})
 *   when the upstream could not be reached or did not answer in time.
 * @throws the client's abort reason when the client went away.
 */
export async function passThrough(
  fetchFn: typeof fetch,
  config: UpstreamConfig,
  req: PassThroughRequest,
): Promise<Response | JsonAnswer> {
  const budget = new TimeBudget(req.timeBudgetMs);
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
      budget,
      idleMs: req.idleMs,
    });
  } catch (err) {
    budget.dispose();
    if (!(err instanceof UpstreamFailure)) throw err;
    return failureAnswer(getFormatAdapter(req.format), err.status, err.message, err.code);
  }
  const headers = new Headers();
  res.headers.forEach((value, name) => {
    if (!TRANSFER.has(name.toLowerCase())) headers.set(name, value);
  });
  // An event stream is open-ended: said so, the Node adapter forwards each event at once.
  if (headers.get("content-type")?.includes("event-stream"))
    headers.set("transfer-encoding", "chunked");
  const body = res.body ? relayStream(res.body, () => budget.dispose()) : null;
  if (!body) budget.dispose();
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}
