/**
 * The floor of the proxy benchmark: a pass-through that does nothing but forward, on the same
 * stack as the proxy (Hono on `@hono/node-server` through `serveNode`, the Node upstream fetch),
 * so that the proxy's added time can be read against what any proxy on this stack and machine
 * adds (docs/proxy.md#cost).
 */
import { Hono } from "hono";
import { serveNode } from "../workers/src/runtime/node/serve-node.js";
import { createNodeUpstreamFetch } from "../workers/src/runtime/node/upstream-fetch.js";

/**
 * Starts the pass-through on 127.0.0.1: `POST /v1/chat/completions` is read as JSON and sent on to
 * `upstream` (a base URL ending in `/v1`); the answer's status, content type and body (streamed as
 * it arrives) are returned. @returns its base URL (ending in `/v1`) and a close function.
 */
export async function startPassThrough(
  upstream: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstreamFetch = createNodeUpstreamFetch();
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    const body: unknown = await c.req.json();
    const res = await upstreamFetch(`${upstream}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: c.req.raw.signal,
    });
    return new Response(res.body, {
      status: res.status,
      headers: { "content-type": res.headers.get("content-type") ?? "application/json" },
    });
  });
  const { server, port } = await serveNode({
    fetch: app.fetch,
    port: 0,
    hostname: "127.0.0.1",
    drainMaxBytes: 1 << 20,
    drainMaxMs: 1_000,
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
