/**
 * `/mcp` inside workerd through the Worker entry: the official MCP SDK client (Streamable HTTP
 * transport, its requests routed to the Worker's `fetch`) initializes, lists tools, runs a
 * management tool and skill tools under each executor policy, and the transport rules hold
 * (GET 405, notifications 202, JSON for `Accept: application/json`, 406, 400 for an unknown
 * protocol version, 401) and the 2026-07-28 `server/discover` answers.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  callTool,
  connectMcp,
  initializeMessage,
  listAllTools,
  MCP_VERSION,
  mcpHeaders,
} from "../support/mcp.js";
import { call, createKey, installBody, ORIGIN } from "./support.js";

const workerFetch = ((input: RequestInfo | URL, init?: RequestInit) =>
  exports.default.fetch(new Request(input, init))) as typeof fetch;

const post = (body: unknown, headers: Record<string, string>) =>
  workerFetch(`${ORIGIN}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });

describe("MCP in workerd", () => {
  it("serves the SDK client: tools/list, a management tool, and skill tools under each policy", async () => {
    const key = await createKey("workerd-mcp");
    for (const [name, policy] of [
      ["wd-mcp-auto", "auto"],
      ["wd-mcp-manual", "manual"],
      ["wd-mcp-hybrid", "hybrid"],
    ] as const) {
      const res = await call("POST", "/api/skills/install", {
        body: installBody(name, { apiKeyId: key.id, policy }),
      });
      expect(res.status).toBe(201);
    }
    const client = await connectMcp(ORIGIN, key.key, { fetch: workerFetch });
    try {
      expect(client.getServerVersion()?.name).toBe("skillgate");
      const tools = await listAllTools(client);
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "skillgate_skills_list",
          "skillgate_skills_execute",
          "wd-mcp-auto_v1_0_0",
          "wd-mcp-manual_v1_0_0",
          "wd-mcp-hybrid_v1_0_0",
        ]),
      );
      for (const t of tools) {
        expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(t.inputSchema.type).toBe("object");
      }

      const auto = await callTool(client, "wd-mcp-auto_v1_0_0", { text: "from workerd" });
      expect(auto.structuredContent).toMatchObject({
        status: "success",
        output: { text: "from workerd" },
      });
      const manual = await callTool(client, "wd-mcp-manual_v1_0_0", { text: "x" });
      expect(manual.isError).toBe(true);
      expect(manual.structuredContent.error).toContain("explicit execution");
      const hybrid = await callTool(client, "wd-mcp-hybrid_v1_0_0", { text: "x" });
      expect(hybrid.structuredContent.status).toBe("pending_approval");
      const pending = await call(
        "GET",
        `/api/skills/executions/${hybrid.structuredContent.executionId}`,
        { token: key.key },
      );
      expect(pending.body.execution).toMatchObject({ status: "pending", approval: "required" });
      const bad = await callTool(client, "wd-mcp-auto_v1_0_0", { text: 5 });
      expect(bad.isError).toBe(true);

      const executed = await callTool(client, "skillgate_skills_execute", {
        skillName: "wd-mcp-manual@^1.0.0",
        input: { text: "explicit" },
      });
      expect(executed.structuredContent.execution).toMatchObject({
        status: "success",
        output: { text: "explicit" },
      });
      const history = await callTool(client, "skillgate_skills_executions", { limit: 10 });
      expect(history.structuredContent.data.length).toBeGreaterThanOrEqual(2);
      expect(
        history.structuredContent.data.every((r: { apiKeyId: string }) => r.apiKeyId === key.id),
      ).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("keeps the transport rules: 202, 405, JSON-only Accept, 406, 400, 401 and server/discover", async () => {
    const token = env.MGMT_TOKEN;
    const initialized = await post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      mcpHeaders(token, { "mcp-protocol-version": MCP_VERSION }),
    );
    expect(initialized.status).toBe(202);
    const get = await workerFetch(`${ORIGIN}/mcp`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const jsonOnly = await post(
      initializeMessage(),
      mcpHeaders(token, { accept: "application/json" }),
    );
    expect(jsonOnly.status).toBe(200);
    expect((await jsonOnly.json()).result.capabilities.tools).toEqual({ listChanged: false });
    const accept = await post(initializeMessage(), mcpHeaders(token, { accept: "text/html" }));
    expect(accept.status).toBe(406);
    const discover = await post(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
      mcpHeaders(token, { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" }),
    );
    expect(discover.status).toBe(200);
    expect((await discover.json()).result.supportedVersions[0]).toBe("2026-07-28");
    const version = await post(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      mcpHeaders(token, { "mcp-protocol-version": "1999-01-01" }),
    );
    expect(version.status).toBe(400);
    const anonymous = await post(initializeMessage(), mcpHeaders(null));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
  });
});
