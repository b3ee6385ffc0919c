import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import type { Db } from "../../workers/src/db/client.js";
import type { AppDeps, HostResolver } from "../../workers/src/deps.js";
import { ExecutionFailure } from "../../workers/src/errors.js";
import { createFetchConnector } from "../../workers/src/outbound/fetch-connector.js";
import { guardOutboundUrl, OutboundBlockedError } from "../../workers/src/outbound/guard.js";
import type { OutboundConnector } from "../../workers/src/outbound/types.js";
import { createNodeConnector, pinnedLookup } from "../../workers/src/runtime/node/outbound.js";
import { createHttpRequestHandlers } from "../../workers/src/skills/builtins/http-request.js";
import { fakeContext } from "../support/fakes/handler-context.js";
import {
  type ConnectionProbe,
  type FakeServer,
  startConnectionProbe,
  startFakeServer,
} from "../support/fakes/http.js";

/** Test DNS: public-looking names mapped to chosen addresses. */
const NAMES: Record<string, string[]> = {
  "rebind.example.com": ["127.0.0.1"],
  "mixed.example.com": ["93.184.216.34", "127.0.0.1"],
  "private.example.com": ["10.0.0.5"],
  "corp.example.com": ["192.168.10.20"],
  "metadata.example.com": ["169.254.169.254"],
  "cgnat.example.com": ["100.64.1.1"],
  "zero.example.com": ["0.0.0.0"],
  "loop6.example.com": ["::1"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
  "nat64.example.com": ["64:ff9b::7f00:1"],
  "sixtofour.example.com": ["2002:7f00:1::1"],
  "teredo.example.com": ["2001:0:4136:e378:8000:63bf:80ff:fffe"],
  "ula.example.com": ["fd00::1"],
  "linklocal6.example.com": ["fe80::1"],
  "none.example.com": [],
  "api.example.com": ["93.184.216.34"],
  "v6.example.com": ["2606:4700:4700::1111"],
};
const resolveCalls: string[] = [];
const testResolver: HostResolver = async (name) => {
  resolveCalls.push(name);
  const hit = NAMES[name];
  if (!hit) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return hit;
};

let probe: ConnectionProbe;
let server: FakeServer;
beforeAll(async () => {
  probe = await startConnectionProbe();
  server = await startFakeServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("reached");
  });
});
afterAll(async () => {
  await probe.close();
  await server.close();
});
beforeEach(() => {
  resolveCalls.length = 0;
});

function depsWith(outbound: AppDeps["outbound"]): AppDeps {
  return { db: {} as Db, cache: new MemoryCache(), config: parseConfig({}), outbound };
}

/** The Node connector, except that the public test address is dialled on 127.0.0.1 (test only). */
const toLocal: OutboundConnector = (req) =>
  createNodeConnector()({
    ...req,
    addresses: req.addresses?.map((a) => (a === "93.184.216.34" ? "127.0.0.1" : a)) ?? null,
  });

async function refusal(p: Promise<unknown>): Promise<ExecutionFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExecutionFailure);
  return err as ExecutionFailure;
}

describe("guardOutboundUrl rules", () => {
  it.each([
    ["not a url", "invalid_url"],
    ["/relative/path", "invalid_url"],
    ["ftp://example.com/file", "scheme"],
    ["file:///etc/passwd", "scheme"],
    ["gopher://example.com:70/", "scheme"],
    ["data:text/plain,hi", "scheme"],
    ["http://user:pw@example.com/", "userinfo"],
    ["http://user@example.com/", "userinfo"],
    ["http://localhost/", "name"],
    ["http://LOCALHOST./", "name"],
    ["http://app.localhost/", "name"],
    ["http://printer.local/", "name"],
    ["http://metadata.google.internal/", "name"],
    ["http://1.0.0.127.in-addr.arpa/", "name"],
    ["http://intranet/", "name"],
    ["http://none.example.com/", "no_address"],
  ])("refuses %s (%s)", async (url, reason) => {
    const err = await refusal(guardOutboundUrl(url, { resolve: testResolver }));
    expect(err).toBeInstanceOf(OutboundBlockedError);
    expect((err as OutboundBlockedError).reason).toBe(reason);
  });

  it("turns a resolver failure into dns_failed", async () => {
    expect(
      (await refusal(guardOutboundUrl("http://unknown.example.com/", { resolve: testResolver })))
        .code,
    ).toBe("dns_failed");
  });

  it("approves public targets with the addresses the connector must use", async () => {
    const t = await guardOutboundUrl("https://api.example.com/x", { resolve: testResolver });
    expect(t.addresses).toEqual(["93.184.216.34"]);
    expect(t.hostname).toBe("api.example.com");
    const v6 = await guardOutboundUrl("http://v6.example.com/", { resolve: testResolver });
    expect(v6.addresses).toEqual(["2606:4700:4700::1111"]);
    const literal = await guardOutboundUrl("http://[2606:4700:4700::1111]:8080/", {});
    expect(literal.addresses).toEqual(["2606:4700:4700::1111"]);
    const worker = await guardOutboundUrl("https://api.example.com/x", {});
    expect(worker.addresses).toBeNull();
  });
});

