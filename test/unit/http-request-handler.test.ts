import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import type { Db } from "../../workers/src/db/client.js";
import type { AppDeps, HostResolver } from "../../workers/src/deps.js";
import { createFetchConnector } from "../../workers/src/outbound/fetch-connector.js";
import type { OutboundConnector } from "../../workers/src/outbound/types.js";
import { createNodeConnector } from "../../workers/src/runtime/node/outbound.js";
import {
  createHttpRequestHandlers,
  type HttpRequestResult,
  httpRequestDefinitions,
} from "../../workers/src/skills/builtins/http-request.js";
import { expectFailure, fakeContext } from "../support/fakes/handler-context.js";
import {
  type ConnectionProbe,
  type FakeServer,
  startConnectionProbe,
  startFakeServer,
} from "../support/fakes/http.js";

const PUBLIC = "93.184.216.34";
const resolve: HostResolver = async () => [PUBLIC];
/** Node connector dialling the public test address on 127.0.0.1 (test only). */
const toLocal: OutboundConnector = (req) =>
  createNodeConnector()({ ...req, addresses: req.addresses?.map(() => "127.0.0.1") ?? null });

let server: FakeServer;
let probe: ConnectionProbe;
let endlessStopped = 0;

beforeAll(async () => {
  probe = await startConnectionProbe();
  server = await startFakeServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    switch (url.pathname) {
      case "/echo":
        res.writeHead(200, { "content-type": "application/json", "set-cookie": "a=1" });
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body: req.body }));
        return;
      case "/redirect":
        res.writeHead(302, {
          location: `http://127.0.0.1:${probe.port}/next`,
          "content-type": "text/plain",
        });
        res.end("moved");
        return;
      case "/bytes": {
        const n = Number(url.searchParams.get("n"));
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("x".repeat(n));
        return;
      }
      case "/utf8":
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("ab€€"); // 2 + 3 + 3 bytes
        return;
      case "/binary":
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(Buffer.from([0, 1, 2, 255]));
        return;
      case "/endless": {
        res.writeHead(200, { "content-type": "text/plain" });
        const chunk = "y".repeat(16 * 1024);
        const timer = setInterval(() => res.write(chunk), 5);
        res.on("close", () => {
          clearInterval(timer);
          endlessStopped++;
        });
        return;
      }
      case "/slow":
        return; // never answers
      default:
        res.writeHead(404);
        res.end();
    }
  });
});
afterAll(async () => {
  await server.close();
  await probe.close();
});

function handler(
  env: Record<string, string> = {},
  outbound: AppDeps["outbound"] = { resolve, connect: toLocal },
) {
  const deps: AppDeps = {
    db: {} as Db,
    cache: new MemoryCache(),
    config: parseConfig(env),
    outbound,
  };
  return createHttpRequestHandlers(deps).http_request!;
}
const call = (input: unknown, env?: Record<string, string>) =>
  handler(env)(input, fakeContext("k")) as Promise<HttpRequestResult>;
const at = (path: string) => `http://api.example.com:${server.port}${path}`;

