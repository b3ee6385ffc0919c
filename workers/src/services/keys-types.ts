/**
 * Shapes of API keys (docs/api.md#authentication): the stored record and its storage port, the
 * public view, and an authenticated key. The service is keys.ts.
 */
import type { Scope } from "../auth/scopes.js";
import type { RankerName } from "../skills/injection/rankers/index.js";

/** A stored key (never the key itself). Times in ms since the epoch. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** SHA-256 (hex) of the key. */
  keyHash: string;
  /** First characters of the key, for operators to recognise it. */
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /** The key's scopes as stored: a JSON array of scope names (docs/api.md#scopes). */
  scopes: string;
  /** Approval-notification URL of the key's executions (docs/approval-notifications.md). */
  approvalWebhookUrl?: string | null;
  /** Its Standard Webhooks secret; never part of {@link ApiKeyInfo}. */
  approvalWebhookSecret?: string | null;
  /** The ranker of the key's requests (docs/scoring.md#choosing-a-ranker); null = the setting. */
  ranker?: string | null;
}

/** Most key ids one {@link ApiKeyService.namesOf} call looks up (a page shows at most a few hundred). */
export const MAX_NAME_LOOKUP = 500;

/** Storage of API keys (the drizzle implementation is in `db/repositories/api-keys.ts`). */
export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<ApiKeyRecord>;
  /** A page of keys, newest first, and the total number of keys. */
  list(limit: number, offset: number): Promise<{ rows: ApiKeyRecord[]; total: number }>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** True when `id` names a key that is not revoked. */
  isUnrevoked(id: string): Promise<boolean>;
  /** Sets `revokedAt` unless the key is already revoked. @returns the revoked key, else undefined. */
  revoke(id: string, at: number): Promise<ApiKeyRecord | undefined>;
  /** Sets `lastUsedAt`. */
  touch(id: string, at: number): Promise<void>;
  /** Sets (or, with nulls, clears) the approval webhook. @returns the key, undefined if unknown. */
  setApprovalWebhook(
    id: string,
    url: string | null,
    secret: string | null,
  ): Promise<ApiKeyRecord | undefined>;
  /** Sets (or, with null, clears) the key's ranker. @returns the key, undefined if unknown. */
  setRanker(id: string, ranker: string | null): Promise<ApiKeyRecord | undefined>;
  /** The names of the keys among `ids` that exist (unknown ids are left out). */
  names(ids: readonly string[]): Promise<{ id: string; name: string }[]>;
}

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
  /** Where approval notifications of the key's executions go; null = the global setting. */
  approvalWebhookUrl: string | null;
  /** Whether its signing secret is set (the secret itself is write-only). */
  approvalWebhookSecretSet: boolean;
  /** The ranker of the key's requests; null = the `ranker` setting (docs/scoring.md). */
  ranker: RankerName | null;
}

/** An authenticated key: its id, name and scopes. */
export interface AuthenticatedKey {
  id: string;
  name: string;
  scopes: Scope[];
}
