/**
 * The `api_key_limits` and `api_key_usage` tables (docs/rate-limits.md): per-key overrides of the
 * execution limits, and each key's usage per UTC day. The daily budget is checked and reserved in
 * one conditional UPDATE, so concurrent callers on any number of instances never overspend it.
 */
import { and, eq, sql } from "drizzle-orm";
import type { LimitOverridesRepository } from "../../services/limits.js";
import type { DailyUsage, UsageStore } from "../../skills/execution/limits.js";
import type { Db } from "../client.js";
import { apiKeyLimits, apiKeyUsage } from "../schema.js";

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
    const reserve = opts.reserveMs ?? 0;
    if (!opts.count && opts.reserveMs === null) return true;
    await this.db.insert(apiKeyUsage).values({ apiKeyId, day }).onConflictDoNothing();
    const within =
      opts.budgetMs === null
        ? sql`1 = 1`
        : sql`${apiKeyUsage.sandboxMs} + ${apiKeyUsage.reservedMs} + ${reserve} <= ${opts.budgetMs}`;
    const rows = await this.db
      .update(apiKeyUsage)
      .set({
        executions: sql`${apiKeyUsage.executions} + ${opts.count ? 1 : 0}`,
        sandboxRuns: sql`${apiKeyUsage.sandboxRuns} + ${opts.reserveMs === null ? 0 : 1}`,
        reservedMs: sql`${apiKeyUsage.reservedMs} + ${reserve}`,
      })
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

  async usage(apiKeyId: string, day: string): Promise<DailyUsage> {
    const [row] = await this.db
      .select({
        executions: apiKeyUsage.executions,
        sandboxRuns: apiKeyUsage.sandboxRuns,
        sandboxMs: apiKeyUsage.sandboxMs,
        reservedMs: apiKeyUsage.reservedMs,
      })
      .from(apiKeyUsage)
      .where(and(eq(apiKeyUsage.apiKeyId, apiKeyId), eq(apiKeyUsage.day, day)))
      .limit(1);
    return row ?? { executions: 0, sandboxRuns: 0, sandboxMs: 0, reservedMs: 0 };
  }
}
