/**
 * `/mcp`: the Model Context Protocol endpoint (docs/mcp.md), Streamable HTTP without sessions
 * (MCP specification 2025-11-25, "Transports" → "Streamable HTTP"): every POST stands alone and is
 * answered by a new server and transport (the SDK's web-standard
 * `WebStandardStreamableHTTPServerTransport`, `sessionIdGenerator: undefined`, JSON responses),
 * so it runs the same in a Worker and on Node and any instance can answer any request.
 *
 * - `POST /mcp`: JSON-RPC messages. The transport answers notifications and responses with 202,
 *   an `Accept` without both `application/json` and `text/event-stream` with 406, a
 *   `MCP-Protocol-Version` it does not support with 400, and a body that is not JSON-RPC with 400.
 * - `GET` / `DELETE /mcp`: 405 (no server-initiated stream, no session to end).
 * - Auth: `Authorization: Bearer` with an API key (its own scope) or the management token
 *   (everything); without valid credentials 401 with `WWW-Authenticate: Bearer`.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { UnauthorizedError } from "../errors.js";
import type { AppEnv } from "../routes/context.js";
import { modelDoorServices } from "../services/index.js";
import type { ManagementTool } from "./management-tools.js";
import { createMcpServer } from "./server.js";

/** Options of {@link mcpRoutes} (read from the configuration by the app). */
export interface McpRouteOptions {
  /** Prefix of the management tool names (`MCP_TOOL_PREFIX`). */
  toolPrefix: string;
  /** The management tools and any extra tools (names without the prefix). */
  tools: readonly ManagementTool[];
}

function bearer(header: string | undefined): string | undefined {
  const m = header?.match(/^Bearer\s+(.+)$/i);
  return m?.[1]?.trim() || undefined;
}

/** Builds the `/mcp` route group (mount it at `/mcp`). */
export function mcpRoutes(opts: McpRouteOptions) {
  const app = new Hono<AppEnv>();

  app.on(["GET", "DELETE", "PUT", "PATCH"], "/", (c) =>
    c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: POST only (stateless server)" },
        id: null,
      },
      405,
      { Allow: "POST" },
    ),
  );

  app.post("/", async (c) => {
    const services = c.get("services");
    const token = bearer(c.req.header("authorization"));
    const principal = token ? await services.keys.authenticate(token) : undefined;
    if (!principal)
      throw new UnauthorizedError(
        token
          ? "Invalid, revoked or expired credentials"
          : "Send Authorization: Bearer <API key or management token>",
      );
    const server = createMcpServer({
      // An MCP client is a model: its execute requests meet the policy floors.
      services: modelDoorServices(services),
      principal,
      toolPrefix: opts.toolPrefix,
      tools: opts.tools,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  });

  return app;
}