describe("http_request", () => {
  it("strips credential and hop-by-hop headers and keeps the rest", async () => {
    const out = await call({
      url: at("/echo"),
      method: "post",
      body: "payload",
      headers: {
        Authorization: "Bearer secret",
        Cookie: "sid=1",
        "Set-Cookie": "x=1",
        Host: "evil.example",
        Connection: "close",
        "Content-Length": "999",
        "Proxy-Authorization": "Basic abc",
        "Transfer-Encoding": "chunked",
        "X-Custom": "kept",
        Accept: "application/json",
      },
    });
    const echoed = JSON.parse(out.body) as {
      method: string;
      headers: Record<string, string>;
      body: string;
    };
    expect(echoed.method).toBe("POST");
    expect(echoed.body).toBe("payload");
    expect(echoed.headers["x-custom"]).toBe("kept");
    expect(echoed.headers.accept).toBe("application/json");
    expect(echoed.headers.host).toBe(`api.example.com:${server.port}`);
    expect(echoed.headers["content-length"]).toBe("7");
    for (const h of [
      "authorization",
      "cookie",
      "set-cookie",
      "proxy-authorization",
      "transfer-encoding",
    ]) {
      expect(echoed.headers[h]).toBeUndefined();
    }
    expect(out).toMatchObject({
      status: 200,
      statusText: "OK",
      truncated: false,
      bodyEncoding: "utf8",
      url: at("/echo"),
    });
    expect(out.headers["set-cookie"]).toBe("a=1");
  });

  it("returns a 3xx as is, with its Location, and does not follow it", async () => {
    const out = await call({ url: at("/redirect") });
    expect(out.status).toBe(302);
    expect(out.headers.location).toBe(`http://127.0.0.1:${probe.port}/next`);
    expect(out.body).toBe("moved");
    expect(probe.connections()).toBe(0);
  });

  it("cuts the body at maxBytes with truncated: true, and not at exactly the cap", async () => {
    const cut = await call({ url: at("/bytes?n=5000"), maxBytes: 100 });
    expect(cut).toMatchObject({ truncated: true });
    expect(cut.body).toBe("x".repeat(100));
    const exact = await call({ url: at("/bytes?n=100"), maxBytes: 100 });
    expect(exact).toMatchObject({ truncated: false, body: "x".repeat(100) });
  });

  it("never returns more than SKILLS_MAX_HTTP_RESPONSE_BYTES, whatever maxBytes asks", async () => {
    const out = await call(
      { url: at("/bytes?n=5000"), maxBytes: 1_000_000 },
      { SKILLS_MAX_HTTP_RESPONSE_BYTES: "300" },
    );
    expect(out.body.length).toBe(300);
    expect(out.truncated).toBe(true);
  });

  it("stops reading an endless body once past the cap", async () => {
    // The body never ends: a reader that did not stop would hang until the test's time limit.
    const out = await call({ url: at("/endless"), maxBytes: 50_000 });
    expect(out.truncated).toBe(true);
    expect(out.body.length).toBe(50_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(endlessStopped).toBeGreaterThanOrEqual(1);
  });

  it("does not leave half a UTF-8 character at the cut", async () => {
    const out = await call({ url: at("/utf8"), maxBytes: 4 });
    expect(out.body).toBe("ab");
    expect(out.truncated).toBe(true);
  });

  it("returns binary bodies as base64 and HEAD without a body", async () => {
    const bin = await call({ url: at("/binary") });
    expect(bin).toMatchObject({
      bodyEncoding: "base64",
      body: Buffer.from([0, 1, 2, 255]).toString("base64"),
    });
    const head = await call({ url: at("/bytes?n=10"), method: "HEAD" });
    expect(head).toMatchObject({ status: 200, body: "", truncated: false });
  });

  it("stops at the time limit with a timeout failure", async () => {
    const err = await expectFailure(call({ url: at("/slow"), timeoutMs: 200 }));
    expect(err.status).toBe("timeout");
    expect(err.code).toBe("http_timeout");
  });

  it("refuses methods outside the allowlist, bodies on GET/HEAD and header injection", async () => {
    for (const method of ["TRACE", "CONNECT", "OPTIONS", "PROPFIND"]) {
      expect((await expectFailure(call({ url: at("/echo"), method }))).code).toBe("invalid_input");
    }
    expect((await expectFailure(call({ url: at("/echo"), method: "GET", body: "x" }))).code).toBe(
      "invalid_input",
    );
    expect(
      (await expectFailure(call({ url: at("/echo"), headers: { "X-A": "1\r\nX-Injected: 2" } })))
        .code,
    ).toBe("invalid_input");
    expect(
      (await expectFailure(call({ url: at("/echo"), headers: { "Bad Name": "1" } }))).code,
    ).toBe("invalid_input");
  });

  it("reports a refused connection as http_failed", async () => {
    const closed = await startConnectionProbe();
    const port = closed.port;
    await closed.close();
    const err = await expectFailure(call({ url: `http://api.example.com:${port}/` }));
    expect(err.code).toBe("http_failed");
    expect(err.message).toContain("ECONNREFUSED");
  });

  it("fails closed on Node when the entry did not pass the resolver and pinning connector", async () => {
    const deps: AppDeps = {
      db: {} as Db,
      cache: new MemoryCache(),
      config: parseConfig({}),
      runtime: "node",
    };
    const before = server.requests.length;
    const err = await expectFailure(
      createHttpRequestHandlers(deps).http_request!({ url: at("/echo") }, fakeContext("k")),
    );
    expect(err.code).toBe("outbound_not_configured");
    expect(server.requests.length).toBe(before);
  });

  it("declares its time limit: the call's timeoutMs, 15 s by default, 60 s at most", () => {
    const timing = httpRequestDefinitions[0]!.timing!(parseConfig({}));
    expect(timing.limitFromInput!({ timeoutMs: 1000 })).toBe(1000);
    expect(timing.limitFromInput!({})).toBeUndefined();
    expect(timing).toMatchObject({ defaultLimitMs: 15_000, maxLimitMs: 60_000 });
    expect(timing.graceMs).toBeGreaterThan(0);
  });
});

describe("http_request with the Worker connector (fetch, redirect: manual)", () => {
  /** fetch that sends api.example.com to the local server (stands in for the platform's DNS). */
  const mapped: typeof fetch = (input, init) =>
    fetch(String(input).replace("api.example.com", "127.0.0.1"), init);
  const worker = () => handler({}, { connect: createFetchConnector(mapped) });

  it("does not follow redirects and cuts bodies", async () => {
    const redirect = (await worker()(
      { url: at("/redirect") },
      fakeContext("k"),
    )) as HttpRequestResult;
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe(`http://127.0.0.1:${probe.port}/next`);
    const cut = (await worker()(
      { url: at("/bytes?n=5000"), maxBytes: 10 },
      fakeContext("k"),
    )) as HttpRequestResult;
    expect(cut).toMatchObject({ body: "x".repeat(10), truncated: true });
    expect(probe.connections()).toBe(0);
  });
});
