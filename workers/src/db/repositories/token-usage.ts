/**
 * The `api_key_token_usage` and `api_key_token_budgets` tables (docs/limits.md#token-budgets).
 * Proxied requests' usage arrives summed per key and day from the service's write buffer
 * (services/write-buffer.ts), one upsert per key and day, all in one batch. It does not join the
 * execution rows' write batcher: a streamed request records its usage when its stream ends, and
 * in the Worker a batch started then would hold I/O of that finished request, which a later
 * request's writes joining it could never complete.
 */
import { and, asc, eq, gte, lte, sql } from "drizzle-orm";
import type { DayTokenUsage, KeyDayUsage, TokenUsageStore } from "../../services/usage.js";
import type { Db } from "../client.js";
import { apiKeyTokenBudgets, apiKeyTokenUsage } from "../schema.js";

/** Drizzle implementation of {@link TokenUsageStore}. */
export class DrizzleTokenUsageStore implements TokenUsageStore {
  constructor(private readonly db: Db) {}

  async add(rows: readonly KeyDayUsage[]): Promise<void> {
    const t = apiKeyTokenUsage;
    const upserts = rows.map(({ apiKeyId, day, ...d }) =>
      this.db
        .insert(t)
        .values({ apiKeyId, day, ...d })
        .onConflictDoUpdate({
          target: [t.apiKeyId, t.day],
          set: {
            inputTokens: sql`${t.inputTokens} + ${d.inputTokens}`,
            outputTokens: sql`${t.outputTokens} + ${d.outputTokens}`,
            requests: sql`${t.requests} + ${d.requests}`,
            rounds: sql`${t.rounds} + ${d.rounds}`,
            ownedCalls: sql`${t.ownedCalls} + ${d.ownedCalls}`,
          },
        }),
    );
    const [first, ...rest] = upserts;
    if (first) await this.db.batch([first, ...rest]);
  }

  async days(apiKeyId: string, from: string, to: string): Promise<DayTokenUsage[]> {
    const t = apiKeyTokenUsage;
    return this.db
      .select({
        day: t.day,
        inputTokens: t.inputTokens,
        outputTokens: t.outputTokens,
        requests: t.requests,
        rounds: t.rounds,
        ownedCalls: t.ownedCalls,
      })
      .from(t)
      .where(and(eq(t.apiKeyId, apiKeyId), gte(t.day, from), lte(t.day, to)))
      .orderBy(asc(t.day));
  }

  async budget(apiKeyId: string): Promise<number | null> {
    const [row] = await this.db
      .select({ dailyTokens: apiKeyTokenBudgets.dailyTokens })
      .from(apiKeyTokenBudgets)
      .where(eq(apiKeyTokenBudgets.apiKeyId, apiKeyId))
      .limit(1);
    return row?.dailyTokens ?? null;
  }

  async setBudget(apiKeyId: string, dailyTokens: number | null, at: number): Promise<void> {
    const b = apiKeyTokenBudgets;
    if (dailyTokens === null) {
      await this.db.delete(b).where(eq(b.apiKeyId, apiKeyId));
      return;
    }
    await this.db
      .insert(b)
      .values({ apiKeyId, dailyTokens, updatedAt: at })
      .onConflictDoUpdate({ target: b.apiKeyId, set: { dailyTokens, updatedAt: at } });
  }
}
