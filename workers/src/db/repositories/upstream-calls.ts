/**
 * The `upstream_calls` table behind {@link RoutingHistoryRepository} (drizzle over libSQL;
 * docs/a2a.md#memory_aware_routing). A key sees only its own history.
 */
import { and, desc, eq, gte, isNull, sql } from "drizzle-orm";
import {
  type ErrorClass,
  MAX_CALLS_READ,
  type RecordedCall,
  type RoutingHistoryRepository,
  type UpstreamCall,
} from "../../routing/history.js";
import type { Db } from "../client.js";
import { upstreamCalls } from "../schema.js";
import { bindTemplate, compileTemplate, type StatementTemplate } from "../write-batcher.js";

const COLUMNS = [
  "id",
  "apiKeyId",
  "provider",
  "model",
  "status",
  "errorClass",
  "latencyMs",
  "task",
  "createdAt",
] as const;

/** Drizzle implementation of {@link RoutingHistoryRepository}. */
export class DrizzleRoutingHistoryRepository implements RoutingHistoryRepository {
  /** One row's insert, compiled once: a window of observations binds it per row. */
  private readonly insertTpl: StatementTemplate;

  constructor(
    private readonly db: Db,
    private readonly clock: () => number = Date.now,
  ) {
    const values = Object.fromEntries(COLUMNS.map((k) => [k, sql.placeholder(k)]));
    this.insertTpl = compileTemplate(
      db.insert(upstreamCalls).values(values as unknown as typeof upstreamCalls.$inferInsert),
    );
  }

  /**
   * Records calls of `apiKeyId` (null = management), one bound row insert each, in one
   * transaction. @returns the ids written.
   */
  async record(apiKeyId: string | null, calls: readonly UpstreamCall[]): Promise<string[]> {
    if (calls.length === 0) return [];
    const now = this.clock();
    const rows = calls.map((c) => ({
      id: crypto.randomUUID(),
      apiKeyId,
      provider: c.provider,
      model: c.model,
      status: c.status,
      errorClass: c.status === "error" ? (c.errorClass ?? "other") : null,
      latencyMs: Math.max(0, Math.round(c.latencyMs)),
      task: c.task ?? null,
      createdAt: c.at ?? now,
    }));
    await this.db.$client.batch(
      rows.map((r) => bindTemplate(this.insertTpl, r)),
      "write",
    );
    return rows.map((r) => r.id);
  }

  /**
   * The calls of `apiKeyId` in the last `windowMs`, oldest first (the newest
   * {@link MAX_CALLS_READ} when there are more).
   */
  async recent(apiKeyId: string | null, windowMs: number): Promise<RecordedCall[]> {
    const since = this.clock() - windowMs;
    const rows = await this.db
      .select()
      .from(upstreamCalls)
      .where(
        and(
          apiKeyId === null ? isNull(upstreamCalls.apiKeyId) : eq(upstreamCalls.apiKeyId, apiKeyId),
          gte(upstreamCalls.createdAt, since),
        ),
      )
      .orderBy(desc(upstreamCalls.createdAt))
      .limit(MAX_CALLS_READ);
    return rows.reverse().map((r) => ({
      id: r.id,
      provider: r.provider,
      model: r.model,
      status: r.status,
      errorClass: (r.errorClass as ErrorClass | null) ?? null,
      latencyMs: r.latencyMs,
      task: r.task,
      createdAt: r.createdAt,
    }));
  }
}
