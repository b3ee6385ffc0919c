/**
 * The Node serving layer of the app (docs/architecture.md#runtimes): `@hono/node-server` on a
 * port, plus a graceful end for requests whose body the app did not read.
 *
 * The app refuses a body past its limit (docs/limits.md) while bytes are still arriving. Closing
 * the socket at once would make the kernel answer the client's next bytes with a reset, and a
 * client still sending (Node's `fetch`, the official SDKs) then loses the answer it has not read
 * yet. So once an answer is written, the rest of an unread body is read and discarded — at most
 * `drainMaxBytes` bytes for at most `drainMaxMs` milliseconds, never kept in memory — and only a
 * body longer than that gets its connection closed. A body read to its end leaves the connection
 * open for the next request (HTTP/1.1 keep-alive).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";

/** Options of {@link serveNode}. */
export interface ServeNodeOptions {
  /** The app's fetch handler (`app.fetch`). */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  /** Port (0: any free port). */
  port: number;
  hostname: string;
  /** Most bytes of an unread body read and discarded after the answer (`REQUEST_DRAIN_MAX_BYTES`). */
  drainMaxBytes: number;
  /** Longest time spent discarding an unread body after the answer, in ms (`REQUEST_DRAIN_MAX_MS`). */
  drainMaxMs: number;
}

/**
 * Reads and discards what is left of `incoming` once its answer is written, within the bounds;
 * past them (or on a socket error) the connection is closed.
 */
function drainAfterAnswer(incoming: IncomingMessage, maxBytes: number, maxMs: number): void {
  if (incoming.readableEnded || incoming.destroyed) return;
  let bytes = 0;
  const close = () => {
    cleanup();
    incoming.socket?.destroy();
  };
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) close();
  };
  const cleanup = () => {
    clearTimeout(timer);
    incoming.off("data", onData);
    incoming.off("end", cleanup);
    incoming.off("error", close);
  };
  const timer = setTimeout(close, maxMs);
  timer.unref();
  // A reader the app left (a web stream over this request) would queue what is drained here:
  // nobody reads it any more, so its listener goes and the bytes are only counted.
  incoming.removeAllListeners("data");
  incoming.on("data", onData);
  incoming.once("end", cleanup);
  incoming.once("error", close);
  incoming.resume();
}

/**
 * Serves `options.fetch` over HTTP/1.1 on `hostname:port`.
 * @returns the server, once it listens, and its port.
 */
export async function serveNode(
  options: ServeNodeOptions,
): Promise<{ server: ServerType; port: number }> {
  const server = serve({
    fetch: options.fetch,
    port: options.port,
    hostname: options.hostname,
    // The drain below replaces the adapter's own clean-up (which closes after a fixed 500 ms).
    autoCleanupIncoming: false,
  });
  server.on("request", (incoming: IncomingMessage, outgoing: ServerResponse) => {
    outgoing.once("finish", () =>
      drainAfterAnswer(incoming, options.drainMaxBytes, options.drainMaxMs),
    );
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  return { server, port: (server.address() as AddressInfo).port };
}
