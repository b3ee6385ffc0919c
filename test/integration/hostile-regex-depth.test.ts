/**
 * Hostile regular expressions and deeply nested JSON against the running app (real HTTP, real
 * libSQL): a catastrophic `pattern` of a skill schema or of an imported MCP tool's schema never
 * freezes the API (`/api/health` keeps answering while it is validated), a pattern the
 * linear-time engine cannot run is refused at install with a code naming the field, and nothing
 * is written (docs/registry.md#patterns). A skill output nested tens of thousands of levels deep
 * (an HTTP handler's answer, a code skill's stdout in a real container) ends its execution as the
 * tool error `output_too_deep` with the real execution id on every door (REST, interception,
 * MCP), and an upstream answer that deep is a 502 in the provider's own shape, JSON and stream
 * (docs/execution.md#output-depth, docs/proxy.md).
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import type { ApiError } from "@google/genai";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireDocker, SKIP_DOCKER, startTestHost, type TestHost } from "../sandbox/helpers.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";
import { callTool, connectMcp, listAllTools } from "../support/mcp.js";
import { ask, askStream } from "../support/proxy-clients.js";
import { FORMATS, type Format } from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand } from "../support/proxy-stand.js";

/** Thirty `a` and a `!`: exponential for a backtracking engine under `^(a+)+$`. */
const EVIL_STRING = `${"a".repeat(30)}!`;

let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

