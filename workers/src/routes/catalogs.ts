/**
 * Catalog routes (docs/catalogs.md): search SkillsMP (`/api/skills/marketplace`) and skills.sh
 * (`/api/skills/skillssh`), and install from them. Management and API keys may use them; a key's
 * install belongs to that key, management's is global unless it names an `apiKeyId`. An install
 * from the catalog that is not the active provider setting answers 409 `provider_not_active`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { actingKey } from "../auth/principal.js";
import { parseRepoRef } from "../catalogs/github-raw.js";
import { installCatalogSkill } from "../catalogs/install.js";
import { SKILLSMP_MAX_LIMIT, SkillsMpClient } from "../catalogs/skillsmp.js";
import { SKILLSSH_MAX_LIMIT, SkillsShClient } from "../catalogs/skillssh.js";
import type { SkillLocation } from "../catalogs/types.js";
import { globalFetch } from "../catalogs/upstream.js";
import { ConflictError, InvalidInputError } from "../errors.js";
import type { Services } from "../services.js";
import { createRouter, principalOf } from "./context.js";
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  KEY_OR_MANAGEMENT,
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
    provider: z.enum(["skillsmp", "skillssh"]),
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
      limit: limitParam(SKILLSMP_MAX_LIMIT, 20),
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
      limit: limitParam(SKILLSSH_MAX_LIMIT, 20),
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

function fetchOf(services: Services): typeof fetch {
  return services.deps.fetch ?? globalFetch;
}

async function requireActive(services: Services, provider: "skillsmp" | "skillssh"): Promise<void> {
  const active = (await services.settings.get()).activeProvider;
  if (active !== provider) {
    throw new ConflictError(
      `Installs from ${provider} need the active provider setting to be ${provider} (it is ${active})`,
      "provider_not_active",
    );
  }
}

function badLocation(message: string): InvalidInputError {
  return new InvalidInputError(message, [{ field: "source", message }]);
}

/** SkillsMP install body → location: `githubUrl` (with ref and path) or `source` + `skillId`. */
function marketplaceLocation(body: z.infer<typeof MarketplaceInstallBody>): SkillLocation {
  const repo = parseRepoRef(body.githubUrl ?? body.source ?? "");
  if (!repo) throw badLocation("githubUrl (a github.com URL) or source (owner/repo) is required");
  const path = body.path ?? repo.path;
  const folder = path
    ?.replace(/\/?SKILL\.md$/i, "")
    .split("/")
    .filter(Boolean)
    .pop();
  const skillId = body.skillId ?? folder;
  if (!skillId) throw badLocation("skillId is required when the URL names no skill folder");
  return { owner: repo.owner, repo: repo.repo, skillId, ref: body.ref ?? repo.ref, path };
}

/** skills.sh install body → location: `source` + `skillId`, or `id` = `owner/repo/skillId`. */
function skillsShLocation(body: z.infer<typeof SkillsShInstallBody>): SkillLocation {
  const parts = body.id?.split("/").filter(Boolean) ?? [];
  const repo = parseRepoRef(body.source ?? (parts.length >= 3 ? `${parts[0]}/${parts[1]}` : ""));
  const skillId = body.skillId ?? (parts.length >= 3 ? parts[parts.length - 1] : undefined);
  if (!repo || !skillId)
    throw badLocation("source (owner/repo) and skillId, or id (owner/repo/skillId), are required");
  return { owner: repo.owner, repo: repo.repo, skillId };
}

/** Builds the catalog route group; mount it before `/api/skills/{id}`. */
export function catalogsRoutes() {
  const app = createRouter();

  app.openapi(marketplaceRoute, async (c) => {
    const services = c.get("services");
    const q = c.req.valid("query");
    const key =
      (await services.settings.get()).skillsmpApiKey ?? services.deps.config.SKILLSMP_API_KEY;
    const client = new SkillsMpClient(
      services.deps.config.SKILLSMP_BASE_URL,
      key,
      fetchOf(services),
    );
    return c.json(
      await client.search({ q: q.q, page: q.page, limit: q.limit, sortBy: q.sortBy }),
      200,
    );
  });

  app.openapi(skillsShRoute, async (c) => {
    const services = c.get("services");
    const q = c.req.valid("query");
    const client = new SkillsShClient(services.deps.config.SKILLSSH_BASE_URL, fetchOf(services));
    return c.json(await client.search(q.q, q.limit), 200);
  });

  const install = async (
    services: Services,
    provider: "skillsmp" | "skillssh",
    location: SkillLocation,
    owner: string | null,
  ) =>
    installCatalogSkill(
      {
        db: services.deps.db,
        skills: services.skills,
        registry: services.registry,
        fetch: fetchOf(services),
        githubRawBaseUrl: services.deps.config.GITHUB_RAW_BASE_URL,
      },
      { provider, location, apiKeyId: owner },
    );

  app.openapi(marketplaceInstallRoute, async (c) => {
    const services = c.get("services");
    const body = c.req.valid("json");
    const owner = actingKey(principalOf(c), body.apiKeyId);
    await requireActive(services, "skillsmp");
    return c.json(await install(services, "skillsmp", marketplaceLocation(body), owner), 201);
  });

  app.openapi(skillsShInstallRoute, async (c) => {
    const services = c.get("services");
    const body = c.req.valid("json");
    const owner = actingKey(principalOf(c), body.apiKeyId);
    await requireActive(services, "skillssh");
    return c.json(await install(services, "skillssh", skillsShLocation(body), owner), 201);
  });

  return app;
}
