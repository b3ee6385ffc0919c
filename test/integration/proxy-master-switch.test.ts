/**
 * The proxy with the master switch off (docs/proxy.md#master-switch): every endpoint forwards the
 * client's request to the upstream byte for byte (nothing injected, no usage option added) and
 * returns the upstream's answer byte for byte, JSON and event streams alike; a call naming one of
 * the key's skills reaches the client untouched and nothing is executed or recorded. The
 * Skillgate key is still required and never forwarded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, askStream } from "../support/proxy-clients.js";
import { FORMATS, type Format, formatOf, textTurn, toolTurn } from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand();
  const off = await s.app.api.put("/api/settings", { skillsEnabled: false });
  if (off.status !== 200) throw new Error(`settings: ${JSON.stringify(off.body)}`);
});
afterAll(() => s.close());

/** The path and a hand-written body (odd spacing, key order, no tools) of each format. */
function rawRequest(format: Format, stream: boolean): { path: string; body: string } {
  const q = '"weather in Lima?"';
  if (format === "openai-chat")
    return {
      path: "/v1/chat/completions",
      body: `{ "stream":${stream},"model" : "gpt-test","messages":[{"content":${q},"role":"user"}] }`,
    };
  if (format === "openai-responses")
    return {
      path: "/v1/responses",
      body: `{"input":${q},  "model":"gpt-test","stream":${stream}}`,
    };
  if (format === "anthropic")
    return {
      path: "/v1/messages",
      body: `{"max_tokens":64,"model":"claude-test","stream":${stream},\n"messages":[{"role":"user","content":${q}}]}`,
    };
  return {
    path: `/v1beta/models/gemini-test:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
    body: `{"contents":[{"role":"user","parts":[{"text":${q}}]}] }`,
  };
}

/** What the scripted upstream writes for `answer` as an event stream (eol `\n`, no splits). */
function sseBytes(format: Format, answer: Record<string, unknown>): string {
  let out = ": stream opened\n\n";
  for (const e of sseOf(format, answer))
    out += `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`;
  return out;
}

const owned = (f: Format) => toolTurn(f, [{ id: "w1", name: WEATHER, args: { city: "Lima" } }], 1);

describe.each(FORMATS)("%s", (format: Format) => {
  it.each([
    ["streaming", true],
    ["non-streaming", false],
  ])("%s: request and answer pass through byte for byte", async (_l, stream) => {
    const answer = owned(format);
    s.script((req, body) =>
      wantsStream(req.url, body)
        ? { kind: "sse", events: sseOf(formatOf(req.url.split("?")[0]!), answer) }
        : { kind: "json", body: answer },
    );
    const { path, body } = rawRequest(format, stream);
    const res = await fetch(`${s.app.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${s.key.key}`,
        "x-upstream-api-key": "sk-client-own",
      },
      body,
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    const [sent] = s.requests();
    expect(s.requests()).toHaveLength(1);
    expect(sent!.req.body).toBe(body);
    expect(sent!.req.url).toBe(path);
    expect(JSON.stringify(sent!.req.headers)).not.toContain(s.key.key);
    if (stream) {
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(text).toBe(sseBytes(format, answer));
    } else {
      expect(text).toBe(JSON.stringify(answer));
    }
    expect(res.headers.get("x-skillgate-rounds")).toBeNull();
  });

  it("an SDK sees the owned call untouched and nothing runs", async () => {
    s.script((req, body) => {
      const f = formatOf(req.url.split("?")[0]!);
      return wantsStream(req.url, body)
        ? { kind: "sse", events: sseOf(f, owned(f)) }
        : { kind: "json", body: owned(f) };
    });
    const session = `off-${format}-${crypto.randomUUID()}`;
    const headers = { "x-skillgate-session": session };
    const plain = await ask(format, s.app.url, s.key.key, "weather in Lima?", { headers });
    const streamed = await askStream(format, s.app.url, s.key.key, "weather in Lima?", { headers });
    expect(plain.calls.map((c) => c.name)).toEqual([WEATHER]);
    expect(streamed.calls.map((c) => c.name)).toEqual([WEATHER]);
    const reqs = s.requests();
    expect(reqs).toHaveLength(2);
    for (const r of reqs) expect(r.body.tools).toBeUndefined();
    const rows = await s.app.api.get<{ data: unknown[] }>(
      `/api/skills/executions?sessionId=${encodeURIComponent(session)}`,
    );
    expect(rows.body.data).toEqual([]);
  });

  it("still requires a valid Skillgate key", async () => {
    s.script((req) => ({ kind: "json", body: textTurn(formatOf(req.url.split("?")[0]!), "x", 1) }));
    const { path, body } = rawRequest(format, false);
    const res = await fetch(`${s.app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sg_not-a-key" },
      body,
    });
    expect(res.status).toBe(401);
    expect(s.requests()).toHaveLength(0);
  });
});
