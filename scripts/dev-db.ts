/**
 * `npm run dev:db`: a local libSQL server over HTTP for `wrangler dev` (docs/deployment.md#running-the-worker-locally-wrangler-dev),
 * with no Turso CLI: the project's Hrana-over-HTTP server (the one the workerd tests use) on the
 * embedded `libsql` engine, serving `<DATA_DIR>/wrangler-dev.db` (default `.data/`) on
 * `127.0.0.1:<DEV_DB_PORT>` (default 8080). For development only: one process, one file, no
 * authentication unless `LIBSQL_AUTH_TOKEN` is set. Stops on Ctrl-C.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startHranaServer } from "../test/workerd/hrana-server.js";

async function main(): Promise<void> {
  const dataDir = process.env.DATA_DIR?.trim() || ".data";
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, "wrangler-dev.db");
  const port = Number(process.env.DEV_DB_PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`DEV_DB_PORT must be a port number, got "${process.env.DEV_DB_PORT}"`);
  const token = process.env.LIBSQL_AUTH_TOKEN?.trim() || undefined;
  const server = await startHranaServer({ path, port, ...(token ? { authToken: token } : {}) });
  console.log(`[skillgate] libSQL dev server for wrangler dev: ${server.url} (file ${path})`);
  console.log(`[skillgate] next: LIBSQL_URL=${server.url} npm run db:migrate`);
  const stop = () => {
    server.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err) => {
  console.error(`[skillgate] dev database failed to start: ${(err as Error).message}`);
  process.exit(1);
});
