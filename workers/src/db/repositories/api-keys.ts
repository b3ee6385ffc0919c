/**
 * The `api_keys` table behind the {@link ApiKeyRepository} of the keys service (drizzle over
 * libSQL). Only the SHA-256 hash of a key is stored, never the key.
 */
import { and, count, desc, eq, inArray, isNull } from "drizzle-orm";
import type { ApiKeyRecord, ApiKeyRepository } from "../../services/keys-types.js";
import type { Db } from "../client.js";
import { apiKeys } from "../schema.js";

/** Drizzle implementation of {@link ApiKeyRepository}. */
export class DrizzleApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Db) {}

  async insert(record: ApiKeyRecord): Promise<ApiKeyRecord> {
    const [row] = await this.db.insert(apiKeys).values(record).returning();
    return row!;
  }

  async list(limit: number, offset: number): Promise<{ rows: ApiKeyRecord[]; total: number }> {
    const [rows, [counted]] = await Promise.all([
      this.db
        .select()
        .from(apiKeys)
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(apiKeys),
    ]);
    return { rows, total: counted?.n ?? 0 };
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
    return row;
  }

  async names(ids: readonly string[]): Promise<{ id: string; name: string }[]> {
    if (ids.length === 0) return [];
    return this.db
      .select({ id: apiKeys.id, name: apiKeys.name })
      .from(apiKeys)
      .where(inArray(apiKeys.id, [...ids]));
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
    return row;
  }

  async isUnrevoked(id: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .limit(1);
    return row !== undefined;
  }

  async revoke(id: string, at: number): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning();
    return row;
  }

  async setApprovalWebhook(
    id: string,
    url: string | null,
    secret: string | null,
  ): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db
      .update(apiKeys)
      .set({ approvalWebhookUrl: url, approvalWebhookSecret: secret })
      .where(eq(apiKeys.id, id))
      .returning();
    return row;
  }

  async setRanker(id: string, ranker: string | null): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db
      .update(apiKeys)
      .set({ ranker })
      .where(eq(apiKeys.id, id))
      .returning();
    return row;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
  }
}
