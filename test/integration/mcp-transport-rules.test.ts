/**
 * `/mcp` transport rules of the 2025 Streamable HTTP specification, over real HTTP on 127.0.0.1
 * with raw requests and the official SDK client: `Origin`/`Host` validation (403 against DNS
 * rebinding), a truthful `tools.listChanged: false`, JSON-RPC batches per protocol version,
 * `Accept` negotiation (JSON for `application/json` or `*\/*`, one SSE event for an SSE-only
 * client), CORS with the MCP headers, the RFC 9728 `resource_metadata` challenge and document,
 * and protocol errors carrying the SDK's "MCP error" prefix once.
 */
import { request as httpRequest } from "node:http";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { connectMcp, initializeMessage, MCP_VERSION, mcpHeaders } from "../support/mcp.js";
import { keyWithEchoSkill } from "../support/mcp-stand.js";

let t: TestApp;
let key: { key: string; id: string };
let client: Client;

const post = (body: unknown, headers: Record<string, string>) =>
  fetch(`${t.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });

/** POST through node:http, which (unlike fetch) lets a test set `Host`. */
function rawPost(
  base: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const url = new URL("/mcp", base);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(payload) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

beforeAll(async () => {
  t = await startTestApp({ env: { MCP_ALLOWED_ORIGINS: "https://inspector.example.com" } });
  key = await keyWithEchoSkill(t, "mcp-rules", "echoRules");
  client = await connectMcp(t.url, key.key);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

const call = (id: number, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echoRules_v1_0_0", arguments: { text } },
});

describe("MCP Origin and Host validation (DNS rebinding)", () => {
  it("answers 403 origin_not_allowed to a foreign Origin on a foreign Host, before authentication", async () => {
    for (const token of [key.key, null]) {
      const res = await rawPost(
        t.url,
        mcpHeaders(token, { host: "evil.example.com", origin: "http://evil.example.com" }),
        initializeMessage(),
      );
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("origin_not_allowed");
    }
  });

  it("refuses a foreign Origin on the server's own Host, Origin: null, and a loopback Origin on a foreign Host", async () => {
    const port = new URL(t.url).port;
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, "https://attacker.example"],
      [`127.0.0.1:${port}`, "null"],
      ["evil.example.com", `http://localhost:${port}`],
    ]) {
      const res = await rawPost(t.url, mcpHeaders(key.key, { host: host!, origin: origin! }), {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
      });
      expect(res.status, `${origin} on ${host}`).toBe(403);
    }
  });

  it("serves requests without Origin, a loopback Origin on a loopback Host, and an allowlisted Origin", async () => {
    const port = new URL(t.url).port;
    const cases: Record<string, string>[] = [
      {},
      { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
      { host: `localhost:${port}`, origin: "http://localhost:6274" },
      { host: "skillgate.example.com", origin: "https://inspector.example.com" },
    ];
    for (const extra of cases) {
      const res = await rawPost(t.url, mcpHeaders(key.key, extra), initializeMessage(5));
      expect(res.status, JSON.stringify(extra)).toBe(200);
      expect(res.body.result.serverInfo.name).toBe("skillgate");
    }
  });
});

describe("MCP capabilities", () => {
  it("advertises tools.listChanged: false to the SDK client and in a raw initialize", async () => {
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const res = await post(initializeMessage(2), mcpHeaders(key.key));
    expect((await res.json()).result.capabilities.tools).toEqual({ listChanged: false });
  });
});

describe("MCP JSON-RPC batches per protocol version", () => {
  it("answers a batch with 400 and -32600 from 2025-06-18 on", async () => {
    for (const version of ["2025-06-18", MCP_VERSION]) {
      const res = await post(
        [call(1, "a"), call(2, "b")],
        mcpHeaders(key.key, { "mcp-protocol-version": version }),
      );
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe(-32600);
      expect(body.error.message).toContain(version);
    }
    const executions = await fetch(
      `${t.url}/api/skills/executions?apiKeyId=${key.id}&skill=echoRules_v1_0_0`,
      { headers: { authorization: `Bearer ${key.key}` } },
    );
    expect(executions.status).toBe(200);
    expect((await executions.json()).data).toEqual([]);
  });

  it("answers a 2025-03-26 batch with an array of answers, one per request id", async () => {
    for (const headers of [
      mcpHeaders(key.key, { "mcp-protocol-version": "2025-03-26" }),
      mcpHeaders(key.key),
    ]) {
      const res = await post(
        [
          call(11, "first"),
          { jsonrpc: "2.0", method: "notifications/initialized" },
          call(12, "second"),
          { jsonrpc: "2.0", id: 13, method: "tools/list" },
        ],
        headers,
      );
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(Array.isArray(body)).toBe(true);
      expect(body.map((a: { id: number }) => a.id)).toEqual([11, 12, 13]);
      expect(body[0].result.structuredContent.output).toEqual({ text: "first" });
      expect(body[1].result.structuredContent.output).toEqual({ text: "second" });
      expect(body[2].result.tools.length).toBeGreaterThan(0);
    }
  });

  it("answers a 2025-03-26 batch of one request with an array, and of notifications with 202", async () => {
    const headers = mcpHeaders(key.key, { "mcp-protocol-version": "2025-03-26" });
    const one = await post([call(21, "solo")], headers);
    const body = await one.json();
    expect(body).toHaveLength(1);
    expect(body[0].id).toBe(21);
    const notes = await post([{ jsonrpc: "2.0", method: "notifications/initialized" }], headers);
    expect(notes.status).toBe(202);
    const empty = await post([], headers);
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.code).toBe(-32600);
  });
});

