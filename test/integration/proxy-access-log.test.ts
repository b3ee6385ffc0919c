/**
 * The proxy is observable (docs/proxy.md#observability): one access log line per proxied request
 * (key id, format, model, rounds, owned calls, upstream status, durations, request id) with no
 * secret and no conversation text, JSON and streamed; one line per failed upstream call naming its
 * host and never its key; `PROXY_ACCESS_LOG=false` turns the access line off; and every proxied
 * request feeds the routing history that the A2A skill `memory_aware_routing` recommends from.
 */
import { createServer } from "node:net";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { artifactData, connectA2A, sendForTask, skillMessage } from "../support/a2a.js";
import { startTestApp } from "../support/app.js";
import { captureConsole } from "../support/console-capture.js";
import { ask, askStream } from "../support/proxy-clients.js";
import { formatOf, textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";
import { sseOf } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

const QUESTION = "Secret plans: what is the weather in Reykjavik?";
const CITY = "Reykjavik";
const ANSWER = "cloudy-with-meatballs";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand();
});
afterAll(() => s.close());

/** Two rounds: an owned weather call, then a text answer (JSON or SSE in the request's format). */
function twoRounds(kind: "json" | "sse" = "json") {
  s.script((req, body, n) => {
    const f = formatOf(req.url.split("?")[0]!);
    const turn =
      toolResults(f, body).length === 0
        ? toolTurn(f, [{ id: "call-7", name: WEATHER, args: { city: CITY } }], n)
        : textTurn(f, ANSWER, n);
    return kind === "json" ? { kind: "json", body: turn } : { kind: "sse", events: sseOf(f, turn) };
  });
}

