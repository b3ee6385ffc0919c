/**
 * Builds {@link AppDeps} for the local Node server from environment variables: an embedded libSQL
 * file under `DATA_DIR` (or any libSQL server via `LIBSQL_URL`), the in-process TTL cache, and
 * the sandbox host client when `SANDBOX_URL` and `SANDBOX_SECRET` are set.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { Client } from "@libsql/client";
import { MemoryCache } from "../../cache/memory-cache.js";
import { type Config, parseConfig } from "../../config.js";
import { createDb, type Db } from "../../db/client.js";
import type { AppDeps } from "../../deps.js";
import { sandboxClientFromConfig } from "../../sandbox/client.js";
import { openNodeDatabase, type SynchronousLevel } from "./embedded-db.js";
import { applyMigrations } from "./migrate.js";
import { createNodeOutbound } from "./outbound.js";
import { fileStorageProbe } from "./storage.js";
import { createNodeUpstreamFetch } from "./upstream-fetch.js";

/** Local-only settings (not part of the Worker's configuration). */
export interface NodeSettings {
  /** Listen port (default 20128). */
  port: number;
  /** Listen address (default 127.0.0.1). */
  host: string;
  /** Data folder (default `.data`). */
  dataDir: string;
  /** libSQL URL (default `file:<dataDir>/skillgate.db`). */
  libsqlUrl: string;
  /** Token of the libSQL server (`LIBSQL_AUTH_TOKEN`): of `libsqlUrl`, or of `libsqlSyncUrl`. */
  libsqlAuthToken: string | undefined;
  /** Server an embedded file replicates (`LIBSQL_SYNC_URL`, libSQL embedded replica). */
  libsqlSyncUrl: string | undefined;
  /** Key the embedded file is encrypted with (`LIBSQL_ENCRYPTION_KEY`). */
  libsqlEncryptionKey: string | undefined;
  /** Commit durability of the embedded database (`LIBSQL_SYNCHRONOUS`, default `normal`). */
  synchronous: SynchronousLevel;
}

/**
 * Creates `dir` (and parents) readable only by its owner, and narrows an existing one to 0700:
 * the data folder holds the database (settings such as the SkillsMP key) and generated secrets.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Reads the Node-only settings from `env`. */
export function nodeSettings(env: NodeJS.ProcessEnv): NodeSettings {
  const dataDir = resolve(env.DATA_DIR?.trim() || ".data");
  const port = Number(env.PORT ?? 20128);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  const synchronous = (env.LIBSQL_SYNCHRONOUS?.trim().toLowerCase() ||
    "normal") as SynchronousLevel;
  if (synchronous !== "normal" && synchronous !== "full")
    throw new Error(
      `LIBSQL_SYNCHRONOUS must be "normal" or "full", got "${env.LIBSQL_SYNCHRONOUS}"`,
    );
  return {
    port,
    host: env.HOST?.trim() || "127.0.0.1",
    dataDir,
    libsqlUrl: env.LIBSQL_URL?.trim() || `file:${resolve(dataDir, "skillgate.db")}`,
    libsqlAuthToken: env.LIBSQL_AUTH_TOKEN?.trim() || undefined,
    libsqlSyncUrl: env.LIBSQL_SYNC_URL?.trim() || undefined,
    libsqlEncryptionKey: env.LIBSQL_ENCRYPTION_KEY || undefined,
    synchronous,
  };
}

/** The options {@link openNodeDatabase} takes from the Node settings. */
export function databaseOptions(settings: NodeSettings) {
  return {
    synchronous: settings.synchronous,
    authToken: settings.libsqlAuthToken,
    syncUrl: settings.libsqlSyncUrl,
    encryptionKey: settings.libsqlEncryptionKey,
  };
}

/**
 * Opens the database (creating the data folder for a file URL; an embedded one with the server
 * settings of runtime/node/embedded-db.ts), applies migrations and builds the deps. @returns the deps and the libSQL client (to close on shutdown).
 */
export async function createNodeDeps(
  env: NodeJS.ProcessEnv,
  settings: NodeSettings,
  overrides: Partial<AppDeps> = {},
): Promise<{ deps: AppDeps; client: Client; db: Db; config: Config }> {
  const config = parseConfig(env);
  if (settings.libsqlUrl.startsWith("file:")) ensurePrivateDir(settings.dataDir);
  const client = await openNodeDatabase(settings.libsqlUrl, databaseOptions(settings));
  const db = createDb(client);
  await applyMigrations(db);
  const sandbox = sandboxClientFromConfig(config);
  const deps: AppDeps = {
    db,
    cache: new MemoryCache(),
    config,
    clock: Date.now,
    sandbox,
    fetch: globalThis.fetch.bind(globalThis),
    upstreamFetch: createNodeUpstreamFetch(),
    outbound: createNodeOutbound(),
    runtime: "node",
    storage: fileStorageProbe(settings.libsqlUrl),
    ...overrides,
  };
  return { deps, client, db, config };
}
