/**
 * Catalog routes (docs/catalogs.md): search SkillsMP (`/api/skills/marketplace`) and skills.sh
 * (`/api/skills/skillssh`), and install from them. Management and API keys may use them; a key's
 * install belongs to that key, management's is global unless it names an `apiKeyId`. An install
 * from the catalog that is not the active provider setting answers 409 `provider_not_active`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { actingKey, requireManagement } from "../auth/principal.js";
import { CATALOG_IDS, MAX_CATALOG_LIMIT } from "../services/catalogs.js";
import { createRouter, principalOf } from "./context.js";
import {
  ExecutionPolicySchema,
  errorResponses,
  InjectionModeSchema,
  jsonBody,
  jsonResponse,
  KEY_OR_MANAGEMENT,
  MANAGEMENT_ONLY,
  SkillSchema,
  TAGS,
} from "./schemas.js";

const CatalogSkillSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    source: z.string().nullable(),
    skillId: z.string(),
    installs: z.number().nullable(),
    stars: z.number().nullable(),
    author: z.string().nullable(),
    githubUrl: z.string().nullable(),
    url: z.string().nullable(),
  })
  .openapi("CatalogSkill");

const CatalogPageSchema = z
  .object({
    provider: z.enum(CATALOG_IDS),
    query: z.string(),
    data: z.array(CatalogSkillSchema),
    total: z.number().int().nullable(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("CatalogPage");

const InstalledSchema = z
  .object({ skill: SkillSchema, skillMd: z.object({ url: z.string(), path: z.string() }) })
  .openapi("CatalogInstall");

/** `limit` from 1, capped at `max` (docs/catalogs.md#searching). */
const limitParam = (max: number, def: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .default(def)
    .transform((n) => Math.min(n, max))
    .openapi({ example: def });

const owner = z.string().min(1).max(100);
const apiKeyId = z
  .string()
  .min(1)
  .nullable()
  .optional()
  .openapi({ description: "management only: install for this key" });

const MarketplaceInstallBody = z
  .object({
    githubUrl: z
      .string()
      .url()
      .max(2048)
      .optional()
      .openapi({ example: "https://github.com/acme/skills/tree/main/skills/pdf-tools" }),
    source: owner.optional().openapi({ description: "owner/repo (instead of githubUrl)" }),
    skillId: owner.optional(),
    path: z.string().min(1).max(1024).optional(),
    ref: z.string().min(1).max(255).optional(),
    apiKeyId,
  })
  .strict()
  .openapi("MarketplaceInstall");

const SkillsShInstallBody = z
  .object({
    source: owner.optional().openapi({ example: "acme/skills", description: "owner/repo" }),
    skillId: owner.optional().openapi({ example: "pdf-tools" }),
    id: z
      .string()
      .min(1)
      .max(300)
      .optional()
      .openapi({ example: "acme/skills/pdf-tools", description: "owner/repo/skillId" }),
    apiKeyId,
  })
  .strict()
  .openapi("SkillsShInstall");

const marketplaceRoute = createRoute({
  method: "get",
  path: "/api/skills/marketplace",
  operationId: "searchSkillsMp",
  tags: [TAGS.catalogs],
  security: KEY_OR_MANAGEMENT,
  summary: "Search SkillsMP (most-starred when q is empty)",
  request: {
    query: z.object({
      q: z.string().max(500).default(""),
      page: z.coerce.number().int().min(1).default(1),
      limit: limitParam(MAX_CATALOG_LIMIT, 20),
      sortBy: z.enum(["stars", "recent"]).optional(),
    }),
  },
  responses: {
    200: jsonResponse(CatalogPageSchema, "Catalog results"),
    ...errorResponses(400, 401, 429, 502, 503),
  },
});

const skillsShRoute = createRoute({
  method: "get",
  path: "/api/skills/skillssh",
  operationId: "searchSkillsSh",
  tags: [TAGS.catalogs],
  security: KEY_OR_MANAGEMENT,
  summary: "Search skills.sh",
  request: {
    query: z.object({
      q: z.string().max(500).default(""),
      limit: limitParam(MAX_CATALOG_LIMIT, 20),
    }),
  },
  responses: {
    200: jsonResponse(CatalogPageSchema, "Catalog results"),
    ...errorResponses(400, 401, 429, 502),
  },
});

const installResponses = {
  201: jsonResponse(InstalledSchema, "Installed"),
  ...errorResponses(400, 401, 403, 404, 409, 429, 502),
  422: { description: "The SKILL.md breaks the Agent Skills rules" },
};

const marketplaceInstallRoute = createRoute({
  method: "post",
  path: "/api/skills/marketplace/install",
  operationId: "installSkillsMpSkill",
  tags: [TAGS.catalogs],
  security: KEY_OR_MANAGEMENT,
  summary: "Install a skill from SkillsMP (active provider must be skillsmp)",
  request: { body: jsonBody(MarketplaceInstallBody) },
  responses: installResponses,
});

const skillsShInstallRoute = createRoute({
  method: "post",
  path: "/api/skills/skillssh/install",
  operationId: "installSkillsShSkill",
  tags: [TAGS.catalogs],
  security: KEY_OR_MANAGEMENT,
  summary: "Install a skill from skills.sh (active provider must be skillssh)",
  request: { body: jsonBody(SkillsShInstallBody) },
  responses: installResponses,
});

/** Largest SKILL.md text `POST /api/skills/skill-md/install` takes (characters; the instructions cap). */
const MAX_SKILL_MD_CHARS = 512 * 1024;

const SkillMdInstallBody = z
  .object({
    content: z.string().min(1).max(MAX_SKILL_MD_CHARS).openapi({
      description: "The SKILL.md file: YAML frontmatter (name, description, …) and a Markdown body",
      example: "---\nname: pdf-notes\ndescription: How to take notes from PDFs\n---\n# PDF notes\n",
    }),
    mode: InjectionModeSchema.optional(),
    policy: ExecutionPolicySchema.optional(),
    apiKeyId: z.string().min(1).nullable().optional(),
  })
  .strict()
  .openapi("SkillMdInstall");

const skillMdInstallRoute = createRoute({
  method: "post",
  path: "/api/skills/skill-md/install",
  operationId: "installSkillMd",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary: "Install a SKILL.md file as a local instruction skill",
  request: { body: jsonBody(SkillMdInstallBody) },
  responses: {
    201: jsonResponse(z.object({ skill: SkillSchema }), "Installed"),
    ...errorResponses(400, 401, 403, 409),
    422: { description: "The SKILL.md breaks the Agent Skills rules" },
  },
});

/** Builds the catalog route group; mount it before `/api/skills/{id}`. */
export function catalogsRoutes() {
  const app = createRouter();

  app.openapi(marketplaceRoute, async (c) => {
    const q = c.req.valid("query");
    const page = await c.get("services").catalogs.search("skillsmp", q);
    return c.json(page, 200);
  });

  app.openapi(skillsShRoute, async (c) => {
    const q = c.req.valid("query");
    const page = await c.get("services").catalogs.search("skillssh", { ...q, page: 1 });
    return c.json(page, 200);
  });

  app.openapi(marketplaceInstallRoute, async (c) => {
    const { apiKeyId, ...ref } = c.req.valid("json");
    const owner = actingKey(principalOf(c), apiKeyId);
    return c.json(await c.get("services").catalogs.install("skillsmp", ref, owner), 201);
  });

  app.openapi(skillsShInstallRoute, async (c) => {
    const { apiKeyId, ...ref } = c.req.valid("json");
    const owner = actingKey(principalOf(c), apiKeyId);
    return c.json(await c.get("services").catalogs.install("skillssh", ref, owner), 201);
  });

  app.openapi(skillMdInstallRoute, async (c) => {
    requireManagement(c.get("principal"));
    const { content, mode, policy, apiKeyId } = c.req.valid("json");
    const skill = await c
      .get("services")
      .catalogs.installSkillMd(content, { owner: apiKeyId ?? null, mode, policy });
    return c.json({ skill }, 201);
  });

  return app;
}