describe("http_request refuses private targets before any connection", () => {
  const literal = (port: number) => [
    `http://127.0.0.1:${port}/`,
    `http://127.0.0.1.:${port}/`,
    `http://127.1:${port}/`,
    `http://0x7f.1:${port}/`,
    `http://0x7f.0x0.0x0.0x1:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://017700000001:${port}/`,
    `http://2130706433:${port}/`,
    `http://%31%32%37.0.0.1:${port}/`,
    `http://\uff11\uff12\uff17.0.0.1:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[0:0:0:0:0:ffff:7f00:1]:${port}/`,
    `http://[::127.0.0.1]:${port}/`,
    `http://[64:ff9b::127.0.0.1]:${port}/`,
    `http://[2002:7f00:1::1]:${port}/`,
    `http://[fe80::1]:${port}/`,
    `http://[fd00::1]:${port}/`,
    `http://10.0.0.1:${port}/`,
    `http://172.16.5.4:${port}/`,
    `http://192.168.0.1:${port}/`,
    `http://169.254.169.254:${port}/latest/meta-data/`,
    `http://100.64.0.1:${port}/`,
    `http://192.0.0.1:${port}/`,
    `http://198.18.0.1:${port}/`,
    `http://240.0.0.1:${port}/`,
    `http://255.255.255.255:${port}/`,
    `http://224.0.0.1:${port}/`,
    `http://localhost:${port}/`,
  ];
  const names = (port: number) =>
    Object.entries(NAMES)
      .filter(
        ([name, addrs]) =>
          addrs.length > 0 && !["api.example.com", "v6.example.com"].includes(name),
      )
      .map(([name]) => `http://${name}:${port}/`);

  it("Node (resolver + pinning connector): every literal form and every name resolving to a non-public address", async () => {
    const handler = createHttpRequestHandlers(
      depsWith({ resolve: testResolver, connect: createNodeConnector() }),
    ).http_request!;
    const targets = [...literal(probe.port), ...names(probe.port)];
    for (const url of targets) {
      const err = await refusal(handler({ url }, fakeContext("k")));
      expect([url, err.code]).toEqual([url, "outbound_blocked"]);
    }
    expect(targets.length).toBeGreaterThan(45);
    expect(probe.connections()).toBe(0);
  });

  it("Worker (no resolver, fetch connector): every literal form", async () => {
    const handler = createHttpRequestHandlers(depsWith({ connect: createFetchConnector() }))
      .http_request!;
    for (const url of literal(probe.port)) {
      const err = await refusal(handler({ url }, fakeContext("k")));
      expect([url, err.code]).toEqual([url, "outbound_blocked"]);
    }
    expect(probe.connections()).toBe(0);
  });

  it("names the address and the range in the error", async () => {
    const handler = createHttpRequestHandlers(
      depsWith({ resolve: testResolver, connect: createNodeConnector() }),
    ).http_request!;
    const err = await refusal(
      handler({ url: `http://mixed.example.com:${probe.port}/` }, fakeContext("k")),
    );
    expect(err.message).toContain("127.0.0.1 is not a public unicast address (loopback)");
    expect(err.message).toContain("mixed.example.com resolves to it");
    expect(probe.connections()).toBe(0);
  });
});

describe("allowed targets", () => {
  it("reach the server through the injected resolver, keeping the original Host", async () => {
    const handler = createHttpRequestHandlers(depsWith({ resolve: testResolver, connect: toLocal }))
      .http_request!;
    const before = server.requests.length;
    const out = (await handler(
      { url: `http://api.example.com:${server.port}/hello?x=1` },
      fakeContext("k"),
    )) as {
      status: number;
      body: string;
    };
    expect(out).toMatchObject({ status: 200, body: "reached" });
    const seen = server.requests[before]!;
    expect(seen.url).toBe("/hello?x=1");
    expect(seen.headers.host).toBe(`api.example.com:${server.port}`);
  });

  it("resolve once: a rebinding resolver cannot switch the connection to another address", async () => {
    let calls = 0;
    const rebinding: HostResolver = async () => (++calls === 1 ? ["93.184.216.34"] : ["127.0.0.1"]);
    const seenAddresses: Array<string[] | null> = [];
    const spy: OutboundConnector = (req) => {
      seenAddresses.push(req.addresses);
      return toLocal(req);
    };
    const handler = createHttpRequestHandlers(depsWith({ resolve: rebinding, connect: spy }))
      .http_request!;
    const out = (await handler(
      { url: `http://rebinding.example.com:${server.port}/` },
      fakeContext("k"),
    )) as { status: number };
    expect(out.status).toBe(200);
    expect(calls).toBe(1);
    expect(seenAddresses).toEqual([["93.184.216.34"]]);
    expect(probe.connections()).toBe(0);
  });
});

describe("pinnedLookup", () => {
  it("answers only with the approved addresses, by family and in the `all` form", async () => {
    const lookup = pinnedLookup(["93.184.216.34", "2606:4700:4700::1111"]);
    const one = await new Promise((resolve) =>
      lookup("x.example.com", {}, (err, address, family) => resolve({ err, address, family })),
    );
    expect(one).toEqual({ err: null, address: "93.184.216.34", family: 4 });
    const v6 = await new Promise((resolve) =>
      lookup("x.example.com", { family: 6 }, (_e, address) => resolve(address)),
    );
    expect(v6).toBe("2606:4700:4700::1111");
    const all = await new Promise((resolve) =>
      lookup("x.example.com", { all: true }, (_e, list) => resolve(list)),
    );
    expect(all).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
    ]);
    const none = await new Promise((resolve) =>
      pinnedLookup(["::1"])("x", { family: 4 }, (err) =>
        resolve((err as NodeJS.ErrnoException).code),
      ),
    );
    expect(none).toBe("ENOTFOUND");
  });
});

describe("the connection probe", () => {
  it("does count a connection made without the guard (control for the zero counts above)", async () => {
    const control = await startConnectionProbe();
    try {
      const res = await createNodeConnector()({
        url: new URL(`http://127.0.0.1:${control.port}/`),
        method: "GET",
        headers: [],
        addresses: ["127.0.0.1"],
        signal: AbortSignal.timeout(5_000),
      });
      res.cancel();
      expect(res.status).toBe(200);
      expect(control.connections()).toBe(1);
    } finally {
      await control.close();
    }
  });
});
