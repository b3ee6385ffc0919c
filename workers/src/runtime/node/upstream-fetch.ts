/**
 * A Node-only `fetch` for upstream LLM calls (docs/proxy.md#upstream), on `node:http`/`node:https`
 * with keep-alive agents: the response (status, headers) resolves as soon as the upstream's
 * headers arrive, and its body is a web `ReadableStream` fed by each network read, so a streamed
 * answer's first event reaches the proxy without the layers of the platform fetch (undici).
 * Injected through `AppDeps.upstreamFetch` by the Node entry points; the Worker keeps its fetch.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Longest idle time of a kept-alive upstream connection, in ms (below common server timeouts). */
const IDLE_MS = 4_000;

/**
 * Creates the fetch. Supports what the proxy's upstream calls use: any method, a string body (or
 * none), `Headers`/record headers and an abort signal. Redirects are returned as they are.
 * @returns a function with the `fetch` signature; it rejects with the abort reason when `signal`
 *   aborts, and with a `TypeError` ("fetch failed", its cause attached) when the connection fails.
 */
export function createNodeUpstreamFetch(): typeof fetch {
  const agents = {
    http: new HttpAgent({ keepAlive: true, keepAliveMsecs: 1_000, timeout: IDLE_MS }),
    https: new HttpsAgent({ keepAlive: true, keepAliveMsecs: 1_000, timeout: IDLE_MS }),
  };
  const nodeFetch = (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) return fetch(input, init);
    const url = new URL(String(input));
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:") return fetch(input, init);
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== "string") return fetch(input, init);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
      const req = (secure ? httpsRequest : httpRequest)(url, {
        method: init.method ?? "GET",
        headers,
        agent: secure ? agents.https : agents.http,
      });
      let res: IncomingMessage | undefined;
      let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
      const onAbort = () => {
        const reason = signal?.reason;
        req.destroy();
        res?.destroy();
        if (stream) {
          try {
            stream.error(reason);
          } catch {
            // already closed
          }
        } else reject(reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      req.on("error", (err) => {
        done();
        if (!res) reject(new TypeError("fetch failed", { cause: err }));
      });
      req.on("response", (incoming) => {
        res = incoming;
        const out = new Headers();
        const raw = incoming.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) out.append(raw[i]!, raw[i + 1]!);
        const empty =
          init.method === "HEAD" || incoming.statusCode === 204 || incoming.statusCode === 304;
        const bodyStream = empty
          ? null
          : new ReadableStream<Uint8Array>({
              start(c) {
                stream = c;
                incoming.on("data", (chunk: Buffer) => {
                  c.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
                  if ((c.desiredSize ?? 1) <= 0) incoming.pause();
                });
                incoming.on("end", () => {
                  done();
                  try {
                    c.close();
                  } catch {
                    // cancelled
                  }
                });
                incoming.on("error", (err) => {
                  done();
                  try {
                    c.error(new TypeError("terminated", { cause: err }));
                  } catch {
                    // cancelled
                  }
                });
              },
              pull() {
                incoming.resume();
              },
              cancel() {
                done();
                incoming.destroy();
              },
            });
        if (empty) {
          incoming.resume();
          done();
        }
        resolve(
          new Response(bodyStream, {
            status: incoming.statusCode ?? 502,
            statusText: incoming.statusMessage ?? "",
            headers: out,
          }),
        );
      });
      req.end(typeof body === "string" ? body : undefined);
    });
  };
  return nodeFetch as typeof fetch;
}
