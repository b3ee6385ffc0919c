/**
 * Opening the database of the Node server (docs/deployment.md#the-embedded-database) through the
 * public `@libsql/client` API: the server settings are applied, `encryptionKey` encrypts the file
 * at rest, `syncUrl` makes an embedded replica, and a libSQL server that requires a token refuses
 * a missing or wrong one at start-up with a message naming `LIBSQL_AUTH_TOKEN`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@libsql/client";
import semver from "semver";
import { afterEach, describe, expect, it } from "vitest";
import {
  openEmbeddedDatabase,
  openNodeDatabase,
} from "../../workers/src/runtime/node/embedded-db.js";
import { createNodeDeps, nodeSettings } from "../../workers/src/runtime/node/node-deps.js";
import { startHranaServer } from "../workerd/hrana-server.js";

const opened: Client[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-db-"));
  dirs.push(dir);
  return join(dir, "db.sqlite");
}

const SQLITE_HEADER = "SQLite format 3\0";
const header = (path: string) => readFileSync(path).subarray(0, 16).toString("latin1");

describe("the embedded database", () => {
  it("applies the server settings on its one connection", async () => {
    const db = await openEmbeddedDatabase(`file:${tempFile()}`, { synchronous: "full" });
    opened.push(db);
    const read = async (pragma: string) => (await db.execute(`PRAGMA ${pragma}`)).rows[0]![0];
    expect(await read("journal_mode")).toBe("wal");
    expect(await read("synchronous")).toBe(2); // FULL
    expect(await read("foreign_keys")).toBe(1);
    expect(await read("busy_timeout")).toBe(5000);
    // Concurrent calls share the connection: the settings hold on every one.
    const all = await Promise.all(Array.from({ length: 8 }, () => read("foreign_keys")));
    expect(all).toEqual(Array(8).fill(1));
  });

  it("encrypts the file with encryptionKey, which it then needs to open it", async () => {
    const path = tempFile();
    const db = await openEmbeddedDatabase(`file:${path}`, { encryptionKey: "k3y-of-the-test" });
    await db.execute("CREATE TABLE t (v TEXT)");
    await db.execute({ sql: "INSERT INTO t VALUES (?)", args: ["secret-value"] });
    await db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    const bytes = readFileSync(path);
    expect(header(path)).not.toBe(SQLITE_HEADER);
    expect(bytes.includes(Buffer.from("secret-value"))).toBe(false);
    await expect(openEmbeddedDatabase(`file:${path}`)).rejects.toThrow(/not a database|NOTADB/i);
    const again = await openEmbeddedDatabase(`file:${path}`, { encryptionKey: "k3y-of-the-test" });
    opened.push(again);
    expect((await again.execute("SELECT v FROM t")).rows[0]!.v).toBe("secret-value");
    // Without a key the file is plain SQLite.
    const plainPath = tempFile();
    const plain = await openEmbeddedDatabase(`file:${plainPath}`);
    await plain.execute("CREATE TABLE t (v TEXT)");
    plain.close();
    expect(header(plainPath)).toBe(SQLITE_HEADER);
  });

  it("takes LIBSQL_ENCRYPTION_KEY from the environment of the Node server", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillgate-db-"));
    dirs.push(dir);
    const env = { DATA_DIR: dir, LIBSQL_ENCRYPTION_KEY: "env-key", MGMT_TOKEN: "m".repeat(32) };
    const settings = nodeSettings(env);
    expect(settings.libsqlEncryptionKey).toBe("env-key");
    const { client } = await createNodeDeps(env, settings);
    await client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    client.close();
    expect(header(join(dir, "skillgate.db"))).not.toBe(SQLITE_HEADER);
  });

  it("passes syncUrl on: an embedded replica needs a file, not memory", async () => {
    expect(nodeSettings({ LIBSQL_SYNC_URL: " http://127.0.0.1:9/ " }).libsqlSyncUrl).toBe(
      "http://127.0.0.1:9/",
    );
    await expect(
      openEmbeddedDatabase(":memory:", { syncUrl: "http://127.0.0.1:9" }),
    ).rejects.toMatchObject({ code: "URL_INVALID", message: expect.stringMatching(/replica/i) });
    // The same URL without syncUrl opens fine.
    const mem = await openEmbeddedDatabase(":memory:");
    opened.push(mem);
    expect((await mem.execute("SELECT 1 AS one")).rows[0]!.one).toBe(1);
  });
});

describe("a libSQL server that requires a token", () => {
  it("refuses a missing or wrong token at start-up, naming LIBSQL_AUTH_TOKEN", async () => {
    const server = await startHranaServer({ path: ":memory:", authToken: "right-token" });
    try {
      await expect(openNodeDatabase(server.url)).rejects.toThrow(
        /requires an auth token: set LIBSQL_AUTH_TOKEN/,
      );
      const wrong = openNodeDatabase(server.url, { authToken: "wrong-token" });
      await expect(wrong).rejects.toThrow(/refused LIBSQL_AUTH_TOKEN/);
      await expect(wrong).rejects.not.toThrow(/wrong-token/);
      const db = await openNodeDatabase(server.url, { authToken: "right-token" });
      opened.push(db);
      expect((await db.execute("SELECT 'in' AS v")).rows[0]!.v).toBe("in");
    } finally {
      await server.close();
    }
  });
});

describe("the libSQL packages", () => {
  it("a library user gets the versions tested here: exact pins among the dependencies", () => {
    const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));
    const pkg = read("package.json");
    const lock = read("package-lock.json");
    for (const name of ["@libsql/client", "@libsql/core", "libsql"]) {
      const pinned = pkg.dependencies?.[name];
      expect(semver.valid(pinned), `${name} pinned exactly in dependencies`).toBe(pinned);
      expect(read(`node_modules/${name}/package.json`).version).toBe(pinned);
      expect(lock.packages[`node_modules/${name}`].version).toBe(pinned);
      expect(lock.packages[""].dependencies[name]).toBe(pinned);
    }
    // The client's own ranges accept the pins, so npm installs one copy of each, the pinned one.
    const client = read("node_modules/@libsql/client/package.json");
    expect(semver.satisfies(pkg.dependencies.libsql, client.dependencies.libsql)).toBe(true);
    expect(
      semver.satisfies(pkg.dependencies["@libsql/core"], client.dependencies["@libsql/core"]),
    ).toBe(true);
  });
});
