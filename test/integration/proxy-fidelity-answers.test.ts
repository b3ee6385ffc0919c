/**
 * A proxied answer carries the same content streamed or not: the text an earlier round said
 * before its owned call is in the JSON answer as it is in the stream. While owned calls run, a
 * stream shows the provider's own keep-alive (Chat an empty delta chunk, Responses a
 * `response.in_progress` event with the response so far, Anthropic `ping`, Gemini a chunk with
 * an empty text part), which each
 * official SDK's stream helper reads without adding anything to the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, askStream, sdkClients } from "../support/proxy-clients.js";
import {
  FORMATS,
  type Format,
  formatOf,
  type Obj,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, WEATHER } from "../support/proxy-stand.js";

const SLOW = "slowFidelity_v1_0_0";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_KEEPALIVE_MS: "50" });
  s.app.services.executor.registerHandler("slow-fidelity", async () => {
    await new Promise((r) => setTimeout(r, 300));
    return { slow: true };
  });
  const res = await s.app.api.post("/api/skills/install", {
    name: "slowFidelity",
    version: "1.0.0",
    description: "Takes its time",
    schema: { input: {} },
    handlerCode: "slow-fidelity",
    apiKeyId: s.key.id,
  });
  expect(res.status).toBe(201);
});
afterAll(() => s.close());

/** A tool turn that says `text` before its calls, in every format. */
function sayingToolTurn(f: Format, name: string, text: string, n: number): Obj {
  const turn = toolTurn(f, [{ id: `call${n}`, name, args: { city: "Oslo" } }], n, text);
  if (f === "openai-responses") {
    const msg = textTurn(f, text, n).output as Obj[];
    return { ...turn, output: [...msg, ...(turn.output as Obj[])] };
  }
  if (f === "gemini") {
    const cand = (turn.candidates as Obj[])[0]!;
    const content = cand.content as Obj;
    return {
      ...turn,
      candidates: [
        { ...cand, content: { ...content, parts: [{ text }, ...(content.parts as Obj[])] } },
      ],
    };
  }
  return turn;
}

/** Round 1 says something and calls `tool`; round 2 answers. Streams without upstream pings. */
function twoRounds(tool: string): void {
  s.script((req, body, n) => {
    const f = formatOf(req.url.split("?")[0]!);
    const answer =
      toolResults(f, body).length === 0
        ? sayingToolTurn(f, tool, "Looking it up. ", n)
        : textTurn(f, "Oslo is 12°C.", n);
    if (!wantsStream(req.url, body)) return { kind: "json", body: answer };
    return { kind: "sse", events: sseOf(f, answer).filter((e) => e.event !== "ping") };
  });
}

describe.each(FORMATS)("%s", (format: Format) => {
  it("the JSON answer keeps the text of earlier rounds, as the stream does", async () => {
    twoRounds(WEATHER);
    const plain = await ask(format, s.app.url, s.key.key, "Oslo?");
    const streamed = await askStream(format, s.app.url, s.key.key, "Oslo?");
    expect(streamed.text).toBe("Looking it up. Oslo is 12°C.");
    expect(plain.text).toBe(streamed.text);
    expect(plain.calls).toEqual([]);
  });

  it("a stream shows the provider's own keep-alive while a skill runs", async () => {
    twoRounds(SLOW);
    const c = sdkClients(s.app.url, s.key.key);
    let keepAlives = 0;
    let text = "";
    if (format === "openai-chat") {
      const stream = c.openai.chat.completions.stream({
        model: "gpt-test",
        messages: [{ role: "user", content: "slow" }],
      });
      stream.on("chunk", (ch) => {
        const choice = ch.choices[0];
        if (choice && Object.keys(choice.delta).length === 0 && choice.finish_reason === null)
          keepAlives++;
      });
      text = (await stream.finalChatCompletion()).choices[0]!.message.content ?? "";
    } else if (format === "openai-responses") {
      const stream = c.openai.responses.stream({ model: "gpt-test", input: "slow" });
      // Round 1's own response.in_progress is forwarded; the others are the proxy's.
      stream.on("event", (e) => {
        if (e.type === "response.in_progress") keepAlives++;
      });
      text = (await stream.finalResponse()).output_text;
      keepAlives--;
    } else if (format === "anthropic") {
      // The SDK's stream helper drops `ping` silently (as it should): read the raw events.
      const res = await c.anthropic.messages
        .create({
          model: "claude-test",
          max_tokens: 64,
          stream: true,
          messages: [{ role: "user", content: "slow" }],
        })
        .asResponse();
      const events = (await res.text())
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)) as Obj);
      keepAlives = events.filter((e) => e.type === "ping").length;
      text = events
        .map((e) => (e.delta as Obj | undefined)?.text)
        .filter((t) => typeof t === "string")
        .join("");
    } else {
      const chat = c.gemini.chats.create({ model: "gemini-test" });
      for await (const ch of await chat.sendMessageStream({ message: "slow" })) {
        const parts = ch.candidates?.[0]?.content?.parts ?? [];
        if (parts.length === 1 && parts[0]!.text === "" && !ch.candidates?.[0]?.finishReason)
          keepAlives++;
        text += ch.text ?? "";
      }
      // The chat keeps the streamed turn in its history (every chunk was a valid one).
      const history = chat.getHistory();
      expect(history[0]?.role).toBe("user");
      expect(history.at(-1)?.role).toBe("model");
    }
    expect(keepAlives).toBeGreaterThan(0);
    expect(text).toBe("Looking it up. Oslo is 12°C.");
  });
});
