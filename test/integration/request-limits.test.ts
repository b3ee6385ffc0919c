import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../workers/src/app.js";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import { MGMT_TOKEN, openDb, startTestApp, type TestApp, tempDir } from "../support/app.js";
import { postChunked, sendRaw } from "../support/raw-http.js";

const MiB = 1024 * 1024;
const ECHO = {
  name: "echo-big",
  version: "1.0.0",
  description: "Echoes its input",
  schema: { input: { type: "object" } },
  handlerCode: "echo-handler",
};

/** Arrays nested `depth` levels deep: `[[[]]]`. */
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
/** An array schema whose items are arrays, `depth` objects deep. */
const nestedItems = (depth: number) =>
  `${'{"type":"array","items":'.repeat(depth - 1)}{"type":"string"}${"}".repeat(depth - 1)}`;

/**
 * A body for each route nested exactly `total` levels deep (the body itself is level 1), valid
 * JSON of the route's shape: executions input, a chat message's content, an extra field of a
 * choice, and an install's input schema.
 */
function deepBodies(total: number): Array<[string, string]> {
  return [
    [
      "/api/skills/executions",
      `{"skillName":"echo-big","input":{"data":${nested(total - 2)}},"sessionId":"deep"}`,
    ],
    [
      "/api/skills/inject",
      `{"format":"openai-chat","request":{"model":"m","messages":[{"role":"user","content":${nested(total - 4)}}]}}`,
    ],
    [
      "/api/skills/intercept",
      `{"format":"openai-chat","response":{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop","extra":${nested(total - 4)}}]}}`,
    ],
    [
      "/api/skills/install",
      `{"name":"deep-skill-${total}","version":"1.0.0","description":"d","handlerCode":"echo-handler","schema":{"input":{"type":"object","properties":{"a":${nestedItems(total - 4)}}}}}`,
    ],
  ];
}

async function count(t: TestApp, sql: string): Promise<number> {
  const rows = await t.client.execute(sql);
  return Number(rows.rows[0]!.n);
}

