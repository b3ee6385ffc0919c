/**
 * The signed transport of the sandbox client (docs/sandbox.md#protocol): every request signed
 * with `signRequest` of @skillgate/sandbox-protocol and carrying the current trace context
 * (`traceparent` / `tracestate`, not signed; docs/sandbox.md#tracing), and every call bounded by
 * an AbortSignal, so a silent host never hangs a handler.
 */
import { signRequest } from "@skillgate/sandbox-protocol";
import { ExecutionFailure } from "../errors.js";
import { traceHeaders } from "../telemetry/trace-context.js";
import { hostFailure, neverConnected, unavailable } from "./host-failure.js";

/** Options of {@link createHostTransport}. */
export interface HostTransportOptions {
  /** The host's base URL, without a trailing slash. */
  baseUrl: string;
  /** The shared signing secret; never sent. */
  secret: string;
  /** The key id sent with each signature. */
  keyId: string;
  /** The `fetch` that sends requests. */
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
}

/** Signed requests to one sandbox host. */
export interface HostTransport {
  /**
   * Signs and sends one request (`body` as JSON unless undefined; `accept` as the Accept header);
   * the caller reads the answer. @throws what fetch throws.
   */
  send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    signal: AbortSignal,
    accept?: string,
  ): Promise<Response>;
  /**
   * Sends one request bounded by `boundMs` (ms) and the caller's signal and answers its JSON body
   * (null when empty or not JSON). @throws ExecutionFailure `aborted` when the caller's signal
   * fired, `sandbox_unavailable` when the host did not answer within the bound or could not be
   * reached, and the host's failure (host-failure.ts) on a non-2xx status.
   */
  call(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    boundMs: number,
    callerSignal?: AbortSignal,
  ): Promise<unknown>;
}

/** Reads a body as JSON: null when it is empty or not JSON. @throws what reading the body throws. */
export async function readJson(res: Response): Promise<unknown> {
  const raw = await res.text();
  try {
    return raw === "" ? null : JSON.parse(raw);
  } catch {
    return null;
  }
}

/** Creates the {@link HostTransport} of one host. */
export function createHostTransport(opts: HostTransportOptions): HostTransport {
  const base = opts.baseUrl;
  const keyId = opts.keyId;
  const doFetch = opts.fetch;
  const origin = new URL(base).origin;

  async function send(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    signal: AbortSignal,
    accept?: string,
  ): Promise<Response> {
    const text = body === undefined ? "" : JSON.stringify(body);
    const url = `${base}${path}`;
    const headers: Record<string, string> = {
      ...traceHeaders(),
      ...(await signRequest({ secret: opts.secret, keyId, method, url, body: text })),
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (accept) headers.accept = accept;
    return doFetch(url, { method, headers, body: body === undefined ? undefined : text, signal });
  }

  async function call(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    boundMs: number,
    callerSignal?: AbortSignal,
  ): Promise<unknown> {
    if (callerSignal?.aborted)
      throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
    const timeout = AbortSignal.timeout(boundMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let res: Response;
    let parsed: unknown;
    try {
      res = await send(method, path, body, signal);
      parsed = await readJson(res);
    } catch (err) {
      if (callerSignal?.aborted)
        throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
      if (timeout.aborted) throw unavailable(`Sandbox host did not answer within ${boundMs} ms`);
      const reason = err instanceof Error ? err.message : String(err);
      throw unavailable(
        `Sandbox host unreachable at ${origin}: ${reason}`,
        neverConnected(err),
        err,
      );
    }
    if (!res.ok) throw hostFailure(res.status, parsed, res.headers.get("retry-after"));
    return parsed;
  }

  return { send, call };
}
