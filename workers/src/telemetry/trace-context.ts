/**
 * The trace context of the work being done (docs/deployment.md#opentelemetry), kept in an
 * `AsyncLocalStorage` like the request context, so that a call made deep below the gateway (the
 * sandbox client's signed request) can carry the span that caused it without every function
 * passing it on. Without a context set here it falls back to the OpenTelemetry API's active
 * context (an embedding application's context manager, if it registered one). Headers follow the
 * W3C Trace Context recommendation (`traceparent`, `tracestate`), written by the OpenTelemetry
 * JS SDK's own propagator; no global propagator or context manager is registered.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, context, defaultTextMapSetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

const storage = new AsyncLocalStorage<Context>();
const propagator = new W3CTraceContextPropagator();

/**
 * Runs `fn` with `ctx` as the current trace context (everything it awaits sees it).
 * @returns what `fn` returns.
 */
export function runInTraceContext<T>(ctx: Context, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The current trace context: the one set by {@link runInTraceContext}, else the API's active one. */
export function activeTraceContext(): Context {
  return storage.getStore() ?? context.active();
}

/**
 * The W3C Trace Context headers of `ctx` (default: {@link activeTraceContext}): `traceparent`,
 * and `tracestate` when the span context has one. Empty when there is no valid span context
 * (tracing off, or no span open), so a caller can always spread it into its headers.
 */
export function traceHeaders(ctx: Context = activeTraceContext()): Record<string, string> {
  const headers: Record<string, string> = {};
  propagator.inject(ctx, headers, defaultTextMapSetter);
  return headers;
}
