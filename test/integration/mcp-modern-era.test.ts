/**
 * The modern era of MCP (2026-07-28) on `/mcp`, with raw HTTP on 127.0.0.1 (the installed SDK
 * speaks the 2025 era only): `server/discover`, stateless `tools/list` and `tools/call` whose
 * version and client capabilities travel in `_meta` and the mirrored headers, the revision's
 * refusals (-32020 header mismatch, -32022 unsupported version with the supported list, 404 -32601
 * for methods the era removed or the server lacks, no batches), and 2025-era clients working on
 * the same endpoint beside it.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp, MCP_VERSION, mcpHeaders } from "../support/mcp.js";
import { keyWithEchoSkill } from "../support/mcp-stand.js";

const MODERN = "2026-07-28";

let t: TestApp;
let key: { key: string; id: string };
let legacy: Client;

function meta(version = MODERN) {
  return {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
}

/** A modern request and the headers a conforming client sends with it. */
function modern(
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | null> = {},
) {
  const h: Record<string, string> = mcpHeaders(key.key, {
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  });
  if (typeof params.name === "string") h["mcp-name"] = params.name;
  for (const [k, v] of Object.entries(headers)) {
    if (v === null) delete h[k];
    else h[k] = v;
  }
  return fetch(`${t.url}/mcp`, {
    method: "POST",
    headers: h,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: meta(), ...params } }),
  });
}

beforeAll(async () => {
  t = await startTestApp();
  key = await keyWithEchoSkill(t, "mcp-modern", "echoModern");
  legacy = await connectMcp(t.url, key.key);
});
afterAll(async () => {
  await legacy?.close();
  await t?.close();
});

describe("MCP 2026-07-28: stateless requests", () => {
  it("answers server/discover with versions of both eras, capabilities, identity and cache hints", async () => {
    const res = await modern(1, "server/discover");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.id).toBe(1);
    expect(body.result).toMatchObject({
      resultType: "complete",
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: "skillgate" },
      cacheScope: "public",
    });
    expect(body.result.supportedVersions[0]).toBe(MODERN);
    expect(body.result.supportedVersions).toContain(MCP_VERSION);
    expect(typeof body.result.ttlMs).toBe("number");
    expect(typeof body.result.instructions).toBe("string");
  });

  it("lists and calls tools without initialize, with resultType and list cache hints", async () => {
    const list = await (await modern(2, "tools/list")).json();
    expect(list.result.resultType).toBe("complete");
    expect(list.result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(list.result.tools.map((x: { name: string }) => x.name)).toContain("echoModern_v1_0_0");
    const called = await modern(3, "tools/call", {
      name: "echoModern_v1_0_0",
      arguments: { text: "modern" },
    });
    expect(called.status).toBe(200);
    const body = await called.json();
    expect(body.id).toBe(3);
    expect(body.result.resultType).toBe("complete");
    expect(body.result.structuredContent.output).toEqual({ text: "modern" });
  });

  it("decodes a Base64-sentinel Mcp-Name before comparing it with params.name", async () => {
    const name = "echoModern_v1_0_0";
    const encoded = `=?base64?${Buffer.from(name, "utf8").toString("base64")}?=`;
    const res = await modern(
      4,
      "tools/call",
      { name, arguments: { text: "b64" } },
      { "mcp-name": encoded },
    );
    expect(res.status).toBe(200);
    expect((await res.json()).result.structuredContent.output).toEqual({ text: "b64" });
  });

  it("refuses missing or mismatched headers with 400 and -32020, running nothing", async () => {
    const cases: [string, Record<string, string | null>][] = [
      ["no Mcp-Method", { "mcp-method": null }],
      ["Mcp-Method differs", { "mcp-method": "tools/list" }],
      ["no Mcp-Name", { "mcp-name": null }],
      ["Mcp-Name differs", { "mcp-name": "other_tool" }],
      ["no MCP-Protocol-Version", { "mcp-protocol-version": null }],
      ["version differs from _meta", { "mcp-protocol-version": MCP_VERSION }],
    ];
    for (const [label, headers] of cases) {
      const res = await modern(
        5,
        "tools/call",
        { name: "echoModern_v1_0_0", arguments: { text: "nope" } },
        headers,
      );
      expect(res.status, label).toBe(400);
      const body = await res.json();
      expect(body.error.code, label).toBe(-32020);
      expect(body.id, label).toBe(5);
    }
    const executions = await fetch(`${t.url}/api/skills/executions?skill=echoModern_v1_0_0`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    const outputs = (await executions.json()).data.map((e: { input: unknown }) => e.input);
    expect(outputs).not.toContainEqual({ text: "nope" });
  });

  it("answers an unsupported version with 400, -32022 and the supported list", async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(key.key, {
        "mcp-protocol-version": "2099-01-01",
        "mcp-method": "tools/list",
      }),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/list",
        params: { _meta: meta("2099-01-01") },
      }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.requested).toBe("2099-01-01");
    expect(body.error.data.supported).toEqual(expect.arrayContaining([MODERN, MCP_VERSION]));
  });

  it("answers methods the era removed or the server lacks with 404 and -32601", async () => {
    for (const method of ["initialize", "ping", "resources/list", "subscriptions/listen"]) {
      const res = await modern(7, method);
      expect(res.status, method).toBe(404);
      expect((await res.json()).error.code, method).toBe(-32601);
    }
  });

  it("refuses a request without client capabilities (-32602) and a batch (-32600)", async () => {
    const noCaps = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(key.key, { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } },
      }),
    });
    expect(noCaps.status).toBe(400);
    expect((await noCaps.json()).error.code).toBe(-32602);
    const batch = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(key.key, { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" }),
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: meta() } },
      ]),
    });
    expect(batch.status).toBe(400);
    expect((await batch.json()).error.code).toBe(-32600);
  });

  it("keeps serving a 2025-11-25 client (initialize handshake) on the same endpoint", async () => {
    expect(legacy.getServerVersion()?.name).toBe("skillgate");
    const result = await callTool(legacy, "echoModern_v1_0_0", { text: "legacy" });
    expect(result.structuredContent.output).toEqual({ text: "legacy" });
    expect(result).not.toHaveProperty("resultType");
  });
});
