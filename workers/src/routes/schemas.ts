/**
 * zod schemas of the REST API (docs/api.md), shared by validation at the edge and the OpenAPI
 * document at `/openapi.json`.
 */
import { z } from "@hono/zod-openapi";
import { CATALOG_IDS } from "../services/catalogs.js";
import type { Execution, Skill } from "../skills/types.js";

/** Error envelope `{ error: { code, message, details? } }`. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_input" }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

/** Standard error responses of a route, for the OpenAPI document. */
export function errorResponses(...statuses: number[]) {
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }
  > = {};
  const names: Record<number, string> = {
    400: "Invalid input",
    401: "Missing or invalid credentials",
    403: "Not allowed for this key",
    404: "Not found",
    409: "Conflict",
    429: "Too many requests",
    502: "Upstream failed",
    503: "Unavailable",
  };
  for (const s of statuses)
    out[s] = {
      description: names[s] ?? "Error",
      content: { "application/json": { schema: ErrorSchema } },
    };
  return out;
}

export const InjectionModeSchema = z.enum(["on", "off", "auto"]);
export const ExecutionPolicySchema = z.enum(["auto", "manual", "hybrid"]);
export const SourceSchema = z.enum(["builtin", "local", ...CATALOG_IDS]);
export const ExecutionStatusSchema = z.enum(["pending", "running", "success", "error", "timeout"]);
export const ApprovalSchema = z.enum(["none", "required", "approved", "rejected", "expired"]);
const JsonObject = z.record(z.string(), z.unknown());

/** The HTTP or code handler a skill carries (docs/custom-skills.md); never its signing secret. */
export const HandlerSpecSchema = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("http"),
      url: z.string(),
      method: z.enum(["POST", "PUT", "PATCH"]),
    }),
    z.object({
      type: z.literal("code"),
      language: z.enum(["python", "node"]),
      code: z.string(),
      sha256: z.string(),
      memoryMb: z.number().int().nullable(),
    }),
    z.object({ type: z.literal("mcp"), serverId: z.string(), tool: z.string() }),
  ])
  .openapi("HandlerSpec");

/** A skill as the API returns it (docs/registry.md#a-skill). */
export const SkillSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    description: z.string(),
    schema: z.object({ input: JsonObject, output: JsonObject.optional() }),
    handlerCode: z.string(),
    handler: HandlerSpecSchema.nullable(),
    instructions: z.string().nullable(),
    enabled: z.boolean(),
    mode: InjectionModeSchema,
    policy: ExecutionPolicySchema,
    sourceProvider: SourceSchema,
    sourceRef: z.string().nullable(),
    tags: z.array(z.string()),
    installCount: z.number().int(),
    timeoutMs: z.number().int().nullable(),
    autoUpgrade: z.boolean().nullable().openapi({
      description:
        "auto-upgrade of sandbox runs (docs/execution.md#auto-upgrade); null = the handler's default",
    }),
    apiKeyId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Skill") satisfies z.ZodType<Skill>;

/** One attempt of an execution (docs/execution.md#auto-upgrade). */
export const AttemptRecordSchema = z
  .object({
    attempt: z.number().int(),
    placement: z.enum(["direct", "sandbox"]),
    timeoutMs: z.number().int(),
    memoryMb: z.number().int().nullable(),
    status: z.enum(["success", "error", "timeout"]),
    errorCode: z.string().nullable(),
    durationMs: z.number().int(),
    upgradeReason: z.enum(["timeout", "out_of_memory"]).nullable(),
    host: z.string().optional().openapi({
      description: "origin of the sandbox host that started (or refused) a sandbox attempt",
    }),
  })
  .openapi("ExecutionAttempt");

/** One delivery attempt of an approval notification (docs/approval-notifications.md). */
export const NotificationDeliverySchema = z
  .object({
    webhookId: z.string(),
    attempt: z.number().int(),
    at: z.string(),
    target: z.string(),
    status: z.number().int().nullable(),
    ok: z.boolean(),
    error: z.string().nullable(),
    durationMs: z.number().int(),
  })
  .openapi("ApprovalNotificationDelivery");

