/**
 * Management routes of API keys (`/api/keys`): create, list, read, revoke, and each key's limits,
 * token budget, approval webhook and ranker (docs/api.md). All need the management token.
 */

import { createRoute, z } from "@hono/zod-openapi";
import { requireManagement } from "../auth/principal.js";
import { SCOPES } from "../auth/scopes.js";
import { RANKER_NAMES } from "../services/tools.js";
import { createRouter } from "./context.js";
import { LimitsBody, LimitsSchema, WebhookSecret, WebhookUrl } from "./management-schemas.js";
import {
  errorResponses,
  IdParam,
  jsonBody,
  jsonResponse,
  MANAGEMENT_ONLY,
  PaginationQuery,
  pageSchema,
  TAGS,
} from "./schemas.js";

const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    scopes: z.array(z.enum(SCOPES)).openapi({
      description: "What the key may do (docs/api.md#scopes)",
    }),
    approvalWebhookUrl: z.string().nullable().openapi({
      description:
        "where approval notifications of this key's executions go; null = the global setting (docs/approval-notifications.md)",
    }),
    approvalWebhookSecretSet: z.boolean().openapi({
      description: "whether the webhook's signing secret is set (it is write-only)",
    }),
    ranker: z.enum(RANKER_NAMES).nullable().openapi({
      description:
        "the ranker of AUTO selection for this key's requests; null = the `ranker` setting (docs/scoring.md#choosing-a-ranker)",
    }),
  })
  .openapi("ApiKey");

const KeyRankerBody = z
  .object({
    ranker: z.enum(RANKER_NAMES).nullable().openapi({
      description: "`bm25` or `keyword`; null = follow the `ranker` setting",
    }),
  })
  .strict()
  .openapi("ApiKeyRanker");

/**
 * A management route `PUT /api/keys/{id}/<setting>` that changes one setting of a key and answers
 * the key (`{ apiKey }`); 404 for an unknown key, 409 for a revoked one.
 */
function putKeySettingRoute<B extends z.ZodType>(
  setting: string,
  operationId: string,
  body: B,
  summary: string,
  description: string,
) {
  return createRoute({
    method: "put",
    path: `/api/keys/{id}/${setting}`,
    operationId,
    tags: [TAGS.keys],
    security: MANAGEMENT_ONLY,
    summary,
    description,
    request: { params: IdParam, body: jsonBody(body) },
    responses: {
      200: jsonResponse(z.object({ apiKey: ApiKeySchema }), "Key"),
      ...errorResponses(400, 401, 403, 404, 409),
    },
  });
}

const putKeyRankerRoute = putKeySettingRoute(
  "ranker",
  "setApiKeyRanker",
  KeyRankerBody,
  "Set or clear the ranker of this key's AUTO selection",
  "A request's own choice (`ranker` of an inject call, the proxy's `x-skillgate-ranker` header) wins over the key's, which wins over the `ranker` setting (docs/scoring.md#choosing-a-ranker). A revoked key answers 409 `api_key_revoked`.",
);

const KeyUsageSchema = z
  .object({
    day: z.string().openapi({ description: "UTC day of the daily counters (YYYY-MM-DD)" }),
    executionsToday: z.number().int(),
    sandboxRunsToday: z.number().int(),
    sandboxSecondsToday: z.number(),
    reservedSandboxSeconds: z.number(),
    remainingSandboxSeconds: z.number().nullable(),
    executionsThisMinute: z
      .number()
      .int()
      .openapi({ description: "Counted by the instance that answers" }),
    concurrentSandboxRuns: z
      .number()
      .int()
      .openapi({ description: "Counted by the instance that answers" }),
  })
  .openapi("ApiKeyUsage");

const KeyLimitsSchema = z
  .object({
    limits: LimitsSchema,
    overrides: LimitsBody,
    usage: KeyUsageSchema,
  })
  .openapi("ApiKeyLimits");

const ApprovalWebhookBody = z
  .object({
    url: WebhookUrl.nullable().openapi({ description: "null clears the key's webhook" }),
    secret: WebhookSecret.optional(),
  })
  .strict()
  .openapi("ApprovalWebhook");

