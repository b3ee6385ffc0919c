/**
 * MCP tools imported as skills, against an MCP server started by the test with the official SDK
 * (Streamable HTTP, stateless): import, call (structured and plain content), interception,
 * refresh after tools change, header values write-only, delete, and an imported tool called
 * through Skillgate's own `/mcp` endpoint with the official SDK client.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createNodeOutbound } from "../../workers/src/runtime/node/outbound.js";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";
import { callTool, connectMcp, listAllTools } from "../support/mcp.js";

interface ToolDef {
  tool: Tool;
  call: (args: Record<string, unknown>) => CallToolResult;
}

const ADD: ToolDef = {
  tool: {
    name: "add",
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  call: (args) => {
    const sum = Number(args.a) + Number(args.b);
    return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
  },
};

const GREET: ToolDef = {
  tool: {
    name: "greet",
    description: "Greets someone",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  },
  call: (args) => ({ content: [{ type: "text", text: `Hello, ${String(args.name)}!` }] }),
};

const SHOUT: ToolDef = {
  tool: {
    name: "shout",
    description: "Upper-cases a text",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  call: (args) => ({ content: [{ type: "text", text: String(args.text).toUpperCase() }] }),
};

/** Size of the flood tool's answer text: far over the cap the test sets. */
const FLOOD_CHARS = 4 * 1024 * 1024;
const FLOOD: ToolDef = {
  tool: {
    name: "flood",
    description: "Answers with a very long text",
    inputSchema: { type: "object", properties: {} },
  },
  call: () => ({ content: [{ type: "text", text: `start ${"x".repeat(FLOOD_CHARS)} end` }] }),
};

/** A stateless Streamable HTTP MCP server whose tool list a test may change. */
class TestMcpServer {
  tools = new Map<string, ToolDef>();
  authorizations: Array<string | undefined> = [];
  private http: HttpServer;
  url = "";

