/**
 * `/api/skills` management routes (docs/registry.md): list, read, install, update, delete, and
 * cache invalidation. List/install/update/delete need management auth; a key may read
 * (`GET /api/skills/{id}`) the skills it can see.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { requireManagement } from "../auth/principal.js";
import type { Skill } from "../skills/types.js";
import { type AppEnv, createRouter, principalOf } from "./context.js";
import {
  ExecutionPolicySchema,
  errorResponses,
  IdParam,
  InjectionModeSchema,
  jsonBody,
  jsonResponse,
  KEY_OR_MANAGEMENT,
  MANAGEMENT_ONLY,
  PaginationQuery,
  pageSchema,
  SkillSchema,
  SourceSchema,
  TAGS,
} from "./schemas.js";

const JsonObject = z.record(z.string(), z.unknown());
const SchemaBody = z.object({ input: JsonObject.optional(), output: JsonObject.optional() });
const TimeoutMs = z.number().int().min(1).max(600_000);

/** `handler` of an install body (docs/custom-skills.md). */
const HandlerBody = z
  .discriminatedUnion("type", [
    z
      .object({
        type: z.literal("http"),
        url: z.string().url().max(2048),
        method: z.enum(["POST", "PUT", "PATCH"]).optional(),
        timeoutMs: TimeoutMs.optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal("code"),
        language: z.enum(["python", "node"]),
        code: z.string().min(1),
        timeoutMs: TimeoutMs.optional(),
        memoryMb: z.number().int().optional(),
      })
      .strict(),
  ])
  .openapi("InstallHandler");

/** Install body (docs/registry.md#installing, docs/custom-skills.md). */
export const InstallBody = z
  .object({
    name: z.string().openapi({ example: "reverse-text" }),
    version: z.string().openapi({ example: "1.0.0" }),
    description: z.string().max(4096).default(""),
    schema: SchemaBody.default({}),
    handlerCode: z.string().min(1).optional().openapi({ example: "echo-handler" }),
    handler: HandlerBody.optional(),
    mode: InjectionModeSchema.optional(),
    policy: ExecutionPolicySchema.optional(),
    tags: z.array(z.string().min(1).max(64)).max(32).optional(),
    timeoutMs: TimeoutMs.nullable().optional(),
    autoUpgrade: z.boolean().nullable().optional().openapi({
      description:
        "Run a sandbox run that ran out of time or memory once more with doubled limits (docs/execution.md#auto-upgrade); null = the handler's default (on for eval_code)",
    }),
    apiKeyId: z.string().min(1).nullable().optional(),
    instructions: z
      .string()
      .max(512 * 1024)
      .optional()
      .openapi({
        description: "SKILL.md body of an instruction skill (handler skill-instructions)",
      }),
  })
  .strict()
  .refine((b) => (b.handlerCode === undefined) !== (b.handler === undefined), {
    message: "Set exactly one of handlerCode and handler",
    path: ["handler"],
  })
  .openapi("InstallSkill");

const UpdateBody = z
  .object({
    enabled: z.boolean().optional(),
    mode: InjectionModeSchema.optional(),
    policy: ExecutionPolicySchema.optional(),
    description: z.string().max(4096).optional(),
    tags: z.array(z.string().min(1).max(64)).max(32).optional(),
    timeoutMs: TimeoutMs.nullable().optional(),
    autoUpgrade: z.boolean().nullable().optional().openapi({
      description:
        "Run a sandbox run that ran out of time or memory once more with doubled limits (docs/execution.md#auto-upgrade); null = the handler's default (on for eval_code)",
    }),
    schema: SchemaBody.optional(),
  })
  .strict()
  .openapi("UpdateSkill");

const SkillEnvelope = z.object({ skill: SkillSchema });
const InstalledEnvelope = z.object({
  skill: SkillSchema,
  secret: z.string().optional().openapi({
    description:
      "Standard Webhooks signing secret of an HTTP handler (`whsec_...`); shown only in this answer",
  }),
});

