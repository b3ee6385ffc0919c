/**
 * The proxy's streams on the wire (read raw, without an SDK): one lifecycle per format, reasoning
 * replayed unchanged to the next round, finish reasons that disagree with the calls, and
 * the provider's own keep-alive events while a slow skill runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Obj, textTurn, toolResults, toolTurn } from "../support/proxy-fixtures.js";
import { sseOf } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_KEEPALIVE_MS: "50" });
  s.app.services.executor.registerHandler("slow-handler", async () => {
    await new Promise((r) => setTimeout(r, 400));
    return { slow: true };
  });
  const res = await s.app.api.post("/api/skills/install", {
    name: "slowSkill",
    version: "1.0.0",
    description: "Takes its time",
    schema: { input: {} },
    handlerCode: "slow-handler",
    apiKeyId: s.key.id,
  });
  expect(res.status).toBe(201);
});
afterAll(() => s.close());

async function rawStream(
  path: string,
  body: Obj,
  headers: Record<string, string>,
): Promise<string> {
  const res = await fetch(`${s.app.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  return res.text();
}
const dataLines = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => l.slice(6));

describe("proxy streams on the wire", () => {
  it("Anthropic: one message_start/stop, thinking and redacted thinking replayed exactly", async () => {
    const thinking = {
      type: "thinking",
      thinking: "Let me look this up.",
      signature: "sig-AbC123==",
    };
    const redacted = { type: "redacted_thinking", data: "ZW5jcnlwdGVk" };
    const call = { type: "tool_use", id: "toolu_1", name: WEATHER, input: { city: "Bern" } };
    s.script((_req, body, n) => {
      if (toolResults("anthropic", body).length > 0)
        return { kind: "sse", events: sseOf("anthropic", textTurn("anthropic", "sunny", n)) };
      const e = (type: string, d: Obj) => ({ event: type, data: { type, ...d } });
      return {
        kind: "sse",
        eol: "\r\n",
        chunkBytes: 9,
        events: [
          e("message_start", {
            message: {
              id: "msg_1",
              type: "message",
              role: "assistant",
              model: "m",
              content: [],
              stop_reason: null,
              usage: { input_tokens: 3, output_tokens: 0 },
            },
          }),
          e("content_block_start", {
            index: 0,
            content_block: { type: "thinking", thinking: "", signature: "" },
          }),
          e("content_block_delta", {
            index: 0,
            delta: { type: "thinking_delta", thinking: "Let me look " },
          }),
          e("content_block_delta", {
            index: 0,
            delta: { type: "thinking_delta", thinking: "this up." },
          }),
          e("content_block_delta", {
            index: 0,
            delta: { type: "signature_delta", signature: "sig-AbC123==" },
          }),
          e("content_block_stop", { index: 0 }),
          e("content_block_start", { index: 1, content_block: redacted }),
          e("content_block_stop", { index: 1 }),
          e("ping", {}),
          e("content_block_start", { index: 2, content_block: { ...call, input: {} } }),
          e("content_block_delta", {
            index: 2,
            delta: { type: "input_json_delta", partial_json: '{"ci' },
          }),
          e("content_block_delta", {
            index: 2,
            delta: { type: "input_json_delta", partial_json: 'ty":"Bern"}' },
          }),
          e("content_block_stop", { index: 2 }),
          e("message_delta", {
            delta: { stop_reason: "tool_use", stop_sequence: null },
            usage: { output_tokens: 4 },
          }),
          e("message_stop", {}),
        ],
      };
    });
    const text = await rawStream(
      "/v1/messages",
      {
        model: "m",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "weather in Bern" }],
      },
      { "x-api-key": s.key.key },
    );
    const types = dataLines(text).map((d) => (JSON.parse(d) as Obj).type);
    expect(types.filter((t) => t === "message_start")).toHaveLength(1);
    expect(types.filter((t) => t === "message_stop")).toHaveLength(1);
    expect(types.at(-1)).toBe("message_stop");
    const second = s.requests()[1]!.body;
    const assistant = (second.messages as Obj[]).find((m) => m.role === "assistant")!;
    expect(assistant.content).toEqual([thinking, redacted, call]);
    // Client block indexes run 0, 1, 2… across both rounds.
    const starts = dataLines(text)
      .map((d) => JSON.parse(d) as Obj)
      .filter((d) => d.type === "content_block_start")
      .map((d) => d.index);
    expect(starts).toEqual([0, 1, 2]);
  });

  it("Chat: a complete call with finish_reason stop is a tool turn; no intermediate tool_calls finish", async () => {
    s.script((_req, body, n) => {
      if (toolResults("openai-chat", body).length > 0)
        return {
          kind: "sse",
          events: sseOf("openai-chat", textTurn("openai-chat", "done now", n)),
        };
      const base = { id: "chatcmpl-x", object: "chat.completion.chunk", created: 1, model: "m" };
      return {
        kind: "sse",
        events: [
          {
            data: {
              ...base,
              choices: [
                {
                  index: 0,
                  delta: {
                    role: "assistant",
                    content: null,
                    tool_calls: [
                      {
                        index: 0,
                        id: "call_9",
                        type: "function",
                        function: { name: WEATHER, arguments: '{"city":"Oslo"}' },
                      },
                    ],
                  },
                  finish_reason: "stop",
                },
              ],
            },
          },
          { data: "[DONE]" },
        ],
      };
    });
    const text = await rawStream(
      "/v1/chat/completions",
      { model: "m", stream: true, messages: [{ role: "user", content: "weather" }] },
      { authorization: `Bearer ${s.key.key}` },
    );
    expect(s.requests()).toHaveLength(2);
    const chunks = dataLines(text)
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d) as Obj);
    const finishes = chunks
      .flatMap((c) => (c.choices as Obj[]).map((ch) => ch.finish_reason))
      .filter(Boolean);
    expect(finishes).toEqual(["stop"]);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["chatcmpl-x"]));
    expect(dataLines(text).filter((d) => d === "[DONE]")).toHaveLength(1);
  });

  it("Chat: usage summed over the rounds, in one chunk, only when the client asked for it", async () => {
    const first = toolTurn("openai-chat", [{ id: "u1", name: WEATHER, args: { city: "Rome" } }], 1);
    const last = textTurn("openai-chat", "Sunny", 2);
    const total = (r: Obj) => (r.usage as { total_tokens: number }).total_tokens;
    s.script((_req, body) => ({
      kind: "sse",
      events: sseOf("openai-chat", toolResults("openai-chat", body).length ? last : first),
    }));
    const ask = (extra: Obj) =>
      rawStream(
        "/v1/chat/completions",
        { model: "m", stream: true, messages: [{ role: "user", content: "weather" }], ...extra },
        { authorization: `Bearer ${s.key.key}` },
      );
    const chunksOf = (text: string) =>
      dataLines(text)
        .filter((d) => d !== "[DONE]")
        .map((d) => JSON.parse(d) as Obj);
    const silent = chunksOf(await ask({}));
    // The proxy always asks the upstream for usage, to sum it; the client did not ask.
    expect(s.requests().map((r) => r.body.stream_options)).toEqual([
      { include_usage: true },
      { include_usage: true },
    ]);
    expect(silent.filter((c) => c.usage)).toEqual([]);
    s.script((_req, body) => ({
      kind: "sse",
      events: sseOf("openai-chat", toolResults("openai-chat", body).length ? last : first),
    }));
    const asked = chunksOf(await ask({ stream_options: { include_usage: true } }));
    const usage = asked.filter((c) => c.usage);
    expect(usage).toHaveLength(1);
    expect(usage[0]!.choices).toEqual([]);
    expect((usage[0]!.usage as Obj).total_tokens).toBe(total(first) + total(last));
    expect(asked.at(-1)).toBe(usage[0]);
    // A stream carries the first round's id (sent in its first chunk; docs/proxy.md#streaming).
    expect(new Set(asked.map((c) => c.id))).toEqual(new Set([first.id]));
    expect(first.id).not.toBe(last.id);
  });

  it("Gemini: a call with a thoughtSignature is replayed on the same part; STOP in a later chunk", async () => {
    const part = {
      functionCall: { name: WEATHER, args: { city: "Quito" } },
      thoughtSignature: "c2lnbmF0dXJl",
    };
    s.script((_req, body, n) => {
      if (toolResults("gemini", body).length > 0)
        return { kind: "sse", events: sseOf("gemini", textTurn("gemini", "warm", n)) };
      return {
        kind: "sse",
        events: [
          { data: { candidates: [{ index: 0, content: { role: "model", parts: [part] } }] } },
          {
            data: {
              candidates: [
                { index: 0, content: { role: "model", parts: [] }, finishReason: "STOP" },
              ],
            },
          },
        ],
      };
    });
    const text = await rawStream(
      "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
      { contents: [{ role: "user", parts: [{ text: "weather" }] }] },
      { "x-goog-api-key": s.key.key },
    );
    const said = dataLines(text)
      .map((d) => JSON.parse(d) as { candidates: { content: { parts: { text?: string }[] } }[] })
      .flatMap((c) => c.candidates[0]!.content.parts.map((p) => p.text ?? ""))
      .join("");
    expect(said).toBe("warm");
    const second = s.requests()[1]!.body;
    const model = (second.contents as Obj[]).find((c) => c.role === "model")!;
    expect(model.parts).toEqual([part]);
  });

  it("Responses: one created/completed, sequence numbers continuous, keep-alive while a skill runs", async () => {
    const answered: unknown[] = [];
    s.script((_req, body, n) => {
      const answer =
        toolResults("openai-responses", body).length > 0
          ? textTurn("openai-responses", "it was slow", n)
          : toolTurn("openai-responses", [{ id: "slow1", name: "slowSkill_v1_0_0", args: {} }], n);
      answered.push(answer.id);
      return { kind: "sse", events: sseOf("openai-responses", answer) };
    });
    const text = await rawStream(
      "/v1/responses",
      { model: "m", stream: true, input: "be slow" },
      { authorization: `Bearer ${s.key.key}` },
    );
    const events = dataLines(text).map((d) => JSON.parse(d) as Obj);
    // Round 1's own in_progress, then the proxy's while the skill runs.
    expect(events.filter((e) => e.type === "response.in_progress").length).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === "response.created")).toHaveLength(1);
    expect(events.filter((e) => e.type === "response.completed")).toHaveLength(1);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1)!.response as Obj;
    // Created under the first round's id, completed under the last's (the one to continue from).
    expect((events[0]!.response as Obj).id).toBe(answered[0]);
    expect(completed.id).toBe(answered[1]);
    expect(completed.usage).toMatchObject({ total_tokens: 30 });
  });
});
