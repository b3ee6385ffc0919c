/**
 * Request ids (docs/api.md#request-ids): every answer carries `x-request-id`, the client's own
 * when it is valid (1–128 characters of letters, digits, `_`, `-`, `=`), a fresh UUID otherwise;
 * the id is stored on the execution rows the request creates and names the request in log lines.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.js";
import { captureConsole } from "../support/console-capture.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("request ids", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    t.services.executor.registerHandler("echo-request-id", async (input) => ({ got: input }));
    const res = await t.api.post("/api/skills/install", {
      name: "request-id-echo",
      version: "1.0.0",
      description: "echo",
      schema: { input: { type: "object" } },
      handlerCode: "echo-request-id",
    });
    expect(res.status).toBe(201);
  });
  afterAll(() => t.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(t.url + path, { headers: { authorization: `Bearer ${t.api.token}`, ...headers } });

  it("a valid client id is answered as given", async () => {
    const res = await get("/api/health", { "x-request-id": "client-Req_42=" });
    expect(res.headers.get("x-request-id")).toBe("client-Req_42=");
  });

  it("without a client id the answer carries a fresh UUID, a new one per request", async () => {
    const a = (await get("/api/health")).headers.get("x-request-id");
    const b = (await get("/api/health")).headers.get("x-request-id");
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });

  it.each([
    ["too long", "a".repeat(129)],
    ["a space", "two words"],
    ["markup", "<script>"],
    ["a line break smuggled as text", "abc%0d%0aSet-Cookie:x"],
    ["non-ASCII", "idé"],
  ])("an invalid client id (%s) is replaced by a UUID", async (_label, id) => {
    const res = await fetch(`${t.url}/api/health`, {
      headers: { "x-request-id": Buffer.from(id, "utf8").toString("latin1") },
    });
    const answered = res.headers.get("x-request-id");
    expect(answered).toMatch(UUID);
  });

  it("the longest valid id (128 characters) is kept", async () => {
    const id = "z".repeat(128);
    expect((await get("/api/health", { "x-request-id": id })).headers.get("x-request-id")).toBe(id);
  });

  it("errors, unknown paths and the proxy doors carry the id too", async () => {
    const unauthorized = await fetch(`${t.url}/api/skills`, {
      headers: { "x-request-id": "r401" },
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("x-request-id")).toBe("r401");
    const missing = await get("/no/such/path", { "x-request-id": "r404" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toBe("r404");
    const proxy = await fetch(`${t.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "rproxy" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(proxy.status).toBe(401);
    expect(proxy.headers.get("x-request-id")).toBe("rproxy");
  });

  it("the execution row records the id of the request that created it", async () => {
    const res = await fetch(`${t.url}/api/skills/executions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.api.token}`,
        "content-type": "application/json",
        "x-request-id": "exec-req-1",
      },
      body: JSON.stringify({ skillName: "request-id-echo", input: { i: 1 } }),
    });
    expect(res.status).toBe(200);
    const { execution } = (await res.json()) as { execution: { id: string; requestId: string } };
    expect(execution.requestId).toBe("exec-req-1");
    const row = await t.client.execute({
      sql: "select request_id from skill_executions where id = ?",
      args: [execution.id],
    });
    expect(row.rows[0]?.request_id).toBe("exec-req-1");
    const read = await t.api.get(`/api/skills/executions/${execution.id}`);
    expect(read.body.execution.requestId).toBe("exec-req-1");
  });

  it("a log line written while serving a request names its id", async () => {
    const broken = await startTestApp();
    const capture = captureConsole();
    try {
      // The database goes away under the app: the request fails with a logged 500.
      broken.client.close();
      const res = await fetch(`${broken.url}/api/skills`, {
        headers: { authorization: `Bearer ${broken.api.token}`, "x-request-id": "log-req-7" },
      });
      expect(res.status).toBe(500);
      expect(res.headers.get("x-request-id")).toBe("log-req-7");
      expect(capture.lines.some((l) => l.startsWith("[skillgate request_id=log-req-7] "))).toBe(
        true,
      );
    } finally {
      capture.restore();
      await broken.close().catch(() => undefined);
    }
  });
});
