/**
 * Product settings (docs/configuration.md#settings-stored-not-configured; `GET/PUT /api/settings`),
 * stored in the `settings` table and read through the KV-style cache (invalidated on write).
 */
import { eq } from "drizzle-orm";
import type { Cache } from "../cache/types.js";
import type { Db } from "../db/client.js";
import { settings } from "../db/schema.js";

/** Settings with their types. */
export interface Settings {
  /** Master switch: false blocks every execution (docs/policies.md#the-master-switch). */
  skillsEnabled: boolean;
  /** Which catalog installs come from (docs/catalogs.md#installing). */
  activeProvider: "skillsmp" | "skillssh";
  /** SkillsMP API key; write-only through the API (reads show only whether it is set). */
  skillsmpApiKey: string | null;
}

/** Defaults of a fresh install. */
export const DEFAULT_SETTINGS: Settings = {
  skillsEnabled: true,
  activeProvider: "skillsmp",
  skillsmpApiKey: null,
};

const CACHE_KEY = "settings:v1";
const CACHE_TTL_S = 60;

/** Settings as the API shows them: secrets replaced by a flag. */
export interface PublicSettings {
  skillsEnabled: boolean;
  activeProvider: Settings["activeProvider"];
  skillsmpApiKeySet: boolean;
}

/** Reads and writes settings. */
export class SettingsService {
  private memo: { value: Settings; expiresAt: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly cache: Cache,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Current settings (defaults for unset keys). Cached for 60 s; writes invalidate. */
  async get(): Promise<Settings> {
    const now = this.clock();
    if (this.memo && this.memo.expiresAt > now) return this.memo.value;
    let value = await this.cache.get<Settings>(CACHE_KEY);
    if (!value) {
      const rows = await this.db.select().from(settings);
      const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
      for (const row of rows) {
        if (row.key in DEFAULT_SETTINGS) {
          try {
            merged[row.key] = JSON.parse(row.value);
          } catch {
            // A hand-edited, unparsable value falls back to the default.
          }
        }
      }
      value = merged as unknown as Settings;
      await this.cache.put(CACHE_KEY, value, CACHE_TTL_S);
    }
    this.memo = { value, expiresAt: now + 5_000 };
    return value;
  }

  /** Writes the given settings. @returns the new settings. */
  async update(patch: Partial<Settings>): Promise<Settings> {
    const now = this.clock();
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      await this.db
        .insert(settings)
        .values({ key, value: JSON.stringify(value), updatedAt: now })
        .onConflictDoUpdate({
          target: settings.key,
          set: { value: JSON.stringify(value), updatedAt: now },
        });
    }
    await this.invalidate();
    return this.get();
  }

  /** Drops cached settings (after a write, or after editing the table by hand). */
  async invalidate(): Promise<void> {
    this.memo = null;
    await this.cache.delete(CACHE_KEY);
  }

  /** The API view of `s`. */
  static toPublic(s: Settings): PublicSettings {
    return {
      skillsEnabled: s.skillsEnabled,
      activeProvider: s.activeProvider,
      skillsmpApiKeySet: !!s.skillsmpApiKey,
    };
  }
}

/** Removes a row (used by tests and operators resetting a key to its default). */
export async function deleteSetting(db: Db, key: string): Promise<void> {
  await db.delete(settings).where(eq(settings.key, key));
}
