/**
 * How the sandbox client names what went wrong with a host (docs/sandbox.md#errors): the mapping
 * of the host's error answers to execution failures, `Retry-After`, and whether a fetch error
 * proves that nothing reached the host.
 */
import { isSandboxErrorCode, SANDBOX_ERROR_CODES } from "@skillgate/sandbox-protocol";
import { ExecutionFailure } from "../errors.js";

/**
 * A retryable `sandbox_unavailable` failure; `notStarted` when the run provably never started
 * (then it may be sent again, to any host: docs/sandbox.md#at-most-once).
 */
export function unavailable(
  message: string,
  notStarted = false,
  cause?: unknown,
): ExecutionFailure {
  return new ExecutionFailure(message, {
    code: "sandbox_unavailable",
    retryable: true,
    notStarted,
    cause,
  });
}

/** Connection errors (Node's fetch) raised before a request reached the host. */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * True when a fetch error says the connection was never made (so nothing was sent): a refused or
 * unroutable connection, or a port the fetch standard blocks ("bad port", refused before any
 * connection; WHATWG Fetch "port blocking").
 */
export function neverConnected(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === "string") return NOT_CONNECTED.has(cause.code);
  return cause?.message === "bad port";
}

/** Connection errors (Node's fetch) of a connection that was made, then reset or closed by the host. */
const BROKEN = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/**
 * True when a fetch error says a connection that was made broke before its answer came (reset, or
 * closed by the other side). Such an error proves nothing about the host: one going away resets
 * the connections it had accepted but not answered before its port refuses new ones
 * (docs/sandbox.md#at-most-once).
 */
export function connectionBroken(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === "string" && BROKEN.has(cause.code);
}

/**
 * Seconds of a `Retry-After` header (delay-seconds or an HTTP-date, RFC 9110 §10.2.3), at least
 * 1; undefined when absent or unreadable.
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.max(1, Number(text));
  if (!/^[A-Za-z]{3}, /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * Maps a non-2xx answer of the host to an ExecutionFailure: 429 `queue_timeout` → `queue_timeout`
 * (retryable, never started: no slot came free within the queue wait), other 429s → `sandbox_busy`
 * (retryable, with the host's Retry-After), 401 → `sandbox_auth_failed` (the API's signature was refused), a code
 * of the host's registry → that code as is, with the registry's retryable flag (e.g. 503
 * `docker_unavailable`, `shutting_down`, `image_unavailable`); without one, 502/503/504 →
 * `sandbox_unavailable` (retryable) and anything else → `sandbox_error`.
 */
export function hostFailure(
  status: number,
  body: unknown,
  retryAfter: string | null,
): ExecutionFailure {
  const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof err?.code === "string" ? err.code : "";
  const detail = typeof err?.message === "string" ? err.message : `HTTP ${status}`;
  if (status === 429 && code === "queue_timeout") {
    const after = retryAfterSeconds(retryAfter);
    return new ExecutionFailure(detail, {
      code: "queue_timeout",
      retryable: true,
      retryAfterS: after,
      notStarted: true,
    });
  }
  if (status === 429) {
    const after = retryAfterSeconds(retryAfter);
    const hint = after === undefined ? "" : ` (retry after ${after} s)`;
    return new ExecutionFailure(
      `Sandbox host is busy: no slot was free and the program did not run${hint}`,
      { code: "sandbox_busy", retryable: true, retryAfterS: after, notStarted: true },
    );
  }
  if (status === 401) {
    return new ExecutionFailure(
      `Sandbox host rejected the request signature (${detail}); check SANDBOX_SECRET and SANDBOX_KEY_ID`,
      { code: "sandbox_auth_failed" },
    );
  }
  if (isSandboxErrorCode(code)) {
    const { retryable } = SANDBOX_ERROR_CODES[code];
    const message =
      status === 503 ? `Sandbox host unavailable: ${detail}` : `Sandbox host error: ${detail}`;
    return new ExecutionFailure(code === "image_unavailable" ? detail : message, {
      code,
      retryable,
    });
  }
  if (status === 502 || status === 503 || status === 504) {
    return unavailable(`Sandbox host unavailable: ${detail}`);
  }
  return new ExecutionFailure(`Sandbox host error: ${detail}`, { code: code || "sandbox_error" });
}
