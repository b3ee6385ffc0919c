/**
 * The sandbox host's egress proxy (docs/sandbox.md#the-browser-builtin) on a real Unix socket, in
 * front of real HTTP servers on 127.0.0.1: Basic credentials required, absolute-form http and
 * CONNECT tunnels, the outbound address rules (private, loopback, metadata, special names), the
 * loopback port allowance, and connections pinned to the addresses the resolver returned; a
 * target that cannot be resolved (a `.invalid` name, RFC 2606) or connected to is answered 502
 * as unreachable, never as a refusal (docs/outbound.md#failures).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BLOCKED_HEADER,
  type EgressProxy,
  startEgressProxy,
  UNREACHABLE_CODE_HEADER,
  UNREACHABLE_HEADER,
} from "../../sandbox-host/src/egress-proxy.js";
import {
  approveTarget,
  EgressRefusal,
  EgressUnreachable,
  osResolver,
} from "../../sandbox-host/src/egress-target.js";

const PASSWORD = "test-password-1234";
const AUTH = `Basic ${Buffer.from(`skillgate:${PASSWORD}`).toString("base64")}`;

interface Target {
  server: Server;
  port: number;
  hits: Array<{ url: string; host: string }>;
}

async function target(): Promise<Target> {
  const hits: Target["hits"] = [];
  const server = createServer((req, res) => {
    hits.push({ url: req.url ?? "", host: req.headers.host ?? "" });
    res.writeHead(200, { "content-type": "text/plain" }).end("from target");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

/** An absolute-form request through the proxy. */
function viaProxy(
  socketPath: string,
  url: string,
  auth: string | null = AUTH,
): Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path: url,
        method: "GET",
        headers: { host: new URL(url).host, ...(auth ? { "proxy-authorization": auth } : {}) },
      },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** A CONNECT through the proxy; after a 200 sends a plain GET over the tunnel. */
