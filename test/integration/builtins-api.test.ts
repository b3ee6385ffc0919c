import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostResolver } from "../../workers/src/deps.js";
import type { OutboundConnector } from "../../workers/src/outbound/types.js";
import { createNodeConnector } from "../../workers/src/runtime/node/outbound.js";
import { builtinDeps } from "../../workers/src/services/wiring/handlers.js";
import { createFileHandlers, fileDefinitions } from "../../workers/src/skills/builtins/files.js";
import {
  createHttpRequestHandlers,
  httpRequestDefinitions,
} from "../../workers/src/skills/builtins/http-request.js";
import type {
  BuiltinDefinition,
  BuiltinDeps,
  BuiltinHandlerFactory,
} from "../../workers/src/skills/builtins/types.js";
import {
  createWebSearchHandlers,
  webSearchDefinitions,
} from "../../workers/src/skills/builtins/web-search.js";
import { startTestApp, type TestApp } from "../support/app.js";
import {
  type ConnectionProbe,
  type FakeServer,
  startConnectionProbe,
  startFakeServer,
} from "../support/fakes/http.js";
import { type FakeSearch, startFakeSearxng } from "../support/fakes/search.js";

const PUBLIC = "93.184.216.34";
const NAMES: Record<string, string[]> = {
  "api.example.com": [PUBLIC],
  "internal.example.com": ["127.0.0.1"],
  "vpc.example.com": ["10.1.2.3"],
};
const resolve: HostResolver = async (name) => NAMES[name] ?? [];
/** The Node connector dialling the public test address on 127.0.0.1 (test only). */
const toLocal: OutboundConnector = (req) =>
  createNodeConnector()({
    ...req,
    addresses: req.addresses?.map((a) => (a === PUBLIC ? "127.0.0.1" : a)) ?? null,
  });

const DEFINITIONS: BuiltinDefinition[] = [
  ...fileDefinitions,
  ...httpRequestDefinitions,
  ...webSearchDefinitions,
];
const FACTORIES: BuiltinHandlerFactory<BuiltinDeps>[] = [
  createFileHandlers,
  createHttpRequestHandlers,
  createWebSearchHandlers,
];

let t: TestApp;
let probe: ConnectionProbe;
let site: FakeServer;
let searx: FakeSearch;
let a: { key: string; id: string };
let b: { key: string; id: string };

beforeAll(async () => {
  probe = await startConnectionProbe();
  searx = await startFakeSearxng();
  site = await startFakeServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("public page");
  });
  t = await startTestApp({
    env: { WEB_SEARCH_PROVIDER: "searxng", SEARXNG_URL: searx.url },
    deps: { outbound: { resolve, connect: toLocal } },
    services: { builtins: DEFINITIONS },
  });
  for (const factory of FACTORIES) {
    for (const [name, handler] of Object.entries(factory(builtinDeps(t.deps)))) {
      if (t.services.executor.hasHandler(name)) continue;
      const timing = DEFINITIONS.find((d) => d.name === name)?.timing;
      t.services.executor.registerHandler(name, handler, timing?.(t.deps.config));
    }
  }
  a = await t.api.createKey("A");
  b = await t.api.createKey("B");
});
afterAll(async () => {
  await t.close();
  await probe.close();
  await site.close();
  await searx.close();
});

const run = (key: string, skillName: string, input: unknown) =>
  t.api.as(key).post("/api/skills/executions", { skillName, input });

describe("builtins through the execute API", () => {
  it("are seeded as global auto skills", async () => {
    const list = await t.api.get("/api/skills?source=builtin");
    const names = list.body.data.map((s: { name: string }) => s.name);
    expect(names).toEqual(
      expect.arrayContaining(["file_read", "file_write", "http_request", "web_search"]),
    );
  });

  it("file_write / file_read round trip, and keys never see each other's files", async () => {
    const w = await run(a.key, "file_write", { path: "notes/today.md", content: "for A only" });
    expect(w.body.execution).toMatchObject({
      status: "success",
      output: { path: "notes/today.md", bytesWritten: 10 },
    });
    const r = await run(a.key, "file_read", { path: "notes/today.md" });
    expect(r.body.execution.output).toMatchObject({
      content: "for A only",
      bytesRead: 10,
      encoding: "utf8",
    });
    const other = await run(b.key, "file_read", { path: "notes/today.md" });
    expect(other.body.execution).toMatchObject({ status: "error", errorCode: "file_not_found" });
  });

  it("a traversal path ends as an error execution without touching the workspace table", async () => {
    const paths = async () =>
      (await t.client.execute("select workspace, path from workspace_files")).rows.map(
        (r) => `${r.workspace}:${r.path}`,
      );
    const before = await paths();
    const res = await run(a.key, "file_write", { path: "../../etc/passwd", content: "x" });
    expect(res.body.execution).toMatchObject({ status: "error", errorCode: "invalid_path" });
    expect(await paths()).toEqual(before);
  });

  it("http_request to names resolving to loopback or private addresses is refused, no connection made", async () => {
    for (const host of ["internal.example.com", "vpc.example.com", "127.0.0.1", "localhost"]) {
      const res = await run(a.key, "http_request", { url: `http://${host}:${probe.port}/` });
      expect([host, res.body.execution.status, res.body.execution.errorCode]).toEqual([
        host,
        "error",
        "outbound_blocked",
      ]);
    }
    expect(probe.connections()).toBe(0);
  });

  it("http_request reaches a public name", async () => {
    const res = await run(a.key, "http_request", {
      url: `http://api.example.com:${site.port}/page`,
    });
    expect(res.body.execution.status).toBe("success");
    expect(res.body.execution.output).toMatchObject({
      status: 200,
      body: "public page",
      truncated: false,
    });
  });

  it("web_search answers, then answers from the cache", async () => {
    const first = await run(a.key, "web_search", { query: "skills at the edge", limit: 2 });
    expect(first.body.execution.output).toMatchObject({ provider: "searxng", cached: false });
    expect(first.body.execution.output.results).toHaveLength(2);
    const second = await run(b.key, "web_search", { query: "skills at the edge", limit: 2 });
    expect(second.body.execution.output).toMatchObject({
      cached: true,
      results: first.body.execution.output.results,
    });
  });

  it("invalid input is a 400 before any handler runs", async () => {
    const res = await run(a.key, "http_request", { url: 42 });
    expect(res.status).toBe(400);
  });
});
