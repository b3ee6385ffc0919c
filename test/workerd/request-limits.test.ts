/**
 * Request limits inside workerd through the Worker entry: bodies with a declared length and
 * streamed bodies (no length) past a route's limit answer 413 and write nothing; bodies nested
 * 10,000 levels deep answer 400 `json_too_deep`; every door (the proxy, MCP, A2A, the dashboard) goes
 * through the same limit.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, directDb, ORIGIN, readJson } from "./support.js";

const MiB = 1024 * 1024;

function post(path: string, body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request(ORIGIN + path, {
    method: "POST",
    headers: {
      authorization: `Bearer ${env.MGMT_TOKEN}`,
      "content-type": "application/json",
      ...headers,
    },
    body,
    duplex: "half",
  } as RequestInit);
}

/** A stream of `head`, `fill` bytes of `a` in 64 KiB chunks, then `tail` (no length known). */
function streamed(head: string, fill: number, tail: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const chunk = encoder.encode("a".repeat(64 * 1024));
  let sent = 0;
  let stage = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 0) {
        controller.enqueue(encoder.encode(head));
        stage = 1;
      } else if (stage === 1 && sent < fill) {
        controller.enqueue(chunk);
        sent += chunk.length;
      } else if (stage === 1) {
        controller.enqueue(encoder.encode(tail));
        stage = 2;
      } else controller.close();
    },
  });
}

async function executionsWithSession(sessionId: string): Promise<number> {
  const db = directDb();
  try {
    const rows = await db.execute({
      sql: "select count(*) as n from skill_executions where session_id = ?",
      args: [sessionId],
    });
    return Number(rows.rows[0]!.n);
  } finally {
    db.close();
  }
}

describe("request limits in workerd", () => {
  it("a 20 MB execute with a Content-Length answers 413 and writes nothing", async () => {
    const body = JSON.stringify({
      skillName: "echo-handler",
      sessionId: "workerd-20mb",
      input: { text: "a".repeat(20 * MiB) },
    });
    const res = await readJson(await exports.default.fetch(post("/api/skills/executions", body)));
    expect([res.status, res.body.error.code]).toEqual([413, "payload_too_large"]);
    expect(await executionsWithSession("workerd-20mb")).toBe(0);
  });

  it("a streamed 20 MB execute (no length) answers 413 and writes nothing", async () => {
    const body = streamed(
      '{"skillName":"echo-handler","sessionId":"workerd-stream","input":{"text":"',
      20 * MiB,
      '"}}',
    );
    const res = await readJson(await exports.default.fetch(post("/api/skills/executions", body)));
    expect([res.status, res.body.error.code]).toEqual([413, "payload_too_large"]);
    expect(await executionsWithSession("workerd-stream")).toBe(0);
  });

  it("a streamed body under the limit is read whole", async () => {
    const body = streamed('{"skillName":"no-such-skill","input":{"text":"', MiB, '"}}');
    const res = await readJson(await exports.default.fetch(post("/api/skills/executions", body)));
    expect([res.status, res.body.error.code]).toEqual([404, "skill_not_found"]);
  });

  it("a Content-Length header that understates the body does not let more through", async () => {
    const body = JSON.stringify({
      skillName: "echo-handler",
      sessionId: "workerd-understated",
      input: { text: "a".repeat(3 * MiB) },
    });
    const res = await readJson(
      await exports.default.fetch(
        post("/api/skills/executions", body, { "content-length": "100" }),
      ),
    );
    expect([res.status, res.body.error.code]).toEqual([413, "payload_too_large"]);
    expect(await executionsWithSession("workerd-understated")).toBe(0);
  });

  it("a body nested 10,000 levels deep answers 400 on executions, inject, intercept and install", async () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const bodies: Array<[string, string]> = [
      ["/api/skills/executions", `{"skillName":"echo-handler","input":{"data":${deep}}}`],
      [
        "/api/skills/inject",
        `{"format":"openai-chat","request":{"model":"m","messages":[{"role":"user","content":${deep}}]}}`,
      ],
      [
        "/api/skills/intercept",
        `{"format":"openai-chat","response":{"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"extra":${deep}}]}}`,
      ],
      [
        "/api/skills/install",
        `{"name":"deep","version":"1.0.0","description":"d","handlerCode":"echo-handler","schema":{"input":${deep}}}`,
      ],
    ];
    for (const [path, body] of bodies) {
      const res = await call("POST", path, { body });
      expect([path, res.status, res.body.error.code]).toEqual([path, 400, "json_too_deep"]);
    }
  });

  it("every door refuses a streamed 20 MB body with 413 in the Worker: the proxy, MCP, A2A and the dashboard's sign-in", async () => {
    const doors: Array<[string, string, string]> = [
      ["/v1/chat/completions", "application/json", "MAX_BODY_BYTES_INJECT"],
      ["/mcp", "application/json", "MAX_BODY_BYTES_EXECUTE"],
      ["/a2a", "application/json", "MAX_BODY_BYTES"],
      ["/dashboard/login", "application/x-www-form-urlencoded", "MAX_BODY_BYTES"],
    ];
    for (const [path, type, variable] of doors) {
      const body = streamed(type === "application/json" ? '{"a":"' : "token=", 20 * MiB, "");
      const res = await exports.default.fetch(post(path, body, { "content-type": type }));
      const text = await res.text();
      expect([path, res.status, text.includes(`(${variable})`)]).toEqual([path, 413, true]);
    }
  });
});
