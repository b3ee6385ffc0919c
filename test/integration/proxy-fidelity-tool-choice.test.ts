/**
 * A forced tool choice does not make the proxy loop: after the forced round's owned calls ran,
 * the next round asks with the format's "auto" choice so the model can answer. Each official
 * SDK sends the forced choice (Chat `required` and a named tool, Responses `required` and a named
 * tool, Anthropic `any` and `tool`, Gemini mode `ANY`), as JSON and streamed; the fake provider
 * behaves as the real one does: a forced choice always yields a tool call, `auto` lets it answer.
 */
import { FunctionCallingConfigMode } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkClients } from "../support/proxy-clients.js";
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
import { type ProxyStand, startProxyStand, tempOf, WEATHER } from "../support/proxy-stand.js";

let s: ProxyStand;
beforeAll(async () => {
  s = await startProxyStand({ PROXY_MAX_ROUNDS: "4", PROXY_KEEPALIVE_MS: "50" });
});
afterAll(() => s.close());

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** True when the request body forces a tool call, read as the provider reads it. */
function forced(format: Format, body: Obj): boolean {
  const choice = body.tool_choice;
  if (format === "openai-chat" || format === "openai-responses")
    return choice === "required" || (isObj(choice) && choice.type === "function");
  if (format === "anthropic")
    return isObj(choice) && (choice.type === "any" || choice.type === "tool");
  const fcc = isObj(body.toolConfig) ? body.toolConfig.functionCallingConfig : undefined;
  return isObj(fcc) && fcc.mode === "ANY";
}

/** The choice a request carries, for the assertions. */
function choiceOf(format: Format, body: Obj): unknown {
  if (format !== "gemini") return body.tool_choice;
  return isObj(body.toolConfig) ? body.toolConfig.functionCallingConfig : undefined;
}

/** A provider that obeys the choice: forced → one owned call, otherwise a final text. */
function obeyingProvider(): void {
  s.script((req, body, n) => {
    const f = formatOf(req.url.split("?")[0]!);
    const answer = forced(f, body)
      ? toolTurn(f, [{ id: `fc${n}`, name: WEATHER, args: { city: "Oslo" } }], n)
      : textTurn(f, `Oslo: ${toolResults(f, body).length} result(s)`, n);
    return wantsStream(req.url, body)
      ? { kind: "sse", events: sseOf(f, answer) }
      : { kind: "json", body: answer };
  });
}

type Kind = "required" | "named";

/** Asks through the format's SDK with a forced choice of `kind`; text and calls of the answer. */
async function askForced(
  format: Format,
  kind: Kind,
  stream: boolean,
): Promise<{ text: string; calls: string[] }> {
  const c = sdkClients(s.app.url, s.key.key);
  const question = "Weather in Oslo?";
  if (format === "openai-chat") {
    const params = {
      model: "gpt-test",
      messages: [{ role: "user" as const, content: question }],
      tool_choice:
        kind === "required"
          ? ("required" as const)
          : { type: "function" as const, function: { name: WEATHER } },
    };
    const data = stream
      ? await c.openai.chat.completions.stream(params).finalChatCompletion()
      : await c.openai.chat.completions.create(params);
    const msg = data.choices[0]!.message;
    return {
      text: msg.content ?? "",
      calls: (msg.tool_calls ?? []).map((t) => (t.type === "function" ? t.function.name : "")),
    };
  }
  if (format === "openai-responses") {
    const params = {
      model: "gpt-test",
      input: question,
      tool_choice:
        kind === "required" ? ("required" as const) : { type: "function" as const, name: WEATHER },
    };
    const data = stream
      ? await c.openai.responses.stream(params).finalResponse()
      : await c.openai.responses.create(params);
    return {
      text: data.output_text,
      calls: data.output.flatMap((o) => (o.type === "function_call" ? [o.name] : [])),
    };
  }
  if (format === "anthropic") {
    const params = {
      model: "claude-test",
      max_tokens: 256,
      messages: [{ role: "user" as const, content: question }],
      tool_choice:
        kind === "required" ? { type: "any" as const } : { type: "tool" as const, name: WEATHER },
    };
    const data = stream
      ? await c.anthropic.messages.stream(params).finalMessage()
      : await c.anthropic.messages.create(params);
    return {
      text: data.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
      calls: data.content.flatMap((b) => (b.type === "tool_use" ? [b.name] : [])),
    };
  }
  const request = {
    model: "gemini-test",
    contents: question,
    config: {
      toolConfig: {
        functionCallingConfig: {
          mode: FunctionCallingConfigMode.ANY,
          ...(kind === "named" ? { allowedFunctionNames: [WEATHER] } : {}),
        },
      },
    },
  };
  if (!stream) {
    const res = await c.gemini.models.generateContent(request);
    return { text: res.text ?? "", calls: (res.functionCalls ?? []).map((f) => f.name ?? "") };
  }
  let text = "";
  const calls: string[] = [];
  for await (const chunk of await c.gemini.models.generateContentStream(request)) {
    text += chunk.text ?? "";
    for (const f of chunk.functionCalls ?? []) calls.push(f.name ?? "");
  }
  return { text, calls };
}

const AUTO: Record<Format, unknown> = {
  "openai-chat": "auto",
  "openai-responses": "auto",
  anthropic: { type: "auto" },
  gemini: { mode: "AUTO" },
};

describe.each(FORMATS)("%s", (format: Format) => {
  for (const stream of [false, true])
    for (const kind of ["required", "named"] as const)
      it(`a forced choice (${kind}, ${stream ? "streamed" : "JSON"}) runs the owned call once, then the model answers`, async () => {
        obeyingProvider();
        const answer = await askForced(format, kind, stream);
        expect(answer).toEqual({ text: "Oslo: 1 result(s)", calls: [] });
        const reqs = s.requests();
        expect(reqs).toHaveLength(2);
        expect(forced(format, reqs[0]!.body)).toBe(true);
        expect(choiceOf(format, reqs[1]!.body)).toEqual(AUTO[format]);
        const results = toolResults(format, reqs[1]!.body);
        expect(results).toHaveLength(1);
        expect(results[0]!.text).toContain(String(tempOf("Oslo")));
      });
});
