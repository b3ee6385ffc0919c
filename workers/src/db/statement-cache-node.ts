/**
 * The embedded libSQL client with a prepared-statement cache
 * (docs/deployment.md#the-embedded-database). Node only.
 *
 * `@libsql/client` prepares every statement it runs on an embedded database afresh, and SQLite
 * compiles a statement's program on each prepare, including the body of every trigger the
 * statement can fire. On `skill_executions`, whose rollup triggers are long, compiling costs
 * several times what running the statement does. This client is the one `@libsql/client` builds
 * for a `file:` URL (its `Sqlite3Client` over its `ConnectionPool`, with the same URL rules),
 * except that each connection keeps its most recently used prepared statements in an LRU map
 * keyed by SQL text.
 *
 * Reusing a prepared statement is safe here: every call the client makes on one (`run`, `all`)
 * resets it first and runs it to completion in the same synchronous call, so no two uses overlap,
 * and SQLite prepares a statement again by itself when the schema it was compiled against
 * changes (a migration). The client uses two classes that `@libsql/client` exports but marks
 * private; the versions are pinned in package.json, and the tests open every embedded database
 * through this module and check that the cache is used.
 */
import { type Client, ConnectionPool, LibsqlError, Sqlite3Client } from "@libsql/client/sqlite3";
import { expandConfig, isInMemoryConfig } from "@libsql/core/config";
import type Database from "libsql";

/** Prepared statements kept per connection by default. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 256;

/** Counters of one client's statement cache. */
export interface StatementCacheStats {
  /** Statements served from the cache. */
  hits: number;
  /** Statements prepared (not in the cache). */
  misses: number;
  /** Statements dropped because the cache was full (least recently used first). */
  evictions: number;
}

/** Options of {@link createCachingEmbeddedClient}. */
export interface CachingClientOptions {
  /** How long a write waits for another process's lock, in ms (SQLite busy timeout). */
  timeoutMs?: number;
  /** Prepared statements kept per connection (default {@link DEFAULT_STATEMENT_CACHE_SIZE}). */
  capacity?: number;
  /** Connections of a file database (default 1; an in-memory database always has one). */
  concurrency?: number;
}

const statsByClient = new WeakMap<Client, StatementCacheStats>();

/**
 * The statement-cache counters of a client made by {@link createCachingEmbeddedClient}, or
 * undefined for any other client.
 */
export function statementCacheStats(client: Client): StatementCacheStats | undefined {
  return statsByClient.get(client);
}

/** SQL that may change the schema: DDL, and `PRAGMA` (e.g. `writable_schema`, `user_version`). */
const SCHEMA_STATEMENT = /^\s*(create|alter|drop|pragma|vacuum|reindex|analyze)\b/i;

/**
 * Replaces `db.prepare` by an LRU-cached one; @returns a function that empties the cache.
 *
 * The cache is emptied whenever the database's schema version changes (a migration, here or in
 * another process): SQLite recompiles a stale statement by itself when it runs, but the column
 * names the client reads before running it (for `SELECT *`) would still be the old ones. (A
 * statement prepared afresh after another connection changed the schema has the same fault in
 * the client without a cache; reloading the schema on a version change fixes both.)
 */
