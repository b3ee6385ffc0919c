/**
 * Injection and interception endpoints (docs/injection.md, docs/interception.md):
 * - `POST /api/skills/inject` `{ format, request, backgroundReason?, sessionId?, include?, exclude? }`
 *   → `{ request, injected: [{ name, version, toolName, mode, score }], selectionId? }`; with a
 *   `sessionId`, the skills `skill_search` found in the session are injected and the tool itself
 *   is offered (docs/scoring.md#skill-search);
 * - `POST /api/skills/intercept` `{ format, response, injected?, sessionId?, selectionId?, customSkillExecutionEnabled? }`
 *   → `{ toolResults, messages, passThrough, response }`; `skill_search` calls are answered here.
 * Auth: an API key (acting for itself) or management acting for a key via `apiKeyId` (null =
 * global skills only). Unknown formats and malformed bodies answer 400.
 */

import { createRoute, z } from "@hono/zod-openapi";
import { actingKey } from "../auth/principal.js";
import { getFormatAdapter, WIRE_FORMATS } from "../formats/index.js";
import { RANKER_NAMES } from "../services/tools.js";
import { createRouter, principalOf } from "./context.js";
import {
  errorResponses,
  InjectionModeSchema,
  jsonBody,
  jsonResponse,
  KEY_OR_MANAGEMENT,
  TAGS,
} from "./schemas.js";

const FormatSchema = z
  .enum(WIRE_FORMATS)
  .openapi({ description: "Wire format of the request / response" });
const JsonObject = z.record(z.string(), z.unknown());
const NameList = z.array(z.string().min(1).max(200)).max(200);
const ActingKey = z
  .string()
  .min(1)
  .optional()
  .openapi({ description: "management only: act for this key" });

const InjectBody = z
  .object({
    format: FormatSchema,
    request: JsonObject,
    backgroundReason: z.string().max(10_000).optional(),
    sessionId: z.string().min(1).max(200).optional().openapi({
      description:
        "the session: skills that skill_search found in it are injected, and skill_search is offered (docs/scoring.md#skill-search)",
    }),
    include: NameList.optional().openapi({
      description: "name, name@version or tool name; injected whatever the score",
    }),
    exclude: NameList.optional().openapi({
      description: "name, name@version or tool name; never injected",
    }),
    ranker: z.enum(RANKER_NAMES).optional().openapi({
      description:
        "the ranker of AUTO selection for this request; default the key's, else the `ranker` setting (docs/scoring.md#choosing-a-ranker)",
    }),
    apiKeyId: ActingKey,
  })
  .strict()
  .superRefine((body, ctx) => {
    // Where the format keeps what injection reads (a minimal shape check).
    const adapter = getFormatAdapter(body.format);
    const field = adapter.historyField;
    const value = body.request[field];
    const ok = adapter.textHistory
      ? value === undefined || typeof value === "string" || Array.isArray(value)
      : value !== undefined;
    if (!ok)
      ctx.addIssue({
        code: "custom",
        path: ["request", field],
        message: `a ${body.format} request needs ${field}`,
      });
    if (body.request.tools !== undefined && !Array.isArray(body.request.tools)) {
      ctx.addIssue({
        code: "custom",
        path: ["request", "tools"],
        message: "tools must be an array",
      });
    }
  })
  .openapi("InjectBody");

const InjectedItem = z.object({
  name: z.string(),
  version: z.string(),
  toolName: z.string(),
  mode: InjectionModeSchema,
  score: z.number().nullable().openapi({
    description: "the ranker's score (integer points for `keyword`); null for `on` skills",
  }),
  ranker: z.enum(RANKER_NAMES).nullable().openapi({
    description: "the ranker that produced `score`; null for `on` skills",
  }),
});
const SelectionId = z.string().min(1).max(200);
const InjectResult = z
  .object({
    request: JsonObject,
    injected: z.array(InjectedItem),
    selectionId: SelectionId.optional().openapi({
      description:
        "with learning on and skills picked: send it back with the intercept of this request's answer, so that the model's calls teach selection (docs/scoring.md#learning-from-traffic); an intercept with the same sessionId links without it",
    }),
  })
  .openapi("InjectResult");

