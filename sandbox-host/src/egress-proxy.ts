/**
 * The egress proxy of a browse (docs/sandbox.md#the-browser-builtin): a forward HTTP proxy on a
 * Unix socket that the browser container reaches through a mount (egress-share.ts; the container
 * itself has no network). Plain http arrives in absolute form (`GET http://host/path`), everything else
 * (https, wss) as `CONNECT host:port`. Every target passes (egress-target.ts) the outbound rules of `http_request`
 * (docs/outbound.md#the-guard): the name rules, resolution of the name, every address public
 * unicast, and the connection then goes to exactly those addresses (pinned: no second lookup, so
 * DNS rebinding cannot switch the target). A refused target gets `403` with the header
 * `X-Skillgate-Blocked` and is recorded; it never receives a byte. A target that passed the rules
 * but could not be reached (its name did not resolve, no approved address accepted the
 * connection) is not a refusal: it gets `502` with `X-Skillgate-Unreachable` (the message) and
 * `X-Skillgate-Unreachable-Code` (`dns_failed`, `connect_failed`), worded as the API words its own
 * failures (docs/outbound.md#failures), and is recorded apart.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { chmod } from "node:fs/promises";
import * as http from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { BlockedRequest } from "@skillgate/sandbox-protocol";
import {
  approveTarget,
  dial,
  EgressRefusal,
  type EgressResolver,
  EgressUnreachable,
  osResolver,
  type UnreachableCode,
  unreachableOf,
} from "./egress-target.js";

/** Header a refusal carries; its value is the reason. */
export const BLOCKED_HEADER = "x-skillgate-blocked";
/** Header of an answer whose target could not be reached (not refused); its value is the message. */
export const UNREACHABLE_HEADER = "x-skillgate-unreachable";
/** Header with the machine-readable code of an unreachable target ({@link UnreachableCode}). */
export const UNREACHABLE_CODE_HEADER = "x-skillgate-unreachable-code";
/** Most refusals a proxy records (later ones are counted by the log only). */
const MAX_RECORDED = 100;
/** Request headers that concern the proxy hop only and are not forwarded. */
const HOP_HEADERS = new Set([
  "proxy-connection",
  "proxy-authorization",
  "connection",
  "keep-alive",
  "te",
  "trailer",
  "upgrade",
]);

/** Options of {@link startEgressProxy}. */
export interface EgressProxyOptions {
  /** Unix socket path to listen on (created with mode 0777 so the container user can connect). */
  socketPath: string;
  /**
   * Ports of 127.0.0.1 treated as public (local development and tests; README "Sandbox host",
   * `SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS`). Every other loopback port stays refused.
   */
  allowLoopbackPorts: ReadonlySet<number>;
  resolve?: EgressResolver;
  log?: (line: string) => void;
  /**
   * Password every request must carry as `Proxy-Authorization: Basic` (user `skillgate`); a
   * request without it gets 407. Only the page's own traffic carries it (playwright-core answers
   * the challenge for the page), so Chromium's background services never leave the container.
   */
  password: string;
}

/** A listening proxy. */
export interface EgressProxy {
  /** Refused requests so far, in order (at most 100). */
  readonly blocked: BlockedRequest[];
  /** Requests whose target could not be reached so far, in order (at most 100); not refusals. */
  readonly unreachable: UnreachableRequest[];
  /** Stops listening and destroys every open connection. */
  close(): Promise<void>;
}

/** A request whose target could not be reached: the target as the page asked for it and why. */
export interface UnreachableRequest {
  /** `http://host:port/path` for a plain request, `host:port` for a tunnel (https, wss). */
  target: string;
  code: UnreachableCode;
  message: string;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/** True when the header carries Basic credentials `skillgate:<password>` (constant time). */
function authorized(header: string | undefined, password: string): boolean {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? "");
  if (!m) return false;
  const presented = Buffer.from(m[1] ?? "", "base64").toString("utf8");
  return timingSafeEqual(sha256(presented), sha256(`skillgate:${password}`));
}

const CHALLENGE = 'Basic realm="skillgate-egress"';

/**
 * Starts a proxy on `opts.socketPath`. Output: {@link EgressProxy}.
 * @throws Error when the socket cannot be bound.
 */
