/**
 * OpenTelemetry tracing of the gateway (docs/deployment.md#opentelemetry): a tracer provider that
 * batches spans and exports them over OTLP/HTTP (JSON encoding) to the configured endpoint, with
 * the standard `OTEL_EXPORTER_OTLP_*` settings (OpenTelemetry specification, "OTLP Exporter
 * Configuration"). Pure JS (fetch in the Worker, `node:http` on Node).
 */
import type { Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";

/** The tracing settings (the `OTEL_*` variables of `config.ts`). */
export interface TracingSettings {
  /** Base URL: spans go to `<endpoint>/v1/traces`. */
  endpoint?: string;
  /** Traces URL used as it is (takes precedence over `endpoint`). */
  tracesEndpoint?: string;
  /** `name=value,name2=value2` (values URL-encoded). */
  headers?: string;
  serviceName: string;
}

/** A running tracer: its `tracer`, and `flush` to export what is buffered (the Worker awaits it). */
export interface Tracing {
  readonly tracer: Tracer;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Parses `OTEL_EXPORTER_OTLP_HEADERS`; a pair without `=` is skipped. */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Kept as written.
    }
    if (name) out[name] = value;
  }
  return out;
}

/** The tracing of `settings`, or null when no endpoint is set (no spans are made). */
export function createTracing(settings: TracingSettings): Tracing | null {
  const url =
    settings.tracesEndpoint ??
    (settings.endpoint ? `${settings.endpoint.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (!url) return null;
  const exporter = new OTLPTraceExporter({ url, headers: parseOtlpHeaders(settings.headers) });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer("skillgate"),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