/** A stateless Streamable HTTP MCP server (official SDK) listing one tool with `inputSchema`. */
async function startMcpServer(
  inputSchema: Record<string, unknown>,
): Promise<{ url: string; close(): Promise<void> }> {
  const http: HttpServer = createServer(async (req, res) => {
    const server = new Server(
      { name: "regex-tools", version: "1.0.0" },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "lookup", description: "Looks a code up", inputSchema }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({
      content: [{ type: "text", text: "found" }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, "127.0.0.1");
  await new Promise<void>((r) => http.once("listening", () => r()));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

describe("hostile regular expressions", () => {
  let t: TestApp;
  let refusedMcp: { url: string; close(): Promise<void> };
  let evilMcp: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    refusedMcp = await startMcpServer({
      type: "object",
      properties: { code: { type: "string", pattern: "^(?!admin).*$" } },
    });
    evilMcp = await startMcpServer({
      type: "object",
      properties: { code: { type: "string", pattern: "^(a|aa)+$" } },
      required: ["code"],
    });
    const origins = [refusedMcp.url, evilMcp.url].map((u) => new URL(u).origin).join(",");
    t = await startTestApp({ env: { SKILLS_HTTP_HANDLER_ALLOWLIST: origins } });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([refusedMcp.close(), evilMcp.close()]);
  });

  it("validates ^(a+)+$ against thirty a's and a ! without freezing /api/health", async () => {
    const name = unique("evil-pattern");
    const installed = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      handlerCode: "echo-handler",
      schema: {
        input: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } },
      },
    });
    expect(installed.status).toBe(201);

    const probe = startHealthProbe(t.url);
    await new Promise((r) => setTimeout(r, 60));
    const runs = await Promise.all(
      [0, 1, 2].map(() =>
        t.api.post("/api/skills/executions", { skillName: name, input: { s: EVIL_STRING } }),
      ),
    );
    await new Promise((r) => setTimeout(r, 60));
    const report = await probe.stop();

    for (const run of runs) {
      expect(run.status).toBe(400);
      expect(run.body.error.code).toBe("invalid_skill_input");
      expect(run.body.error.details).toEqual([
        { field: "input.s", message: "String does not match pattern." },
      ]);
    }
    expect(report.answers).toBeGreaterThan(1);
    expectApiAvailable(report);

    // The pattern keeps its meaning for a matching input.
    const ok = await t.api.post("/api/skills/executions", {
      skillName: name,
      input: { s: "aaaa" },
    });
    expect(ok.body.execution).toMatchObject({ status: "success", output: { s: "aaaa" } });
  });

  it("refuses a lookahead pattern at install with invalid_schema_pattern naming the field, writing nothing", async () => {
    const name = unique("lookahead");
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      handlerCode: "echo-handler",
      schema: {
        input: {
          type: "object",
          properties: { password: { type: "string", pattern: "^(?=.*\\d)(?=.*[a-z]).{8,}$" } },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_schema_pattern");
    expect(res.body.error.details[0].field).toBe("schema.input.properties.password.pattern");
    expect(res.body.error.message).toContain("schema.input.properties.password.pattern");
    const list = await t.api.get(`/api/skills?q=${name}`);
    expect(list.body.total).toBe(0);
  });

  it("refuses an update whose new schema holds a backreference, keeping the old schema", async () => {
    const name = unique("update-backref");
    const installed = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      handlerCode: "echo-handler",
      schema: { input: { type: "object", properties: { w: { type: "string", pattern: "^w" } } } },
    });
    expect(installed.status).toBe(201);
    const res = await t.api.put(`/api/skills/${installed.body.skill.id}`, {
      schema: {
        input: { type: "object", properties: { w: { type: "string", pattern: "(a)\\1" } } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_schema_pattern");
    const stored = await t.api.get(`/api/skills/${installed.body.skill.id}`);
    expect(stored.body.skill.schema.input.properties.w.pattern).toBe("^w");
  });

  it("refuses an MCP server whose tool schema holds a pattern RE2 cannot run, storing no server", async () => {
    const name = `re${seq++}`;
    const res = await t.api.post("/api/mcp-servers", { name, url: refusedMcp.url });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_schema_pattern");
    expect(res.body.error.details[0].field).toBe("schema.input.properties.code.pattern");
    const servers = await t.api.get("/api/mcp-servers");
    expect(servers.body.data.map((s: { name: string }) => s.name)).not.toContain(name);
  });

  it("validates an imported MCP tool's catastrophic pattern without freezing /api/health", async () => {
    const name = `ev${seq++}`;
    const added = await t.api.post("/api/mcp-servers", { name, url: evilMcp.url });
    expect(added.status).toBe(201);
    const probe = startHealthProbe(t.url);
    await new Promise((r) => setTimeout(r, 60));
    const run = await t.api.post("/api/skills/executions", {
      skillName: `${name}__lookup`,
      input: { code: `${"a".repeat(40)}!` },
    });
    await new Promise((r) => setTimeout(r, 60));
    const report = await probe.stop();
    expect(run.status).toBe(400);
    expect(run.body.error.code).toBe("invalid_skill_input");
    expectApiAvailable(report);
  });
});

/** Nested arrays `depth` levels deep, as JSON text. */
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("deeply nested skill outputs", () => {
  let t: TestApp;
  let endpoint: HttpServer;
  let endpointUrl = "";
  let apiKey = "";
  const skillName = `deep-http-${process.pid}`;

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(nested(50_000));
      });
    });
    endpoint.listen(0, "127.0.0.1");
    await new Promise<void>((r) => endpoint.once("listening", () => r()));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/deep`;
    t = await startTestApp({
      env: { SKILLS_HTTP_HANDLER_ALLOWLIST: new URL(endpointUrl).origin },
    });
    const installed = await t.api.post("/api/skills/install", {
      name: skillName,
      version: "1.0.0",
      mode: "on",
      schema: { input: { type: "object", properties: { q: { type: "string" } } } },
      handler: { type: "http", url: endpointUrl },
    });
    expect(installed.status).toBe(201);
    apiKey = (await t.api.createKey("deep-outputs")).key;
  });
  afterAll(async () => {
    await t.close();
    endpoint.closeAllConnections();
    await new Promise<void>((r) => endpoint.close(() => r()));
  });

  const expectTooDeep = (execution: Record<string, any>) => {
    expect(execution).toMatchObject({
      status: "error",
      errorCode: "output_too_deep",
      output: { truncated: true, reason: "the output nests deeper than 256 levels" },
    });
    expect(execution.output.excerpt).toBe("[".repeat(1000));
  };

  it("REST: an HTTP handler answering 50,000 levels ends as output_too_deep, row and answer alike", async () => {
    const probe = startHealthProbe(t.url);
    const run = await t.api.post("/api/skills/executions", { skillName, input: { q: "x" } });
    const report = await probe.stop();
    expect(run.status).toBe(200);
    expectTooDeep(run.body.execution);
    const id = run.body.execution.id;
    expect(typeof id).toBe("string");
    const stored = await t.api.get(`/api/skills/executions/${id}`);
    expect(stored.status).toBe(200);
    expectTooDeep(stored.body.execution);
    expectApiAvailable(report);
  });

  it("interception: the call is answered with a tool error carrying the real execution id", async () => {
    const injected = await t.api.as(apiKey).post("/api/skills/inject", {
      format: "openai-chat",
      request: { model: "gpt-4o", messages: [{ role: "user", content: "deep please" }] },
    });
    const entry = injected.body.injected.find((i: { name: string }) => i.name === skillName);
    expect(entry).toBeDefined();
    const res = await t.api.as(apiKey).post("/api/skills/intercept", {
      format: "openai-chat",
      injected: [entry.toolName],
      response: {
        id: "chatcmpl-deep",
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
                  id: "call_deep",
                  type: "function",
                  function: { name: entry.toolName, arguments: '{"q":"x"}' },
                },
              ],
            },
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    const result = res.body.toolResults[0];
    expect(result.executionId).toEqual(expect.any(String));
    expect(result.status).toBe("error");
    const stored = await t.api.get(`/api/skills/executions/${result.executionId}`);
    expectTooDeep(stored.body.execution);
    const message = res.body.messages.find((m: { role: string }) => m.role === "tool");
    expect(message.tool_call_id).toBe("call_deep");
    expect(message.content).toContain("nests deeper than 256 levels");
  });

  it("MCP: the skill tool answers isError with the real execution id", async () => {
    const client = await connectMcp(t.url, apiKey);
    try {
      const tool = (await listAllTools(client)).find((x) => x.name.includes(String(process.pid)));
      expect(tool).toBeDefined();
      const result = await callTool(client, tool!.name, { q: "x" });
      expect(result.isError).toBe(true);
      expect(result.structuredContent.executionId).toEqual(expect.any(String));
      const stored = await t.api.get(
        `/api/skills/executions/${result.structuredContent.executionId}`,
      );
      expectTooDeep(stored.body.execution);
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(SKIP_DOCKER)(
  "a code skill printing 40,000 nested arrays, in a real container",
  () => {
    let host: TestHost;
    let t: TestApp;
    beforeAll(async () => {
      await requireDocker();
      host = await startTestHost("deep-output");
      t = await startTestApp({ deps: { sandbox: host.client } });
    });
    afterAll(async () => {
      await t?.close();
      await host?.close();
    });

    it("ends as output_too_deep with its row, and the API keeps answering", async () => {
      const name = `deep-code-${process.pid}`;
      const installed = await t.api.post("/api/skills/install", {
        name,
        version: "1.0.0",
        schema: { input: { type: "object" } },
        handler: {
          type: "code",
          language: "python",
          code: 'print("[" * 40000 + "]" * 40000)',
        },
      });
      expect(installed.status).toBe(201);
      const probe = startHealthProbe(t.url);
      const run = await t.api.post("/api/skills/executions", { skillName: name, input: {} });
      const report = await probe.stop();
      expect(run.status).toBe(200);
      expect(run.body.execution).toMatchObject({
        status: "error",
        errorCode: "output_too_deep",
        output: { truncated: true, excerpt: "[".repeat(1000) },
      });
      const stored = await t.api.get(`/api/skills/executions/${run.body.execution.id}`);
      expect(stored.body.execution.errorCode).toBe("output_too_deep");
      expectApiAvailable(report);
    });
  },
);

/** An upstream answer whose `extra` field nests `depth` arrays: valid JSON, too deep to keep. */
const deepAnswer = (depth: number) =>
  `{"id":"deep","object":"chat.completion","extra":${nested(depth)}}`;

describe("an upstream answer nested 20,000 levels deep", () => {
  let s: ProxyStand;
  beforeAll(async () => {
    s = await startProxyStand();
  });
  afterAll(() => s.close());

  function expect502(format: Format, err: unknown) {
    if (format === "anthropic") expect(err).toBeInstanceOf(Anthropic.APIError);
    else if (format === "gemini") {
      expect((err as ApiError).status).toBe(502);
      return;
    } else expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as { status: number }).status).toBe(502);
  }

  it.each(FORMATS)(
    "%s: JSON answer → 502 upstream_invalid in the provider's shape",
    async (format) => {
      s.script(() => ({ kind: "json", body: null, rawBody: deepAnswer(20_000) }));
      const err = await ask(format, s.app.url, s.key.key, "hi").catch((e: unknown) => e);
      expect502(format, err);
      expect(String((err as Error).message)).toContain("nests deeper than 256 levels");
    },
  );

  // The Responses SDK names only the event it got (checked on the wire below); the other SDKs
  // pass the error event's message on.
  const sdkNamesReason = FORMATS.filter((f) => f !== "openai-responses");
  it.each(sdkNamesReason)(
    "%s: streamed event → the stream's error, not a clean stop",
    async (format) => {
      s.script(() => ({ kind: "sse", events: [{ data: deepAnswer(20_000) }] }));
      const err = await askStream(format, s.app.url, s.key.key, "hi").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toContain("nested deeper than 256 levels");
    },
  );

  it("openai-responses: the stream's error event says why, on the wire", async () => {
    s.script(() => ({ kind: "sse", events: [{ data: deepAnswer(20_000) }] }));
    const res = await fetch(`${s.app.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", input: "hi", stream: true }),
    });
    const text = await res.text();
    expect(text).toContain("event: error");
    expect(text).toContain("nested deeper than 256 levels");
    expect(text).not.toContain("response.completed");
  });
});
