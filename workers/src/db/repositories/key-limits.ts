/**
 * The `api_key_limits` and `api_key_usage` tables (docs/rate-limits.md): per-key overrides of the
 * execution limits, and each key's usage per UTC day. The daily budget is checked and reserved in
 * one conditional UPDATE, so concurrent callers on any number of instances never overspend it.
 */
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { LimitOverridesRepository } from "../../services/limits.js";
import type { DailyUsage, UsageStore } from "../../skills/execution/limits.js";
import type { Db } from "../client.js";
import { apiKeyLimits, apiKeyUsage, skillExecutions } from "../schema.js";

/** Drizzle implementation of {@link LimitOverridesRepository}. */
export class DrizzleLimitOverridesRepository implements LimitOverridesRepository {
  constructor(private readonly db: Db) {}

  async get(apiKeyId: string): Promise<string | undefined> {
    const [row] = await this.db
      .select({ limits: apiKeyLimits.limits })
      .from(apiKeyLimits)
      .where(eq(apiKeyLimits.apiKeyId, apiKeyId))
      .limit(1);
    return row?.limits;
  }

  async put(apiKeyId: string, limits: string, at: number): Promise<void> {
    await this.db
      .insert(apiKeyLimits)
      .values({ apiKeyId, limits, updatedAt: at })
      .onConflictDoUpdate({ target: apiKeyLimits.apiKeyId, set: { limits, updatedAt: at } });
  }
}

/** Drizzle implementation of {@link UsageStore}. */
export class DrizzleUsageStore implements UsageStore {
  constructor(private readonly db: Db) {}

  async admit(
    apiKeyId: string,
    day: string,
    opts: { count: boolean; reserveMs: number | null; budgetMs: number | null },
  ): Promise<boolean> {
    // Only sandbox runs touch the table: executions of the day are counted from their own rows
    // (see usage()), so an execution that is not a sandbox run costs no write here.
    if (opts.reserveMs === null) return true;
    const reserve = opts.reserveMs;
    await this.db.insert(apiKeyUsage).values({ apiKeyId, day }).onConflictDoNothing();
    const within =
      opts.budgetMs === null
        ? sql`1 = 1`
        : sql`${apiKeyUsage.sandboxMs} + ${apiKeyUsage.reservedMs} + ${reserve} <= ${opts.budgetMs}`;
    const rows = await this.db
      .update(apiKeyUsage)
      .set({
        sandboxRuns: sql`${apiKeyUsage.sandboxRuns} + 1`,
        reservedMs: sql`${apiKeyUsage.reservedMs} + ${reserve}`,
      })
      .where(and(eq(apiKeyUsage.apiKeyId, apiKeyId), eq(apiKeyUsage.day, day), within))
      .returning({ day: apiKeyUsage.day });
    return rows.length === 1;
  }

  async reserve(
    apiKeyId: string,
    day: string,
    reserveMs: number,
    budgetMs: number | null,
  ): Promise<boolean> {
    const within =
      budgetMs === null
        ? sql`1 = 1`
        : sql`${apiKeyUsage.sandboxMs} + ${apiKeyUsage.reservedMs} + ${reserveMs} <= ${budgetMs}`;
    const rows = await this.db
      .update(apiKeyUsage)
      .set({ reservedMs: sql`${apiKeyUsage.reservedMs} + ${reserveMs}` })
      .where(and(eq(apiKeyUsage.apiKeyId, apiKeyId), eq(apiKeyUsage.day, day), within))
      .returning({ day: apiKeyUsage.day });
    return rows.length === 1;
  }

  async settle(apiKeyId: string, day: string, reservedMs: number, actualMs: number): Promise<void> {
    await this.db
      .update(apiKeyUsage)
      .set({
        reservedMs: sql`max(0, ${apiKeyUsage.reservedMs} - ${reservedMs})`,
        sandboxMs: sql`${apiKeyUsage.sandboxMs} + ${Math.round(actualMs)}`,
      })
      .where(and(eq(apiKeyUsage.apiKeyId, apiKeyId), eq(apiKeyUsage.day, day)));
  }

  /**
   * Usage of `apiKeyId` on `day` (`YYYY-MM-DD`, UTC): sandbox figures from `api_key_usage`, and
   * executions counted from `skill_executions` created that day (an index range on
   * (api_key_id, created_at)), so that counting them costs no write per execution.
   */
  async usage(apiKeyId: string, day: string): Promise<DailyUsage> {
    const start = Date.parse(`${day}T00:00:00Z`);
    const end = start + 86_400_000;
    const [[row], [counted]] = await Promise.all([
      this.db
        .select({
          sandboxRuns: apiKeyUsage.sandboxRuns,
          sandboxMs: apiKeyUsage.sandboxMs,
          reservedMs: apiKeyUsage.reservedMs,
        })
        .from(apiKeyUsage)
        .where(and(eq(apiKeyUsage.apiKeyId, apiKeyId), eq(apiKeyUsage.day, day)))
        .limit(1),
      this.db
        .select({ n: sql<number>`count(*)` })
        .from(skillExecutions)
        .where(
          and(
            eq(skillExecutions.apiKeyId, apiKeyId),
            gte(skillExecutions.createdAt, start),
            lt(skillExecutions.createdAt, end),
          ),
        ),
    ]);
    return {
      executions: Number(counted?.n ?? 0),
      sandboxRuns: row?.sandboxRuns ?? 0,
      sandboxMs: row?.sandboxMs ?? 0,
      reservedMs: row?.reservedMs ?? 0,
    };
  }
}
