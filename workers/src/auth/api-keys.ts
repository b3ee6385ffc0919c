/**
 * API keys (docs/api.md#authentication): created by management, shown once, stored only as a
 * SHA-256 hash. Keys look like `sg_<43 base64url chars>` (256 bits of randomness).
 */
import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { Cache } from "../cache/types.js";
import type { Db } from "../db/client.js";
import { type ApiKeyRow, apiKeys } from "../db/schema.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.js";
import { iso } from "../skills/mappers.js";
import { randomToken, sha256Hex } from "./crypto.js";
import { normalizeScopes, parseStoredScopes, type Scope } from "./scopes.js";

/** Public view of a key (never the key itself nor its hash). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** What the key may do (docs/api.md#scopes). */
  scopes: Scope[];
}

/** An authenticated key: its id, name and scopes. */
export interface AuthenticatedKey {
  id: string;
  name: string;
  scopes: Scope[];
}

const KEY_PREFIX = "sg_";
/** Cached lookups by hash live this long (s); revocation is immediate on the revoking instance. */
const LOOKUP_TTL_S = 60;
/** `last_used_at` is written at most once per this many ms per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: iso(row.createdAt),
    lastUsedAt: row.lastUsedAt === null ? null : iso(row.lastUsedAt),
    expiresAt: row.expiresAt === null ? null : iso(row.expiresAt),
    revokedAt: row.revokedAt === null ? null : iso(row.revokedAt),
    scopes: parseStoredScopes(row.scopes),
  };
}

/** Creates, lists, revokes and authenticates API keys. */
export class ApiKeyService {
  constructor(
    private readonly db: Db,
    private readonly cache: Cache,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Creates a key. @param expiresAt optional expiry, ms since the epoch; it must lie in the
   * future (a key that is born expired could never authenticate).
   * @param scopes what the key may do; undefined = every scope (an empty list is allowed: a key
   *   that can only be listed and revoked).
   * @returns the key (shown only here) and its public view.
   * @throws InvalidInputError `invalid_input` (field `expiresAt`) when the expiry is not in the future.
   */
  async create(
    name: string,
    expiresAt: number | null,
    scopes?: readonly Scope[],
  ): Promise<{ key: string; apiKey: ApiKeyInfo }> {
    const now = this.clock();
    if (expiresAt !== null && !(expiresAt > now)) {
      const message = "expiresAt must be in the future";
      throw new InvalidInputError(`Invalid body: expiresAt (${message})`, [
        { field: "expiresAt", message },
      ]);
    }
    const key = KEY_PREFIX + randomToken(32);
    const [row] = await this.db
      .insert(apiKeys)
      .values({
        id: crypto.randomUUID(),
        name,
        keyHash: await sha256Hex(key),
        prefix: key.slice(0, 10),
        createdAt: now,
        expiresAt,
        scopes: JSON.stringify(normalizeScopes(scopes)),
      })
      .returning();
    return { key, apiKey: toInfo(row!) };
  }

  /**
   * A page of keys, newest first (revoked ones included, marked).
   * @param limit keys per page; @param offset keys to skip.
   * @returns the page and the total number of keys.
   */
  async list(limit: number, offset: number): Promise<{ data: ApiKeyInfo[]; total: number }> {
    const [rows, [counted]] = await Promise.all([
      this.db
        .select()
        .from(apiKeys)
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(apiKeys),
    ]);
    return { data: rows.map(toInfo), total: counted?.n ?? 0 };
  }

  /**
   * One key's public view. @throws NotFoundError `api_key_not_found` for an unknown id.
   */
  async get(id: string): Promise<ApiKeyInfo> {
    const [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
    if (!row) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    return toInfo(row);
  }

  /** True when `id` names an existing key that is not revoked. */
  async exists(id: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .limit(1);
    return row !== undefined;
  }

  /**
   * Revokes a key (it stops authenticating at once on this instance, within 60 s everywhere).
   * Revocation happens once: its time is never overwritten.
   * @returns the revoked key's public view, `revokedAt` set to now.
   * @throws NotFoundError `api_key_not_found` for an unknown id; ConflictError `already_revoked`
   *   (details: the key as it stands, with its original `revokedAt`) when it was revoked before.
   */
  async revoke(id: string): Promise<ApiKeyInfo> {
    const [row] = await this.db
      .update(apiKeys)
      .set({ revokedAt: this.clock() })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
      .returning();
    if (!row) {
      const [existing] = await this.db.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
      if (!existing) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
      const apiKey = toInfo(existing);
      throw new ConflictError(
        `API key ${id} was already revoked at ${apiKey.revokedAt}`,
        "already_revoked",
        { apiKey },
      );
    }
    await this.cache.delete(`apikey:${row.keyHash}`);
    return toInfo(row);
  }

  /**
   * Authenticates a presented key. @returns the key's id, name and scopes, or null when unknown,
   * revoked or expired.
   */
  async authenticate(key: string): Promise<AuthenticatedKey | null> {
    if (!key.startsWith(KEY_PREFIX)) return null;
    return this.authenticateHash(await sha256Hex(key));
  }

  /** Like {@link authenticate}, given the SHA-256 (hex) of the presented key. */
  async authenticateHash(hash: string): Promise<AuthenticatedKey | null> {
    const cacheKey = `apikey:${hash}`;
    let row = await this.cache.get<ApiKeyRow | null>(cacheKey);
    if (row === undefined) {
      [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.keyHash, hash)).limit(1);
      row ??= null;
      await this.cache.put(cacheKey, row, LOOKUP_TTL_S);
    }
    const now = this.clock();
    if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now))
      return null;
    if (row.lastUsedAt === null || now - row.lastUsedAt > LAST_USED_RESOLUTION_MS) {
      row.lastUsedAt = now;
      await this.db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
      await this.cache.put(cacheKey, row, LOOKUP_TTL_S);
    }
    return { id: row.id, name: row.name, scopes: parseStoredScopes(row.scopes) };
  }
}
