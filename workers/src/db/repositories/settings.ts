/**
 * The `settings` table behind the {@link SettingsRepository} of the settings service (drizzle
 * over libSQL): one JSON text per key.
 */
import type { SettingsRepository } from "../../services/settings.js";
import type { Db } from "../client.js";
import { settings } from "../schema.js";

/** Drizzle implementation of {@link SettingsRepository}. */
export class DrizzleSettingsRepository implements SettingsRepository {
  constructor(private readonly db: Db) {}

  async all(): Promise<Record<string, string>> {
    const rows = await this.db.select().from(settings);
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async put(values: Record<string, string>, at: number): Promise<void> {
    for (const [key, value] of Object.entries(values)) {
      await this.db
        .insert(settings)
        .values({ key, value, updatedAt: at })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: at } });
    }
  }
}