describe("request body limits over real HTTP (defaults)", () => {
  let t: TestApp;
  let key: { key: string; id: string };
  beforeAll(async () => {
    t = await startTestApp();
    expect((await t.api.post("/api/skills/install", ECHO)).status).toBe(201);
    key = await t.api.createKey("limits");
  });
  afterAll(() => t.close());

  const executions = () => count(t, "select count(*) as n from skill_executions");

  it("a 20 MB execute answers 413 payload_too_large and writes no execution", async () => {
    const before = await executions();
    const body = JSON.stringify({ skillName: "echo-big", input: { text: "a".repeat(20 * MiB) } });
    const res = await t.api.post("/api/skills/executions", body);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(res.body.error.message).toContain("2097152");
    expect(await executions()).toBe(before);
  });

  it("a chunked 20 MB execute (no Content-Length) answers 413 and writes nothing", async () => {
    const before = await executions();
    const res = await postChunked(t.url, "/api/skills/executions", key.key, {
      head: '{"skillName":"echo-big","input":{"text":"',
      fillBytes: 20 * MiB,
      tail: '"}}',
    });
    // 413, or (when the server's close beat the answer to the client) a cut connection.
    if (res.status === 0) expect(["EPIPE", "ECONNRESET"]).toContain(res.body.closed);
    else expect([res.status, res.body.error.code]).toEqual([413, "payload_too_large"]);
    expect(await executions()).toBe(before);
    expect((await t.api.get("/api/health")).status).toBe(200);
  });

  it("a chunked body under the limit is read whole and runs", async () => {
    const res = await postChunked(t.url, "/api/skills/executions", key.key, {
      head: '{"skillName":"echo-big","input":{"text":"',
      fillBytes: MiB,
      tail: '"},"sessionId":"chunked-under-limit"}',
      chunkBytes: 10_000,
    });
    expect(res.status).toBe(200);
    expect(res.body.execution.status).toBe("success");
    expect(res.body.execution.output.text.length).toBe(MiB);
  });

  it("a 5 MB install answers 413 and installs nothing", async () => {
    const res = await t.api.post(
      "/api/skills/install",
      JSON.stringify({ ...ECHO, name: "huge-skill", description: "d".repeat(5 * MiB) }),
    );
    expect([res.status, res.body.error.code]).toEqual([413, "payload_too_large"]);
    expect(await count(t, "select count(*) as n from skills where name = 'huge-skill'")).toBe(0);
  });

  it("a Content-Length over the limit is refused without waiting for the body", async () => {
    // Declares 20 MB but sends a few bytes: the answer comes from the header alone.
    const res = await sendRaw(
      t.url,
      `POST /api/skills/executions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${MGMT_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: ${20 * MiB}\r\n\r\n{"skillName":`,
    );
    expect([res.status, res.body.error.code]).toEqual([413, "payload_too_large"]);
  });

  it("a Content-Length shorter than the body reads only the declared bytes: 400, nothing written", async () => {
    const before = await executions();
    const body = JSON.stringify({ skillName: "echo-big", input: { text: "a".repeat(3 * MiB) } });
    const res = await sendRaw(
      t.url,
      `POST /api/skills/executions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${MGMT_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 40\r\nconnection: close\r\n\r\n${body}`,
    );
    // Node's parser answers 400 itself for the bytes past the declared length, or the app
    // answers 400 invalid_json for the 40 bytes it got: either way nothing past them is read.
    expect(res.status).toBe(400);
    if (res.body) expect(res.body.error.code).toBe("invalid_json");
    expect(await executions()).toBe(before);
  });

  it("inject and intercept accept conversations of several MB", async () => {
    const content = "long conversation ".repeat((6 * MiB) / 18);
    const inject = await t.api.as(key.key).post("/api/skills/inject", {
      format: "openai-chat",
      request: { model: "m", messages: [{ role: "user", content }] },
    });
    expect(inject.status).toBe(200);
    expect(inject.body.request.messages[0].content.length).toBe(content.length);
    const intercept = await t.api.as(key.key).post("/api/skills/intercept", {
      format: "openai-chat",
      response: {
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      },
    });
    expect(intercept.status).toBe(200);
    expect(intercept.body.toolResults).toEqual([]);
  });

  it("answers 400 json_too_deep for 10,000 levels on executions, inject, intercept and install", async () => {
    const before = await executions();
    const skillsBefore = await count(t, "select count(*) as n from skills");
    for (const [path, body] of deepBodies(10_000)) {
      const res = await t.api.post(path, body);
      expect([path, res.status, res.body.error.code]).toEqual([path, 400, "json_too_deep"]);
    }
    expect(await executions()).toBe(before);
    expect(await count(t, "select count(*) as n from skills")).toBe(skillsBefore);
  });

  it("never answers 500 at depths around the limit", async () => {
    for (const depth of [100, 127, 128, 129, 200, 1_000]) {
      for (const [path, body] of deepBodies(depth)) {
        const res = await t.api.post(path, body);
        expect([path, depth, res.status < 500]).toEqual([path, depth, true]);
        const tooDeep = res.body?.error?.code === "json_too_deep";
        expect([path, depth, tooDeep]).toEqual([path, depth, depth > 128]);
      }
    }
  });

  it("gives a tool error for tool-call arguments nested 10,000 levels deep in their JSON text", async () => {
    const before = await executions();
    const args = `{"a":${nested(10_000)}}`;
    for (const [format, response] of [
      [
        "openai-chat",
        {
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: [
                  {
                    id: "c1",
                    type: "function",
                    function: { name: "echo-big_v1_0_0", arguments: args },
                  },
                ],
              },
            },
          ],
        },
      ],
      [
        "openai-responses",
        {
          output: [
            {
              type: "function_call",
              id: "fc1",
              call_id: "c1",
              name: "echo-big_v1_0_0",
              arguments: args,
            },
          ],
        },
      ],
    ] as const) {
      const res = await t.api.post("/api/skills/intercept", { format, response });
      expect([format, res.status]).toEqual([format, 200]);
      expect(res.body.toolResults[0]).toMatchObject({
        callId: "c1",
        status: "error",
        error: "Tool call arguments are nested deeper than 128 levels",
      });
    }
    expect(await executions()).toBe(before);
  });

  it("counts brackets inside strings as text, not nesting", async () => {
    const res = await t.api.post("/api/skills/executions", {
      skillName: "echo-big",
      input: { text: "[{".repeat(5_000) },
      sessionId: "brackets-in-strings",
    });
    expect(res.status).toBe(200);
    expect(res.body.execution.output.text.length).toBe(10_000);
  });
});

