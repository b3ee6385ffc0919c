/**
 * Execution routes (docs/execution.md, docs/policies.md#approval): run a skill now, read the
 * history, and decide pending approvals of hybrid skills. A key sees and decides only its own
 * executions (another key's id answers 404); management sees all, or one key's with `?apiKeyId=`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { actingKey } from "../auth/principal.js";
import { createRouter, principalOf } from "./context.js";
import {
  ApprovalSchema,
  ExecutionSchema,
  ExecutionStatusSchema,
  errorResponses,
  IdParam,
  jsonBody,
  jsonResponse,
  KEY_OR_MANAGEMENT,
  PaginationQuery,
  pageSchema,
  TAGS,
} from "./schemas.js";

const ExecutionEnvelope = z.object({ execution: ExecutionSchema });

const ExecuteBody = z
  .object({
    skillName: z.string().min(1).openapi({
      example: "reverse-text@^1.0.0",
      description: "name, name@version or name@<constraint>",
    }),
    input: z.unknown().default({}),
    sessionId: z.string().min(1).max(200).optional(),
    apiKeyId: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "management only: act for this key" }),
  })
  .strict()
  .openapi("ExecuteSkill");

const listRoute = createRoute({
  method: "get",
  path: "/api/skills/executions",
  operationId: "listExecutions",
  tags: [TAGS.executions],
  security: KEY_OR_MANAGEMENT,
  summary: "Execution history, newest first",
  request: {
    query: PaginationQuery.extend({
      apiKeyId: z.string().optional(),
      status: ExecutionStatusSchema.optional(),
      skill: z.string().optional().openapi({ description: "name or name@version" }),
      sessionId: z.string().optional(),
      approval: ApprovalSchema.optional(),
    }),
  },
  responses: {
    200: jsonResponse(pageSchema(ExecutionSchema, "ExecutionPage"), "A page of executions"),
    ...errorResponses(400, 401, 403),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/skills/executions/{id}",
  operationId: "getExecution",
  tags: [TAGS.executions],
  security: KEY_OR_MANAGEMENT,
  summary: "Read one execution",
  request: { params: IdParam },
  responses: { 200: jsonResponse(ExecutionEnvelope, "The execution"), ...errorResponses(401, 404) },
});

const executeRoute = createRoute({
  method: "post",
  path: "/api/skills/executions",
  operationId: "executeSkill",
  tags: [TAGS.executions],
  security: KEY_OR_MANAGEMENT,
  summary: "Run a registered skill now",
  description:
    "Answers 200 with the execution for every terminal status (success, error, timeout). 4xx/503 only when nothing could run: 429 `sandbox_busy` with Retry-After when the sandbox host had no free slot within the limit, 503 `sandbox_unavailable` when it could not be reached (both record the execution, in `details`).",
  request: { body: jsonBody(ExecuteBody) },
  responses: {
    200: jsonResponse(ExecutionEnvelope, "The terminal execution"),
    ...errorResponses(400, 401, 403, 404, 409, 429, 503),
  },
});

const decideBody = z.object({ reason: z.string().max(1000).optional() }).strict();
const approveRoute = createRoute({
  method: "post",
  path: "/api/skills/executions/{id}/approve",
  operationId: "approveExecution",
  tags: [TAGS.executions],
  security: KEY_OR_MANAGEMENT,
  summary: "Approve a pending hybrid execution; it runs now",
  request: { params: IdParam },
  responses: {
    200: jsonResponse(ExecutionEnvelope, "The terminal execution"),
    ...errorResponses(401, 404, 409, 429, 503),
  },
});
const rejectRoute = createRoute({
  method: "post",
  path: "/api/skills/executions/{id}/reject",
  operationId: "rejectExecution",
  tags: [TAGS.executions],
  security: KEY_OR_MANAGEMENT,
  summary: "Reject a pending hybrid execution; it ends as error",
  request: { params: IdParam, body: { ...jsonBody(decideBody), required: false } },
  responses: {
    200: jsonResponse(ExecutionEnvelope, "The rejected execution"),
    ...errorResponses(401, 404, 409),
  },
});

/** Builds the execution route group. */
export function executionsRoutes() {
  const app = createRouter();

  app.openapi(listRoute, async (c) => {
    const principal = principalOf(c);
    const { apiKeyId: requested, ...q } = c.req.valid("query");
    const apiKeyId = principal.kind === "key" ? actingKey(principal, requested) : requested;
    const page = await c.get("services").executions.list({ ...q, apiKeyId });
    return c.json(page, 200);
  });

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const execution = await c.get("services").executions.get(principalOf(c), id);
    return c.json({ execution }, 200);
  });

  app.openapi(executeRoute, async (c) => {
    const body = c.req.valid("json");
    const apiKeyId = actingKey(principalOf(c), body.apiKeyId);
    const execution = await c.get("services").executions.execute(body.skillName, body.input, {
      apiKeyId,
      sessionId: body.sessionId ?? null,
    });
    return c.json({ execution }, 200);
  });

  app.openapi(approveRoute, async (c) => {
    const { id } = c.req.valid("param");
    const execution = await c.get("services").executions.approve(principalOf(c), id);
    return c.json({ execution }, 200);
  });

  app.openapi(rejectRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof decideBody>;
    const execution = await c.get("services").executions.reject(principalOf(c), id, body.reason);
    return c.json({ execution }, 200);
  });

  return app;
}