export async function startEgressProxy(opts: EgressProxyOptions): Promise<EgressProxy> {
  const resolve = opts.resolve ?? osResolver;
  const blocked: BlockedRequest[] = [];
  const unreachable: UnreachableRequest[] = [];
  const sockets = new Set<Duplex>();
  const track = (s: Duplex) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  };
  const refuse = (target: string, err: unknown): string => {
    const reason = err instanceof EgressRefusal ? err.message : "refused";
    if (blocked.length < MAX_RECORDED) blocked.push({ target, reason });
    opts.log?.(`egress refused ${target}: ${reason}`);
    return reason;
  };
  const failed = (target: string, err: EgressUnreachable): Record<string, string> => {
    const message = err.message.replace(/[\r\n]+/g, " ");
    if (unreachable.length < MAX_RECORDED) unreachable.push({ target, code: err.code, message });
    opts.log?.(`egress failed ${target}: ${message}`);
    return { [UNREACHABLE_HEADER]: message, [UNREACHABLE_CODE_HEADER]: err.code };
  };
  const badGateway = (headers: Record<string, string>) =>
    `HTTP/1.1 502 Bad Gateway\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}content-length: 0\r\nconnection: close\r\n\r\n`;

  const server = http.createServer(async (req, res) => {
    track(req.socket);
    if (!authorized(req.headers["proxy-authorization"], opts.password)) {
      res.writeHead(407, { "proxy-authenticate": CHALLENGE, "content-length": "0" }).end();
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new EgressRefusal(`scheme ${url.protocol} needs CONNECT`);
    } catch (err) {
      const reason = refuse(
        String(req.url),
        err instanceof EgressRefusal ? err : new EgressRefusal("not an absolute http URL"),
      );
      res.writeHead(400, { [BLOCKED_HEADER]: reason, "content-type": "text/plain" }).end(reason);
      return;
    }
    const port = url.port === "" ? 80 : Number(url.port);
    let addresses: string[];
    try {
      addresses = await approveTarget(url.hostname, port, opts.allowLoopbackPorts, resolve);
    } catch (err) {
      if (err instanceof EgressUnreachable) {
        const headers = failed(url.href, err);
        res.writeHead(502, { ...headers, "content-type": "text/plain" }).end(err.message);
        return;
      }
      const reason = refuse(url.href, err);
      res.writeHead(403, { [BLOCKED_HEADER]: reason, "content-type": "text/plain" });
      res.end(`Refused by the sandbox egress proxy: ${reason}`);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers))
      if (!HOP_HEADERS.has(name) && value !== undefined) headers[name] = value;
    headers.host = url.host;
    let upstream: Socket;
    try {
      upstream = await dial(url.hostname, addresses, port);
    } catch (err) {
      const failure = unreachableOf(err, url.hostname, port);
      const headers = failed(url.href, failure);
      res.writeHead(502, { ...headers, "content-type": "text/plain" }).end(failure.message);
      return;
    }
    track(upstream);
    const out = http.request(
      {
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        // Without an agent option, node:http uses this socket (already connected to the pinned
        // address) and never pools it; `agent: false` would dial the host name again.
        createConnection: () => upstream,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });

  server.on("connect", async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on("error", () => client.destroy());
    if (!authorized(req.headers["proxy-authorization"], opts.password)) {
      client.end(
        `HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: ${CHALLENGE}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
      );
      return;
    }
    const target = req.url ?? "";
    const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
    let addresses: string[];
    let port = 0;
    try {
      if (!m) throw new EgressRefusal("CONNECT target must be host:port");
      port = Number(m[2]);
      addresses = await approveTarget(m[1] ?? "", port, opts.allowLoopbackPorts, resolve);
    } catch (err) {
      if (err instanceof EgressUnreachable) {
        client.end(badGateway(failed(target, err)));
        return;
      }
      const reason = refuse(target, err);
      client.end(
        `HTTP/1.1 403 Forbidden\r\n${BLOCKED_HEADER}: ${reason.replace(/[\r\n]/g, " ")}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
      );
      return;
    }
    let upstream: Socket;
    try {
      upstream = await dial(m?.[1] ?? target, addresses, port);
    } catch (err) {
      client.end(badGateway(failed(target, unreachableOf(err, m?.[1] ?? target, port))));
      return;
    }
    track(upstream);
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  server.on("clientError", (_err, socket) => socket.destroy());

  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(opts.socketPath, () => resolveListen());
  });
  await chmod(opts.socketPath, 0o777);

  return {
    blocked,
    unreachable,
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
