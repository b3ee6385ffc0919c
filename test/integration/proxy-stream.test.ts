/**
 * The proxy's streaming loop through each SDK's own stream helper: a multi-round conversation
 * whose owned calls arrive as deltas split over many chunks streams as one coherent answer equal
 * to the non-streaming one; a mixed turn streams only the client's call; the round limit;
 * upstream errors before and after the first bytes; a client abort closes the upstream request.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../support/fakes/llm-script.js";
import { ask, askStream } from "../support/proxy-clients.js";
import {
  FORMATS,
  type Format,
  formatOf,
  rateLimitBody,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { sseOf, wantsStream } from "../support/proxy-sse.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_MAX_ROUNDS: "3", PROXY_KEEPALIVE_MS: "50" });
});
afterAll(() => s.close());

const weather = (id: string, city: string) => ({ id, name: WEATHER, args: { city } });

/** Answers as JSON or SSE, whichever the request asked for; `crlf` and chunking vary framing. */
function conversation(final: (done: number) => string): Script {
  return (req, body, n) => {
    const f = formatOf(req.url.split("?")[0]!);
    const done = toolResults(f, body).length;
    const answer =
      done === 0
        ? toolTurn(f, [weather("c1", "Paris"), weather("c2", "Rome")], 1)
        : done === 2
          ? toolTurn(f, [weather("c3", "Stockholm")], 2)
          : textTurn(f, final(done), 3);
    return wantsStream(req.url, body)
      ? { kind: "sse", events: sseOf(f, answer), eol: n % 2 ? "\r\n" : "\n", chunkBytes: 7 }
      : { kind: "json", body: answer };
  };
}

describe.each(FORMATS)("%s", (format: Format) => {
  it("streams a multi-round conversation as one answer equal to the non-streaming one", async () => {
    s.script(conversation((done) => `Températures reçues: ${done} ✓`));
    const plain = await ask(format, s.app.url, s.key.key, "weather?");
    const streamed = await askStream(format, s.app.url, s.key.key, "weather?");
    expect(streamed.text).toBe("Températures reçues: 3 ✓");
    expect(streamed.text).toBe(plain.text);
    expect(streamed.calls).toEqual([]);
    expect(streamed.totalTokens).toBe(plain.totalTokens);
    expect(streamed.totalTokens).toBe(45);
    const reqs = s.requests();
    expect(reqs).toHaveLength(6);
    const lastStreamed = toolResults(format, reqs[5]!.body);
    expect(lastStreamed[2]!.text).toContain(String(tempOf("Stockholm")));
  });

  it("a mixed turn streams only the client's call", async () => {
    s.script((req, body) => {
      const f = formatOf(req.url.split("?")[0]!);
      const answer = toolTurn(
        f,
        [weather("m1", "Lima"), { id: "m2", name: "Bash", args: { command: "ls -la" } }],
        7,
      );
      return wantsStream(req.url, body)
        ? { kind: "sse", events: sseOf(f, answer), chunkBytes: 5 }
        : { kind: "json", body: answer };
    });
    const streamed = await askStream(format, s.app.url, s.key.key, "lima and files", {
      clientTools: ["Bash"],
    });
    expect(streamed.calls).toEqual([{ id: "m2", name: "Bash" }]);
    expect(s.requests()).toHaveLength(1);
  });

  it("stops at the round limit, returning the last turn's calls", async () => {
    s.script((req, body, n) => {
      const f = formatOf(req.url.split("?")[0]!);
      const answer = toolTurn(f, [weather(`r${n}`, "Kyiv")], n);
      return wantsStream(req.url, body)
        ? { kind: "sse", events: sseOf(f, answer) }
        : { kind: "json", body: answer };
    });
    const streamed = await askStream(format, s.app.url, s.key.key, "again and again");
    expect(s.requests()).toHaveLength(3);
    expect(streamed.calls.map((c) => c.name)).toEqual([WEATHER]);
  });

  it("an upstream 429 before the stream starts raises the SDK's own error", async () => {
    s.script((req) => {
      const body = rateLimitBody(formatOf(req.url.split("?")[0]!), "slow");
      return { kind: "json", status: 429, body, headers: { "retry-after": "3" } };
    });
    const err = await askStream(format, s.app.url, s.key.key, "hi").catch((e: unknown) => e);
    if (format === "anthropic") expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    else if (format === "gemini") expect((err as { status?: number }).status).toBe(429);
    else expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it("an upstream that drops the connection mid-stream is an error, never a clean stop", async () => {
    s.script((req, _body) => {
      const f = formatOf(req.url.split("?")[0]!);
      return {
        kind: "sse",
        events: sseOf(f, textTurn(f, "this answer is cut short", 1)),
        dropAfter: 4,
      };
    });
    let completed = false;
    await expect(
      askStream(format, s.app.url, s.key.key, "hi").then(() => {
        completed = true;
      }),
    ).rejects.toBeDefined();
    expect(completed).toBe(false);
  });

  it("a client abort closes the upstream request and starts no further round", async () => {
    s.script((req, _body) => {
      const f = formatOf(req.url.split("?")[0]!);
      return { kind: "sse", events: sseOf(f, textTurn(f, "x".repeat(60), 1)), hangAfter: 4 };
    });
    const ac = new AbortController();
    const pending = askStream(format, s.app.url, s.key.key, "hi", { signal: ac.signal });
    await expect.poll(() => s.requests().length, { timeout: 5000 }).toBe(1);
    ac.abort();
    await expect(pending).rejects.toBeDefined();
    await expect.poll(() => s.llm.aborted(), { timeout: 5000 }).toBeGreaterThan(0);
    expect(s.requests()).toHaveLength(1);
  });
});