const InjectedRef = z.union([
  z.string().min(1).max(200),
  z
    .object({
      name: z.string().min(1).max(200),
      version: z.string().max(50).optional(),
      toolName: z.string().max(200).optional(),
    })
    .passthrough(),
]);
const InterceptBody = z
  .object({
    format: FormatSchema,
    response: JsonObject,
    injected: z
      .array(InjectedRef)
      .max(200)
      .optional()
      .openapi({ description: "tool names (or items) inject returned" }),
    sessionId: z.string().min(1).max(200).optional(),
    selectionId: SelectionId.optional().openapi({
      description: "the selectionId the inject of this request returned",
    }),
    customSkillExecutionEnabled: z.boolean().optional(),
    apiKeyId: ActingKey,
  })
  .strict()
  .superRefine((body, ctx) => {
    const fields = getFormatAdapter(body.format).responseFields;
    if (!fields.some((f) => Array.isArray(body.response[f]))) {
      ctx.addIssue({
        code: "custom",
        path: ["response", fields[0]!],
        message: `a ${body.format} response needs ${fields.join(" or ")} (an array)`,
      });
    }
  })
  .openapi("InterceptBody");

const ToolResultSchema = z.object({
  callId: z.string().openapi({
    description: "the call's id; synthetic when the provider's was missing, empty or repeated",
  }),
  toolName: z.string(),
  skill: z.string().openapi({
    description: "name@version that ran; the requested name@<version> when none resolved",
  }),
  status: z.enum(["success", "error", "timeout", "pending_approval"]),
  output: z.unknown().optional(),
  error: z.string().optional(),
  executionId: z.string().nullable(),
});
const InterceptResult = z
  .object({
    toolResults: z.array(ToolResultSchema),
    messages: z.array(JsonObject),
    passThrough: z
      .array(z.string())
      .openapi({ description: "ids of the calls left to the client, in call order" }),
    response: JsonObject.openapi({
      description:
        "the response to replay: synthetic call ids written in, Responses outputs spliced",
    }),
  })
  .openapi("InterceptResult");

const injectRoute = createRoute({
  method: "post",
  path: "/api/skills/inject",
  operationId: "injectSkills",
  tags: [TAGS.tools],
  security: KEY_OR_MANAGEMENT,
  summary: "Inject skills into a provider request as tools",
  request: { body: jsonBody(InjectBody) },
  responses: {
    200: jsonResponse(InjectResult, "The request with tools added, and what was injected"),
    ...errorResponses(400, 401, 403),
  },
});
const interceptRoute = createRoute({
  method: "post",
  path: "/api/skills/intercept",
  operationId: "interceptToolCalls",
  tags: [TAGS.tools],
  security: KEY_OR_MANAGEMENT,
  summary: "Run the tool calls of a provider response that Skillgate owns",
  request: { body: jsonBody(InterceptBody) },
  responses: {
    200: jsonResponse(InterceptResult, "Results, follow-up items, pass-through call ids"),
    ...errorResponses(400, 401, 403),
  },
});

/** Builds the injection / interception route group. */
export function toolsRoutes() {
  const app = createRouter();

  app.openapi(injectRoute, async (c) => {
    const { apiKeyId: requested, ...body } = c.req.valid("json");
    const apiKeyId = actingKey(principalOf(c), requested);
    const { request, injected, selectionId } = await c
      .get("services")
      .tools.inject({ ...body, offerSearch: true }, apiKeyId);
    return c.json(selectionId ? { request, injected, selectionId } : { request, injected }, 200);
  });

  app.openapi(interceptRoute, async (c) => {
    const { apiKeyId: requested, ...body } = c.req.valid("json");
    const apiKeyId = actingKey(principalOf(c), requested);
    const result = await c
      .get("services")
      .tools.intercept({ ...body, answerSearch: true }, apiKeyId);
    return c.json({ ...result, messages: result.messages as Record<string, unknown>[] }, 200);
  });

  return app;
}
