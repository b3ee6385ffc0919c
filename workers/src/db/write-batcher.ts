/**
 * Coalesces the writes of concurrent callers (docs/execution.md#what-an-execution-costs): a write
 * handed to {@link WriteBatcher.run} waits for the end of the current turn of the event loop, and
 * the writes queued by then go to the database in one `batch` (on the embedded database up to
 * {@link MAX_BATCH_STATEMENTS} statements, the rest a turn later), which libSQL runs as one
 * transaction — one commit on the embedded database, one HTTP round trip to a libSQL server.
 *
 * Each caller still gets its own result or error. When a batch fails, its writes are retried one
 * by one, so that a write that breaks a constraint fails alone and the others commit. The
 * statements of one {@link WriteBatcher.runAll} call stay together: they commit or fail as one
 * (an execution's row and its rollup).
 *
 * Statements are compiled once from drizzle queries with placeholders ({@link compileTemplate})
 * and bound per call ({@link bindTemplate}), so that a hot write does not rebuild its SQL.
 */
import type { InStatement, InValue, ResultSet, TransactionMode } from "@libsql/client";
import { fillPlaceholders, getTableColumns, type SQL, type Table } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { scheduleNextTurn } from "../next-turn.js";

/** The part of a libSQL client (embedded or over HTTP) the batcher uses. */
export interface BatchClient {
  execute(stmt: InStatement): Promise<ResultSet>;
  batch(stmts: InStatement[], mode?: TransactionMode): Promise<ResultSet[]>;
  /** `@libsql/client`'s protocol: `"file"` for the embedded database (its batches run on the event loop). */
  readonly protocol?: string;
}

/** A statement ready to run: SQL text and positional arguments. */
export interface Statement {
  sql: string;
  args: InValue[];
}

/** SQL text compiled by drizzle whose parameters include `sql.placeholder(name)` entries. */
export interface StatementTemplate {
  sql: string;
  params: unknown[];
}

/** Compiles a drizzle query built with `sql.placeholder(...)` values into a reusable template. */
export function compileTemplate(query: {
  toSQL(): { sql: string; params: unknown[] };
}): StatementTemplate {
  const { sql, params } = query.toSQL();
  return { sql, params };
}

/**
 * Binds `values` (placeholder name → value; `undefined` is stored as NULL) to a template.
 * @throws Error when a placeholder has no entry in `values`.
 */
export function bindTemplate(t: StatementTemplate, values: Record<string, unknown>): Statement {
  const args = fillPlaceholders(t.params, values).map((v) => (v === undefined ? null : v));
  return { sql: t.sql, args: args as InValue[] };
}

/** A drizzle query without placeholders as a {@link Statement}. */
export function statementOf(query: { toSQL(): { sql: string; params: unknown[] } }): Statement {
  return bindTemplate(compileTemplate(query), {});
}

const dialect = new SQLiteSyncDialect();

/** A drizzle `sql` fragment (no placeholders) as a {@link Statement}. */
export function sqlStatement(query: SQL): Statement {
  const { sql, params } = dialect.sqlToQuery(query);
  return { sql, args: params as InValue[] };
}

/**
 * Maps the rows of a `returning` result (columns named as in the database) to `table`'s
 * property names, e.g. `skill_id` → `skillId`, each value decoded as drizzle decodes it (integer
 * booleans as booleans).
 */
export function rowsOf<T>(table: Table, rs: ResultSet): T[] {
  const columns = Object.entries(getTableColumns(table));
  return rs.rows.map((r) => {
    const out: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = r[column.name];
      out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return out as T;
  });
}

interface Pending {
  stmts: Statement[];
  resolve: (value: ResultSet[]) => void;
  reject: (err: unknown) => void;
}

/** Options of {@link WriteBatcher}. */
export interface WriteBatcherOptions {
  /**
   * Most statements per batch (default: {@link MAX_BATCH_STATEMENTS} when paced, else
   * {@link MAX_BATCH_STATEMENTS_REMOTE}).
   */
  maxBatch?: number;
  /**
   * One batch per turn of the event loop, the rest a turn later (default: on the embedded
   * database, `protocol` `"file"`); else every batch queued is sent at once.
   */
  paced?: boolean;
  /** Runs `fn` after the current turn (default `setImmediate`, else `setTimeout(fn, 0)`). */
  schedule?: (fn: () => void) => void;
}