function tunnel(
  socketPath: string,
  authority: string,
  auth: string | null = AUTH,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let data = "";
    let sent = false;
    socket.on("data", (d: Buffer) => {
      data += d.toString();
      if (!sent && data.startsWith("HTTP/1.1 200")) {
        sent = true;
        socket.write(`GET /tunnelled HTTP/1.1\r\nhost: ${authority}\r\nconnection: close\r\n\r\n`);
      }
    });
    socket.on("end", () => resolve(data));
    socket.on("close", () => resolve(data));
    socket.on("error", reject);
    const authLine = auth ? `proxy-authorization: ${auth}\r\n` : "";
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n${authLine}\r\n`);
  });
}

describe("egress proxy", () => {
  let dir: string;
  let socketPath: string;
  let site: Target;
  let internal: Target;
  let proxy: EgressProxy;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "egress-test-"));
    socketPath = join(dir, `${randomBytes(4).toString("hex")}.sock`);
    site = await target();
    internal = await target();
    proxy = await startEgressProxy({
      socketPath,
      allowLoopbackPorts: new Set([site.port]),
      password: PASSWORD,
      // Names of the test: one resolving to the allowed site, one to a private address.
      resolve: async (name) =>
        name === "site.example.com"
          ? ["127.0.0.1"]
          : name === "rebind.example.com"
            ? ["10.9.8.7"]
            : [],
    });
  });

  afterEach(async () => {
    await proxy.close();
    site.server.close();
    internal.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers 407 without the credentials and forwards nothing", async () => {
    const res = await viaProxy(socketPath, `http://127.0.0.1:${site.port}/a`, null);
    expect(res.status).toBe(407);
    expect(res.headers["proxy-authenticate"]).toContain("Basic");
    const wrong = await viaProxy(
      socketPath,
      `http://127.0.0.1:${site.port}/a`,
      `Basic ${Buffer.from("skillgate:nope").toString("base64")}`,
    );
    expect(wrong.status).toBe(407);
    expect(await tunnel(socketPath, `127.0.0.1:${site.port}`, null)).toMatch(/^HTTP\/1.1 407/);
    expect(site.hits).toEqual([]);
    expect(proxy.blocked).toEqual([]);
  });

  it("forwards absolute-form http to an allowed target, keeping the Host header", async () => {
    const res = await viaProxy(socketPath, `http://127.0.0.1:${site.port}/page?x=1`);
    expect(res.status).toBe(200);
    expect(res.body).toBe("from target");
    expect(site.hits).toEqual([{ url: "/page?x=1", host: `127.0.0.1:${site.port}` }]);
  });

  it("connects a name to the address it resolved to (pinned), with the name as Host", async () => {
    const res = await viaProxy(socketPath, `http://site.example.com:${site.port}/named`);
    expect(res.status).toBe(200);
    expect(site.hits).toEqual([{ url: "/named", host: `site.example.com:${site.port}` }]);
  });

  it("refuses private, metadata, special-name and non-allowed loopback targets with 403", async () => {
    const cases = [
      [`http://127.0.0.1:${internal.port}/x`, "loopback"],
      ["http://10.0.0.1/x", "private"],
      ["http://169.254.169.254/latest/meta-data/", "linkLocal"],
      [`http://rebind.example.com:${site.port}/x`, "rebind.example.com resolves to it"],
      ["http://localhost/x", "localhost"],
      ["http://[::1]/x", "loopback"],
    ] as const;
    for (const [url, why] of cases) {
      const res = await viaProxy(socketPath, url);
      expect(res.status, url).toBe(403);
      expect(res.headers[BLOCKED_HEADER], url).toContain(why);
    }
    expect(proxy.blocked.map((b) => b.target)).toHaveLength(cases.length);
    expect(internal.hits).toEqual([]);
  });

  it("tunnels CONNECT to an allowed target and refuses a private one", async () => {
    const ok = await tunnel(socketPath, `127.0.0.1:${site.port}`);
    expect(ok).toMatch(/^HTTP\/1.1 200 Connection Established/);
    expect(ok).toContain("from target");
    expect(site.hits.map((h) => h.url)).toEqual(["/tunnelled"]);
    const refused = await tunnel(socketPath, `127.0.0.1:${internal.port}`);
    expect(refused).toMatch(/^HTTP\/1.1 403/);
    expect(refused).toContain(`${BLOCKED_HEADER}: 127.0.0.1 is not a public unicast address`);
    expect(internal.hits).toEqual([]);
    expect(proxy.blocked).toEqual([
      { target: `127.0.0.1:${internal.port}`, reason: expect.stringContaining("loopback") },
    ]);
  });
});

