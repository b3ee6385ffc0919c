/**
 * The test-only Hrana-over-HTTP server (test/workerd/hrana-server.ts), driven from Node by the
 * same client the Worker uses (`@libsql/client/web`) and by raw v2 pipeline requests.
 */
import { type Client, createClient } from "@libsql/client/web";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDb } from "../../workers/src/db/client.js";
import { applyMigrations } from "../../workers/src/runtime/node/migrate.js";
import { tempDir } from "../support/app.js";
import { type HranaServer, startHranaServer } from "../workerd/hrana-server.js";

let tmp: ReturnType<typeof tempDir>;
let server: HranaServer;
let client: Client;

/** Posts one raw pipeline body; returns the HTTP status and the parsed JSON. */
async function pipeline(body: unknown, url = server.url): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/v2/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

// A fresh server and database per test: tests never see each other's rows or tables.
beforeEach(async () => {
  tmp = tempDir("skillgate-hrana-");
  server = await startHranaServer({ path: `${tmp.dir}/hrana.db`, streamIdleMs: 2_000 });
  client = createClient({ url: server.url, intMode: "bigint" });
  await client.execute(
    "create table vals (id integer primary key, i integer, f real, t text, b blob, n text)",
  );
  await client.execute("create table uniq (k text primary key)");
});

afterEach(async () => {
  client.close();
  await server.close();
  tmp.cleanup();
});