  constructor(defs: ToolDef[]) {
    for (const d of defs) this.tools.set(d.tool.name, d);
    this.http = createServer(async (req, res) => {
      this.authorizations.push(req.headers.authorization);
      const server = new Server(
        { name: "test-tools", version: "1.0.0" },
        { capabilities: { tools: {} } },
      );
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [...this.tools.values()].map((d) => d.tool),
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const def = this.tools.get(request.params.name);
        if (!def) return { content: [{ type: "text", text: "unknown tool" }], isError: true };
        return def.call(request.params.arguments ?? {});
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
  }

  async start(): Promise<void> {
    this.http.listen(0, "127.0.0.1");
    await new Promise<void>((r) => this.http.once("listening", () => r()));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((r) => this.http.close(() => r()));
  }
}

describe("MCP servers imported as skills", () => {
  let mcp: TestMcpServer;
  let t: TestApp;

  beforeEach(async () => {
    mcp = new TestMcpServer([ADD, GREET]);
    await mcp.start();
    t = await startTestApp({
      env: { SKILLS_HTTP_HANDLER_ALLOWLIST: new URL(mcp.url).origin },
    });
  });
  afterEach(async () => {
    await t.close();
    await mcp.close();
  });

  const importServer = () =>
    t.api.post("/api/mcp-servers", {
      name: "calc",
      url: mcp.url,
      headers: { Authorization: "Bearer mcp-secret-value" },
    });

  it("imports each tool as a skill and calls it (structured content when present)", async () => {
    const added = await importServer();
    expect(added.status).toBe(201);
    expect(added.body.server).toMatchObject({
      name: "calc",
      headerNames: ["Authorization"],
      tools: ["add", "greet"],
    });
    expect(JSON.stringify(added.body)).not.toContain("mcp-secret-value");
    const names = added.body.skills.map((s: { name: string }) => s.name).sort();
    expect(names).toEqual(["calc__add", "calc__greet"]);
    const addSkill = added.body.skills.find((s: { name: string }) => s.name === "calc__add");
    expect(addSkill.description).toBe("Adds two numbers");
    expect(addSkill.schema.input.required).toEqual(["a", "b"]);

    const sum = await t.api.post("/api/skills/executions", {
      skillName: "calc__add",
      input: { a: 2, b: 3 },
    });
    expect(sum.body.execution).toMatchObject({ status: "success", output: { sum: 5 } });
    const hello = await t.api.post("/api/skills/executions", {
      skillName: "calc__greet",
      input: { name: "Ada" },
    });
    expect(hello.body.execution).toMatchObject({
      status: "success",
      output: { content: [{ type: "text", text: "Hello, Ada!" }] },
    });
    expect(mcp.authorizations.every((a) => a === "Bearer mcp-secret-value")).toBe(true);

    const list = await t.api.get("/api/mcp-servers");
    expect(list.body.data).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain("mcp-secret-value");
  });

  it("caps a tool's answer at SKILLS_MCP_MAX_RESULT_BYTES: reading stops, the row keeps the start marked truncated", async () => {
    mcp.tools.set("flood", FLOOD);
    const capped = await startTestApp({
      env: {
        SKILLS_HTTP_HANDLER_ALLOWLIST: new URL(mcp.url).origin,
        SKILLS_MCP_MAX_RESULT_BYTES: "65536",
      },
    });
    try {
      const added = await capped.api.post("/api/mcp-servers", { name: "big", url: mcp.url });
      expect(added.status).toBe(201);
      const res = await capped.api.post("/api/skills/executions", {
        skillName: "big__flood",
        input: {},
      });
      expect(res.status).toBe(200);
      const execution = res.body.execution;
      expect(execution).toMatchObject({ status: "error", errorCode: "mcp_result_too_large" });
      expect(execution.errorMessage).toContain("SKILLS_MCP_MAX_RESULT_BYTES");
      expect(execution.output).toMatchObject({ truncated: true, maxBytes: 65536 });
      const text = execution.output.content[0].text as string;
      expect(text).toContain("start xxx");
      expect(text).not.toContain(" end");
      expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(65536);
      // A small answer of the same server still comes back whole.
      mcp.tools.set("greet", GREET);
      const refreshed = await capped.api.post(`/api/mcp-servers/${added.body.server.id}/refresh`);
      expect(refreshed.status).toBe(200);
      const hello = await capped.api.post("/api/skills/executions", {
        skillName: "big__greet",
        input: { name: "Ada" },
      });
      expect(hello.body.execution).toMatchObject({
        status: "success",
        output: { content: [{ type: "text", text: "Hello, Ada!" }] },
      });
    } finally {
      await capped.close();
    }
  });

  it("injects an imported tool and runs the model's call of it through interception", async () => {
    const added = await importServer();
    const addSkill = added.body.skills.find((s: { name: string }) => s.name === "calc__add");
    expect((await t.api.put(`/api/skills/${addSkill.id}`, { mode: "on" })).status).toBe(200);
    const injected = await t.api.post("/api/skills/inject", {
      format: "openai-chat",
      request: { model: "gpt-4o", messages: [{ role: "user", content: "What is 2 + 40?" }] },
    });
    expect(injected.status).toBe(200);
    const entry = injected.body.injected.find((i: { name: string }) => i.name === "calc__add");
    expect(entry).toBeDefined();
    const tool = injected.body.request.tools.find(
      (x: { function: { name: string } }) => x.function.name === entry.toolName,
    );
    expect(tool.function.parameters.required).toEqual(["a", "b"]);
    const intercepted = await t.api.post("/api/skills/intercept", {
      format: "openai-chat",
      sessionId: "mcp-session",
      injected: [entry.toolName],
      response: {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: entry.toolName, arguments: '{"a":2,"b":40}' },
                },
              ],
            },
          },
        ],
      },
    });
    expect(intercepted.status).toBe(200);
    expect(intercepted.body.toolResults[0]).toMatchObject({
      status: "success",
      skill: "calc__add@1.0.0",
      output: { sum: 42 },
    });
  });

  it("serves an imported tool on Skillgate's own /mcp endpoint and runs it on the remote server", async () => {
    const added = await importServer();
    const addSkill = added.body.skills.find((s: { name: string }) => s.name === "calc__add");
    expect((await t.api.put(`/api/skills/${addSkill.id}`, { mode: "on" })).status).toBe(200);
    const client = await connectMcp(t.url, MGMT_TOKEN, { name: "import-check" });
    try {
      const tool = (await listAllTools(client)).find((x) => x.description === "Adds two numbers");
      expect(tool?.name).toContain("calc__add");
      expect(tool?.inputSchema.required).toEqual(["a", "b"]);
      const callsBefore = mcp.authorizations.length;
      const result = await callTool(client, tool!.name, { a: 19, b: 23 });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: "success",
        skill: "calc__add@1.0.0",
        output: { sum: 42 },
      });
      expect(mcp.authorizations.length).toBeGreaterThan(callsBefore);
      expect(mcp.authorizations.at(-1)).toBe("Bearer mcp-secret-value");
      const execution = await t.api.get(
        `/api/skills/executions/${result.structuredContent.executionId}`,
      );
      expect(execution.body.execution).toMatchObject({
        status: "success",
        output: { sum: 42 },
      });
    } finally {
      await client.close();
    }
  });

  it("refresh adds new tools, updates changed ones and removes gone ones", async () => {
    const added = await importServer();
    const id = added.body.server.id;
    mcp.tools.delete("greet");
    mcp.tools.set("shout", SHOUT);
    mcp.tools.set("add", {
      ...ADD,
      tool: { ...ADD.tool, description: "Adds two numbers exactly" },
    });
    const refreshed = await t.api.post(`/api/mcp-servers/${id}/refresh`);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toMatchObject({
      added: ["calc__shout"],
      changed: ["calc__add"],
      removed: ["calc__greet"],
    });
    expect(refreshed.body.server.tools).toEqual(["add", "shout"]);
    const skills = await t.api.get("/api/skills?q=calc__");
    expect(skills.body.data.map((s: { name: string }) => s.name).sort()).toEqual([
      "calc__add",
      "calc__shout",
    ]);
    const shout = await t.api.post("/api/skills/executions", {
      skillName: "calc__shout",
      input: { text: "hey" },
    });
    expect(shout.body.execution.output).toEqual({ content: [{ type: "text", text: "HEY" }] });
  });

  it("delete removes the server and its skills", async () => {
    const added = await importServer();
    const del = await t.api.delete(`/api/mcp-servers/${added.body.server.id}`);
    expect(del.status).toBe(204);
    expect((await t.api.get("/api/skills?q=calc__")).body.total).toBe(0);
    expect((await t.api.get("/api/mcp-servers")).body.data).toEqual([]);
  });

  it("refuses a loopback URL off the allowlist, a bad name, a duplicate and a key", async () => {
    const off = await t.api.post("/api/mcp-servers", {
      name: "other",
      url: "http://127.0.0.1:9/mcp",
    });
    expect(off.status).toBe(400);
    expect(off.body.error.code).toBe("url_not_allowed");
    const badName = await t.api.post("/api/mcp-servers", { name: "bad name!", url: mcp.url });
    expect(badName.status).toBe(400);
    expect((await importServer()).status).toBe(201);
    expect((await importServer()).status).toBe(409);
    const key = await t.api.createKey("tenant");
    const byKey = await t.api.as(key.key).post("/api/mcp-servers", { name: "k", url: mcp.url });
    expect(byKey.status).toBe(403);
  });
});

