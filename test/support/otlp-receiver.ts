/**
 * A real OTLP/HTTP receiver for the tracing tests: an HTTP server on 127.0.0.1 that takes JSON
 * exports at `/v1/traces` (the OpenTelemetry protocol's JSON encoding) and keeps every span with
 * its attributes flattened and its resource's `service.name`, plus the raw bodies (to check that
 * no text leaked into any field).
 */
import { createServer, type Server } from "node:http";

/** One received span, as the OTLP JSON encoding sends it, attributes flattened. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  /** Absent or empty for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** The `service.name` of the span's resource. */
  service: unknown;
}

/** A running receiver: its base URL (for `OTEL_EXPORTER_OTLP_ENDPOINT`), what it got, `close`. */
export interface OtlpReceiver {
  url: string;
  spans: OtlpSpan[];
  bodies: string[];
  close(): Promise<void>;
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => {
      text += c;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"]?.includes("json")) {
        bodies.push(text);
        const value = (v: Record<string, unknown>) =>
          v.stringValue ??
          (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
        const attrs = (list: { key: string; value: Record<string, unknown> }[] = []) =>
          Object.fromEntries(list.map((a) => [a.key, value(a.value)]));
        for (const rs of JSON.parse(text).resourceSpans ?? []) {
          const service = attrs(rs.resource?.attributes)["service.name"];
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({ ...s, attributes: attrs(s.attributes), service });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