/** Counters of a {@link WriteBatcher}, for tests, benchmarks and health output. */
export interface WriteBatcherStats {
  /** Statements written. */
  statements: number;
  /** Batches sent (transactions; round trips to a server). */
  batches: number;
  /** Batches that failed as a whole and were retried statement by statement. */
  retriedBatches: number;
}

/**
 * Most statements per batch on the embedded database. There a batch runs on the event loop,
 * about 0.1 ms per statement (each is prepared anew): a burst of 200 executions made batches of
 * 256 that held it for 27 ms at the median; 32 hold it for about 4.5 ms, and the next batch
 * waits a turn, so that requests run in between (docs/execution.md#what-an-execution-costs).
 */
export const MAX_BATCH_STATEMENTS = 32;
/** Most statements per batch against a libSQL server (one HTTP round trip each, all sent at once). */
export const MAX_BATCH_STATEMENTS_REMOTE = 256;

/** Write-coalescing queue over one libSQL client. */
export class WriteBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly paced: boolean;
  private readonly schedule: (fn: () => void) => void;
  readonly stats: WriteBatcherStats = { statements: 0, batches: 0, retriedBatches: 0 };

  constructor(
    private readonly client: BatchClient,
    opts: WriteBatcherOptions = {},
  ) {
    this.paced = opts.paced ?? client.protocol === "file";
    this.maxBatch = Math.max(
      1,
      opts.maxBatch ?? (this.paced ? MAX_BATCH_STATEMENTS : MAX_BATCH_STATEMENTS_REMOTE),
    );
    this.schedule = opts.schedule ?? scheduleNextTurn;
  }

  /**
   * Queues `stmt` for the next batch. @returns its result set (rows of a `returning` clause).
   * @throws whatever the database throws for this statement.
   */
  async run(stmt: Statement): Promise<ResultSet> {
    return (await this.runAll([stmt]))[0]!;
  }

  /**
   * Queues `stmts` (at least one) for the next batch, to commit together or not at all.
   * @returns their result sets, in order.
   * @throws whatever the database throws for one of them (then none of them is written).
   */
  runAll(stmts: Statement[]): Promise<ResultSet[]> {
    return new Promise<ResultSet[]>((resolve, reject) => {
      this.queue.push({ stmts, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.schedule(() => this.flush());
      }
    });
  }

  /** Number of writes (calls of {@link run} / {@link runAll}) waiting for a batch. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Sends the queue in batches: paced, one batch now and the rest a turn later (see
   * {@link MAX_BATCH_STATEMENTS}); else all of them now.
   */
  private flush(): void {
    this.scheduled = false;
    do {
      // At most maxBatch statements per batch, but a write's statements are never split.
      let n = 0;
      let count = 0;
      while (
        n < this.queue.length &&
        (n === 0 || count + this.queue[n]!.stmts.length <= this.maxBatch)
      ) {
        count += this.queue[n]!.stmts.length;
        n++;
      }
      if (n > 0) void this.send(this.queue.splice(0, n));
    } while (!this.paced && this.queue.length > 0);
    if (this.queue.length > 0) {
      this.scheduled = true;
      this.schedule(() => this.flush());
    }
  }

  private async send(items: Pending[]): Promise<void> {
    this.stats.batches++;
    for (const p of items) this.stats.statements += p.stmts.length;
    if (items.length === 1) return this.sendOne(items[0]!);
    let results: ResultSet[];
    try {
      results = await this.client.batch(
        items.flatMap((p) => p.stmts),
        "write",
      );
    } catch {
      // The transaction rolled back as a whole: find the write(s) at fault.
      this.stats.retriedBatches++;
      for (const p of items) await this.sendOne(p);
      return;
    }
    let at = 0;
    for (const p of items) {
      p.resolve(results.slice(at, at + p.stmts.length));
      at += p.stmts.length;
    }
  }

  private async sendOne(p: Pending): Promise<void> {
    try {
      p.resolve(
        p.stmts.length === 1
          ? [await this.client.execute(p.stmts[0]!)]
          : await this.client.batch(p.stmts, "write"),
      );
    } catch (err) {
      p.reject(err);
    }
  }
}
