/**
 * `npm run db:migrate` against a database it cannot use (docs/deployment.md#migrations): one line
 * on stderr naming the cause (connection refused, unknown host), exit code 1, never SQL text and
 * never the auth token. Runs the real script in a child process.
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const TOKEN = "libsql-token-never-printed";

function migrate(url: string) {
  const res = spawnSync(TSX, ["scripts/db-migrate.ts"], {
    env: { ...process.env, LIBSQL_URL: url, LIBSQL_AUTH_TOKEN: TOKEN },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: res.status, stderr: res.stderr, stdout: res.stdout };
}

describe("db:migrate names what failed", () => {
  it("a refused connection: one line, no SQL, no token", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const out = migrate(`http://127.0.0.1:${port}`);
    expect(out.status).toBe(1);
    expect(out.stderr.trim()).toBe(
      `[skillgate] migration of 127.0.0.1:${port} failed: connection refused by 127.0.0.1:${port}`,
    );
    expect(out.stderr + out.stdout).not.toMatch(/CREATE|Failed query/);
    expect(out.stderr + out.stdout).not.toContain(TOKEN);
  }, 60_000);

  it("an unknown host: one line naming the host", () => {
    const out = migrate("http://no-such-database.invalid");
    expect(out.status).toBe(1);
    expect(out.stderr.trim()).toBe(
      "[skillgate] migration of no-such-database.invalid failed: unknown host no-such-database.invalid (DNS lookup failed)",
    );
    expect(out.stderr).not.toContain(TOKEN);
  }, 60_000);
});