const listRoute = createRoute({
  method: "get",
  path: "/api/skills",
  operationId: "listSkills",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary: "List skills",
  request: {
    query: PaginationQuery.extend({
      q: z.string().optional(),
      mode: InjectionModeSchema.optional(),
      source: SourceSchema.optional(),
      apiKeyId: z.string().optional().openapi({ description: "only skills owned by this key" }),
    }),
  },
  responses: {
    200: jsonResponse(pageSchema(SkillSchema, "SkillPage"), "A page of skills"),
    ...errorResponses(400, 401, 403),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/skills/{id}",
  operationId: "getSkill",
  tags: [TAGS.skills],
  security: KEY_OR_MANAGEMENT,
  summary: "Read one skill",
  request: { params: IdParam },
  responses: { 200: jsonResponse(SkillEnvelope, "The skill"), ...errorResponses(401, 404) },
});

const installRoute = createRoute({
  method: "post",
  path: "/api/skills/install",
  operationId: "installSkill",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary: "Install a custom skill (a handler name, or an HTTP or code handler, + schema)",
  request: { body: jsonBody(InstallBody) },
  responses: {
    201: jsonResponse(InstalledEnvelope, "Installed"),
    ...errorResponses(400, 401, 403, 409),
  },
});

const updateRoute = createRoute({
  method: "put",
  path: "/api/skills/{id}",
  operationId: "updateSkill",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary:
    "Edit a skill (enabled, mode, policy, description, tags, timeoutMs, autoUpgrade, schema)",
  request: { params: IdParam, body: jsonBody(UpdateBody) },
  responses: {
    200: jsonResponse(SkillEnvelope, "Updated"),
    ...errorResponses(400, 401, 403, 404),
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/skills/{id}",
  operationId: "deleteSkill",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary: "Unregister a skill",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(401, 403, 404) },
});

const rotateSecretRoute = createRoute({
  method: "post",
  path: "/api/skills/{id}/secret/rotate",
  operationId: "rotateSkillSecret",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary: "Replace the signing secret of an HTTP-handler skill (the new one is shown once)",
  request: { params: IdParam },
  responses: {
    200: jsonResponse(z.object({ secret: z.string() }), "The new secret"),
    ...errorResponses(400, 401, 403, 404),
  },
});

const invalidateRoute = createRoute({
  method: "post",
  path: "/api/skills/cache/invalidate",
  operationId: "invalidateSkillCache",
  tags: [TAGS.skills],
  security: MANAGEMENT_ONLY,
  summary: "Drop the registry cache (after editing the database by hand)",
  responses: {
    200: jsonResponse(z.object({ invalidated: z.literal(true) }), "Invalidated"),
    ...errorResponses(401, 403),
  },
});

const skillJsonCache = new WeakMap<Skill, string>();

/**
 * JSON text of a skill, memoised per (immutable) skill object: snapshot skills are serialised
 * once per registry load, which keeps large list pages cheap.
 */
function skillJson(skill: Skill): string {
  let json = skillJsonCache.get(skill);
  if (json === undefined) {
    json = JSON.stringify(skill);
    skillJsonCache.set(skill, json);
  }
  return json;
}

/** Builds the `/api/skills` route group. */
export function skillsRoutes() {
  const app = createRouter();

  app.openapi(invalidateRoute, async (c) => {
    requireManagement(c.get("principal"));
    await c.get("services").skills.invalidateCache();
    await c.get("services").settings.invalidate();
    return c.json({ invalidated: true as const }, 200);
  });

  app.openapi(listRoute, async (c) => {
    requireManagement(c.get("principal"));
    const q = c.req.valid("query");
    const page = await c.get("services").skills.list({
      q: q.q,
      mode: q.mode,
      source: q.source,
      owner: q.apiKeyId,
      page: q.page,
      limit: q.limit,
    });
    // Skills are serialised once per registry load (see skillJson); the envelope is assembled here.
    const body = `{"data":[${page.data.map(skillJson).join(",")}],"total":${page.total},"page":${page.page},"limit":${page.limit},"totalPages":${page.totalPages}}`;
    return c.body(body, 200, { "content-type": "application/json" }) as never;
  });

  app.openapi(installRoute, async (c) => {
    requireManagement(c.get("principal"));
    const { handler, handlerCode, ...body } = c.req.valid("json");
    const service = c.get("services").skills;
    const apiKeyId = body.apiKeyId ?? null;
    if (handler) {
      const { skill, secret } = await service.installWithHandler({ ...body, apiKeyId }, handler);
      return c.json(secret === null ? { skill } : { skill, secret }, 201);
    }
    const skill = await service.install({ ...body, handlerCode: handlerCode!, apiKeyId });
    return c.json({ skill }, 201);
  });

  app.openapi(rotateSecretRoute, async (c) => {
    requireManagement(c.get("principal"));
    const secret = await c.get("services").skills.rotateSecret(c.req.valid("param").id);
    return c.json({ secret }, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const skill = await c.get("services").skills.get(id, principalOf(c));
    return c.json({ skill }, 200);
  });

  app.openapi(updateRoute, async (c) => {
    requireManagement(c.get("principal"));
    const { id } = c.req.valid("param");
    const skill = await c.get("services").skills.update(id, c.req.valid("json"));
    return c.json({ skill }, 200);
  });

  app.openapi(deleteRoute, async (c) => {
    requireManagement(c.get("principal"));
    await c.get("services").skills.remove(c.req.valid("param").id);
    return c.body(null, 204);
  });

  return app;
}

export type { AppEnv };
