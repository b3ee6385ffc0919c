/**
 * A `fetch` over an outbound connector, pinned to the addresses the guard approved
 * (docs/outbound.md#pinned-connections). Clients that only speak `fetch` — the MCP SDK's Streamable
 * HTTP transport — get the same protection as `http_request`: the connection goes to the approved
 * addresses only, with no second DNS lookup, so DNS rebinding cannot switch the target. Redirects
 * are never followed (a 3xx comes back as is). No `node:` imports: the connector decides how to
 * connect.
 */
import type { OutboundConnector } from "./types.js";

/** Statuses whose response has no body (Fetch standard, "null body status"). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

async function bodyBytes(
  body: BodyInit | null | undefined,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (body === null || body === undefined) return undefined;
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/**
 * Builds a fetch whose every request goes through `connect` to `addresses`.
 * @param connect the connector (Node: connects to the given addresses through a pinned lookup).
 * @param addresses the addresses the guard approved for the URL's host; requests to another
 *   origin than `origin` are refused, since the addresses were approved for that host only.
 * @param origin the origin the addresses belong to (`https://host:port`).
 * @returns a fetch that rejects with a TypeError for another origin, on network errors and on
 *   abort; a response body streams from the connection.
 */
export function connectorFetch(
  connect: OutboundConnector,
  addresses: readonly string[],
  origin: string,
): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : String(input));
    if (url.origin !== origin) {
      throw new TypeError(`${url.origin} is not the approved origin ${origin}`);
    }
    const headers = new Headers(init?.headers ?? request?.headers);
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const body = await bodyBytes(init?.body ?? (request ? await request.arrayBuffer() : undefined));
    const controller = new AbortController();
    const signal = init?.signal ?? request?.signal;
    if (signal) {
      signal.throwIfAborted();
      signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
    }
    const res = await connect({
      url,
      method,
      headers: [...headers.entries()],
      body: body && body.length > 0 ? body : undefined,
      addresses: [...addresses],
      signal: controller.signal,
    });
    const iterator = res.body?.[Symbol.asyncIterator]();
    const stream =
      iterator && !NULL_BODY.has(res.status) && method !== "HEAD"
        ? new ReadableStream<Uint8Array>({
            async pull(c) {
              const next = await iterator.next();
              if (next.done) c.close();
              else c.enqueue(next.value);
            },
            cancel() {
              res.cancel();
            },
          })
        : null;
    if (!stream) res.cancel();
    const responseHeaders = new Headers();
    for (const [name, value] of res.headers) responseHeaders.append(name, value);
    return new Response(stream, {
      status: res.status,
      statusText: res.statusText,
      headers: responseHeaders,
    });
  };
}
