/**
 * `/api/routing` (docs/a2a.md#memory_aware_routing): a gateway reports the outcome of its upstream
 * LLM calls, and reads the provider/model recommendation built from them (the same one the A2A
 * skill `memory_aware_routing` answers).
 * - `POST /api/routing/observations` `{ calls: [{ provider, model, status, errorClass?, latencyMs, task? }], apiKeyId? }`
 *   → 201 `{ recorded, ids }`;
 * - `GET /api/routing/recommendation?task=&windowHours=` → the recommendation and its numbers.
 * A key records and reads its own history; management may act for a key with `apiKeyId`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { actingKey } from "../auth/principal.js";
import { createRouter, principalOf } from "../routes/context.js";
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  KEY_OR_MANAGEMENT,
  TAGS,
} from "../routes/schemas.js";
import { ERROR_CLASSES } from "./history.js";
import { DEFAULT_WINDOW_HOURS, MAX_WINDOW_HOURS } from "./recommend.js";

const Call = z
  .object({
    provider: z.string().min(1).max(100).openapi({ example: "openai" }),
    model: z.string().min(1).max(200).openapi({ example: "gpt-4.1" }),
    status: z.enum(["success", "error"]),
    errorClass: z.enum(ERROR_CLASSES).optional().openapi({ description: "for failed calls" }),
    latencyMs: z.number().min(0).max(3_600_000).openapi({ example: 850 }),
    task: z.string().max(500).optional().openapi({ description: "what the call was for" }),
  })
  .strict();

const ObservationsBody = z
  .object({
    calls: z.array(Call).min(1).max(100),
    apiKeyId: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "management only: act for this key" }),
  })
  .strict()
  .openapi("UpstreamCalls");

const Stats = z.object({
  provider: z.string(),
  model: z.string(),
  calls: z.number().int(),
  successes: z.number().int(),
  successRate: z.number(),
  latencyP50Ms: z.number(),
  latencyP95Ms: z.number(),
  errorClasses: z.record(z.string(), z.number().int()),
});

const Recommendation = z
  .object({
    recommendation: z
      .object({ provider: z.string(), model: z.string(), reason: z.string() })
      .nullable(),
    reason: z.string().nullable(),
    basis: z.enum(["similar-tasks", "all-calls", "none"]),
    windowHours: z.number(),
    callsConsidered: z.number().int(),
    candidates: z.array(Stats),
  })
  .openapi("RouteRecommendation");

const recordRoute = createRoute({
  method: "post",
  path: "/api/routing/observations",
  operationId: "recordRoutingObservations",
  tags: [TAGS.routing],
  security: KEY_OR_MANAGEMENT,
  summary: "Record the outcome of upstream LLM calls (for memory-aware routing)",
  request: { body: jsonBody(ObservationsBody) },
  responses: {
    201: jsonResponse(
      z.object({ recorded: z.number().int(), ids: z.array(z.string()) }),
      "Recorded",
    ),
    ...errorResponses(400, 401, 403),
  },
});

const recommendRouteDef = createRoute({
  method: "get",
  path: "/api/routing/recommendation",
  operationId: "getRoutingRecommendation",
  tags: [TAGS.routing],
  security: KEY_OR_MANAGEMENT,
  summary: "Recommend a provider and model for a task from your own upstream call history",
  request: {
    query: z.object({
      task: z.string().max(2000).default("").openapi({ description: "the task to route" }),
      windowHours: z.coerce.number().min(1).max(MAX_WINDOW_HOURS).default(DEFAULT_WINDOW_HOURS),
      apiKeyId: z.string().min(1).optional(),
    }),
  },
  responses: {
    200: jsonResponse(Recommendation, "The recommendation (or why there is none) and its numbers"),
    ...errorResponses(400, 401, 403),
  },
});

/** Builds the `/api/routing` route group. */
export function routingRoutes() {
  const app = createRouter();

  app.openapi(recordRoute, async (c) => {
    const body = c.req.valid("json");
    const apiKeyId = actingKey(principalOf(c), body.apiKeyId);
    const ids = await c.get("services").routing.record(apiKeyId, body.calls);
    return c.json({ recorded: ids.length, ids }, 201);
  });

  app.openapi(recommendRouteDef, async (c) => {
    const q = c.req.valid("query");
    const apiKeyId = actingKey(principalOf(c), q.apiKeyId);
    const recommendation = await c
      .get("services")
      .routing.recommend(apiKeyId, q.task, q.windowHours);
    return c.json(recommendation, 200);
  });

  return app;
}
