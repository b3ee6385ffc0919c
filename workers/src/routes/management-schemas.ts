/**
 * Request and answer schemas shared by the management routes of API keys and of the settings:
 * execution limits (a key's own and the defaults) and the approval webhook (docs/api.md).
 */

import { z } from "@hono/zod-openapi";

const limitValue = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(1_000_000_000)
    .nullable()
    .openapi({ description: `${what}; null = no limit` });

/**
 * The execution limits of a key or of the defaults (`ExecutionLimits`): executions per minute,
 * concurrent sandbox runs, sandbox seconds per UTC day; `null` is no limit (docs/rate-limits.md).
 */
export const LimitsSchema = z
  .object({
    executionsPerMinute: limitValue("Executions a key may start per minute"),
    concurrentSandboxRuns: limitValue("Sandbox runs a key may have going at once"),
    dailySandboxSeconds: limitValue("Sandbox seconds a key may use per UTC day"),
  })
  .openapi("ExecutionLimits");

/** A partial `ExecutionLimits` to write: fields left out keep their value (docs/rate-limits.md). */
export const LimitsBody = LimitsSchema.partial().strict();

/**
 * An approval-notification URL: http or https, at most 2048 characters
 * (docs/approval-notifications.md).
 */
export const WebhookUrl = z
  .string()
  .url()
  .max(2048)
  .refine((u) => /^https?:\/\//i.test(u), { message: "http or https URL" });

/** A Standard Webhooks signing secret, 1 to 200 characters (docs/approval-notifications.md). */
export const WebhookSecret = z.string().min(1).max(200).openapi({
  description: "Standard Webhooks secret, `whsec_` + base64 of 24 to 64 bytes (write-only)",
});
