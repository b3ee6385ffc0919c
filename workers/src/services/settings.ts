/**
 * Product settings (docs/configuration.md#settings-stored-not-configured; `GET/PUT /api/settings`),
 * stored one JSON value per key and read through the KV-style cache (invalidated on write).
 */
import type { Cache } from "../cache/types.js";
import type { CatalogId } from "../catalogs/types.js";
import { type ExecutionLimits, NO_LIMITS } from "../skills/execution/limits.js";
import { requireWebhookSecret } from "../skills/handlers/webhook-signing.js";
import {
  DEFAULT_RANKER,
  isRankerName,
  type RankerName,
} from "../skills/injection/rankers/index.js";
import { requireWebhookUrl, shownWebhookUrl } from "./webhook-url.js";

/** Settings with their types. */
export interface Settings {
  /** Master switch: false blocks every execution (docs/policies.md#the-master-switch). */
  skillsEnabled: boolean;
  /**
   * The catalog installs come from (docs/catalogs.md#installing); the API calls it
   * `activeProvider`.
   */
  activeCatalog: CatalogId;
  /** SkillsMP API key; write-only through the API (reads show only whether it is set). */
  skillsmpApiKey: string | null;
  /** Limits of every key that does not override them (docs/rate-limits.md); null = no limit. */
  defaultLimits: ExecutionLimits;
  /** Global approval-notification URL (docs/approval-notifications.md); a key's own wins. */
  approvalWebhookUrl: string | null;
  /** Its Standard Webhooks secret (`whsec_...`); write-only through the API. */
  approvalWebhookSecret: string | null;
  /**
   * Custom skill execution: false → only builtins run, at every front door (interception, the
   * proxy, MCP `tools/call`, explicit executions and approvals; docs/configuration.md#custom-skill-execution).
   */
  customSkillExecution: boolean;
  /** The ranker of AUTO selection for requests and keys that choose none (docs/scoring.md). */
  ranker: RankerName;
}

/** Storage of settings: one JSON text per key (the drizzle implementation is in `db/repositories/settings.ts`). */
export interface SettingsRepository {
  /** Every stored key and its JSON text. */
  all(): Promise<Record<string, string>>;
  /** Writes (inserts or replaces) the given keys. @param at ms since the epoch. */
  put(values: Record<string, string>, at: number): Promise<void>;
}

/** Defaults of a fresh install. */
export const DEFAULT_SETTINGS: Settings = {
  skillsEnabled: true,
  activeCatalog: "skillsmp",
  skillsmpApiKey: null,
  defaultLimits: NO_LIMITS,
  approvalWebhookUrl: null,
  approvalWebhookSecret: null,
  customSkillExecution: true,
  ranker: DEFAULT_RANKER,
};

/** Stored key of each setting (the stored names are the API's). */
const STORED_KEY: Record<keyof Settings, string> = {
  skillsEnabled: "skillsEnabled",
  activeCatalog: "activeProvider",
  skillsmpApiKey: "skillsmpApiKey",
  defaultLimits: "defaultLimits",
  approvalWebhookUrl: "approvalWebhookUrl",
  approvalWebhookSecret: "approvalWebhookSecret",
  customSkillExecution: "customSkillExecution",
  ranker: "ranker",
};

const CACHE_KEY = "settings:v4";
const CACHE_TTL_S = 60;

/** Settings as the API shows them: secrets replaced by a flag. */
export interface PublicSettings {
  skillsEnabled: boolean;
  activeProvider: CatalogId;
  skillsmpApiKeySet: boolean;
  defaultLimits: ExecutionLimits;
  approvalWebhookUrl: string | null;
  approvalWebhookSecretSet: boolean;
  customSkillExecution: boolean;
  ranker: RankerName;
}

/** A change as the API takes it (`PUT /api/settings`). */
export interface SettingsChange {
  skillsEnabled?: boolean;
  activeProvider?: CatalogId;
  skillsmpApiKey?: string | null;
  /** Default limits to change; fields left out keep their value, null = no limit. */
  defaultLimits?: Partial<ExecutionLimits>;
  approvalWebhookUrl?: string | null;
  approvalWebhookSecret?: string | null;
  customSkillExecution?: boolean;
  ranker?: RankerName;
}

/** Reads and writes settings. */
export class SettingsService {
  private memo: { value: Settings; expiresAt: number } | null = null;

  constructor(
    private readonly repository: SettingsRepository,
    private readonly cache: Cache,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Current settings (defaults for unset keys). Cached for 60 s; writes invalidate. */
  async get(): Promise<Settings> {
    const now = this.clock();
    if (this.memo && this.memo.expiresAt > now) return this.memo.value;
    let value = await this.cache.get<Settings>(CACHE_KEY);
    if (!value) {
      const stored = await this.repository.all();
      const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
      for (const [name, key] of Object.entries(STORED_KEY)) {
        const text = stored[key];
        if (text === undefined) continue;
        try {
          merged[name] = JSON.parse(text);
        } catch {
          // A hand-edited, unparsable value falls back to the default.
        }
      }
      // A hand-edited ranker that names none falls back to the default.
      if (!isRankerName(merged.ranker)) merged.ranker = DEFAULT_RANKER;
      value = merged as unknown as Settings;
      await this.cache.put(CACHE_KEY, value, CACHE_TTL_S);
    }
    this.memo = { value, expiresAt: now + 5_000 };
    return value;
  }

  /** Writes the given settings. @returns the new settings. */
  async update(patch: Partial<Settings>): Promise<Settings> {
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      values[STORED_KEY[name as keyof Settings]] = JSON.stringify(value);
    }
    await this.repository.put(values, this.clock());
    await this.invalidate();
    return this.get();
  }

  /** The API view of the settings. */
  async getPublic(): Promise<PublicSettings> {
    return toPublic(await this.get());
  }

  /** Applies a change as the API names it. @returns the API view of the new settings. */
  async change(change: SettingsChange): Promise<PublicSettings> {
    const { activeProvider, defaultLimits, ...rest } = change;
    if (change.approvalWebhookUrl) {
      await requireWebhookUrl(change.approvalWebhookUrl, "approvalWebhookUrl");
      const secret =
        change.approvalWebhookSecret !== undefined
          ? change.approvalWebhookSecret
          : (await this.get()).approvalWebhookSecret;
      requireWebhookSecret(secret, "approvalWebhookSecret");
    }
    const limits = defaultLimits
      ? { ...NO_LIMITS, ...(await this.get()).defaultLimits, ...defaultLimits }
      : undefined;
    // Clearing the URL clears its secret too, as for a key's own webhook.
    if (change.approvalWebhookUrl === null) rest.approvalWebhookSecret = null;
    return toPublic(
      await this.update({ ...rest, activeCatalog: activeProvider, defaultLimits: limits }),
    );
  }

  /** Drops cached settings (after a write, or after editing the table by hand). */
  async invalidate(): Promise<void> {
    this.memo = null;
    await this.cache.delete(CACHE_KEY);
  }
}

/** The API view of `s`. */
function toPublic(s: Settings): PublicSettings {
  return {
    skillsEnabled: s.skillsEnabled,
    activeProvider: s.activeCatalog,
    skillsmpApiKeySet: !!s.skillsmpApiKey,
    defaultLimits: { ...NO_LIMITS, ...s.defaultLimits },
    approvalWebhookUrl: shownWebhookUrl(s.approvalWebhookUrl),
    approvalWebhookSecretSet: !!s.approvalWebhookSecret,
    customSkillExecution: s.customSkillExecution,
    ranker: s.ranker,
  };
}
