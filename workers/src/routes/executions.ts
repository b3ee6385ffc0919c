/**
 * Execution routes (docs/execution.md, docs/policies.md#approval): run a skill now, read the
 * history, and decide pending approvals of hybrid skills. A key sees and decides only its own
 * executions (another key's id answers 404); management sees all, or one key's with `?apiKeyId=`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { actingKey, canAccessOwned, type Principal } from "../auth/principal.js";
import { BusyError, NotFoundError, UpstreamError } from "../errors.js";
import type { Services } from "../services.js";
import { pageOf } from "../skills/skill-service.js";
import type { Execution, Skill } from "../skills/types.js";
import { parseSkillRef } from "../skills/versions.js";
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

/** Loads an execution the principal may see. @throws NotFoundError otherwise (no existence leak). */
async function visibleExecution(
  services: Services,
  principal: Principal,
  id: string,
): Promise<Execution> {
  const execution = await services.executor.getExecution(id);
  if (!execution || !canAccessOwned(principal, execution.apiKeyId)) {
    throw new NotFoundError(`Execution ${id} not found`, "execution_not_found");
  }
  return execution;
}

/**
 * Resolves `name`, `name@version` or `name@<constraint>` for a caller.
 * @throws NotFoundError `skill_not_found`.
 */
export async function resolveSkillRef(
  services: Services,
  ref: string,
  apiKeyId: string | null,
): Promise<Skill> {
  const { name, constraint } = parseSkillRef(ref);
  const skill = (await services.registry.snapshot()).resolve(name, constraint, apiKeyId);
  if (!skill) throw new NotFoundError(`Skill ${ref} not found`, "skill_not_found");
  return skill;
}

/**
 * The answer for a terminal execution (README "Errors"): the execution itself, unless the program
 * never ran because a service it needs failed — an unreachable sandbox host is a 503
 * `sandbox_unavailable`, a saturated one a 429 `sandbox_busy` with `Retry-After` — each with the
 * recorded execution in `details`.
 * @throws UpstreamError 503; BusyError 429.
 */
function answerFor(services: Services, execution: Execution): Execution {
  if (execution.status !== "error") return execution;
  if (execution.errorCode === "sandbox_unavailable") {
    throw new UpstreamError(
      execution.errorMessage ?? "The sandbox host is unavailable",
      "sandbox_unavailable",
      503,
      { execution },
    );
  }
  if (execution.errorCode === "sandbox_busy") {
    throw new BusyError(
      execution.errorMessage ?? "The sandbox host is busy; the program did not run",
      "sandbox_busy",
      services.executor.retryAfterS(execution) ?? 1,
      { execution },
    );
  }
  return execution;
}

/** Builds the execution route group. */
export function executionsRoutes() {
  const app = createRouter();

  app.openapi(listRoute, async (c) => {
    const services = c.get("services");
    const principal = principalOf(c);
    const q = c.req.valid("query");
    const apiKeyId = principal.kind === "key" ? actingKey(principal, q.apiKeyId) : q.apiKeyId;
    await services.executor.store.expireApprovals(services.deps.config.APPROVAL_TTL_MS);
    const filter = {
      status: q.status,
      skill: q.skill,
      sessionId: q.sessionId,
      approval: q.approval,
    };
    const [data, total] = await Promise.all([
      services.executor.listExecutions(apiKeyId, q.limit, (q.page - 1) * q.limit, filter),
      services.executor.countExecutions(apiKeyId, filter),
    ]);
    return c.json(pageOf(data, total, q.page, q.limit), 200);
  });

  app.openapi(getRoute, async (c) => {
    const execution = await visibleExecution(
      c.get("services"),
      principalOf(c),
      c.req.valid("param").id,
    );
    return c.json({ execution }, 200);
  });

  app.openapi(executeRoute, async (c) => {
    const services = c.get("services");
    const body = c.req.valid("json");
    const apiKeyId = actingKey(principalOf(c), body.apiKeyId);
    const skill = await resolveSkillRef(services, body.skillName, apiKeyId);
    const execution = await services.executor.execute(skill, body.input, {
      apiKeyId,
      sessionId: body.sessionId ?? null,
    });
    return c.json({ execution: answerFor(services, execution) }, 200);
  });

  app.openapi(approveRoute, async (c) => {
    const services = c.get("services");
    await services.executor.store.expireApprovals(services.deps.config.APPROVAL_TTL_MS);
    const pending = await visibleExecution(services, principalOf(c), c.req.valid("param").id);
    const skill =
      (await services.registry.snapshot()).getById(pending.skillId) ??
      (await services.registry.getFresh(pending.skillId));
    if (!skill)
      throw new NotFoundError(
        `Skill of execution ${pending.id} no longer exists`,
        "skill_not_found",
      );
    const execution = await services.executor.approve(pending, skill);
    return c.json({ execution: answerFor(services, execution) }, 200);
  });

  app.openapi(rejectRoute, async (c) => {
    const services = c.get("services");
    await services.executor.store.expireApprovals(services.deps.config.APPROVAL_TTL_MS);
    const pending = await visibleExecution(services, principalOf(c), c.req.valid("param").id);
    const body = (c.req.valid("json") ?? {}) as z.infer<typeof decideBody>;
    const execution = await services.executor.reject(pending, body.reason);
    return c.json({ execution }, 200);
  });

  return app;
}
