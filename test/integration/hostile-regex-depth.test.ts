/**
 * Hostile regular expressions and deeply nested JSON against the running app (real HTTP, real
 * libSQL): a catastrophic `pattern` of a skill schema or of an imported MCP tool's schema never
 * freezes the API (`/api/health` keeps answering while it is validated), a pattern the
 * linear-time engine cannot run is refused at install with a code naming the field, and nothing
 * is written (docs/registry.md#patterns).
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { startHealthProbe } from "../support/health-probe.js";

/**
 * Slowest `/api/health` answer accepted while a hostile input is in flight. The documented bound
 * is 100 ms; the shared 2-core machine gets head room, and a freeze of seconds still fails.
 */
const HEALTH_BOUND_MS = 500;

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
    expect(report.failures).toEqual([]);
    expect(report.answers).toBeGreaterThan(1);
    expect(report.slowestMs).toBeLessThan(HEALTH_BOUND_MS);

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
    expect(report.failures).toEqual([]);
    expect(report.slowestMs).toBeLessThan(HEALTH_BOUND_MS);
  });
});
