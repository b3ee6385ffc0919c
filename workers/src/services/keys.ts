/**
 * API keys and the management token (docs/api.md#authentication): keys are created by
 * management, shown once, stored only as a SHA-256 hash, and look like `sg_<43 base64url chars>`
 * (256 bits of randomness). A bearer token is either the management token (compared in constant
 * time; when none is configured, management calls are refused — fail closed) or an API key.
 */

import { randomToken, sha256Hex, timingSafeEqualHex } from "../auth/crypto.js";
import type { Principal } from "../auth/principal.js";
import { normalizeScopes, parseStoredScopes, type Scope } from "../auth/scopes.js";
import type { Cache } from "../cache/types.js";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.js";
import { requireWebhookSecret } from "../skills/handlers/webhook-signing.js";
import { isRankerName, type RankerName } from "../skills/injection/rankers/index.js";
import { KeyMemo } from "./key-memo.js";
import {
  type ApiKeyInfo,
  type ApiKeyRecord,
  type ApiKeyRepository,
  type AuthenticatedKey,
  MAX_NAME_LOOKUP,
} from "./keys-types.js";
import { type Page, pageOf } from "./page.js";
import { requireWebhookUrl, shownWebhookUrl } from "./webhook-url.js";

function revokedError(id: string): ConflictError {
  return new ConflictError(
    `API key ${id} is revoked: its limits and approval webhook no longer change`,
    "api_key_revoked",
  );
}

export type {
  ApiKeyInfo,
  ApiKeyRecord,
  ApiKeyRepository,
  AuthenticatedKey,
} from "./keys-types.js";
export { MAX_NAME_LOOKUP } from "./keys-types.js";

const KEY_PREFIX = "sg_";
/** Cached lookups by hash live this long (s); revocation is immediate on the revoking instance. */
const LOOKUP_TTL_S = 60;
/** Presented tokens whose digest is remembered (the oldest entry leaves when full). */
const DIGEST_MEMO_SIZE = 1_024;
/** Longer tokens are hashed every time (a key is 46 chars; nothing valid is this long). */
const DIGEST_MEMO_MAX_CHARS = 256;
/** How long a key's ranker is remembered in process (ms). */
const RANKER_TTL_MS = 60_000;
/** Keys whose ranker is remembered at once. */
const RANKER_MEMO_SIZE = 10_000;
/** `last_used_at` is written at most once per this many ms per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toInfo(row: ApiKeyRecord): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUsedAt: isoOrNull(row.lastUsedAt),
    expiresAt: isoOrNull(row.expiresAt),
    revokedAt: isoOrNull(row.revokedAt),
    scopes: parseStoredScopes(row.scopes),
    approvalWebhookUrl: shownWebhookUrl(row.approvalWebhookUrl ?? null),
    approvalWebhookSecretSet: !!row.approvalWebhookSecret,
    ranker: isRankerName(row.ranker) ? row.ranker : null,
  };
}

/** Creates, lists, revokes and authenticates API keys; recognises the management token. */
export class ApiKeyService {
  private mgmtDigest: Promise<string> | undefined;
  /**
   * Token → SHA-256 hex of recently presented tokens. Web Crypto's digest is asynchronous (on
   * Node a thread-pool round trip, which costs milliseconds on a busy machine); the memo keeps
   * it off the path of every request. It holds only what requests already bring; the key's
   * record, revocation and expiry are still looked up by hash on every request.
   */
  private readonly digests = new Map<string, string>();

  /**
   * @param repository where keys are stored.
   * @param cache lookups by hash (60 s).
   * @param mgmtToken the configured management token; undefined refuses management calls.
   * @param clock ms clock.
   */
  constructor(
    private readonly repository: ApiKeyRepository,
    private readonly cache: Cache,
    private readonly mgmtToken: string | undefined,
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
    const row = await this.repository.insert({
      id: crypto.randomUUID(),
      name,
      keyHash: await sha256Hex(key),
      prefix: key.slice(0, 10),
      createdAt: now,
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
      scopes: JSON.stringify(normalizeScopes(scopes)),
    });
    return { key, apiKey: toInfo(row) };
  }

