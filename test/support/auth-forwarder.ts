/**
 * A local HTTP forwarder that adds `Authorization: Bearer <token>` to every request and passes
 * everything else (method, path, `Host`, `Origin`, body, answer) through unchanged, for MCP
 * clients that cannot send credentials (the conformance suite's server scenarios).
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

/** A running forwarder: its base URL and how to stop it. */
export interface AuthForwarder {
  url: string;
  close(): Promise<void>;
}

/** Starts a forwarder on 127.0.0.1 (port 0) in front of `target` (`http://host:port`). */
export async function startAuthForwarder(target: string, token: string): Promise<AuthForwarder> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const up = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