describe("MCP servers reached through the outbound guard", () => {
  let mcp: TestMcpServer;
  let t: TestApp;
  const PUBLIC = "93.184.216.34";
  let resolutions = 0;
  const connected: Array<string[] | null> = [];

  beforeEach(async () => {
    resolutions = 0;
    connected.length = 0;
    mcp = new TestMcpServer([ADD]);
    await mcp.start();
    const node = createNodeOutbound();
    t = await startTestApp({
      deps: {
        outbound: {
          // A rebinding name: public on the first lookup of each check, loopback afterwards.
          resolve: async () => (++resolutions % 2 === 1 ? [PUBLIC] : ["127.0.0.1"]),
          // The "public" address stands for the test server; anything else would be refused.
          connect: (req) => {
            connected.push(req.addresses);
            return node.connect({
              ...req,
              addresses: req.addresses?.map((a) => (a === PUBLIC ? "127.0.0.1" : a)) ?? null,
            });
          },
        },
      },
    });
  });
  afterEach(async () => {
    await t.close();
    await mcp.close();
  });

  it("connects only to the addresses the guard approved: no second lookup, no rebinding", async () => {
    const port = new URL(mcp.url).port;
    const added = await t.api.post("/api/mcp-servers", {
      name: "pinned",
      url: `http://mcp.example.com:${port}/mcp`,
    });
    expect(added.status).toBe(201);
    expect(added.body.server.tools).toEqual(["add"]);
    expect(resolutions).toBe(1);
    expect(connected.length).toBeGreaterThan(0);
    expect(new Set(connected.map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify([PUBLIC])]),
    );

    // Every call checks the URL again: this lookup answers loopback, so the call is refused
    // before any connection.
    const before = connected.length;
    const refused = await t.api.post("/api/skills/executions", {
      skillName: "pinned__add",
      input: { a: 2, b: 3 },
    });
    expect(refused.status).toBe(200);
    expect(refused.body.execution).toMatchObject({
      status: "error",
      errorCode: "outbound_blocked",
    });
    expect(connected.length).toBe(before);

    const run = await t.api.post("/api/skills/executions", {
      skillName: "pinned__add",
      input: { a: 2, b: 3 },
    });
    expect(run.body.execution).toMatchObject({ status: "success", output: { sum: 5 } });
    expect(resolutions).toBe(3);
    expect(connected.length).toBeGreaterThan(before);
    expect(
      connected.slice(before).every((a) => JSON.stringify(a) === JSON.stringify([PUBLIC])),
    ).toBe(true);
  });
});