/** An execution as every execution endpoint returns it (docs/execution.md). */
export const ExecutionSchema = z
  .object({
    id: z.string(),
    skillId: z.string(),
    skillName: z.string(),
    version: z.string(),
    apiKeyId: z.string().nullable(),
    sessionId: z.string().nullable(),
    requestId: z.string().nullable().optional().openapi({
      description:
        "`x-request-id` of the client request that created the execution (null when none: cron, start-up, older rows)",
    }),
    status: ExecutionStatusSchema,
    approval: ApprovalSchema,
    input: z.unknown(),
    output: z.unknown(),
    inputTruncated: z.boolean().openapi({
      description:
        "history keeps at most SKILLS_MAX_STORED_INPUT_BYTES of the input's JSON; when over, `input` is a string holding its first bytes",
    }),
    outputTruncated: z.boolean().openapi({
      description: "as inputTruncated, for output (SKILLS_MAX_STORED_OUTPUT_BYTES)",
    }),
    errorMessage: z.string().nullable(),
    errorCode: z.string().nullable(),
    durationMs: z.number().int().nullable(),
    attempts: z.number().int(),
    attemptLog: z.array(AttemptRecordSchema).openapi({
      description:
        "each attempt with its placement, limits (ms, MB) and outcome; `upgradeReason` marks an attempt run with doubled limits (docs/execution.md#auto-upgrade)",
    }),
    notifications: z.array(NotificationDeliverySchema).openapi({
      description:
        "deliveries of the approval notification, one per attempt (docs/approval-notifications.md)",
    }),
    codeSha256: z.string().nullable().openapi({
      description: "SHA-256 (hex) of the program a code skill ran; null for other handlers",
    }),
    sandbox: z
      .object({
        host: z.string().nullable(),
        queueWaitMs: z.number().int().nullable(),
        programMs: z.number().int().nullable(),
      })
      .nullable()
      .optional()
      .openapi({
        description:
          "the sandbox host of the last sandbox attempt (origin), its wait for a slot and its program time, ms (docs/execution.md#sandbox-runs); null when no host was reached",
      }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Execution") satisfies z.ZodType<Execution>;

/** Pagination query (docs/api.md#pagination): `page` from 1, `limit` default 50, capped at 200. */
export const PaginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .transform((n) => Math.min(n, 200))
    .openapi({ example: 50 }),
});

/** The page envelope `{ data, total, page, limit, totalPages }`. */
export function pageSchema<T extends z.ZodTypeAny>(item: T, name: string) {
  return z
    .object({
      data: z.array(item),
      total: z.number().int(),
      page: z.number().int(),
      limit: z.number().int(),
      totalPages: z.number().int(),
    })
    .openapi(name);
}

/** JSON request body helper for `createRoute`. */
export function jsonBody<T extends z.ZodTypeAny>(schema: T, description?: string) {
  return { required: true, description, content: { "application/json": { schema } } };
}

/** JSON response helper for `createRoute`. */
export function jsonResponse<T extends z.ZodTypeAny>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A path `{id}` parameter. */
export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" } }),
});

/**
 * OpenAPI security requirements. Both schemes are `Authorization: Bearer <token>`; they differ in
 * the token: the management token, or an API key (`sg_...`). See `openapi.ts` for the schemes.
 */
export const MANAGEMENT_ONLY: Record<string, string[]>[] = [{ managementToken: [] }];
/** Operations an API key may call (acting for itself) as well as management. */
export const KEY_OR_MANAGEMENT: Record<string, string[]>[] = [
  { apiKey: [] },
  { managementToken: [] },
];

/** Tag names of the OpenAPI document, one per route group (described in `openapi.ts`). */
export const TAGS = {
  skills: "Skills",
  executions: "Executions",
  tools: "Injection and interception",
  catalogs: "Catalogs",
  keys: "API keys",
  settings: "Settings",
  health: "Health",
  agentSkills: "Agent Skills",
  routing: "Routing",
  mcpServers: "MCP servers",
} as const;
