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
 * resets it first and runs it to completion in the same synchronous call, so no two uses overlap;
 * every run binds all parameters again (positional ones left out as NULL, as on a fresh statement);
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
  /**
   * Prepared statements kept per connection, at least 1 (default, also for a value that is not a
   * finite number: {@link DEFAULT_STATEMENT_CACHE_SIZE}).
   */
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

/**
 * SQL that cannot change the schema: the statements that read and write rows. Anything else
 * (DDL, `PRAGMA`, `ROLLBACK TO`, a statement behind a comment...) may, so the schema version is
 * read again before the next statement is prepared, inside a transaction too.
 */
const ROW_STATEMENT = /^\s*(select|insert|update|delete|replace|with|values)\b/i;

/** Statements that open or end a transaction or savepoint. */
const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;

/** SQLite's highest bound-parameter index (`SQLITE_MAX_VARIABLE_NUMBER` since 3.32). */
const MAX_PARAMETERS = 32_766;

/**
 * An upper bound on the parameter slots of `sql`: each `?`, `:`, `@` or `$` may open one, and a
 * `?NNN` reaches slot NNN. Over-counting (characters inside strings) is harmless.
 */
function parameterSlotsBound(sql: string): number {
  let count = 0;
  let highest = 0;
  for (const m of sql.matchAll(/[?:@$](\d*)/g)) {
    count++;
    if (m[1]) highest = Math.max(highest, Number(m[1]));
  }
  return Math.min(MAX_PARAMETERS, count + highest);
}

/**
 * Makes a reused statement bind NULL to every positional parameter the caller leaves out, as a
 * freshly prepared one does: SQLite keeps a statement's bindings across runs, and libSQL binds
 * only the values of an array it is given (and ignores values past the last parameter).
 */
function padPositionalArguments(stmt: Database.Statement, sql: string): void {
  const slots = parameterSlotsBound(sql);
  if (slots === 0) return;
  const pad = (args: unknown[]): unknown[] => {
    if (args.length !== 1 || !Array.isArray(args[0]) || args[0].length >= slots) return args;
    const values: unknown[] = args[0].slice();
    values.length = slots;
    return [values.fill(null, args[0].length)];
  };
  const run = stmt.run.bind(stmt);
  const all = stmt.all.bind(stmt);
  const get = stmt.get.bind(stmt);
  stmt.run = ((...args: unknown[]) => run(...pad(args))) as Database.Statement["run"];
  stmt.all = ((...args: unknown[]) => all(...pad(args))) as Database.Statement["all"];
  stmt.get = ((...args: unknown[]) => get(...pad(args))) as Database.Statement["get"];
}

/**
 * Replaces `db.prepare` by an LRU-cached one; @returns a function that empties the cache.
 *
 * The cache is emptied whenever the database's schema may have changed (a migration, here or in
 * another process): SQLite recompiles a stale statement by itself when it runs, but the column
 * names the client reads before running it (for `SELECT *`, `RETURNING *`) would still be the old
 * ones. The schema version is read before each statement outside a transaction, and inside one
 * after any statement that is not a plain row read or write. A version seen inside a transaction
 * may be rolled back, and a later change may then bring the same number back with another schema,
 * so the cache is emptied again once the transaction ends. A script (`executeMultiple`) empties
 * it. (A statement prepared afresh after another connection changed the schema has the same
 * column fault in the client without a cache; reloading the schema on a version change fixes
 * both.)
 */
function cachePreparedStatements(
  db: Database.Database,
  capacity: number,
  stats: StatementCacheStats,
): () => void {
  const prepare = db.prepare.bind(db) as (sql: string) => Database.Statement;
  const exec = db.exec.bind(db) as (sql: string) => void;
  const cache = new Map<string, Database.Statement>();
  const schemaVersionStmt = prepare("PRAGMA schema_version");
  const schemaVersion = () =>
    (schemaVersionStmt.get() as { schema_version?: unknown } | undefined)?.schema_version;
  let cachedVersion: unknown = schemaVersion();
  let schemaMayChange = false;
  // The cache holds statements compiled inside a transaction against a schema it changed.
  let uncommittedSchema = false;
  const reset = () => {
    cache.clear();
    cachedVersion = schemaVersion();
    // Running a statement that reads the schema makes SQLite notice the change and load the
    // new schema, so that the statements prepared next are compiled against it.
    prepare("SELECT count(*) FROM sqlite_schema").get();
    if (db.inTransaction) uncommittedSchema = true;
  };
  const cachedPrepare = (sql: string): Database.Statement => {
    // libSQL throws for a closed connection, but reading `inTransaction` on one aborts the process.
    if (!db.open) return prepare(sql);
    const inTransaction = db.inTransaction;
    if (uncommittedSchema && !inTransaction) {
      // The transaction that changed the schema has ended: start again from the schema on disk.
      uncommittedSchema = false;
      cache.clear();
      cachedVersion = undefined;
    }
    if (TRANSACTION_CONTROL.test(sql)) {
      // No statement of ours runs before BEGIN: outside a transaction it would be an autocommit
      // transaction of its own, whose end switches off `PRAGMA defer_foreign_keys` set for the
      // next one. The version is read by the next statement, inside the transaction.
      schemaMayChange = true;
    } else {
      if ((schemaMayChange || !inTransaction) && schemaVersion() !== cachedVersion) reset();
      schemaMayChange = !ROW_STATEMENT.test(sql);
    }
    const hit = cache.get(sql);
    if (hit) {
      // Move to the most recently used end.
      cache.delete(sql);
      cache.set(sql, hit);
      stats.hits++;
      return hit;
    }
    const stmt = prepare(sql); // throws for bad SQL; nothing is cached then
    padPositionalArguments(stmt, sql);
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
  db.exec = ((sql: string) => {
    try {
      exec(sql);
    } finally {
      // A script may change the schema and change it back; its version number then tells nothing.
      cache.clear();
      schemaMayChange = true;
      if (db.open && db.inTransaction) uncommittedSchema = true;
    }
  }) as Database.Database["exec"];
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
    // A capacity that is not a number (NaN) would never evict: take the default.
    Number.isFinite(opts.capacity)
      ? Math.max(1, Math.floor(opts.capacity as number))
      : DEFAULT_STATEMENT_CACHE_SIZE,
    stats,
  );
  // Open the first connection now, so that a file that cannot be opened fails here.
  pool.release(pool.acquireSync());
  const client = new Sqlite3Client(pool, config.intMode);
  statsByClient.set(client, stats);
  return client;
}
