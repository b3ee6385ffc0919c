/**
 * Test-only Hrana-over-HTTP server (HTTP API v2, JSON) on top of the embedded `libsql` engine, so
 * that the Worker inside workerd reaches a real libSQL database the way it reaches Turso in
 * production (`@libsql/client/web`; docs/architecture.md#runtimes). Node only (native module): never
 * import it from code that runs in workerd. Nothing in production uses it.
 *
 * Wire format (libsql's published HTTP v2 and Hrana protocol documents):
 * `POST /v2/pipeline` with `{ baton?, requests }` answers `{ baton, base_url, results }`, one
 * `{ type: "ok", response }` or `{ type: "error", error: { message, code } }` per request.
 * Requests: `execute`, `batch` (conditions `ok`, `error`, `not`, `and`, `or`, `is_autocommit`),
 * `sequence`, `store_sql`, `close_sql`, `get_autocommit`, `close`; `describe` answers an error.
 * Values: `integer` (decimal string), `float`, `text`, `blob` (base64), `null`.
 *
 * `GET /_test/stats` answers the request counters (`{ pipelines, requests }`: HTTP pipeline
 * requests received, i.e. round trips, and stream requests inside them), so that tests can count
 * the round trips an operation costs.
 *
 * Every stream is served from one connection (separate connections on one file hit
 * SQLITE_BUSY, and a busy wait would block the event loop). A stream that ends a pipeline
 * inside a transaction keeps the connection: pipelines of other streams wait until it commits,
 * rolls back, closes or expires (the expiry rolls back).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Database from "libsql";

/** Hrana value on the wire. */
export type HranaValue =
  | { type: "null" }
  | { type: "integer"; value: string }
  | { type: "float"; value: number }
  | { type: "text"; value: string }
  | { type: "blob"; base64: string };

interface HranaStmt {
  sql?: string;
  sql_id?: number;
  args?: HranaValue[];
  named_args?: { name: string; value: HranaValue }[];
  want_rows?: boolean;
}

type HranaCond =
  | { type: "ok" | "error"; step: number }
  | { type: "not"; cond: HranaCond }
  | { type: "and" | "or"; conds: HranaCond[] }
  | { type: "is_autocommit" };

type StreamRequest =
  | { type: "close" | "get_autocommit" }
  | { type: "execute"; stmt: HranaStmt }
  | { type: "batch"; batch: { steps: { condition?: HranaCond | null; stmt: HranaStmt }[] } }
  | { type: "sequence" | "describe"; sql?: string | null; sql_id?: number | null }
  | { type: "store_sql"; sql_id: number; sql: string }
  | { type: "close_sql"; sql_id: number };

interface StmtResult {
  cols: { name: string; decltype: string | null }[];
  rows: HranaValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
}

interface Stream {
  id: number;
  sqls: Map<number, string>;
  timer?: NodeJS.Timeout;
}

/** Options of {@link startHranaServer}. */
export interface HranaServerOptions {
  /** Database file path (created when missing), or `:memory:`. */
  path: string;
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Idle time after which a stream is closed (its open transaction rolled back), in ms. Default 15 000. */
  streamIdleMs?: number;
  /** When set, requests must carry `Authorization: Bearer <authToken>` (else 401). */
  authToken?: string;
}

/** Request counters of a {@link HranaServer} since it started. */
export interface HranaStats {
  /** `POST /v2/pipeline` requests: one per round trip of a client. */
  pipelines: number;
  /** Stream requests (`execute`, `batch`, `close`, ...) inside those pipelines. */
  requests: number;
}

/** A running server. */
export interface HranaServer {
  /** Base URL for `@libsql/client` / `@libsql/client/web`, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Live counters (also served at `GET /_test/stats`). */
  stats: HranaStats;
  /** The one engine connection every stream uses (tests may read through it). */
  db: Database.Database;
  /** Stops listening, rolls back an open transaction and closes the database. */
  close(): Promise<void>;
}

/** A request-level failure, reported in the result's `error` (message and SQLite code). */
function protoError(e: unknown): { message: string; code: string | null } {
  const err = e as { message?: string; code?: unknown };
  return {
    message: err.message ?? String(e),
    code: typeof err.code === "string" ? err.code : null,
  };
}

function decodeValue(v: HranaValue): unknown {
  switch (v.type) {
    case "null":
      return null;
    case "integer":
      return BigInt(v.value);
    case "float":
      return Number(v.value);
    case "text":
      return v.value;
    case "blob":
      return Buffer.from(v.base64, "base64");
    default:
      throw new Error(`Unknown value type ${JSON.stringify((v as { type: unknown }).type)}`);
  }
}

