/**
 * `/api/agent-skills` (docs/agent-skills.md): the Agent Skills catalog of Skillgate's own API.
 * - `GET /api/agent-skills?category=&page=&limit=` → a page of `{ name, description, category }`;
 * - `GET /api/agent-skills/{name}` → the SKILL.md (`text/markdown`), 404 for an unknown name.
 * Any authenticated caller (API key or management token) may read them.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { NotFoundError } from "../errors.js";
import { createRouter } from "../routes/context.js";
import {
  errorResponses,
  jsonResponse,
  KEY_OR_MANAGEMENT,
  PaginationQuery,
  pageSchema,
  TAGS,
} from "../routes/schemas.js";
import { pageOf } from "../services/page.js";
import type { AgentSkillsCatalog } from "./catalog.js";

const CategorySchema = z.enum(["api", "cli", "config"]);

const SummarySchema = z
  .object({ name: z.string(), description: z.string(), category: CategorySchema })
  .openapi("AgentSkill");

const listRoute = createRoute({
  method: "get",
  path: "/api/agent-skills",
  operationId: "listAgentSkills",
  tags: [TAGS.agentSkills],
  security: KEY_OR_MANAGEMENT,
  summary: "List the Agent Skills entries that describe this API",
  request: { query: PaginationQuery.extend({ category: CategorySchema.optional() }) },
  responses: {
    200: jsonResponse(pageSchema(SummarySchema, "AgentSkillPage"), "A page of entries"),
    ...errorResponses(400, 401),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/agent-skills/{name}",
  operationId: "getAgentSkill",
  tags: [TAGS.agentSkills],
  security: KEY_OR_MANAGEMENT,
  summary: "Read one Agent Skills entry (SKILL.md)",
  request: {
    params: z.object({
      name: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "name", in: "path" }, example: "skillgate-connect" }),
    }),
  },
  responses: {
    200: {
      description: "The SKILL.md: YAML frontmatter (name, description, metadata) and Markdown",
      content: { "text/markdown": { schema: z.string() } },
    },
    ...errorResponses(401, 404),
  },
});

/** Builds the `/api/agent-skills` route group over the catalog. */
export function agentSkillsRoutes(catalog: AgentSkillsCatalog) {
  const app = createRouter();

  app.openapi(listRoute, (c) => {
    const q = c.req.valid("query");
    const all = catalog.list(q.category);
    const start = (q.page - 1) * q.limit;
    return c.json(pageOf(all.slice(start, start + q.limit), all.length, q.page, q.limit), 200);
  });

  app.openapi(getRoute, (c) => {
    const { name } = c.req.valid("param");
    const entry = catalog.get(name);
    if (!entry) throw new NotFoundError(`Agent skill ${name} not found`, "agent_skill_not_found");
    return c.body(entry.markdown, 200, { "content-type": "text/markdown; charset=utf-8" });
  });

  return app;
}