  /**
   * The names of the given keys, for pages that show a key (docs/dashboard.md): id → name; an
   * unknown id is absent. At most {@link MAX_NAME_LOOKUP} ids are looked up (the rest are absent).
   */
  async namesOf(ids: readonly (string | null)[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))].slice(
      0,
      MAX_NAME_LOOKUP,
    );
    if (wanted.length === 0) return new Map();
    const rows = await this.repository.names(wanted);
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /**
   * A page of keys, newest first (revoked ones included, marked).
   * @param page page number from 1; @param limit keys per page.
   */
  async list(page: number, limit: number): Promise<Page<ApiKeyInfo>> {
    const { rows, total } = await this.repository.list(limit, (page - 1) * limit);
    return pageOf(rows.map(toInfo), total, page, limit);
  }

  /** One key's public view. @throws NotFoundError `api_key_not_found` for an unknown id. */
  async get(id: string): Promise<ApiKeyInfo> {
    const row = await this.repository.get(id);
    if (!row) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    return toInfo(row);
  }

  /**
   * One key's public view, for a change of its settings (limits, approval webhook).
   * @throws NotFoundError `api_key_not_found`; ConflictError `api_key_revoked` when the key is
   *   revoked (its settings no longer change; docs/rate-limits.md, docs/approval-notifications.md).
   */
  async getChangeable(id: string): Promise<ApiKeyInfo> {
    const row = await this.repository.get(id);
    if (!row) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    if (row.revokedAt !== null) throw revokedError(id);
    return toInfo(row);
  }

  /**
   * Sets the key's approval webhook (docs/approval-notifications.md), or clears it with `url`
   * null. A URL needs a secret: the one given, else the one already stored; and it must pass the
   * outbound guard's literal rules (`requireWebhookUrl`).
   * @throws NotFoundError `api_key_not_found`; ConflictError `api_key_revoked`; InvalidInputError
   *   `invalid_webhook_url` | `invalid_webhook_secret` (nothing is stored).
   */
  async setApprovalWebhook(
    id: string,
    url: string | null,
    secret: string | undefined,
  ): Promise<ApiKeyInfo> {
    const current = await this.repository.get(id);
    if (!current) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    if (current.revokedAt !== null) throw revokedError(id);
    if (url !== null) await requireWebhookUrl(url, "url");
    const kept = secret ?? current.approvalWebhookSecret ?? null;
    if (url !== null) requireWebhookSecret(kept, "secret");
    const row = await this.repository.setApprovalWebhook(id, url, url === null ? null : kept);
    if (!row) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    return toInfo(row);
  }

  /**
   * Sets the ranker of the key's requests, or clears it with null (docs/scoring.md#choosing-a-ranker).
   * @throws NotFoundError `api_key_not_found`; ConflictError `api_key_revoked`.
   */
  async setRanker(id: string, ranker: RankerName | null): Promise<ApiKeyInfo> {
    const current = await this.repository.get(id);
    if (!current) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    if (current.revokedAt !== null) throw revokedError(id);
    const row = await this.repository.setRanker(id, ranker);
    if (!row) throw new NotFoundError(`API key ${id} not found`, "api_key_not_found");
    this.rankers.set(id, ranker);
    return toInfo(row);
  }

  /**
   * The ranker a key chose, null when none (or the key is unknown). Read through an in-process
   * memo of {@link RANKER_TTL_MS}: a change made on another instance is seen within that time.
   */
  async rankerOf(id: string): Promise<RankerName | null> {
    return this.rankers.get(id, async () => {
      const row = await this.repository.get(id);
      return isRankerName(row?.ranker) ? row.ranker : null;
    });
  }

  private readonly rankers = new KeyMemo<RankerName | null>(RANKER_TTL_MS, RANKER_MEMO_SIZE, () =>
    this.clock(),
  );

  /** The key's approval webhook with its secret (for delivery only); null when unset. */
  async approvalWebhook(id: string): Promise<{ url: string; secret: string } | null> {
    const row = await this.repository.get(id);
    if (!row?.approvalWebhookUrl || !row.approvalWebhookSecret) return null;
    return { url: row.approvalWebhookUrl, secret: row.approvalWebhookSecret };
  }

  /** True when `id` names an existing key that is not revoked. */
  exists(id: string): Promise<boolean> {
    return this.repository.isUnrevoked(id);
  }

  /**
   * Revokes a key (it stops authenticating at once on this instance, within 60 s everywhere).
   * Revocation happens once: its time is never overwritten.
   * @returns the revoked key's public view, `revokedAt` set to now.
   * @throws NotFoundError `api_key_not_found` for an unknown id; ConflictError `already_revoked`
   *   (details: the key as it stands, with its original `revokedAt`) when it was revoked before.
   */
  async revoke(id: string): Promise<ApiKeyInfo> {
    const row = await this.repository.revoke(id, this.clock());
    if (!row) {
      const existing = await this.repository.get(id);
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
   * Resolves the caller of a bearer token, or undefined when it matches nothing. The token is
   * hashed once: its SHA-256 is compared in constant time with the management token's, then used
   * to look the API key up by hash.
   */
  async authenticate(token: string): Promise<Principal | undefined> {
    const hash = await this.digestOf(token);
    if (this.mgmtToken) {
      this.mgmtDigest ??= sha256Hex(this.mgmtToken);
      if (timingSafeEqualHex(hash, await this.mgmtDigest)) return { kind: "management" };
    }
    if (!token.startsWith(KEY_PREFIX)) return undefined;
    const key = await this.authenticateHash(hash);
    return key ? { kind: "key", apiKeyId: key.id, name: key.name, scopes: key.scopes } : undefined;
  }

  /** SHA-256 (hex) of `token`, from the memo when it was presented recently. */
  private async digestOf(token: string): Promise<string> {
    const known = this.digests.get(token);
    if (known !== undefined) return known;
    const hash = await sha256Hex(token);
    if (token.length <= DIGEST_MEMO_MAX_CHARS) {
      if (this.digests.size >= DIGEST_MEMO_SIZE)
        this.digests.delete(this.digests.keys().next().value as string);
      this.digests.set(token, hash);
    }
    return hash;
  }

  /**
   * Authenticates an API key given the SHA-256 (hex) of the presented key. @returns the key's id,
   * name and scopes, or null when unknown, revoked or expired.
   */
  private async authenticateHash(hash: string): Promise<AuthenticatedKey | null> {
    const cacheKey = `apikey:${hash}`;
    let row = await this.cache.get<ApiKeyRecord | null>(cacheKey);
    if (row === undefined) {
      row = (await this.repository.findByHash(hash)) ?? null;
      await this.cache.put(cacheKey, row, LOOKUP_TTL_S);
    }
    const now = this.clock();
    if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now))
      return null;
    if (row.lastUsedAt === null || now - row.lastUsedAt > LAST_USED_RESOLUTION_MS) {
      row.lastUsedAt = now;
      await this.repository.touch(row.id, now);
      await this.cache.put(cacheKey, row, LOOKUP_TTL_S);
    }
    return { id: row.id, name: row.name, scopes: parseStoredScopes(row.scopes) };
  }
}
