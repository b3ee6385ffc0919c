/**
 * The request id of the client request being served (docs/api.md#request-ids), kept in an
 * `AsyncLocalStorage` so that code below the front doors (the execution rows, log lines) can read
 * it without every call passing it on. Works in Node and in the Worker (`nodejs_compat`).
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What is known about the request being served. */
export interface RequestContext {
  /** The request id answered in `x-request-id`. */
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Header carrying the request id, in both directions. */
export const REQUEST_ID_HEADER = "x-request-id";

/** Longest request id taken from a client, in characters (longer ones are replaced). */
export const REQUEST_ID_MAX_CHARS = 128;

/**
 * Runs `fn` with `ctx` as the current request context (everything it awaits sees it).
 * @returns what `fn` returns.
 */
export function runInRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The current request's id, or null outside a request (cron, start-up, tests calling services). */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/**
 * A log line prefix naming the current request: `[skillgate] ` outside a request,
 * `[skillgate request_id=<id>] ` inside one. The id is of the safe charset only, so it cannot
 * break a line.
 */
export function logPrefix(): string {
  const id = currentRequestId();
  return id === null ? "[skillgate] " : `[skillgate request_id=${id}] `;
}
