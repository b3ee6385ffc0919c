/**
 * The embedded database's prepared-statement cache (docs/deployment.md#the-embedded-database):
 * statements are prepared once and reused, and reuse changes no result — after a failed
 * statement, after a schema change, across transactions, with triggers, past the cache's size.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import {
  createCachingEmbeddedClient,
  DEFAULT_STATEMENT_CACHE_SIZE,
  statementCacheStats,
} from "../../workers/src/db/statement-cache-node.js";
import { openEmbeddedDatabase } from "../../workers/src/runtime/node/embedded-db.js";

const opened: Client[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function fileDb(opts: { statementCacheSize?: number } = {}): Promise<Client> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-stmt-cache-"));
  dirs.push(dir);
  const client = await openEmbeddedDatabase(`file:${join(dir, "db.sqlite")}`, opts);
  opened.push(client);
  return client;
}

describe("embedded statement cache", () => {
  it("prepares a repeated statement once and reuses it", async () => {
    const db = await fileDb();
    await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const before = { ...statementCacheStats(db)! };
    for (let i = 0; i < 5; i++) {
      await db.execute({ sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [i, `v${i}`] });
    }
    const after = statementCacheStats(db)!;
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(4);
    const rs = await db.execute("SELECT id, v FROM t ORDER BY id");
    expect(rs.rows.map((r) => [r.id, r.v])).toEqual([0, 1, 2, 3, 4].map((i) => [i, `v${i}`]));
  });

  it("returns fresh results from a reused query each time", async () => {
    const db = await fileDb();
    await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    const count = async () =>
      Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0]!.n as number);
    expect(await count()).toBe(0);
    await db.execute("INSERT INTO t (id) VALUES (1)");
    expect(await count()).toBe(1);
    await db.batch(["INSERT INTO t (id) VALUES (2)", "INSERT INTO t (id) VALUES (3)"], "write");
    expect(await count()).toBe(3);
    const rs = await db.execute({ sql: "SELECT id FROM t WHERE id > ? ORDER BY id", args: [1] });
    const again = await db.execute({ sql: "SELECT id FROM t WHERE id > ? ORDER BY id", args: [2] });
    expect(rs.rows.map((r) => r.id)).toEqual([2, 3]);
    expect(again.rows.map((r) => r.id)).toEqual([3]);
  });

  it("reuses a statement that failed a constraint, and a failed batch rolls back whole", async () => {
    const db = await fileDb();
    await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    const insert = (id: number, v: string | null) =>
      db.execute({ sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [id, v] });
    await insert(1, "a");
    await expect(insert(1, "dup")).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    await expect(insert(2, null)).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    await insert(2, "b");
    await expect(
      db.batch(
        [
          { sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [3, "c"] },
          { sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [1, "again"] },
        ],
        "write",
      ),
    ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    const rows = (await db.execute("SELECT id, v FROM t ORDER BY id")).rows;
    expect(rows.map((r) => [r.id, r.v])).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
    // The connection is usable and not left inside a transaction.
    await db.batch(["INSERT INTO t (id, v) VALUES (3, 'c')"], "write");
    expect((await db.execute("SELECT count(*) AS n FROM t")).rows[0]!.n).toBe(3);
  });

  it("sees schema changes made after a statement was cached", async () => {
    const db = await fileDb();
    await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    await db.execute("INSERT INTO t (id) VALUES (1)");
    expect((await db.execute("SELECT * FROM t")).columns).toEqual(["id"]);
    await db.execute("ALTER TABLE t ADD COLUMN label TEXT DEFAULT 'x'");
    const rs = await db.execute("SELECT * FROM t");
    expect(rs.columns).toEqual(["id", "label"]);
    expect(rs.rows[0]!.label).toBe("x");
    // The same inside one transaction: a column added, then the cached query in the same batch.
    const [, inBatch] = await db.batch(
      ["ALTER TABLE t ADD COLUMN size INTEGER DEFAULT 5", "SELECT * FROM t"],
      "write",
    );
    expect(inBatch!.columns).toEqual(["id", "label", "size"]);
    expect(inBatch!.rows[0]!.size).toBe(5);
    // A trigger created after an insert was cached fires on the next run of that insert.
    await db.execute("CREATE TABLE log (n INTEGER)");
    await db.execute("INSERT INTO t (id) VALUES (2)");
    await db.execute(
      "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log (n) VALUES (new.id); END",
    );
    await db.execute("INSERT INTO t (id) VALUES (3)");
    expect((await db.execute("SELECT n FROM log")).rows.map((r) => r.n)).toEqual([3]);
  });

  it("sees a schema change made by another connection to the same file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillgate-stmt-cache-"));
    dirs.push(dir);
    const url = `file:${join(dir, "db.sqlite")}`;
    const server = await openEmbeddedDatabase(url);
    const migrator = await openEmbeddedDatabase(url);
    opened.push(server, migrator);
    await server.execute("CREATE TABLE t (id INTEGER)");
    await server.execute("INSERT INTO t VALUES (1)");
    expect((await server.execute("SELECT * FROM t")).columns).toEqual(["id"]);
    await migrator.execute("ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'n'");
    const rs = await server.execute("SELECT * FROM t");
    expect(rs.columns).toEqual(["id", "note"]);
    expect(rs.rows[0]!.note).toBe("n");
    // A change here rolled back, then another connection's change with the same version number.
    await expect(
      server.batch(["ALTER TABLE t ADD COLUMN a TEXT DEFAULT 'a'", "SELECT * FROM t", "SELECT x"]),
    ).rejects.toMatchObject({ code: "SQLITE_ERROR" });
    await migrator.execute("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'b'");
    const after = await server.execute("SELECT * FROM t");
    expect(after.columns).toEqual(["id", "note", "b"]);
    expect(after.rows[0]!.b).toBe("b");
    // A change made between BEGIN and the transaction's first statement.
    const tx = await server.transaction("read");
    await migrator.execute("ALTER TABLE t ADD COLUMN c TEXT DEFAULT 'c'");
    const inTx = await tx.execute("SELECT * FROM t");
    tx.close();
    expect(inTx.columns).toEqual(["id", "note", "b", "c"]);
    expect(inTx.rows[0]!.c).toBe("c");
  });

  it("binds NULL to the positional parameters a call leaves out, as a fresh statement does", async () => {
    const db = await fileDb({ statementCacheSize: 1 });
    await db.execute("CREATE TABLE t (a, b)");
    const sql = "INSERT INTO t VALUES (:x, :y) RETURNING a, b";
    await db.execute({ sql, args: [1, "one"] });
    // The same text, reused with fewer values: `b` is NULL, not the previous call's "one".
    const rs = await db.execute({ sql, args: [2] });
    expect(rs.rows.map((r) => [r.a, r.b])).toEqual([[2, null]]);
    await db.execute({ sql: "SELECT ?3 AS c", args: [0, 0, "c"] });
    expect((await db.execute({ sql: "SELECT ?3 AS c", args: [0] })).rows[0]!.c).toBeNull();
    // Named values and blobs still bind as given.
    const blob = new Uint8Array([1, 2, 3]).buffer;
    await db.execute({ sql, args: { x: 3, y: blob } });
    const rows = (await db.execute("SELECT a, typeof(b) AS tb FROM t ORDER BY a")).rows;
    expect(rows.map((r) => [r.a, r.tb])).toEqual([
      [1, "text"],
      [2, "null"],
      [3, "blob"],
    ]);
  });

  it("sees schema changes that the schema version number alone would miss", async () => {
    const db = await fileDb();
    await db.execute("CREATE TABLE t (id INTEGER)");
    await db.execute("INSERT INTO t VALUES (1)");
    expect((await db.execute("SELECT * FROM t")).columns).toEqual(["id"]);
    // A script run inside a transaction.
    const tx = await db.transaction("write");
    await tx.executeMultiple("ALTER TABLE t ADD COLUMN a TEXT DEFAULT 'a'");
    expect((await tx.execute("SELECT * FROM t")).columns).toEqual(["id", "a"]);
    await tx.commit();
    // DDL behind a comment, as in a migration file.
    const [, commented] = await db.batch(
      ["-- a comment\nALTER TABLE t ADD COLUMN b TEXT DEFAULT 'b'", "SELECT * FROM t"],
      "write",
    );
    expect(commented!.columns).toEqual(["id", "a", "b"]);
    // A change undone by ROLLBACK TO inside the transaction.
    const rolledBack = await db.batch(
      [
        "SAVEPOINT s",
        "ALTER TABLE t ADD COLUMN c TEXT",
        "SELECT * FROM t",
        "ROLLBACK TO s",
        "SELECT * FROM t",
      ],
      "write",
    );
    expect(rolledBack[4]!.columns).toEqual(["id", "a", "b"]);
    // A change rolled back, then another one that brings the same version number back.
    await expect(
      db.batch(["ALTER TABLE t ADD COLUMN d TEXT DEFAULT 'd'", "SELECT * FROM t", "SELECT nope"]),
    ).rejects.toMatchObject({ code: "SQLITE_ERROR" });
    await db.executeMultiple("ALTER TABLE t ADD COLUMN e TEXT DEFAULT 'e'");
    const rs = await db.execute("SELECT * FROM t");
    expect(rs.columns).toEqual(["id", "a", "b", "e"]);
    expect(rs.rows[0]!.e).toBe("e");
    expect(rs.rows[0]!.d).toBeUndefined();
  });

  it("keeps PRAGMA defer_foreign_keys set before a batch for that batch", async () => {
    const db = await fileDb();
    await db.executeMultiple(
      "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid INTEGER REFERENCES p (id));",
    );
    await db.execute("PRAGMA defer_foreign_keys = ON");
    // The child row comes before its parent: only a deferred check lets the batch commit.
    await db.batch(["INSERT INTO c (pid) VALUES (1)", "INSERT INTO p (id) VALUES (1)"], "write");
    // SQLite switches the setting off at the commit: the next batch checks at once again.
    await expect(
      db.batch(["INSERT INTO c (pid) VALUES (2)", "INSERT INTO p (id) VALUES (2)"], "write"),
    ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    expect((await db.execute("SELECT count(*) AS n FROM c")).rows[0]!.n).toBe(1);
  });

  it("keeps at most its capacity, dropping the least recently used", async () => {
    const db = await fileDb({ statementCacheSize: 2 });
    const stats = statementCacheStats(db)!;
    const base = { ...stats };
    await db.execute("SELECT 1 AS a");
    await db.execute("SELECT 2 AS a");
    await db.execute("SELECT 1 AS a"); // hit; "SELECT 2" is now the oldest
    await db.execute("SELECT 3 AS a"); // evicts "SELECT 2"
    await db.execute("SELECT 1 AS a"); // still cached
    const r = await db.execute("SELECT 2 AS a"); // prepared again
    expect(r.rows[0]!.a).toBe(2);
    expect(stats.hits - base.hits).toBe(2);
    expect(stats.misses - base.misses).toBe(4);
    expect(stats.evictions - base.evictions).toBeGreaterThanOrEqual(2);
    // A capacity that is not a number still bounds the cache (at the default size).
    const unbounded = createCachingEmbeddedClient(":memory:", { capacity: Number.NaN });
    opened.push(unbounded);
    for (let i = 0; i <= DEFAULT_STATEMENT_CACHE_SIZE; i++) await unbounded.execute(`SELECT ${i}`);
    expect(statementCacheStats(unbounded)!.evictions).toBeGreaterThan(0);
  });

  it("runs interactive transactions on the cached connection", async () => {
    const db = await fileDb();
    await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    const tx = await db.transaction("write");
    await tx.execute("INSERT INTO t (id) VALUES (1)");
    await tx.rollback();
    const tx2 = await db.transaction("write");
    await tx2.execute("INSERT INTO t (id) VALUES (2)");
    await tx2.commit();
    expect((await db.execute("SELECT id FROM t")).rows.map((r) => r.id)).toEqual([2]);
  });

  it("opens an in-memory database, refuses server URLs, and fails once closed", async () => {
    const mem = createCachingEmbeddedClient(":memory:");
    opened.push(mem);
    await mem.execute("CREATE TABLE t (id INTEGER)");
    await mem.execute("INSERT INTO t VALUES (7)");
    expect((await mem.execute("SELECT id FROM t")).rows[0]!.id).toBe(7);
    expect(statementCacheStats(mem)).toBeDefined();
    expect(() => createCachingEmbeddedClient("http://127.0.0.1:1")).toThrow(/embedded/);
    expect(() => createCachingEmbeddedClient("file://example.com/x.db")).toThrow(/host/);
    const db = await fileDb();
    db.close();
    await expect(db.execute("SELECT 1")).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });

  it("reopens a closed file with its committed rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillgate-stmt-cache-"));
    dirs.push(dir);
    const url = `file:${join(dir, "db.sqlite")}`;
    const first = await openEmbeddedDatabase(url);
    await first.execute("CREATE TABLE t (id INTEGER)");
    await first.execute("INSERT INTO t VALUES (1)");
    first.close();
    const second = await openEmbeddedDatabase(url);
    opened.push(second);
    await second.execute("INSERT INTO t VALUES (2)");
    expect((await second.execute("SELECT id FROM t ORDER BY id")).rows.map((r) => r.id)).toEqual([
      1, 2,
    ]);
  });
});