/** Waits until `capture` holds a line matching `re` (stream ends are reported after the answer). */
async function lineMatching(lines: string[], re: RegExp): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const hit = lines.find((l) => re.test(l));
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no line matches ${re}: ${JSON.stringify(lines)}`);
}

/** Fields of a logfmt line. */
const fields = (line: string) =>
  Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));

function expectNoSecretNorContent(line: string) {
  for (const secret of [s.key.key, "sk-configured-openai", "sk-configured-anthropic"])
    expect(line).not.toContain(secret);
  for (const content of [QUESTION, "Reykjavik", ANSWER, "weather in"])
    expect(line).not.toContain(content);
}

describe("the proxy's access log", () => {
  it("writes one line per JSON request with its key, model, rounds, owned calls, statuses and durations", async () => {
    twoRounds();
    const capture = captureConsole();
    try {
      const answer = await ask("openai-chat", s.app.url, s.key.key, QUESTION, {
        headers: { "x-request-id": "access-json-1" },
      });
      expect(answer.text).toBe(ANSWER);
      const line = await lineMatching(capture.lines, /proxy access .*request|proxy access/);
      const access = capture.lines.filter((l) => l.includes("proxy access"));
      expect(access).toHaveLength(1);
      expect(line.startsWith("[skillgate request_id=access-json-1] proxy access ")).toBe(true);
      const f = fields(line);
      expect(f).toMatchObject({
        key: s.key.id,
        format: "openai-chat",
        model: "gpt-test",
        rounds: "2",
        owned_calls: "1",
        upstream_calls: "2",
        upstream_status: "200",
        status: "200",
      });
      for (const d of ["total_ms", "upstream_ms", "skills_ms"]) expect(f[d]).toMatch(/^\d+$/);
      expect(Number(f.total_ms)).toBeGreaterThanOrEqual(Number(f.upstream_ms));
      expect(Number(f.total_ms)).toBeGreaterThanOrEqual(Number(f.skills_ms));
      expectNoSecretNorContent(line);
    } finally {
      capture.restore();
    }
  });

  it("writes the line of a streamed Anthropic request once its stream ended", async () => {
    twoRounds("sse");
    const capture = captureConsole();
    try {
      const answer = await askStream("anthropic", s.app.url, s.key.key, QUESTION, {
        headers: { "x-request-id": "access-sse-1" },
      });
      expect(answer.text).toBe(ANSWER);
      const line = await lineMatching(capture.lines, /request_id=access-sse-1\] proxy access/);
      expect(fields(line)).toMatchObject({
        key: s.key.id,
        format: "anthropic",
        model: "claude-test",
        rounds: "2",
        owned_calls: "1",
        upstream_status: "200",
        status: "200",
      });
      expectNoSecretNorContent(line);
    } finally {
      capture.restore();
    }
  });

  it("logs an upstream error status and passes it on", async () => {
    s.script(() => ({ kind: "json", status: 429, body: { error: { message: "slow down" } } }));
    const capture = captureConsole();
    try {
      await expect(
        ask("openai-chat", s.app.url, s.key.key, QUESTION, {
          headers: { "x-request-id": "access-429" },
        }),
      ).rejects.toMatchObject({ status: 429 });
      const line = await lineMatching(capture.lines, /request_id=access-429\] proxy access/);
      expect(fields(line)).toMatchObject({ rounds: "0", upstream_status: "429", status: "429" });
      const err = await lineMatching(capture.lines, /request_id=access-429\] proxy upstream error/);
      expect(err).toContain(`to ${new URL(s.llm.url).host} answered 429`);
      expectNoSecretNorContent(err);
    } finally {
      capture.restore();
    }
  });
});

describe("the master switch off", () => {
  it("still writes the access line of a passed-through request, with no round", async () => {
    const quiet = await startProxyStand();
    quiet.script((_req, _body, n) => ({ kind: "json", body: textTurn("openai-chat", ANSWER, n) }));
    expect((await quiet.app.api.put("/api/settings", { skillsEnabled: false })).status).toBe(200);
    const capture = captureConsole();
    try {
      const answer = await ask("openai-chat", quiet.app.url, quiet.key.key, QUESTION, {
        headers: { "x-request-id": "access-off-1" },
      });
      expect(answer.text).toBe(ANSWER);
      const line = await lineMatching(capture.lines, /request_id=access-off-1\] proxy access/);
      expect(fields(line)).toMatchObject({
        key: quiet.key.id,
        model: "gpt-test",
        rounds: "0",
        owned_calls: "0",
        upstream_calls: "1",
        upstream_status: "200",
        status: "200",
      });
      expect(line).not.toContain(quiet.key.key);
      expect(line).not.toContain(QUESTION);
    } finally {
      capture.restore();
      await quiet.close();
    }
  });
});

describe("an unreachable upstream", () => {
  it("answers 502 and logs one line naming the host, never the key; the access line says 502", async () => {
    // A port nothing listens on.
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const app = await startTestApp({
      env: {
        UPSTREAM_OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
        UPSTREAM_OPENAI_API_KEY: "sk-unreachable-upstream-key",
      },
    });
    const key = await app.api.createKey("down");
    const capture = captureConsole();
    try {
      await expect(
        ask("openai-chat", app.url, key.key, QUESTION, { headers: { "x-request-id": "down-1" } }),
      ).rejects.toMatchObject({
        status: 502,
        message: expect.stringContaining(`The upstream 127.0.0.1:${port} could not be reached`),
      });
      const errors = capture.lines.filter((l) => l.includes("proxy upstream error"));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          `^\\[skillgate request_id=down-1\\] proxy upstream error: openai-chat call 1 to 127\\.0\\.0\\.1:${port} could not be reached: `,
        ),
      );
      const access = await lineMatching(capture.lines, /request_id=down-1\] proxy access/);
      expect(fields(access)).toMatchObject({
        key: key.id,
        upstream_calls: "1",
        upstream_status: "-",
        status: "502",
      });
      for (const line of capture.lines) {
        expect(line).not.toContain("sk-unreachable-upstream-key");
        expect(line).not.toContain(key.key);
        expect(line).not.toContain(QUESTION);
      }
    } finally {
      capture.restore();
      await app.close();
    }
  });
});

describe("PROXY_ACCESS_LOG=false", () => {
  it("writes no access line, and still feeds the routing history", async () => {
    const quiet = await startProxyStand({ PROXY_ACCESS_LOG: "false" });
    quiet.script((_req, _body, n) => ({ kind: "json", body: textTurn("openai-chat", ANSWER, n) }));
    const capture = captureConsole();
    try {
      expect((await ask("openai-chat", quiet.app.url, quiet.key.key, QUESTION)).text).toBe(ANSWER);
      await quiet.app.services.routing.settled();
      expect(capture.lines.filter((l) => l.includes("proxy access"))).toEqual([]);
      const rows = await quiet.app.client.execute({
        sql: "select provider, model, status from upstream_calls where api_key_id = ?",
        args: [quiet.key.id],
      });
      expect(rows.rows.map((r) => [r.provider, r.model, r.status])).toEqual([
        ["openai", "gpt-test", "success"],
      ]);
    } finally {
      capture.restore();
      await quiet.close();
    }
  });
});

describe("the routing history", () => {
  it("is fed by proxied traffic, and memory_aware_routing recommends from it", async () => {
    const app = await startProxyStand();
    try {
      const a2a = await connectA2A(app.app.url, app.key.key);
      const none = artifactData(
        await sendForTask(a2a, skillMessage("memory_aware_routing", { text: "weather" })),
      );
      expect(none.recommendation).toBeNull();
      // Three good OpenAI calls and three Anthropic calls the upstream refuses with 503.
      app.script((req, _body, n) =>
        formatOf(req.url.split("?")[0]!) === "anthropic"
          ? { kind: "json", status: 503, body: { type: "error", error: { type: "overloaded" } } }
          : { kind: "json", body: textTurn("openai-chat", ANSWER, n) },
      );
      for (let i = 0; i < 3; i++) {
        expect((await ask("openai-chat", app.app.url, app.key.key, QUESTION)).text).toBe(ANSWER);
        await expect(ask("anthropic", app.app.url, app.key.key, QUESTION)).rejects.toMatchObject({
          status: 503,
        });
      }
      await app.app.services.routing.settled();
      const task = await sendForTask(
        a2a,
        skillMessage("memory_aware_routing", { text: "weather", data: { windowHours: 1 } }),
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const data = artifactData(task);
      expect(data.recommendation).toMatchObject({ provider: "openai", model: "gpt-test" });
      expect(data.callsConsidered).toBe(6);
      const byModel = Object.fromEntries(
        data.candidates.map((c: { model: string }) => [c.model, c]),
      );
      expect(byModel["gpt-test"]).toMatchObject({ calls: 3, successes: 3, successRate: 1 });
      expect(byModel["claude-test"]).toMatchObject({
        provider: "anthropic",
        calls: 3,
        successes: 0,
        errorClasses: { server_error: 3 },
      });
      // The stored rows hold no conversation text.
      const rows = await app.app.client.execute({
        sql: "select * from upstream_calls where api_key_id = ?",
        args: [app.key.id],
      });
      expect(rows.rows).toHaveLength(6);
      expect(JSON.stringify(rows.rows)).not.toContain("Reykjavik");
    } finally {
      await app.close();
    }
  });
});
