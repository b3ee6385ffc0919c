/**
 * Management routes of the settings (`/api/settings`): the master switch, the active catalog,
 * default limits, the global approval webhook, custom-skill execution and the default ranker
 * (docs/api.md). All need the management token.
 */

import { createRoute, z } from "@hono/zod-openapi";
import { requireManagement } from "../auth/principal.js";
import { CATALOG_IDS } from "../services/catalogs.js";
import { RANKER_NAMES } from "../services/tools.js";
import { createRouter } from "./context.js";
import { LimitsBody, LimitsSchema, WebhookSecret, WebhookUrl } from "./management-schemas.js";
import { errorResponses, jsonBody, jsonResponse, MANAGEMENT_ONLY, TAGS } from "./schemas.js";

const SettingsSchema = z
  .object({
    skillsEnabled: z.boolean(),
    activeProvider: z.enum(CATALOG_IDS),
    skillsmpApiKeySet: z.boolean(),
    defaultLimits: LimitsSchema,
    approvalWebhookUrl: z.string().nullable().openapi({
      description: "global approval-notification URL (docs/approval-notifications.md)",
    }),
    approvalWebhookSecretSet: z.boolean(),
    customSkillExecution: z.boolean().openapi({
      description:
        "false: only builtins run; a custom skill's tool call gets an error result and an explicit run answers 409 custom_execution_disabled",
    }),
    ranker: z.enum(RANKER_NAMES).openapi({
      description:
        "the ranker of AUTO selection for keys and requests that choose none (docs/scoring.md#choosing-a-ranker)",
    }),
  })
  .openapi("Settings");

const SettingsBody = z
  .object({
    skillsEnabled: z.boolean().optional(),
    activeProvider: z.enum(CATALOG_IDS).optional(),
    skillsmpApiKey: z.string().min(1).max(500).nullable().optional(),
    defaultLimits: LimitsBody.optional().openapi({
      description:
        "Limits of keys without their own (docs/rate-limits.md); fields left out keep their value",
    }),
    approvalWebhookUrl: WebhookUrl.nullable().optional(),
    approvalWebhookSecret: WebhookSecret.nullable().optional(),
    customSkillExecution: z.boolean().optional(),
    ranker: z.enum(RANKER_NAMES).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "set at least one setting" });

const getSettingsRoute = createRoute({
  method: "get",
  path: "/api/settings",
  operationId: "getSettings",
  tags: [TAGS.settings],
  security: MANAGEMENT_ONLY,
  summary: "Read settings",
  responses: {
    200: jsonResponse(z.object({ settings: SettingsSchema }), "Settings"),
    ...errorResponses(401, 403),
  },
});
const putSettingsRoute = createRoute({
  method: "put",
  path: "/api/settings",
  operationId: "updateSettings",
  tags: [TAGS.settings],
  security: MANAGEMENT_ONLY,
  summary:
    "Change settings (skillsEnabled master switch, activeProvider, skillsmpApiKey, customSkillExecution, approval webhook, defaultLimits, ranker)",
  request: { body: jsonBody(SettingsBody) },
  responses: {
    200: jsonResponse(z.object({ settings: SettingsSchema }), "Settings"),
    ...errorResponses(400, 401, 403),
  },
});

/** Builds the settings route group (`GET` and `PUT /api/settings`). */
export function settingsRoutes() {
  const app = createRouter();
  app.use("/api/settings", async (c, next) => {
    requireManagement(c.get("principal"));
    await next();
  });

  app.openapi(getSettingsRoute, async (c) => {
    const settings = await c.get("services").settings.getPublic();
    return c.json({ settings }, 200);
  });
  app.openapi(putSettingsRoute, async (c) => {
    const services = c.get("services");
    const settings = await services.settings.change(c.req.valid("json"));
    services.limits.forgetEffective();
    return c.json({ settings }, 200);
  });
  return app;
}
