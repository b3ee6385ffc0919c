/**
 * `npm run db:migrate`: applies the migrations in `migrations/` to the libSQL/Turso database at
 * `LIBSQL_URL` (with `LIBSQL_AUTH_TOKEN`), e.g. before `wrangler deploy`. Without `LIBSQL_URL`
 * it migrates the local embedded database (`<DATA_DIR>/skillgate.db`).
 */
import { mkdirSync } from "node:fs";
import { describeDatabaseError } from "../workers/src/database-error.js";
import { createDb } from "../workers/src/db/client.js";
import { openNodeDatabase } from "../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../workers/src/runtime/node/migrate.js";
import { databaseOptions, nodeSettings } from "../workers/src/runtime/node/node-deps.js";

/** Where the database is, for messages: the file, or the host of a URL (never its credentials). */
function whereOf(url: string): string {
  if (url.startsWith("file:") || url === ":memory:") return url;
  try {
    return new URL(url).host;
  } catch {
    return "the database";
  }
}

async function main(): Promise<void> {
  const settings = nodeSettings(process.env);
  const where = whereOf(settings.libsqlUrl);
  if (settings.libsqlUrl.startsWith("file:")) mkdirSync(settings.dataDir, { recursive: true });
  let client: Awaited<ReturnType<typeof openNodeDatabase>> | undefined;
  try {
    // Opening a server database already asks it once (the token check): its failure is told alike.
    client = await openNodeDatabase(settings.libsqlUrl, databaseOptions(settings));
    await applyMigrations(createDb(client));
    console.log(`[skillgate] migrations applied to ${where}`);
  } catch (err) {
    // One line naming the cause (docs/deployment.md), never the SQL of the failed statement.
    console.error(`[skillgate] migration of ${where} failed: ${describeDatabaseError(err, where)}`);
    process.exitCode = 1;
  } finally {
    client?.close();
  }
}

main().catch((err) => {
  console.error(`[skillgate] migration failed: ${describeDatabaseError(err)}`);
  process.exit(1);
});
