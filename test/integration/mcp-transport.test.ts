/**
 * `/mcp` transport rules over real HTTP on 127.0.0.1: stateless Streamable HTTP (every POST
 * stands alone), 202 for notifications, concurrent calls each answered with their own id, 405 for
 * GET, 406 for an unacceptable Accept, 400 for an unsupported protocol version, 401 with
 * `WWW-Authenticate: Bearer`, tool names and input schemas every client accepts, and the tool
 * prefix from `MCP_TOOL_PREFIX`.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import {
  callTool,
  connectMcp,
  initializeMessage,
  listAllTools,
  MCP_VERSION,
  mcpHeaders,
} from "../support/mcp.js";

let t: TestApp;
let key: { key: string; id: string };
let client: Client;

const post = (body: unknown, headers: Record<string, string>) =>
  fetch(`${t.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });

beforeAll(async () => {
  t = await startTestApp();
  key = await t.api.createKey("mcp-transport");
  const install = async (body: object) => {
    const res = await t.api.post("/api/skills/install", {
      description: "Echoes its input",
      handlerCode: "echo-handler",
      apiKeyId: key.id,
      ...body,
    });
    expect(res.status).toBe(201);
  };
  await install({ name: "echoText", version: "1.0.0", schema: { input: { text: "string" } } });
  // Names and schemas providers refuse as they are: a leading digit, 64 characters, a property
  // name with brackets, a top-level anyOf.
  await install({ name: "5h1w", version: "2.1.0", schema: { input: { q: "string" } } });
  await install({ name: `long${"x".repeat(60)}`, version: "1.0.0" });
  await install({
    name: "oddSchema",
    version: "1.0.0",
    schema: {
      input: {
        type: "object",
        properties: { "page[size]": { type: "integer" }, a: {}, b: {} },
        anyOf: [{ required: ["a"] }, { required: ["b"] }],
      },
    },
  });
  client = await connectMcp(t.url, key.key);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe("MCP transport: stateless Streamable HTTP", () => {
  it("answers initialize without a session id and with the server's identity", async () => {
    const res = await post(initializeMessage(7), mcpHeaders(key.key));
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = await res.json();
    expect(body.id).toBe(7);
    expect(body.result.protocolVersion).toBe(MCP_VERSION);
    expect(body.result.serverInfo.name).toBe("skillgate");
    expect(body.result.capabilities.tools).toBeDefined();
    expect(client.getServerVersion()?.name).toBe("skillgate");
  });

  it("answers notifications/initialized with 202 and no body, on a POST of its own", async () => {
    const res = await post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      mcpHeaders(key.key, { "mcp-protocol-version": MCP_VERSION }),
    );
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("serves a tools/list POST that was never preceded by initialize (no session state)", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: "list-1", method: "tools/list" },
      mcpHeaders(key.key, { "mcp-protocol-version": MCP_VERSION }),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.id).toBe("list-1");
    expect(body.result.tools.map((x: { name: string }) => x.name)).toContain("echoText_v1_0_0");
  });

  it("answers many concurrent tools/call, each with its own id and its own result", async () => {
    const headers = mcpHeaders(key.key, { "mcp-protocol-version": MCP_VERSION });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        post(
          {
            jsonrpc: "2.0",
            id: 1000 + i,
            method: "tools/call",
            params: { name: "echoText_v1_0_0", arguments: { text: `call ${i}` } },
          },
          headers,
        ).then((r) => r.json()),
      ),
    );
    answers.forEach((a, i) => {
      expect(a.id).toBe(1000 + i);
      expect(a.result.structuredContent.output).toEqual({ text: `call ${i}` });
    });
    const viaClient = await Promise.all(
      Array.from({ length: 8 }, (_, i) => callTool(client, "echoText_v1_0_0", { text: `c${i}` })),
    );
    expect(viaClient.map((r) => r.structuredContent.output)).toEqual(
      Array.from({ length: 8 }, (_, i) => ({ text: `c${i}` })),
    );
  });

  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${t.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${key.key}`, accept: "text/event-stream" },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("answers an Accept that allows neither JSON nor SSE with 406", async () => {
    for (const accept of [
      "text/html",
      "application/xml, text/plain;q=0.5",
      "application/json;q=0",
    ]) {
      const res = await post(initializeMessage(), mcpHeaders(key.key, { accept }));
      expect(res.status).toBe(406);
      expect((await res.json()).error.message).toContain("Not Acceptable");
    }
  });

  it("answers an unsupported MCP-Protocol-Version with 400", async () => {
    const res = await post(
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      mcpHeaders(key.key, { "mcp-protocol-version": "1999-01-01" }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain("Unsupported protocol version");
  });

  it("answers a body that is not JSON-RPC with 400 and a wrong content type with 415", async () => {
    const bad = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(key.key),
      body: "{",
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe(-32700);
    const text = await post(
      initializeMessage(),
      mcpHeaders(key.key, { "content-type": "text/plain" }),
    );
    expect(text.status).toBe(415);
  });

  it("answers a tools/call whose params are malformed with -32602 Invalid params, not -32603", async () => {
    const malformed = [
      { name: {} },
      { name: 42, arguments: {} },
      { arguments: { text: "no name" } },
      { name: "echoText_v1_0_0", arguments: "not an object" },
    ];
    for (const [i, params] of malformed.entries()) {
      const res = await post(
        { jsonrpc: "2.0", id: 900 + i, method: "tools/call", params },
        mcpHeaders(key.key, { "mcp-protocol-version": MCP_VERSION }),
      );
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.id).toBe(900 + i);
      expect(body.error.code).toBe(-32602);
      expect(body.error.message).toMatch(/Invalid tools\/call request/);
    }
    // A well-formed call on the same server still runs.
    const ok = await callTool(client, "echoText_v1_0_0", { text: "still fine" });
    expect(ok.isError).toBeFalsy();
  });

  it("answers 401 with WWW-Authenticate: Bearer without credentials or with a wrong token", async () => {
    for (const token of [null, "sk-not-a-key"]) {
      const res = await post(initializeMessage(), mcpHeaders(token));
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      expect((await res.json()).error.code).toBe("unauthorized");
    }
  });
});

describe("MCP tools/list: names and schemas every client accepts", () => {
  it("names every tool within ^[a-zA-Z0-9_-]{1,64}$ and gives every tool a top-level object schema", async () => {
    const tools = await listAllTools(client);
    const names = tools.map((x) => x.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "skillgate_skills_list",
        "skillgate_skills_enable",
        "skillgate_skills_execute",
        "skillgate_skills_executions",
        "echoText_v1_0_0",
        "http_request",
      ]),
    );
    // Builtins this deployment cannot run (no search provider, no sandbox host) are not offered.
    expect(names).not.toContain("web_search");
    expect(names).not.toContain("eval_code");
    expect(names.some((n) => n.startsWith("_5h1w_h"))).toBe(true);
    expect(names.some((n) => n.startsWith("longxxx") && n.length <= 64)).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.inputSchema.type).toBe("object");
      for (const k of ["anyOf", "oneOf", "allOf"]) expect(tool.inputSchema).not.toHaveProperty(k);
      expect(typeof tool.description).toBe("string");
    }
    const odd = tools.find((x) => x.name === "oddSchema_v1_0_0")!;
    expect(Object.keys(odd.inputSchema.properties ?? {}).sort()).toEqual(["a", "b", "page_size"]);
  });

  it("names the management tools with MCP_TOOL_PREFIX", async () => {
    const other = await startTestApp({ env: { MCP_TOOL_PREFIX: "omniroute_" } });
    try {
      const k = await other.api.createKey("prefix");
      const c = await connectMcp(other.url, k.key);
      const names = (await listAllTools(c)).map((x) => x.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "omniroute_skills_list",
          "omniroute_skills_enable",
          "omniroute_skills_execute",
          "omniroute_skills_executions",
        ]),
      );
      expect(names).not.toContain("skillgate_skills_list");
      await c.close();
    } finally {
      await other.close();
    }
  });
});
