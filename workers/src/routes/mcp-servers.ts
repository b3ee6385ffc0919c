/**
 * `/api/mcp-servers` management routes (docs/custom-skills.md#mcp-servers): import a remote MCP
 * server's tools as skills, list servers, refresh a server's tools, delete a server with its
 * skills. Header values are write-only: answers show header names only.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { requireManagement } from "../auth/principal.js";
import { createRouter } from "./context.js";
import {
  errorResponses,
  IdParam,
  jsonBody,
  jsonResponse,
  MANAGEMENT_ONLY,
  SkillSchema,
  TAGS,
} from "./schemas.js";

const McpServerSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    headerNames: z.array(z.string()),
    tools: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    refreshedAt: z.string().nullable(),
  })
  .openapi("McpServer");

const AddBody = z
  .object({
    name: z.string().openapi({ example: "docs" }),
    url: z.string().url().max(2048).openapi({ example: "https://mcp.example.com/mcp" }),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/), z.string().max(8192))
      .optional()
      .openapi({ description: "sent on every request; values are write-only" }),
  })
  .strict()
  .openapi("AddMcpServer");

const addRoute = createRoute({
  method: "post",
  path: "/api/mcp-servers",
  operationId: "addMcpServer",
  tags: [TAGS.mcpServers],
  security: MANAGEMENT_ONLY,
  summary: "Import a remote MCP server's tools as skills `<name>__<tool>`",
  request: { body: jsonBody(AddBody) },
  responses: {
    201: jsonResponse(
      z.object({ server: McpServerSchema, skills: z.array(SkillSchema) }),
      "Imported",
    ),
    ...errorResponses(400, 401, 403, 409, 502),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/api/mcp-servers",
  operationId: "listMcpServers",
  tags: [TAGS.mcpServers],
  security: MANAGEMENT_ONLY,
  summary: "List imported MCP servers",
  responses: {
    200: jsonResponse(z.object({ data: z.array(McpServerSchema) }), "Servers"),
    ...errorResponses(401, 403),
  },
});

const refreshRoute = createRoute({
  method: "post",
  path: "/api/mcp-servers/{id}/refresh",
  operationId: "refreshMcpServer",
  tags: [TAGS.mcpServers],
  security: MANAGEMENT_ONLY,
  summary: "Re-list a server's tools: add, update and remove its skills",
  request: { params: IdParam },
  responses: {
    200: jsonResponse(
      z.object({
        server: McpServerSchema,
        added: z.array(z.string()),
        changed: z.array(z.string()),
        removed: z.array(z.string()),
      }),
      "Refreshed",
    ),
    ...errorResponses(400, 401, 403, 404, 502),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/mcp-servers/{id}",
  operationId: "deleteMcpServer",
  tags: [TAGS.mcpServers],
  security: MANAGEMENT_ONLY,
  summary: "Delete an imported server and its skills",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(401, 403, 404) },
});

/** Builds the `/api/mcp-servers` route group. */
export function mcpServersRoutes() {
  const app = createRouter();
  app.openapi(addRoute, async (c) => {
    requireManagement(c.get("principal"));
    return c.json(await c.get("services").mcpServers.add(c.req.valid("json")), 201);
  });
  app.openapi(listRoute, async (c) => {
    requireManagement(c.get("principal"));
    return c.json({ data: await c.get("services").mcpServers.list() }, 200);
  });
  app.openapi(refreshRoute, async (c) => {
    requireManagement(c.get("principal"));
    return c.json(await c.get("services").mcpServers.refresh(c.req.valid("param").id), 200);
  });
  app.openapi(deleteRoute, async (c) => {
    requireManagement(c.get("principal"));
    await c.get("services").mcpServers.remove(c.req.valid("param").id);
    return c.body(null, 204);
  });
  return app;
}
