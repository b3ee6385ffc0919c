/**
 * The token accounting tables (docs/limits.md#token-budgets): each key's model tokens, proxy
 * rounds and owned tool calls per UTC day, and each key's optional daily token budget. Exported
 * through `schema.ts`, from which drizzle-kit generates the migrations.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per key and UTC day with proxied traffic; counters only grow. */
export const apiKeyTokenUsage = sqliteTable(
  "api_key_token_usage",
  {
    apiKeyId: text("api_key_id").notNull(),
    /** UTC day, `YYYY-MM-DD`. */
    day: text("day").notNull(),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    /** Proxied requests recorded. */
    requests: integer("requests").notNull().default(0),
    /** Upstream rounds of those requests. */
    rounds: integer("rounds").notNull().default(0),
    /** Tool calls of the model that Skillgate ran itself (owned calls). */
    ownedCalls: integer("owned_calls").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.day] })],
);

/** A key's daily token budget (input plus output tokens per UTC day); no row: no budget. */
export const apiKeyTokenBudgets = sqliteTable("api_key_token_budgets", {
  apiKeyId: text("api_key_id").primaryKey(),
  dailyTokens: integer("daily_tokens").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