function encodeValue(v: unknown): HranaValue {
  if (v === null || v === undefined) return { type: "null" };
  if (typeof v === "bigint") return { type: "integer", value: v.toString() };
  if (typeof v === "number") return { type: "float", value: v };
  if (typeof v === "string") return { type: "text", value: v };
  if (v instanceof Uint8Array) return { type: "blob", base64: Buffer.from(v).toString("base64") };
  if (typeof v === "boolean") return { type: "integer", value: v ? "1" : "0" };
  throw new Error(`Cannot encode a ${typeof v} value`);
}

/**
 * Starts the server on 127.0.0.1.
 * @param opts database path, port, stream idle timeout, optional bearer token.
 * @returns its URL, the engine connection and `close()`.
 * @throws when the database cannot be opened or the port cannot be bound.
 */
export async function startHranaServer(opts: HranaServerOptions): Promise<HranaServer> {
  const db = new Database(opts.path);
  // Match a libSQL server: foreign keys enforced (migrations switch them off and on again).
  db.exec("PRAGMA foreign_keys = ON");
  const counters = db
    .prepare("select changes(), total_changes(), last_insert_rowid()")
    .safeIntegers(true)
    .raw(true);
  const idleMs = opts.streamIdleMs ?? 15_000;
  const stats: HranaStats = { pipelines: 0, requests: 0 };
  const batons = new Map<string, Stream>();
  let nextStreamId = 1;
  /** The stream whose transaction holds the connection, if any. */
  let owner: Stream | null = null;
  let waiters: (() => void)[] = [];

  const release = () => {
    owner = null;
    const ready = waiters;
    waiters = [];
    for (const wake of ready) wake();
  };
  const rollbackIfOwner = (stream: Stream) => {
    if (owner !== stream) return;
    if (db.inTransaction) db.exec("ROLLBACK");
    release();
  };
  const closeStream = (stream: Stream) => {
    clearTimeout(stream.timer);
    for (const [baton, s] of batons) if (s === stream) batons.delete(baton);
    rollbackIfOwner(stream);
  };

  const sqlOf = (stream: Stream, s: { sql?: string | null; sql_id?: number | null }): string => {
    if (typeof s.sql === "string") return s.sql;
    if (typeof s.sql_id === "number") {
      const stored = stream.sqls.get(s.sql_id);
      if (stored === undefined)
        throw new Error(`SQL text ${s.sql_id} is not stored on this stream`);
      return stored;
    }
    throw new Error("A statement needs `sql` or `sql_id`");
  };

  const execute = (stream: Stream, stmt: HranaStmt): StmtResult => {
    const prepared = db.prepare(sqlOf(stream, stmt));
    const positional = (stmt.args ?? []).map(decodeValue);
    let params: unknown[] | Record<string, unknown> = positional;
    if (stmt.named_args?.length) {
      // The driver binds names without their `:`/`@`/`$` prefix (a prefixed name binds NULL);
      // positional values go under their 1-based index.
      const named: Record<string, unknown> = {};
      positional.forEach((value, i) => {
        named[String(i + 1)] = value;
      });
      for (const arg of stmt.named_args)
        named[arg.name.replace(/^[:@$]/, "")] = decodeValue(arg.value);
      params = named;
    }
    const before = (counters.get() as bigint[])[1];
    let cols: StmtResult["cols"] = [];
    let rows: HranaValue[][] = [];
    if (prepared.reader) {
      cols = prepared.columns().map((c) => ({ name: c.name, decltype: c.type }));
      const all = prepared.safeIntegers(true).raw(true).all(params) as unknown[][];
      if (stmt.want_rows !== false) rows = all.map((row) => row.map(encodeValue));
    } else {
      prepared.run(params);
    }
    const [changes, total, rowid] = counters.get() as bigint[];
    return {
      cols,
      rows,
      affected_row_count: total === before ? 0 : Number(changes),
      last_insert_rowid: rowid === undefined ? null : rowid.toString(),
    };
  };

  const evalCond = (cond: HranaCond, done: Map<number, boolean>): boolean => {
    switch (cond.type) {
      case "ok":
        return done.get(cond.step) === true;
      case "error":
        return done.get(cond.step) === false;
      case "not":
        return !evalCond(cond.cond, done);
      case "and":
        return cond.conds.every((c) => evalCond(c, done));
      case "or":
        return cond.conds.some((c) => evalCond(c, done));
      case "is_autocommit":
        return !db.inTransaction;
      default:
        throw new Error(
          `Unknown batch condition ${JSON.stringify((cond as { type: unknown }).type)}`,
        );
    }
  };

  /** Runs one stream request; returns the `response` of an ok result. */
  const handle = (stream: Stream, req: StreamRequest): Record<string, unknown> => {
    switch (req.type) {
      case "execute":
        return { type: "execute", result: execute(stream, req.stmt) };
      case "batch": {
        const done = new Map<number, boolean>();
        const stepResults: (StmtResult | null)[] = [];
        const stepErrors: ({ message: string; code: string | null } | null)[] = [];
        req.batch.steps.forEach((step, i) => {
          stepResults.push(null);
          stepErrors.push(null);
          if (step.condition && !evalCond(step.condition, done)) return;
          try {
            stepResults[i] = execute(stream, step.stmt);
            done.set(i, true);
          } catch (e) {
            stepErrors[i] = protoError(e);
            done.set(i, false);
          }
        });
        return { type: "batch", result: { step_results: stepResults, step_errors: stepErrors } };
      }
      case "sequence":
        db.exec(sqlOf(stream, req));
        return { type: "sequence" };
      case "store_sql":
        if (stream.sqls.has(req.sql_id))
          throw new Error(`SQL text id ${req.sql_id} is already in use`);
        stream.sqls.set(req.sql_id, req.sql);
        return { type: "store_sql" };
      case "close_sql":
        stream.sqls.delete(req.sql_id);
        return { type: "close_sql" };
      case "get_autocommit":
        return { type: "get_autocommit", is_autocommit: !db.inTransaction };
      case "close":
        return { type: "close" };
      default:
        throw new Error(
          `Request type ${JSON.stringify(req.type)} is not supported by this test server`,
        );
    }
  };

  const pipeline = async (body: { baton?: string | null; requests?: StreamRequest[] }) => {
    let stream: Stream;
    if (body.baton) {
      const found = batons.get(body.baton);
      if (!found)
        return {
          status: 400,
          json: { message: "Unknown or expired baton", code: "STREAM_EXPIRED" },
        };
      batons.delete(body.baton);
      stream = found;
    } else {
      stream = { id: nextStreamId++, sqls: new Map() };
    }
    clearTimeout(stream.timer);
    while (owner && owner !== stream) await new Promise<void>((wake) => waiters.push(wake));
    let closed = false;
    const results = (body.requests ?? []).map((req) => {
      try {
        if (closed) throw new Error("The stream is closed");
        const response = handle(stream, req);
        if (req.type === "close") closed = true;
        return { type: "ok", response };
      } catch (e) {
        return { type: "error", error: protoError(e) };
      }
    });
    if (closed) {
      closeStream(stream);
      return { status: 200, json: { baton: null, base_url: null, results } };
    }
    if (db.inTransaction) owner = stream;
    else if (owner === stream) release();
    const baton = `${stream.id}.${randomBytes(16).toString("hex")}`;
    batons.set(baton, stream);
    stream.timer = setTimeout(() => closeStream(stream), idleMs);
    stream.timer.unref();
    return { status: 200, json: { baton, base_url: null, results } };
  };

  const send = (res: ServerResponse, status: number, json: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (opts.authToken && req.headers.authorization !== `Bearer ${opts.authToken}`) {
        return send(res, 401, { message: "Unauthorized", code: "UNAUTHORIZED" });
      }
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (req.method === "GET" && (path === "/" || path === "/health" || path === "/v2")) {
        return send(res, 200, { status: "ok" });
      }
      if (req.method === "GET" && path === "/_test/stats") return send(res, 200, stats);
      if (req.method !== "POST" || path !== "/v2/pipeline") {
        return send(res, 404, { message: `No route for ${req.method} ${path}`, code: "NOT_FOUND" });
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let body: { baton?: string | null; requests?: StreamRequest[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(res, 400, { message: "The body is not valid JSON", code: "INVALID_JSON" });
      }
      stats.pipelines++;
      stats.requests += Array.isArray(body.requests) ? body.requests.length : 0;
      const out = await pipeline(body);
      send(res, out.status, out.json);
    })().catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, protoError(e));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    db,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const stream of new Set(batons.values())) closeStream(stream);
      if (db.inTransaction) db.exec("ROLLBACK");
      release();
      db.close();
    },
  };
}