function cachePreparedStatements(
  db: Database.Database,
  capacity: number,
  stats: StatementCacheStats,
): () => void {
  const prepare = db.prepare.bind(db) as (sql: string) => Database.Statement;
  const cache = new Map<string, Database.Statement>();
  const schemaVersionStmt = prepare("PRAGMA schema_version");
  const schemaVersion = () =>
    (schemaVersionStmt.get() as { schema_version?: unknown } | undefined)?.schema_version;
  let cachedVersion = schemaVersion();
  // Inside a transaction no other connection can change the schema, so the version is read only
  // outside one, or after this connection ran a statement that may change it.
  let schemaMayChange = false;
  const cachedPrepare = (sql: string): Database.Statement => {
    if (schemaMayChange || !db.inTransaction) {
      const version = schemaVersion();
      if (version !== cachedVersion) {
        cache.clear();
        cachedVersion = version;
        // Running a statement that reads the schema makes SQLite notice the change and load the
        // new schema, so that the statements prepared next are compiled against it.
        prepare("SELECT count(*) FROM sqlite_schema").get();
      }
    }
    schemaMayChange = SCHEMA_STATEMENT.test(sql);
    const hit = cache.get(sql);
    if (hit) {
      // Move to the most recently used end.
      cache.delete(sql);
      cache.set(sql, hit);
      stats.hits++;
      return hit;
    }
    const stmt = prepare(sql); // throws for bad SQL; nothing is cached then
    stats.misses++;
    cache.set(sql, stmt);
    if (cache.size > capacity) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
      stats.evictions++;
    }
    return stmt;
  };
  db.prepare = cachedPrepare as Database.Database["prepare"];
  return () => cache.clear();
}

/** The client's pool: each connection it opens gets a statement cache. */
class StatementCachingPool extends ConnectionPool {
  private readonly clearers = new Map<Database.Database, () => void>();

  constructor(
    path: string,
    options: Database.Options,
    maxConnections: number,
    private readonly capacity: number,
    readonly stats: StatementCacheStats,
  ) {
    super(path, options, maxConnections);
  }

  override acquireSync(forTransaction?: boolean): Database.Database {
    const db = super.acquireSync(forTransaction);
    if (!this.clearers.has(db)) {
      this.clearers.set(db, cachePreparedStatements(db, this.capacity, this.stats));
    }
    return db;
  }

  override release(db: Database.Database): void {
    super.release(db);
    // A connection the pool closed (one that could not be rolled back) is dropped for good.
    if (!db.open) {
      this.clearers.get(db)?.();
      this.clearers.delete(db);
    }
  }

  override close(): void {
    // libSQL closes a connection once its last statement is gone: drop the cached ones.
    for (const clear of this.clearers.values()) clear();
    this.clearers.clear();
    super.close();
  }
}

/**
 * Opens an embedded libSQL database (`file:` URL or `:memory:`) as a `@libsql/client` client whose
 * connections cache prepared statements.
 * @returns the client (close it on shutdown); {@link statementCacheStats} reads its counters.
 * @throws LibsqlError `URL_INVALID` / `URL_SCHEME_NOT_SUPPORTED` for a URL that is not an embedded
 *   database, or the engine's error when the file cannot be opened.
 */
export function createCachingEmbeddedClient(url: string, opts: CachingClientOptions = {}): Client {
  const config = expandConfig({ url, timeout: opts.timeoutMs }, true);
  if (config.scheme !== "file") {
    throw new LibsqlError(
      `Not an embedded database URL (scheme ${JSON.stringify(config.scheme)})`,
      "URL_SCHEME_NOT_SUPPORTED",
    );
  }
  const authority = config.authority;
  if (
    authority !== undefined &&
    ((authority.host !== "" && authority.host.toLowerCase() !== "localhost") ||
      authority.port !== undefined ||
      authority.userinfo !== undefined)
  ) {
    throw new LibsqlError(
      'A "file:" URL takes no host, port or credentials (an absolute path starts "file:/")',
      "URL_INVALID",
    );
  }
  const inMemory = isInMemoryConfig(config);
  // SQLite reads the options of an in-memory database from a `file:` URI.
  const path = inMemory ? `file:${config.path}` : config.path;
  const stats: StatementCacheStats = { hits: 0, misses: 0, evictions: 0 };
  const pool = new StatementCachingPool(
    path,
    { timeout: config.timeout },
    inMemory ? 1 : Math.max(1, opts.concurrency ?? 1),
    Math.max(1, opts.capacity ?? DEFAULT_STATEMENT_CACHE_SIZE),
    stats,
  );
  // Open the first connection now, so that a file that cannot be opened fails here.
  pool.release(pool.acquireSync());
  const client = new Sqlite3Client(pool, config.intMode);
  statsByClient.set(client, stats);
  return client;
}