describe("test Hrana server (HTTP v2 JSON)", () => {
  it("round-trips integer, float, text, blob and null values with column metadata", async () => {
    const big = 9_007_199_254_740_993n;
    const insert = await client.execute({
      sql: "insert into vals (i, f, t, b, n) values (?, ?, ?, ?, ?)",
      args: [big, 2.5, "héllo", new Uint8Array([0, 255, 7]), null],
    });
    expect(insert.rowsAffected).toBe(1);
    expect(insert.lastInsertRowid).toBe(1n);
    const rs = await client.execute("select i, f, t, b, n, 1.0 as one from vals where id = 1");
    expect(rs.columns).toEqual(["i", "f", "t", "b", "n", "one"]);
    expect(rs.columnTypes).toEqual(["INTEGER", "REAL", "TEXT", "BLOB", "TEXT", ""]);
    const row = rs.rows[0]!;
    expect(row.i).toBe(big);
    expect(row.f).toBe(2.5);
    expect(row.t).toBe("héllo");
    expect([...new Uint8Array(row.b as ArrayBuffer)]).toEqual([0, 255, 7]);
    expect(row.n).toBeNull();
    expect(row.one).toBe(1);
  });

  it("binds named arguments given with a :, @ or $ prefix (never NULL)", async () => {
    await client.execute({
      sql: "insert into vals (id, t, n) values (:id, @t, $n)",
      args: { id: 10n, t: "named", n: "x" },
    });
    const rs = await client.execute({
      sql: "select t, n from vals where id = $id",
      args: { id: 10n },
    });
    expect(rs.rows.map((r) => [r.t, r.n])).toEqual([["named", "x"]]);
  });

  it("counts affected rows only for statements that change rows", async () => {
    await client.batch(["insert into uniq values ('a')", "insert into uniq values ('b')"]);
    const upd = await client.execute("update uniq set k = k || '!' returning k");
    expect(upd.rowsAffected).toBe(2);
    expect(upd.rows.map((r) => r.k).sort()).toEqual(["a!", "b!"]);
    const sel = await client.execute("select count(*) as n from uniq");
    expect(sel.rowsAffected).toBe(0);
    expect(sel.rows[0]!.n).toBe(2n);
  });

  it("reports SQL errors with the SQLite message and code, and keeps serving", async () => {
    await client.execute("insert into uniq values ('dup')");
    const err = (await client.execute("insert into uniq values ('dup')").then(
      () => new Error("expected a constraint error"),
      (e: unknown) => e,
    )) as Error & { code?: string };
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain("UNIQUE constraint failed: uniq.k");
    expect(err.code).toMatch(/^SQLITE_CONSTRAINT/);
    const ok = await client.execute("select 42 as v");
    expect(ok.rows[0]!.v).toBe(42n);
  });

  it("runs a batch atomically: a failing step rolls back the steps before it", async () => {
    await client.execute("insert into uniq values ('dup')");
    const failed = await client
      .batch(["insert into uniq values ('batch-1')", "insert into uniq values ('dup')"], "write")
      .catch((e: unknown) => e as Error);
    expect(failed).toBeInstanceOf(Error);
    const rs = await client.execute("select count(*) as n from uniq where k = 'batch-1'");
    expect(rs.rows[0]!.n).toBe(0n);
    const results = await client.batch(
      ["insert into uniq values ('batch-2')", "select k from uniq where k = 'batch-2'"],
      "write",
    );
    expect(results[1]!.rows[0]!.k).toBe("batch-2");
  });

  it("keeps an interactive transaction on one stream and makes other streams wait for it", async () => {
    const tx = await client.transaction("write");
    await tx.execute("insert into uniq values ('tx-1')");
    const inside = await tx.execute("select count(*) as n from uniq where k = 'tx-1'");
    expect(inside.rows[0]!.n).toBe(1n);
    let otherDone = false;
    const other = client.execute("select count(*) as n from uniq where k = 'tx-1'").then((rs) => {
      otherDone = true;
      return rs.rows[0]!.n;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(otherDone).toBe(false);
    await tx.commit();
    expect(await other).toBe(1n);

    const rolled = await client.transaction("write");
    await rolled.execute("insert into uniq values ('tx-2')");
    await rolled.rollback();
    const after = await client.execute("select count(*) as n from uniq where k = 'tx-2'");
    expect(after.rows[0]!.n).toBe(0n);
  });

  it("runs a sequence of statements (executeMultiple)", async () => {
    await client.executeMultiple(
      "create table seq (x integer); insert into seq values (1); insert into seq values (2);",
    );
    const rs = await client.execute("select sum(x) as s from seq");
    expect(rs.rows[0]!.s).toBe(3n);
  });

  it("answers the raw v2 wire format: store_sql, sql_id, get_autocommit, batch conditions, close", async () => {
    const first = await pipeline({
      requests: [
        { type: "store_sql", sql_id: 7, sql: "select ? + 1 as v" },
        {
          type: "execute",
          stmt: { sql_id: 7, args: [{ type: "integer", value: "41" }], want_rows: true },
        },
        { type: "get_autocommit" },
        {
          type: "batch",
          batch: {
            steps: [
              { stmt: { sql: "select nope" } },
              { condition: { type: "error", step: 0 }, stmt: { sql: "select 'ran' as r" } },
              { condition: { type: "ok", step: 0 }, stmt: { sql: "select 'skipped'" } },
              {
                condition: { type: "not", cond: { type: "is_autocommit" } },
                stmt: { sql: "select 'skipped'" },
              },
            ],
          },
        },
        { type: "describe", sql: "select 1" },
      ],
    });
    expect(first.status).toBe(200);
    expect(typeof first.json.baton).toBe("string");
    expect(first.json.base_url).toBeNull();
    const [stored, executed, autocommit, batch, describe] = first.json.results;
    expect(stored).toEqual({ type: "ok", response: { type: "store_sql" } });
    expect(executed.response.result).toMatchObject({
      cols: [{ name: "v", decltype: null }],
      rows: [[{ type: "integer", value: "42" }]],
      affected_row_count: 0,
    });
    expect(autocommit.response).toEqual({ type: "get_autocommit", is_autocommit: true });
    expect(batch.response.result.step_errors[0].message).toContain("no such column");
    expect(batch.response.result.step_results[1].rows).toEqual([[{ type: "text", value: "ran" }]]);
    expect(batch.response.result.step_results.slice(2)).toEqual([null, null]);
    expect(describe.type).toBe("error");

    const second = await pipeline({
      baton: first.json.baton,
      requests: [
        { type: "execute", stmt: { sql_id: 7, args: [{ type: "float", value: 0.5 }] } },
        { type: "close_sql", sql_id: 7 },
        { type: "execute", stmt: { sql_id: 7 } },
        { type: "close" },
      ],
    });
    expect(second.json.baton).toBeNull();
    expect(second.json.results[0].response.result.rows).toEqual([[{ type: "float", value: 1.5 }]]);
    expect(second.json.results[1].response).toEqual({ type: "close_sql" });
    expect(second.json.results[2].type).toBe("error");
    expect(second.json.results[3].response).toEqual({ type: "close" });

    const reused = await pipeline({ baton: first.json.baton, requests: [{ type: "close" }] });
    expect(reused.status).toBe(400);
    expect(reused.json.code).toBe("STREAM_EXPIRED");
  });

  it("rolls back and releases a transaction whose stream goes idle", async () => {
    const open = await pipeline({
      requests: [
        { type: "execute", stmt: { sql: "begin" } },
        { type: "execute", stmt: { sql: "insert into uniq values ('idle')" } },
      ],
    });
    expect(open.json.results.map((r: { type: string }) => r.type)).toEqual(["ok", "ok"]);
    // Another stream waits for the abandoned transaction, then sees it rolled back.
    const started = Date.now();
    const rs = await client.execute("select count(*) as n from uniq where k = 'idle'");
    expect(rs.rows[0]!.n).toBe(0n);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  });

  it("applies the drizzle migrations and serves drizzle queries over HTTP", async () => {
    const db = createDb(client);
    await applyMigrations(db);
    const tables = await db.all<{ name: string }>(
      sql`select name from sqlite_master where type = 'table' order by name`,
    );
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(["skills", "skill_executions", "api_keys", "settings"]),
    );
    const fk = await client.execute("pragma foreign_keys");
    expect(fk.rows[0]![0]).toBe(1n);
  });

  it("answers the version probe and refuses a wrong bearer token when one is required", async () => {
    expect((await fetch(`${server.url}/v2`)).status).toBe(200);
    const guarded = await startHranaServer({ path: ":memory:", authToken: "secret-token" });
    try {
      const denied = await pipeline({ requests: [{ type: "close" }] }, guarded.url);
      expect(denied.status).toBe(401);
      const authed = createClient({ url: guarded.url, authToken: "secret-token" });
      const rs = await authed.execute("select 'in' as v");
      expect(rs.rows[0]!.v).toBe("in");
      authed.close();
    } finally {
      await guarded.close();
    }
  });

  it("counts pipelines (round trips) and the stream requests inside them", async () => {
    const own = await startHranaServer({ path: ":memory:" });
    const c = createClient({ url: own.url });
    try {
      expect(own.stats).toEqual({ pipelines: 0, requests: 0 });
      await c.execute("select 1");
      await c.batch(["select 1", "select 2", "select 3"], "read");
      // One pipeline each: the statement (or batch) and the stream's close travel together.
      expect(own.stats.pipelines).toBe(2);
      expect(own.stats.requests).toBeGreaterThanOrEqual(4);
      const served = await (await fetch(`${own.url}/_test/stats`)).json();
      expect(served).toEqual(own.stats);
    } finally {
      c.close();
      await own.close();
    }
  });
});
