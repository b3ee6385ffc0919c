/**
 * OpenTelemetry spans of the sandbox host (docs/sandbox.md#tracing): with an OTLP endpoint
 * configured (config.ts, the standard `OTEL_*` variables), one `sandbox.run` span (kind SERVER)
 * per run request, exported over OTLP/HTTP (JSON encoding) with the official OpenTelemetry JS
 * SDK, batched. The span is the child of the W3C `traceparent` the API sent (its `execute_tool`
 * span), so it joins the proxy's trace. Without an endpoint nothing here is created and a run
 * costs nothing more.
 *
 * The incoming `traceparent` / `tracestate` are not covered by the request signature
 * (docs/sandbox.md#signing), so they are trusted for one thing only: which trace and parent the
 * host's span names. The span is recorded whatever the header's sampled flag says (always-on
 * sampler), nothing is forwarded to the container, and a malformed or invalid header is ignored
 * (the span starts a trace of its own). Attributes carry the run's kind, image, runtime and
 * outcome only: never its code, stdin, arguments, environment, output or a secret.
 */
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { SandboxRunRequest, SandboxRunResult } from "@skillgate/sandbox-protocol";
import type { HostConfig, HostTracingConfig } from "./config.js";
import { HostError } from "./errors.js";

/** Name of the host's span of one run. */
export const RUN_SPAN_NAME = "sandbox.run";

/** The host's tracer and its exporter's lifecycle. */
export interface HostTracing {
  readonly tracer: Tracer;
  /** Exports what is buffered. */
  flush(): Promise<void>;
  /** Exports what is buffered and stops the exporter (the host's close). */
  shutdown(): Promise<void>;
}

/**
 * The tracing of `settings` (config.ts `tracing`), or null when none is configured (no provider,
 * no exporter, no timer). Service name from `settings.serviceName` (`skillgate-sandbox-host` by
 * default).
 */
export function createHostTracing(settings: HostTracingConfig | undefined): HostTracing | null {
  if (!settings) return null;
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    // The incoming sampled flag is not signed: it never turns the host's spans off.
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer("skillgate-sandbox-host"),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

const propagator = new W3CTraceContextPropagator();

const headerGetter: TextMapGetter<Headers> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? undefined,
};

/**
 * The parent context named by a request's W3C `traceparent` (and `tracestate`), read with the
 * OpenTelemetry SDK's W3C Trace Context propagator. A missing, malformed or invalid header (bad
 * format, all-zero ids, an unknown field layout of version 00) gives the root context: the span
 * then starts a trace of its own. Never throws.
 */
export function parentContext(headers: Headers): Context {
  try {
    const extracted = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    const parent = trace.getSpanContext(extracted);
    return parent && trace.isSpanContextValid(parent) ? extracted : ROOT_CONTEXT;
  } catch {
    return ROOT_CONTEXT;
  }
}

/** Attributes of a run known before it runs (none of them comes from the program). */
function requestAttributes(req: SandboxRunRequest, config: HostConfig): Attributes {
  const attrs: Attributes = {
    "skillgate.sandbox.kind": req.language,
    "skillgate.sandbox.runtime": config.runtimes[req.language],
    "skillgate.sandbox.instance": config.instance,
  };
  if (req.runId) attrs["skillgate.sandbox.run_id"] = req.runId;
  return attrs;
}

/** Attributes of a finished run: how it ended and its times, never its output. */
function resultAttributes(result: SandboxRunResult): Attributes {
  const attrs: Attributes = {
    "skillgate.sandbox.run_id": result.runId,
    "skillgate.sandbox.image": result.image,
    "skillgate.sandbox.timed_out": result.timedOut,
    "skillgate.sandbox.oom_killed": result.oomKilled,
    "skillgate.sandbox.truncated": result.truncated,
    "skillgate.sandbox.duration_ms": result.durationMs,
    "skillgate.sandbox.pooled": result.pooled,
  };
  if (result.exitCode !== null) attrs["process.exit.code"] = result.exitCode;
  if (result.signal !== null) attrs["skillgate.sandbox.signal"] = result.signal;
  if (result.queueWaitMs !== undefined)
    attrs["skillgate.sandbox.queue_wait_ms"] = result.queueWaitMs;
  return attrs;
}

/**
 * Runs `run` (one `POST /v1/run`) inside a `sandbox.run` span, child of the request's
 * `traceparent` ({@link parentContext}); with `tracing` null it only calls `run`. The span ends
 * when the run settles: with the result's attributes, or with `error.type` (the host's error code,
 * e.g. `queue_timeout`) and an error status when it was refused or failed.
 * @returns what `run` returns. @throws what `run` throws.
 */
export async function traceRun(
  tracing: HostTracing | null,
  headers: Headers,
  req: SandboxRunRequest,
  config: HostConfig,
  run: () => Promise<SandboxRunResult>,
): Promise<SandboxRunResult> {
  if (!tracing) return run();
  const span: Span = tracing.tracer.startSpan(
    RUN_SPAN_NAME,
    { kind: SpanKind.SERVER, attributes: requestAttributes(req, config) },
    parentContext(headers),
  );
  try {
    const result = await run();
    span.setAttributes(resultAttributes(result));
    if (result.timedOut || result.oomKilled) span.setStatus({ code: SpanStatusCode.ERROR });
    return result;
  } catch (err) {
    span.setAttribute("error.type", err instanceof HostError ? err.code : "internal_error");
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
