/**
 * Base of the fake internet services used by tests: real HTTP servers on 127.0.0.1 that record
 * every request, plus a raw TCP probe that counts connection attempts.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";

/** A request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/search?q=x&format=json`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Handles one request; write the response with `res`. */
export type FakeHandler = (req: RecordedRequest, res: ServerResponse) => unknown;

/** A running fake server. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Options of {@link startFakeServer}. */
export interface FakeServerOptions {
  /**
   * Keep every request in `requests` (default true). A benchmark sending thousands passes false,
   * so that the fake's own growing list is not garbage collected in the measured process.
   */
  record?: boolean;
}

/** Starts an HTTP server on 127.0.0.1 (random port) around `handler`. */
export async function startFakeServer(
  handler: FakeHandler,
  opts: FakeServerOptions = {},
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    if (opts.record !== false) requests.push(recorded);
    try {
      await handler(recorded, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err));
    }
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON response. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** A TCP listener that only counts connections (and answers any bytes with a tiny HTTP 200). */
export interface ConnectionProbe {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts a {@link ConnectionProbe} on `host` (default 127.0.0.1). */
export async function startConnectionProbe(host = "127.0.0.1"): Promise<ConnectionProbe> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nprobe"));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
