/**
 * A catalog that cannot be reached (docs/catalogs.md#errors): the client gets 502
 * `catalog_unreachable` naming the catalog's host and the network cause (a refused connection, a
 * name that does not resolve), and the server logs exactly one line for it — no stack trace, no
 * token.
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MGMT_TOKEN, startTestApp, type TestApp } from "../support/app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function search(base: string) {
  const logged: string[] = [];
  const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    logged.push(
      args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : String(a))).join(" "),
    );
  });
  t = await startTestApp({ env: { SKILLSSH_BASE_URL: base } });
  const res = await t.api.get("/api/skills/skillssh?q=pdf");
  spy.mockRestore();
  return { res, logged };
}

describe("catalog offline", () => {
  it("a refused connection: 502 naming the host and cause, one log line without a stack", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const { res, logged } = await search(`http://127.0.0.1:${port}`);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe("catalog_unreachable");
    expect(res.body.error.message).toContain(`(127.0.0.1:${port}): connection refused`);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(
      /^\[skillgate(?: request_id=[\w=-]+)?\] catalog_unreachable on GET \/api\/skills\/skillssh: /,
    );
    expect(logged[0]).toContain("cause: connection refused");
    expect(logged[0]).not.toContain("\n");
    expect(logged[0]).not.toContain(MGMT_TOKEN);
  });

  it("a name that does not resolve reads as a DNS failure, not as a refusal", async () => {
    const { res, logged } = await search("http://catalog.no-such-host.invalid");
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain("name not resolved (DNS lookup failed)");
    expect(res.body.error.message).not.toMatch(/refused/i);
    expect(logged).toHaveLength(1);
    expect(logged[0]).not.toContain("\n");
  });
});