describe("MCP Accept negotiation", () => {
  it("answers Accept: application/json alone, */* and no Accept with JSON", async () => {
    for (const accept of ["application/json", "*/*", "application/*", null]) {
      const headers = mcpHeaders(key.key, { "mcp-protocol-version": MCP_VERSION });
      if (accept === null) delete (headers as Record<string, string>).accept;
      else headers.accept = accept;
      const res = await post(call(31, String(accept)), headers);
      expect(res.status, String(accept)).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect((await res.json()).result.structuredContent.output).toEqual({ text: String(accept) });
    }
  });

  it("answers an SSE-only client with one SSE message event", async () => {
    const res = await post(
      call(32, "streamed"),
      mcpHeaders(key.key, { accept: "text/event-stream", "mcp-protocol-version": MCP_VERSION }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const data = text.split("\n").find((l) => l.startsWith("data: "))!;
    const msg = JSON.parse(data.slice(6));
    expect(msg.id).toBe(32);
    expect(msg.result.structuredContent.output).toEqual({ text: "streamed" });
  });
});

describe("MCP authentication discovery (RFC 9728)", () => {
  it("points the 401 challenge at a protected-resource document that takes bearer API keys", async () => {
    const res = await post(initializeMessage(), mcpHeaders(null));
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer /);
    const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(url).toBe(`${t.url}/.well-known/oauth-protected-resource/mcp`);
    const doc = await fetch(url!);
    expect(doc.status).toBe(200);
    const meta = await doc.json();
    expect(meta.resource).toBe(`${t.url}/mcp`);
    expect(meta.bearer_methods_supported).toEqual(["header"]);
    expect(meta.authorization_servers).toBeUndefined();
    const root = await fetch(`${t.url}/.well-known/oauth-protected-resource`);
    expect((await root.json()).resource).toBe(`${t.url}/mcp`);
  });
});

describe("MCP protocol errors", () => {
  it("gives an unknown tool's -32602 the 'MCP error -32602:' prefix once", async () => {
    const err = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(McpError);
    expect(err.code).toBe(-32602);
    expect(err.message).toBe("MCP error -32602: Unknown tool: no_such_tool");
    const raw = await post(
      { jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: "no_such_tool" } },
      mcpHeaders(key.key, { "mcp-protocol-version": MCP_VERSION }),
    );
    expect((await raw.json()).error).toEqual({
      code: -32602,
      message: "Unknown tool: no_such_tool",
    });
  });
});

describe("MCP CORS", () => {
  it("allows the MCP request headers in a preflight and exposes the MCP response headers", async () => {
    const other = await startTestApp({ env: { CORS_ALLOWED_ORIGINS: "https://app.example.com" } });
    try {
      const k = await other.api.createKey("cors");
      const pre = await fetch(`${other.url}/mcp`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example.com",
          "access-control-request-method": "POST",
          "access-control-request-headers":
            "authorization,content-type,mcp-protocol-version,mcp-session-id,last-event-id",
        },
      });
      expect(pre.status).toBe(204);
      const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      for (const h of [
        "mcp-protocol-version",
        "mcp-session-id",
        "last-event-id",
        "authorization",
      ]) {
        expect(allowed).toContain(h);
      }
      const res = await fetch(`${other.url}/mcp`, {
        method: "POST",
        headers: mcpHeaders(k.key, { origin: "https://app.example.com" }),
        body: JSON.stringify(initializeMessage()),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase();
      for (const h of ["www-authenticate", "mcp-session-id", "mcp-protocol-version"]) {
        expect(exposed).toContain(h);
      }
    } finally {
      await other.close();
    }
  });
});
