/**
 * A turn that mixes an owned call and a client call: the proxy runs its own, hands the client a
 * turn holding only the client's call, and when the client sends its result the upstream sees
 * the true conversation again (the owned call and its result back at their place).
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { GenerateContentResponse } from "@google/genai";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkAnthropic,
  checkChat,
  checkGemini,
  checkResponses,
} from "../support/fakes/llm-upstream.js";
import { ask, sdkClients } from "../support/proxy-clients.js";
import {
  FORMATS,
  type Format,
  formatOf,
  type Obj,
  textTurn,
  toolResults,
  toolTurn,
} from "../support/proxy-fixtures.js";
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand();
});
afterAll(() => s.close());

const CHECK: Record<Format, (b: Obj) => string | null> = {
  "openai-chat": checkChat,
  "openai-responses": checkResponses,
  anthropic: checkAnthropic,
  gemini: checkGemini,
};

/** Sends the client's result for `callId` after the turn `raw` the SDK returned; returns the text. */
async function continueWith(
  format: Format,
  raw: unknown,
  q: string,
  callId: string,
  session: string,
) {
  const c = sdkClients(s.app.url, s.key.key);
  const headers = { "x-skillgate-session": session };
  const tools = [{ name: "Bash", parameters: { type: "object", properties: {} } }];
  if (format === "openai-chat") {
    const first = raw as OpenAI.ChatCompletion;
    const r = await c.openai.chat.completions.create(
      {
        model: "gpt-test",
        tools: tools.map((t) => ({ type: "function" as const, function: t })),
        messages: [
          { role: "user", content: q },
          first.choices[0]!.message,
          { role: "tool", tool_call_id: callId, content: "client says ok" },
        ],
      },
      { headers },
    );
    return r.choices[0]!.message.content;
  }
  if (format === "openai-responses") {
    const first = raw as OpenAI.Responses.Response;
    const r = await c.openai.responses.create(
      {
        model: "gpt-test",
        tools: tools.map((t) => ({ type: "function" as const, ...t, strict: false })),
        input: [
          { role: "user", content: q },
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { type: "function_call_output", call_id: callId, output: "client says ok" },
        ],
      },
      { headers },
    );
    return r.output_text;
  }
  if (format === "anthropic") {
    const first = raw as Anthropic.Message;
    const r = await c.anthropic.messages.create(
      {
        model: "claude-test",
        max_tokens: 256,
        tools: tools.map((t) => ({
          name: t.name,
          input_schema: { type: "object" as const, properties: {} },
        })),
        messages: [
          { role: "user", content: q },
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: callId, content: "client says ok" }],
          },
        ],
      },
      { headers },
    );
    return r.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  }
  const first = raw as GenerateContentResponse;
  const r = await c.gemini.models.generateContent({
    model: "gemini-test",
    contents: [
      { role: "user", parts: [{ text: q }] },
      first.candidates![0]!.content!,
      {
        role: "user",
        parts: [
          {
            functionResponse: { id: callId, name: "Bash", response: { output: "client says ok" } },
          },
        ],
      },
    ],
    config: { httpOptions: { headers }, tools: [{ functionDeclarations: [{ name: "Bash" }] }] },
  });
  return r.text;
}

describe.each(FORMATS)("%s", (format: Format) => {
  it("returns only the client's call, then restores the owned call when the client answers", async () => {
    const session = `mixed-${format}`;
    const ownedId = `own${format.length}`;
    const clientId = `cli${format.length}`;
    s.script((req, body, n) => {
      const f = formatOf(req.url.split("?")[0]!);
      if (toolResults(f, body).length === 0)
        return {
          kind: "json",
          body: toolTurn(
            f,
            [
              { id: ownedId, name: WEATHER, args: { city: "Madrid" } },
              { id: clientId, name: "Bash", args: { command: "ls" } },
            ],
            n,
          ),
        };
      const problem = CHECK[f](body);
      return { kind: "json", body: textTurn(f, problem ?? "both results seen", n) };
    });
    const q = "Weather in Madrid, and list my files";
    const first = await ask(format, s.app.url, s.key.key, q, {
      clientTools: ["Bash"],
      headers: { "x-skillgate-session": session },
    });
    expect(first.calls).toEqual([{ id: clientId, name: "Bash" }]);
    expect(first.headers.get("x-skillgate-rounds")).toBe("1");
    expect(first.headers.get("x-skillgate-executions")).toBeTruthy();

    const text = await continueWith(format, first.raw, q, clientId, session);
    expect(text).toBe("both results seen");
    const [, second] = s.requests();
    const results = toolResults(format, second!.body);
    expect(results.map((r) => r.id)).toEqual([ownedId, clientId]);
    expect(results[0]!.text).toContain(String(tempOf("Madrid")));
    expect(results[1]!.text).toContain("client says ok");
  });
});