describe("egress proxy: unreachable targets are not refusals", () => {
  // `.invalid` is reserved (RFC 2606, RFC 6761): it never resolves. The OS resolver is used as is.
  const NO_SUCH_HOST = "no-such-host.invalid";
  const DNS_MESSAGE = new RegExp(
    `^Could not resolve ${NO_SUCH_HOST.replace(".", "\\.")}: DNS lookup failed \\((ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\\)$`,
  );
  let dir: string;
  let socketPath: string;
  let closedPort: number;
  let proxy: EgressProxy;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "egress-test-"));
    socketPath = join(dir, `${randomBytes(4).toString("hex")}.sock`);
    // A loopback port that was free a moment ago and has no listener now: connections are refused.
    const gone = await target();
    closedPort = gone.port;
    await new Promise<void>((r) => gone.server.close(() => r()));
    proxy = await startEgressProxy({
      socketPath,
      allowLoopbackPorts: new Set([closedPort]),
      password: PASSWORD,
    });
  });

  afterEach(async () => {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a plain request to a name that does not resolve 502 dns_failed, not 403", async () => {
    const res = await viaProxy(socketPath, `http://${NO_SUCH_HOST}/page`);
    expect(res.status).toBe(502);
    expect(res.headers[BLOCKED_HEADER]).toBeUndefined();
    expect(res.headers[UNREACHABLE_CODE_HEADER]).toBe("dns_failed");
    expect(res.headers[UNREACHABLE_HEADER]).toMatch(DNS_MESSAGE);
    expect(res.body).toMatch(DNS_MESSAGE);
    expect(res.body).not.toMatch(/refused/i);
    expect(proxy.blocked).toEqual([]);
    expect(proxy.unreachable).toEqual([
      { target: `http://${NO_SUCH_HOST}/page`, code: "dns_failed", message: res.body },
    ]);
  });

  it("answers a CONNECT to a name that does not resolve 502 dns_failed, not 403", async () => {
    const answer = await tunnel(socketPath, `${NO_SUCH_HOST}:443`);
    expect(answer).toMatch(/^HTTP\/1.1 502 Bad Gateway\r\n/);
    expect(answer).toContain(`${UNREACHABLE_CODE_HEADER}: dns_failed\r\n`);
    expect(answer).not.toContain(BLOCKED_HEADER);
    expect(proxy.blocked).toEqual([]);
    expect(proxy.unreachable).toHaveLength(1);
    expect(proxy.unreachable[0]).toMatchObject({
      target: `${NO_SUCH_HOST}:443`,
      code: "dns_failed",
    });
    expect(proxy.unreachable[0]!.message).toMatch(DNS_MESSAGE);
  });

  it("answers an allowed target that refuses the connection 502 connect_failed", async () => {
    const res = await viaProxy(socketPath, `http://127.0.0.1:${closedPort}/x`);
    expect(res.status).toBe(502);
    expect(res.headers[BLOCKED_HEADER]).toBeUndefined();
    expect(res.headers[UNREACHABLE_CODE_HEADER]).toBe("connect_failed");
    expect(res.headers[UNREACHABLE_HEADER]).toBe(
      `Could not connect to 127.0.0.1:${closedPort}: connection refused`,
    );
    const answer = await tunnel(socketPath, `127.0.0.1:${closedPort}`);
    expect(answer).toMatch(/^HTTP\/1.1 502 Bad Gateway\r\n/);
    expect(answer).toContain(`${UNREACHABLE_CODE_HEADER}: connect_failed\r\n`);
    expect(answer).toContain(
      `${UNREACHABLE_HEADER}: Could not connect to 127.0.0.1:${closedPort}: connection refused\r\n`,
    );
    expect(proxy.blocked).toEqual([]);
    expect(proxy.unreachable.map((u) => u.code)).toEqual(["connect_failed", "connect_failed"]);
  });
});

describe("approveTarget", () => {
  it("reports a name that does not resolve as unreachable (dns_failed), not as a refusal", async () => {
    const err = await approveTarget("no-such-host.invalid", 443, new Set(), osResolver).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EgressUnreachable);
    expect(err).not.toBeInstanceOf(EgressRefusal);
    expect((err as EgressUnreachable).code).toBe("dns_failed");
    expect((err as Error).message).toMatch(
      /^Could not resolve no-such-host\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\)$/,
    );
  });

  it("allows public addresses and only the listed loopback ports", async () => {
    const none = async () => [];
    expect(await approveTarget("93.184.216.34", 443, new Set(), none)).toEqual(["93.184.216.34"]);
    expect(await approveTarget("127.0.0.1", 8080, new Set([8080]), none)).toEqual(["127.0.0.1"]);
    await expect(approveTarget("127.0.0.1", 8081, new Set([8080]), none)).rejects.toThrow(
      /loopback/,
    );
    await expect(approveTarget("127.0.0.2", 8080, new Set([8080]), none)).rejects.toThrow(
      /loopback/,
    );
    await expect(approveTarget("printer", 80, new Set(), none)).rejects.toThrow(/single-label/);
    await expect(approveTarget("nothing.example.com", 80, new Set(), none)).rejects.toThrow(
      /no address/,
    );
  });
});
