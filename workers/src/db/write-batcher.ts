/**
 * Coalesces the writes of concurrent callers (docs/execution.md#what-an-execution-costs): a write
 * handed to {@link WriteBatcher.run} waits for the end of the current turn of the event loop, and
 * every write queued by then goes to the database in one `batch`, which libSQL runs as one
 * transaction — one commit on the embedded database, one HTTP round trip to a libSQL server.
 *
 * Each caller still gets its own result or error. When a batch fails, its writes are retried one
 * by one, so that a write that breaks a constraint fails alone and the others commit.
 *
 * Statements are compiled once from drizzle queries with placeholders ({@link compileTemplate})
 * and bound per call ({@link bindTemplate}), so that a hot write does not rebuild its SQL.
 */
import type { InStatement, InValue, ResultSet, TransactionMode } from "@libsql/client";
import { fillPlaceholders, getTableColumns, type Table } from "drizzle-orm";

/** The part of a libSQL client (embedded or over HTTP) the batcher uses. */
export interface BatchClient {
  execute(stmt: InStatement): Promise<ResultSet>;
  batch(stmts: InStatement[], mode?: TransactionMode): Promise<ResultSet[]>;
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
  stmt: Statement;
  resolve: (value: ResultSet) => void;
  reject: (err: unknown) => void;
}

/** Options of {@link WriteBatcher}. */
export interface WriteBatcherOptions {
  /** Most statements per batch (default 256); more wait for the next one. */
  maxBatch?: number;
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

const defaultSchedule = (fn: () => void): void => {
  const immediate = (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (immediate) immediate(fn);
  else setTimeout(fn, 0);
};

/** Write-coalescing queue over one libSQL client. */
export class WriteBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly schedule: (fn: () => void) => void;
  readonly stats: WriteBatcherStats = { statements: 0, batches: 0, retriedBatches: 0 };

  constructor(
    private readonly client: BatchClient,
    opts: WriteBatcherOptions = {},
  ) {
    this.maxBatch = Math.max(1, opts.maxBatch ?? 256);
    this.schedule = opts.schedule ?? defaultSchedule;
  }

  /**
   * Queues `stmt` for the next batch. @returns its result set (rows of a `returning` clause).
   * @throws whatever the database throws for this statement.
   */
  run(stmt: Statement): Promise<ResultSet> {
    return new Promise<ResultSet>((resolve, reject) => {
      this.queue.push({ stmt, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.schedule(() => this.flush());
      }
    });
  }

  /** Number of statements waiting for a batch. */
  get pending(): number {
    return this.queue.length;
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) void this.send(this.queue.splice(0, this.maxBatch));
  }

  private async send(items: Pending[]): Promise<void> {
    this.stats.batches++;
    this.stats.statements += items.length;
    if (items.length === 1) return this.sendOne(items[0]!);
    let results: ResultSet[];
    try {
      results = await this.client.batch(
        items.map((p) => p.stmt),
        "write",
      );
    } catch {
      // The transaction rolled back as a whole: find the statement(s) at fault.
      this.stats.retriedBatches++;
      for (const p of items) await this.sendOne(p);
      return;
    }
    items.forEach((p, i) => {
      p.resolve(results[i]!);
    });
  }

  private async sendOne(p: Pending): Promise<void> {
    try {
      p.resolve(await this.client.execute(p.stmt));
    } catch (err) {
      p.reject(err);
    }
  }
}
