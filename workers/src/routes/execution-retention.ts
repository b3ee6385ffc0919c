/**
 * `DELETE /api/skills/executions` (management): deletes finished executions by time range, skill
 * or key, in bounded batches (docs/execution.md#retention), answering how many rows went.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { requireManagement } from "../auth/principal.js";
import { InvalidInputError } from "../errors.js";
import { createRouter } from "./context.js";
import { errorResponses, jsonResponse, MANAGEMENT_ONLY, TAGS } from "./schemas.js";

const time = z.iso
  .datetime({ offset: true })
  .optional()
  .openapi({ description: "ISO-8601 time; compared with the execution's createdAt" });

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/skills/executions",
  operationId: "deleteExecutions",
  tags: [TAGS.executions],
  security: MANAGEMENT_ONLY,
  summary: "Delete finished executions by time range, skill or key (management)",
  description:
    "Deletes `success`, `error` and `timeout` executions matching every filter given (at least one is required); `pending` and `running` ones are never deleted. Rows go in batches, so executions keep being recorded meanwhile.",
  request: {
    query: z.object({
      before: time,
      after: time,
      skill: z.string().min(1).max(300).optional().openapi({ description: "name or name@version" }),
      apiKeyId: z.string().min(1).max(200).optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ deleted: z.number().int() }), "Rows deleted"),
    ...errorResponses(400, 401, 403),
  },
});

/** Builds the execution deletion route. */
export function executionRetentionRoutes() {
  const app = createRouter();
  app.openapi(deleteRoute, async (c) => {
    requireManagement(c.get("principal"));
    const q = c.req.valid("query");
    if (!q.before && !q.after && !q.skill && !q.apiKeyId) {
      const message = "name at least one of before, after, skill, apiKeyId";
      throw new InvalidInputError(`Invalid query: ${message}`, [{ field: "query", message }]);
    }
    const { deleted } = await c.get("services").executions.deleteFinished(
      {
        before: q.before ? Date.parse(q.before) : undefined,
        after: q.after ? Date.parse(q.after) : undefined,
        skill: q.skill,
        apiKeyId: q.apiKeyId,
      },
      { pause: () => new Promise((resolve) => setTimeout(resolve, 0)) },
    );
    return c.json({ deleted }, 200);
  });
  return app;
}
