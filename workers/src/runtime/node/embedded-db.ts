/**
 * Opens an embedded libSQL database (a `file:` URL, or `:memory:`) with the settings a server
 * needs (docs/deployment.md#the-embedded-database): write-ahead logging, `synchronous = NORMAL`, a
 * busy timeout and enforced foreign keys. Node only (the `@libsql/client` native build).
 *
 * The client keeps a single connection, and caches the statements it prepares on it
 * (statement-cache-node.ts), since SQLite compiles a statement's triggers into it on every
 * prepare. Connection settings (`synchronous`, `foreign_keys`,
 * `busy_timeout`) belong to one connection, so a pool would hand out connections without them;
 * every operation of the embedded client is a short synchronous call on that connection, so one
 * connection serves concurrent requests without waiting. The code never opens an interactive
 * transaction (it writes several statements with `batch`), which would hold that connection.
 */
import type { Client } from "@libsql/client";
import { createCachingEmbeddedClient } from "../../db/statement-cache-node.js";

/** How long a write waits for another process's lock before failing with SQLITE_BUSY, in ms. */
export const EMBEDDED_BUSY_TIMEOUT_MS = 5_000;

/**
 * Durability of commits (SQLite `PRAGMA synchronous`): `normal` syncs the write-ahead log at
 * checkpoints only (a process crash loses nothing; a power failure may lose the last commits, the
 * database stays consistent); `full` syncs it at every commit.
 */
export type SynchronousLevel = "normal" | "full";

/** Options of {@link openEmbeddedDatabase}. */
export interface EmbeddedOptions {
  /** Default `normal`. */
  synchronous?: SynchronousLevel;
  /** Default {@link EMBEDDED_BUSY_TIMEOUT_MS}. */
  busyTimeoutMs?: number;
  /** Prepared statements kept by the connection (default 256; statement-cache-node.ts). */
  statementCacheSize?: number;
}

/** True for URLs the embedded engine opens (`file:` and `:memory:`), false for servers. */
export function isEmbeddedUrl(url: string): boolean {
  return url.startsWith("file:") || url === ":memory:";
}

/**
 * Opens the embedded database at `url` and applies the server settings.
 * @returns the libSQL client (close it on shutdown).
 * @throws LibsqlError when the file cannot be opened; Error for a URL that is not embedded.
 */
export async function openEmbeddedDatabase(
  url: string,
  opts: EmbeddedOptions = {},
): Promise<Client> {
  if (!isEmbeddedUrl(url)) throw new Error(`Not an embedded database URL: ${url}`);
  const busyTimeoutMs = opts.busyTimeoutMs ?? EMBEDDED_BUSY_TIMEOUT_MS;
  const synchronous = opts.synchronous ?? "normal";
  const client = createCachingEmbeddedClient(url, {
    timeoutMs: busyTimeoutMs,
    capacity: opts.statementCacheSize,
  });
  try {
    // An in-memory database answers "memory" and stays so; a file switches to WAL for good.
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute(`PRAGMA synchronous = ${synchronous === "full" ? "FULL" : "NORMAL"}`);
    await client.execute("PRAGMA foreign_keys = ON");
    await client.execute(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  } catch (err) {
    client.close();
    throw err;
  }
  return client;
}