describe("request limits through app.request (no socket)", () => {
  let cleanup: () => void;
  let app: ReturnType<typeof createApp>["app"];
  let client: Awaited<ReturnType<typeof openDb>>["client"];
  beforeAll(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    const opened = await openDb(`file:${tmp.dir}/app-request.db`);
    client = opened.client;
    app = createApp({
      db: opened.db,
      cache: new MemoryCache(),
      config: parseConfig({ MGMT_TOKEN, MAX_BODY_BYTES_EXECUTE: "65536" }),
      runtime: "node",
    }).app;
  });
  afterAll(() => {
    client.close();
    cleanup();
  });

  const headers = { authorization: `Bearer ${MGMT_TOKEN}`, "content-type": "application/json" };
  const stream = (text: string, chunk = 8192) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        for (let i = 0; i < bytes.length; i += chunk) controller.enqueue(bytes.slice(i, i + chunk));
        controller.close();
      },
    });

  it("refuses a streamed body past the limit with 413", async () => {
    const body = JSON.stringify({ skillName: "x", input: { text: "a".repeat(100_000) } });
    const res = await app.request("/api/skills/executions", {
      method: "POST",
      headers,
      body: stream(body),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
      "payload_too_large",
    );
  });

  it("counts the bytes of a body whose Content-Length understates it", async () => {
    const body = JSON.stringify({ skillName: "x", input: { text: "a".repeat(100_000) } });
    const res = await app.request("/api/skills/executions", {
      method: "POST",
      headers: { ...headers, "content-length": "100" },
      body,
    });
    expect(res.status).toBe(413);
  });

  it("refuses 10,000 levels with 400 on all four routes", async () => {
    for (const [path, body] of deepBodies(10_000)) {
      const res = await app.request(path, { method: "POST", headers, body });
      const json = (await res.json()) as { error: { code: string } };
      expect([path, res.status, json.error.code]).toEqual([path, 400, "json_too_deep"]);
    }
  });

  it("reads a streamed body under the limit", async () => {
    const body = JSON.stringify({ skillName: "nope", input: { text: "a".repeat(30_000) } });
    const res = await app.request("/api/skills/executions", {
      method: "POST",
      headers,
      body: stream(body, 1000),
      duplex: "half",
    } as RequestInit);
    // Parsed whole: the skill lookup runs and answers 404.
    expect(res.status).toBe(404);
  });
});

describe("configurable limits", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        MAX_BODY_BYTES: "4096",
        MAX_BODY_BYTES_EXECUTE: "8192",
        MAX_BODY_BYTES_INJECT: "2048",
        MAX_BODY_BYTES_INTERCEPT: "3072",
        MAX_JSON_DEPTH: "10",
      },
    });
  });
  afterAll(() => t.close());

  it("applies each route's configured size", async () => {
    const sized = (bytes: number) => ({ text: "a".repeat(bytes) });
    const exec = (bytes: number) =>
      t.api.post("/api/skills/executions", { skillName: "none", input: sized(bytes) });
    expect((await exec(7000)).status).toBe(404);
    expect((await exec(9000)).status).toBe(413);
    const inject = (bytes: number) =>
      t.api.post("/api/skills/inject", {
        format: "openai-chat",
        request: { model: "m", messages: [{ role: "user", content: "a".repeat(bytes) }] },
      });
    expect((await inject(1500)).status).toBe(200);
    expect((await inject(2500)).status).toBe(413);
    const settings = await t.api.put("/api/settings", { skillsmpApiKey: "k".repeat(5000) });
    expect([settings.status, settings.body.error.message]).toEqual([
      413,
      "Request body is larger than 4096 bytes, the limit of this route (MAX_BODY_BYTES)",
    ]);
  });

  it("applies the configured depth", async () => {
    expect((await t.api.post("/api/skills/executions", deepBodies(10)[0]![1])).status).toBe(404);
    const deep = await t.api.post("/api/skills/executions", deepBodies(11)[0]![1]);
    expect([deep.status, deep.body.error.details]).toEqual([400, { maxDepth: 10 }]);
  });

  it("refuses limits outside their range at start-up", () => {
    expect(() => parseConfig({ MAX_JSON_DEPTH: "100000" })).toThrow(/MAX_JSON_DEPTH/);
    expect(() => parseConfig({ MAX_BODY_BYTES_INJECT: "-1" })).toThrow(/MAX_BODY_BYTES_INJECT/);
  });
});
