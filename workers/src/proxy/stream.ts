/**
 * Streaming proxy requests (docs/proxy.md#streaming).
 */
import { failureResult, type ProxyRequest, type ProxyServices } from "./loop.js";

/** Answers a streaming request. */
export async function streamProxy(_svc: ProxyServices, req: ProxyRequest): Promise<Response> {
  const r = failureResult(
    req.format,
    400,
    "Streaming is not available on this endpoint",
    "stream_unsupported",
  );
  return new Response(JSON.stringify(r.body), {
    status: 400,
    headers: { "content-type": "application/json" },
  });
}
