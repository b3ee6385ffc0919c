/**
 * `npm run db:migrate`: applies the migrations in `migrations/` to the libSQL/Turso database at
 * `LIBSQL_URL` (with `LIBSQL_AUTH_TOKEN`), e.g. before `wrangler deploy`. Without `LIBSQL_URL`
 * it migrates the local embedded database (`<DATA_DIR>/skillgate.db`).
 */
import { mkdirSync } from "node:fs";
import { createDb } from "../workers/src/db/client.js";
import { openNodeDatabase } from "../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../workers/src/runtime/node/migrate.js";
import { databaseOptions, nodeSettings } from "../workers/src/runtime/node/node-deps.js";

async function main(): Promise<void> {
  const settings = nodeSettings(process.env);
  if (settings.libsqlUrl.startsWith("file:")) mkdirSync(settings.dataDir, { recursive: true });
  const client = await openNodeDatabase(settings.libsqlUrl, databaseOptions(settings));
  try {
    await applyMigrations(createDb(client));
    const where = settings.libsqlUrl.startsWith("file:")
      ? settings.libsqlUrl
      : new URL(settings.libsqlUrl).host;
    console.log(`[skillgate] migrations applied to ${where}`);
  } finally {
    client.close();
  }
}

main().catch((err) => {
  console.error("[skillgate] migration failed:", err instanceof Error ? err.message : err);
  process.exit(1);
});