const putKeyWebhookRoute = putKeySettingRoute(
  "approval-webhook",
  "setApiKeyApprovalWebhook",
  ApprovalWebhookBody,
  "Set or clear where approval notifications of this key's executions go",
  "Notifications are signed per Standard Webhooks with `secret` (docs/approval-notifications.md). A URL needs a secret: the one given, else the one stored; `url: null` clears both. The URL must pass the outbound guard's literal rules (http/https, no credentials, no special names, public IP literals only), else 400 `invalid_webhook_url`; a revoked key answers 409 `api_key_revoked`.",
);

const CreateKeyBody = z
  .object({
    name: z.string().min(1).max(200),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .openapi({ description: "ISO-8601 expiry, in the future" }),
    scopes: z
      .array(z.enum(SCOPES))
      .max(SCOPES.length * 2)
      .optional()
      .openapi({
        description: `Scopes of the key; default all: ${SCOPES.join(", ")}`,
        example: ["inject", "read"],
      }),
  })
  .strict();

const createKeyRoute = createRoute({
  method: "post",
  path: "/api/keys",
  operationId: "createApiKey",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "Create an API key (the key is shown only in this answer)",
  request: { body: jsonBody(CreateKeyBody) },
  responses: {
    201: jsonResponse(z.object({ key: z.string(), apiKey: ApiKeySchema }), "Created"),
    ...errorResponses(400, 401, 403),
  },
});
const listKeysRoute = createRoute({
  method: "get",
  path: "/api/keys",
  operationId: "listApiKeys",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "List API keys, newest first (never the keys themselves)",
  request: { query: PaginationQuery },
  responses: {
    200: jsonResponse(pageSchema(ApiKeySchema, "ApiKeyPage"), "A page of keys"),
    ...errorResponses(400, 401, 403),
  },
});
const getKeyRoute = createRoute({
  method: "get",
  path: "/api/keys/{id}",
  operationId: "getApiKey",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "Read one API key (never the key itself), with its scopes, limits and usage today",
  request: { params: IdParam },
  responses: {
    200: jsonResponse(z.object({ apiKey: ApiKeySchema, limits: KeyLimitsSchema }), "Key"),
    ...errorResponses(401, 403, 404),
  },
});
const putKeyLimitsRoute = createRoute({
  method: "put",
  path: "/api/keys/{id}/limits",
  operationId: "setApiKeyLimits",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "Set a key's own execution limits",
  description:
    "Replaces the key's overrides (docs/rate-limits.md): fields given are the key's own (null = no limit), fields left out follow `defaultLimits`. A revoked key answers 409 `api_key_revoked`.",
  request: { params: IdParam, body: jsonBody(LimitsBody) },
  responses: {
    200: jsonResponse(z.object({ limits: KeyLimitsSchema }), "The key's limits and usage"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});
const DayTokenUsageSchema = z
  .object({
    day: z.string().openapi({ description: "UTC day, YYYY-MM-DD" }),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    requests: z.number().int().openapi({ description: "proxied requests answered" }),
    rounds: z.number().int().openapi({ description: "upstream rounds of those requests" }),
    ownedCalls: z.number().int().openapi({ description: "tool calls Skillgate ran itself" }),
  })
  .openapi("DayTokenUsage");
const TokenUsageSchema = z
  .object({
    dailyTokenBudget: z.number().int().nullable().openapi({
      description: "input plus output tokens per UTC day; null = no budget",
    }),
    today: DayTokenUsageSchema,
    days: z.array(DayTokenUsageSchema),
  })
  .openapi("ApiKeyTokenUsage");
const getKeyTokenUsageRoute = createRoute({
  method: "get",
  path: "/api/keys/{id}/token-usage",
  operationId: "getApiKeyTokenUsage",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "Read a key's proxied token usage per UTC day and its daily token budget",
  description:
    "Usage summed over every round of the key's proxied requests (docs/limits.md#token-budgets), for the last `days` UTC days (default 7, at most 366), oldest first.",
  request: {
    params: IdParam,
    query: z.object({ days: z.coerce.number().int().min(1).max(366).default(7) }),
  },
  responses: {
    200: jsonResponse(z.object({ tokenUsage: TokenUsageSchema }), "Token usage"),
    ...errorResponses(400, 401, 403, 404),
  },
});
const putKeyTokenBudgetRoute = createRoute({
  method: "put",
  path: "/api/keys/{id}/token-budget",
  operationId: "setApiKeyTokenBudget",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "Set or remove a key's daily token budget",
  description:
    "`dailyTokens`: input plus output tokens per UTC day the key's proxied requests may use; null removes the budget. Past it the proxy answers 429 `token_budget_exceeded` in the provider's error shape until 00:00 UTC (docs/limits.md#token-budgets). A revoked key answers 409 `api_key_revoked`.",
  request: {
    params: IdParam,
    body: jsonBody(
      z
        .object({ dailyTokens: z.number().int().min(0).max(1_000_000_000_000).nullable() })
        .strict()
        .openapi("ApiKeyTokenBudget"),
    ),
  },
  responses: {
    200: jsonResponse(z.object({ tokenUsage: TokenUsageSchema }), "Token usage and budget"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});
const revokeKeyRoute = createRoute({
  method: "delete",
  path: "/api/keys/{id}",
  operationId: "revokeApiKey",
  tags: [TAGS.keys],
  security: MANAGEMENT_ONLY,
  summary: "Revoke an API key",
  description:
    "Revokes once: revoking a key that is already revoked answers 409 `already_revoked` and keeps the original `revokedAt`.",
  request: { params: IdParam },
  responses: {
    200: jsonResponse(z.object({ apiKey: ApiKeySchema }), "Revoked"),
    ...errorResponses(401, 403, 404, 409),
  },
});

/** Builds the API keys route group (`/api/keys`, `/api/keys/{id}/…`). */
export function keysRoutes() {
  const app = createRouter();
  app.use("/api/keys", async (c, next) => {
    requireManagement(c.get("principal"));
    await next();
  });
  app.use("/api/keys/*", async (c, next) => {
    requireManagement(c.get("principal"));
    await next();
  });

  app.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid("json");
    const created = await c
      .get("services")
      .keys.create(body.name, body.expiresAt ? Date.parse(body.expiresAt) : null, body.scopes);
    return c.json(created, 201);
  });
  app.openapi(listKeysRoute, async (c) => {
    const { page, limit } = c.req.valid("query");
    return c.json(await c.get("services").keys.list(page, limit), 200);
  });
  app.openapi(getKeyRoute, async (c) => {
    const services = c.get("services");
    const apiKey = await services.keys.get(c.req.valid("param").id);
    return c.json({ apiKey, limits: await services.limits.view(apiKey.id) }, 200);
  });
  app.openapi(putKeyLimitsRoute, async (c) => {
    const services = c.get("services");
    const apiKey = await services.keys.getChangeable(c.req.valid("param").id);
    await services.limits.setOverrides(apiKey.id, c.req.valid("json"));
    return c.json({ limits: await services.limits.view(apiKey.id) }, 200);
  });
  app.openapi(getKeyTokenUsageRoute, async (c) => {
    const services = c.get("services");
    const apiKey = await services.keys.get(c.req.valid("param").id);
    const tokenUsage = await services.tokenUsage.view(apiKey.id, c.req.valid("query").days);
    return c.json({ tokenUsage }, 200);
  });
  app.openapi(putKeyTokenBudgetRoute, async (c) => {
    const services = c.get("services");
    const apiKey = await services.keys.getChangeable(c.req.valid("param").id);
    await services.tokenUsage.setBudget(apiKey.id, c.req.valid("json").dailyTokens);
    return c.json({ tokenUsage: await services.tokenUsage.view(apiKey.id, 1) }, 200);
  });
  app.openapi(revokeKeyRoute, async (c) => {
    const apiKey = await c.get("services").keys.revoke(c.req.valid("param").id);
    return c.json({ apiKey }, 200);
  });
  app.openapi(putKeyWebhookRoute, async (c) => {
    const { url, secret } = c.req.valid("json");
    const apiKey = await c
      .get("services")
      .keys.setApprovalWebhook(c.req.valid("param").id, url, secret);
    return c.json({ apiKey }, 200);
  });
  app.openapi(putKeyRankerRoute, async (c) => {
    const apiKey = await c
      .get("services")
      .keys.setRanker(c.req.valid("param").id, c.req.valid("json").ranker);
    return c.json({ apiKey }, 200);
  });
  return app;
}
