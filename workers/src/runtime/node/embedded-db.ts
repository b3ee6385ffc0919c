/**
 * Opens the database of the Node server and of `npm run db:migrate`
 * (docs/deployment.md#the-embedded-database): an embedded libSQL file (a `file:` URL, or
 * `:memory:`), optionally encrypted (`encryptionKey`) or an embedded replica of a server
 * (`syncUrl` + `authToken`), with the settings a server needs (write-ahead logging,
 * `synchronous = NORMAL`, a busy timeout, enforced foreign keys); or a libSQL server over the
 * network (`libsql:`, `http(s):`, `ws(s):`), checked with one query so that a wrong or missing
 * auth token fails at start-up with a clear message. Node only (the `@libsql/client` native
 * build); only the public `createClient` API of `@libsql/client` is used.
 *
 * An embedded client keeps a single connection (`concurrency: 1`): connection settings
 * (`synchronous`, `foreign_keys`, `busy_timeout`) belong to one connection, so a pool would hand
 * out connections without them; every operation of the embedded client is a short synchronous
 * call on that connection, so one connection serves concurrent requests without waiting. The
 * code never opens an interactive transaction (it writes several statements with `batch`), which
 * would hold that connection.
 */
import { type Client, createClient, LibsqlError } from "@libsql/client";

/** How long a write waits for another process's lock before failing with SQLITE_BUSY, in ms. */
export const EMBEDDED_BUSY_TIMEOUT_MS = 5_000;

/**
 * Durability of commits (SQLite `PRAGMA synchronous`): `normal` syncs the write-ahead log at
 * checkpoints only (a process crash loses nothing; a power failure may lose the last commits, the
 * database stays consistent); `full` syncs it at every commit.
 */
export type SynchronousLevel = "normal" | "full";

/** Options of {@link openEmbeddedDatabase} and {@link openNodeDatabase}. */
export interface EmbeddedOptions {
  /** Default `normal`. */
  synchronous?: SynchronousLevel;
  /** Default {@link EMBEDDED_BUSY_TIMEOUT_MS}. */
  busyTimeoutMs?: number;
  /**
   * Key the embedded file is encrypted with at rest (libSQL encryption); the same key must open it
   * again. Ignored for a server URL.
   */
  encryptionKey?: string;
  /**
   * URL of the libSQL server this embedded file is a replica of (libSQL embedded replicas): reads
   * are local, writes go to the server, the file syncs from it. Needs a file URL.
   */
  syncUrl?: string;
  /** Token of the libSQL server (`url` when it is one, else `syncUrl`). */
  authToken?: string;
}

/** True for URLs the embedded engine opens (`file:` and `:memory:`), false for servers. */
export function isEmbeddedUrl(url: string): boolean {
  return url.startsWith("file:") || url === ":memory:";
}

/**
 * Opens the embedded database at `url` and applies the server settings.
 * @returns the libSQL client (close it on shutdown).
 * @throws LibsqlError when the file cannot be opened (`SQLITE_NOTADB` for an encrypted file opened
 *   with another key or none); Error for a URL that is not embedded.
 */
export async function openEmbeddedDatabase(
  url: string,
  opts: EmbeddedOptions = {},
): Promise<Client> {
  if (!isEmbeddedUrl(url)) throw new Error(`Not an embedded database URL: ${url}`);
  const busyTimeoutMs = opts.busyTimeoutMs ?? EMBEDDED_BUSY_TIMEOUT_MS;
  const synchronous = opts.synchronous ?? "normal";
  const client = createClient({
    url,
    concurrency: 1,
    timeout: busyTimeoutMs,
    encryptionKey: opts.encryptionKey || undefined,
    syncUrl: opts.syncUrl || undefined,
    authToken: opts.authToken || undefined,
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

/**
 * Opens `url`: an embedded database through {@link openEmbeddedDatabase}, or a libSQL server with
 * `opts.authToken`, checked with `SELECT 1`.
 * @returns the client (close it on shutdown).
 * @throws Error naming `LIBSQL_AUTH_TOKEN` when the server refuses the token (or its absence);
 *   the client's error for anything else (unreachable server, bad URL).
 */
export async function openNodeDatabase(url: string, opts: EmbeddedOptions = {}): Promise<Client> {
  if (isEmbeddedUrl(url)) return openEmbeddedDatabase(url, opts);
  const client = createClient({ url, authToken: opts.authToken || undefined });
  try {
    await client.execute("SELECT 1");
  } catch (err) {
    client.close();
    if (isAuthFailure(err)) {
      const host = new URL(url).host;
      throw new Error(
        opts.authToken
          ? `The libSQL server ${host} refused LIBSQL_AUTH_TOKEN (HTTP 401): check the token`
          : `The libSQL server ${host} requires an auth token: set LIBSQL_AUTH_TOKEN`,
        { cause: err },
      );
    }
    throw err;
  }
  return client;
}

/** A refusal for want of a valid token: HTTP 401/403 from the server (Hrana over HTTP or WS). */
function isAuthFailure(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = e instanceof LibsqlError ? e.code : String((e as { code?: unknown }).code ?? "");
    const message = String((e as { message?: unknown }).message ?? "");
    if (/\b(401|403)\b|unauthori[sz]ed|SERVER_ERROR.*auth/i.test(`${code} ${message}`)) return true;
    if (e === (e as { cause?: unknown }).cause) break;
  }
  return false;
}
