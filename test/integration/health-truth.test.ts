/**
 * `GET /api/health` tells the truth (docs/api.md#health): `degraded`, with one reason per failing
 * component, when the data disk is full or a configured sandbox host cannot be reached; a host that
 * could not be reached is not asked again for 3 s; a sandbox host that is not configured is
 * reported as such without any call; and a database failure is one line naming its cause, never
 * SQL text.
 */
import { createServer, type Server, type Socket } from "node:net";
import { createClient } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../workers/src/config.js";
import { describeDatabaseError } from "../../workers/src/database-error.js";
import { sandboxClientFromConfig } from "../../workers/src/sandbox/client.js";
import { startTestApp, type TestApp } from "../support/app.js";

let t: TestApp | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A TCP server on 127.0.0.1 that drops every connection at once, counting them. */
async function droppingServer(): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    n++;
    sockets.add(socket);
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, connections: () => n };
}

/** A port on 127.0.0.1 nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe("health tells the truth", () => {
  it("no sandbox host configured: ok, reported as not configured", async () => {
    t = await startTestApp();
    const res = await t.api.get("/api/health");
    expect(res.body.status).toBe("ok");
    expect(res.body.details.sandbox).toEqual({ ok: true, configured: false });
    expect(res.body.details.reasons).toBeUndefined();
  });

  it("a configured sandbox host that cannot be reached: degraded with the reason, not asked again for 3 s", async () => {
    const host = await droppingServer();
    const secret = "s".repeat(32);
    const config = parseConfig({ SANDBOX_URL: host.url, SANDBOX_SECRET: secret });
    t = await startTestApp({ deps: { sandbox: sandboxClientFromConfig(config) } });
    const first = await t.api.get("/api/health");
    expect(first.status).toBe(200);
    expect(first.body.status).toBe("degraded");
    expect(first.body.details.sandbox.ok).toBe(false);
    const reasons = first.body.details.reasons as { component: string; reason: string }[];
    expect(reasons.map((r) => r.component)).toEqual(["sandbox"]);
    expect(reasons[0]!.reason).toMatch(/^the sandbox host cannot be reached: /);
    expect(JSON.stringify(first.body)).not.toContain(secret);
    const anon = await t.api.as(undefined).get("/api/health");
    expect(anon.body).toEqual({ status: "degraded" });
    const seen = host.connections();
    expect(seen).toBeGreaterThan(0);
    // Within 3 s the failure is remembered: no new connection to the host.
    await t.api.get("/api/health");
    await t.api.as(undefined).get("/api/health");
    expect(host.connections()).toBe(seen);
    // After 3 s it is asked again.
    await new Promise((r) => setTimeout(r, 3_100));
    const again = await t.api.get("/api/health");
    expect(again.body.status).toBe("degraded");
    expect(host.connections()).toBeGreaterThan(seen);
  }, 20_000);

  it("a full data disk: degraded with the database's reason", async () => {
    t = await startTestApp({ env: { DATABASE_MIN_FREE_BYTES: String(2 ** 52) } });
    const res = await t.api.get("/api/health");
    expect(res.body.status).toBe("degraded");
    expect(res.body.details.database).toMatchObject({ ok: false, writable: false });
    expect(res.body.details.reasons).toEqual([
      { component: "database", reason: expect.stringMatching(/^the database's disk is full: /) },
    ]);
    expect((await t.api.as(undefined).get("/api/health")).body).toEqual({ status: "degraded" });
  });
});

describe("a database failure in one line", () => {
  const failing = async (url: string, authToken?: string): Promise<unknown> => {
    const client = createClient({ url, ...(authToken ? { authToken } : {}) });
    try {
      await client.execute("CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, v TEXT)");
      return undefined;
    } catch (err) {
      return err;
    } finally {
      client.close();
    }
  };

  it("names a refused connection, an unknown host and a refused token, never the SQL", async () => {
    const port = await closedPort();
    const refused = describeDatabaseError(
      await failing(`http://127.0.0.1:${port}`),
      `127.0.0.1:${port}`,
    );
    expect(refused).toBe(`connection refused by 127.0.0.1:${port}`);

    const unknown = describeDatabaseError(
      await failing("http://no-such-host.invalid"),
      "no-such-host.invalid",
    );
    expect(unknown).toBe("unknown host no-such-host.invalid (DNS lookup failed)");

    const http = await import("node:http");
    const auth = http.createServer((_req, res) => {
      res.writeHead(401, { "content-type": "text/plain" });
      res.end("Unauthorized");
    });
    await new Promise<void>((r) => auth.listen(0, "127.0.0.1", r));
    const authPort = (auth.address() as { port: number }).port;
    const token = "secret-token-never-shown";
    const refusedAuth = describeDatabaseError(await failing(`http://127.0.0.1:${authPort}`, token));
    await new Promise((r) => auth.close(r));
    expect(refusedAuth).toBe("authentication refused (HTTP 401): check LIBSQL_AUTH_TOKEN");
    for (const line of [refused, unknown, refusedAuth]) {
      expect(line).not.toMatch(/CREATE TABLE|Failed query|\n/);
      expect(line).not.toContain(token);
    }
  });

  it("drops drizzle's query text and parameters from any other failure", () => {
    const err = new Error("Failed query: CREATE TABLE `skills` (...)\nparams: ", {
      cause: new Error("SQLITE_ERROR: no such table: skills"),
    });
    expect(describeDatabaseError(err)).toBe("SQLITE_ERROR: no such table: skills");
    const only = new Error(`Failed query: ${"CREATE TABLE x (a TEXT);".repeat(400)}\nparams: `);
    expect(describeDatabaseError(only)).toBe("the database call failed");
  });
});
