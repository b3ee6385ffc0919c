/**
 * Applies the SQL migrations in `migrations/` to a libSQL database (Node only: reads the folder
 * from disk). Used by the local server at start-up, by `npm run db:migrate` for a remote
 * libSQL/Turso URL, and by tests.
 */
import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/libsql/migrator";
import type { Db } from "../../db/client.js";

/** Absolute path of the repository's `migrations/` folder. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../../../migrations", import.meta.url));

/** Applies every pending migration (idempotent; drizzle records applied ones in `__drizzle_migrations`). */
export async function applyMigrations(db: Db): Promise<void> {
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
