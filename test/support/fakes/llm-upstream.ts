/**
 * A fake LLM provider on 127.0.0.1 for the four wire formats, enough for a two-turn tool
 * conversation: the first request of a conversation gets a canned response holding tool calls;
 * a request that carries tool results is checked the way the provider checks a replayed
 * conversation (from each provider's documentation and error messages) and answered with a final
 * text, or refused with a 400 in the provider's error shape.
 *
 * Checks:
 * - Chat Completions: every assistant `tool_calls[].id` is a non-empty string, unique in the
 *   request, and answered by exactly one `tool` message right after that assistant message.
 * - Responses: every `function_call` has a non-empty `call_id`, unique; every
 *   `function_call_output` answers exactly one of them; item ids use `[A-Za-z0-9_-]` only and
 *   are unique; a `function_call` item id begins with `fc`.
 * - Anthropic Messages: every `tool_use` id matches `^[a-zA-Z0-9_-]+$` and is unique; the next
 *   message is a `user` message starting with one `tool_result` per `tool_use` id.
 * - Gemini: a model turn with N `functionCall` parts is followed by a user turn with N
 *   `functionResponse` parts; ids, where calls carry them, are echoed.
 */
import type { ServerResponse } from "node:http";
import { type FakeServer, startFakeServer } from "./http.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objs = (v: unknown): Obj[] => arr(v).filter(isObj);
const SAFE = /^[A-Za-z0-9_-]+$/;

function sameSet(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n");
}

/** Why a Chat Completions request with tool results would be refused, or null. */
export function checkChat(body: Obj): string | null {
  const messages = objs(body.messages);
  const seen = new Set<unknown>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (
      m.role === "tool" &&
      (i === 0 || !["tool", "assistant"].includes(String(messages[i - 1]!.role)))
    )
      return `messages[${i}]: a tool message must follow an assistant message with tool_calls`;
    if (m.role !== "assistant" || arr(m.tool_calls).length === 0) continue;
    const ids = objs(m.tool_calls).map((tc) => tc.id);
    for (const id of ids) {
      if (typeof id !== "string" || id === "") return `messages[${i}].tool_calls: missing id`;
      if (seen.has(id)) return `messages[${i}].tool_calls: duplicate id ${id}`;
      seen.add(id);
    }
    const answers: unknown[] = [];
    for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++)
      answers.push(messages[j]!.tool_call_id);
    if (!sameSet(ids, answers))
      return `messages[${i}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'`;
  }
  return null;
}

/** Why a Responses request with tool outputs would be refused, or null. */
export function checkResponses(body: Obj): string | null {
  const items = objs(body.input);
  const itemIds = new Set<string>();
  const calls: unknown[] = [];
  const outputs: unknown[] = [];
  for (const [i, item] of items.entries()) {
    if (item.id !== undefined) {
      if (typeof item.id !== "string" || !SAFE.test(item.id))
        return `input[${i}].id: letters, numbers, underscores or dashes only`;
      if (itemIds.has(item.id)) return `input[${i}].id: duplicate item id`;
      itemIds.add(item.id);
      if (item.type === "function_call" && !item.id.startsWith("fc"))
        return `input[${i}].id: expected an ID that begins with 'fc'`;
    }
    if (item.type === "function_call") {
      if (typeof item.call_id !== "string" || item.call_id === "")
        return `input[${i}].call_id: missing`;
      if (calls.includes(item.call_id)) return `input[${i}].call_id: duplicate`;
      calls.push(item.call_id);
    }
    if (item.type === "function_call_output") {
      if (!calls.includes(item.call_id))
        return `No tool call found for function call output with call_id ${String(item.call_id)}`;
      outputs.push(item.call_id);
    }
  }
  return sameSet(calls, outputs) ? null : "every function_call needs exactly one output";
}

/** Why an Anthropic Messages request with tool results would be refused, or null. */
export function checkAnthropic(body: Obj): string | null {
  const messages = objs(body.messages);
  const seen = new Set<unknown>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const ids = objs(m.content)
      .filter((b) => b.type === "tool_use")
      .map((b) => b.id);
    if (ids.length === 0) continue;
    for (const id of ids) {
      if (typeof id !== "string" || !SAFE.test(id))
        return `messages.${i}: tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (seen.has(id)) return `messages.${i}: \`tool_use\` ids must be unique`;
      seen.add(id);
    }
    const next = messages[i + 1];
    const blocks = next?.role === "user" ? objs(next.content) : [];
    const leading: unknown[] = [];
    for (const b of blocks) {
      if (b.type !== "tool_result") break;
      leading.push(b.tool_use_id);
    }
    if (!sameSet(ids, leading))
      return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after`;
  }
  return null;
}

/** Why a Gemini request with function responses would be refused, or null. */
export function checkGemini(body: Obj): string | null {
  const contents = objs(body.contents);
  for (let i = 0; i < contents.length; i++) {
    const calls = objs(contents[i]!.parts)
      .map((p) => p.functionCall)
      .filter(isObj);
    if (calls.length === 0) continue;
    const responses = objs(contents[i + 1]?.parts)
      .map((p) => p.functionResponse)
      .filter(isObj);
    if (responses.length !== calls.length)
      return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
    const callIds = calls.map((c) => c.id).filter((id) => typeof id === "string" && id !== "");
    const echoed = responses.map((r) => r.id).filter((id) => id !== undefined);
    if (callIds.length > 0 && !sameSet(callIds, echoed))
      return "function response ids do not match";
  }
  return null;
}

/** First-turn responses, by format. */
export interface FirstTurns {
  chat?: Obj;
  responses?: Obj;
  anthropic?: Obj;
  gemini?: Obj;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Starts the fake provider; `first` holds what the first turn of each format answers. */
export function startFakeLlm(first: FirstTurns): Promise<FakeServer> {
  return startFakeServer((req, res) => {
    const body = JSON.parse(req.body || "{}") as Obj;
    const path = req.url.split("?")[0]!;
    const refuseOpenAi = (message: string) =>
      send(res, 400, {
        error: { message, type: "invalid_request_error", param: null, code: null },
      });
    if (path.endsWith("/chat/completions")) {
      if (!objs(body.messages).some((m) => m.role === "tool")) return send(res, 200, first.chat);
      const problem = checkChat(body);
      if (problem) return refuseOpenAi(problem);
      return send(res, 200, {
        id: "chatcmpl-2",
        object: "chat.completion",
        created: 1,
        model: String(body.model),
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            logprobs: null,
            message: { role: "assistant", content: "done", refusal: null },
          },
        ],
      });
    }
    if (path.endsWith("/responses")) {
      if (!objs(body.input).some((i) => i.type === "function_call_output"))
        return send(res, 200, first.responses);
      const problem = checkResponses(body);
      if (problem) return refuseOpenAi(problem);
      return send(res, 200, {
        id: "resp_2",
        object: "response",
        created_at: 1,
        status: "completed",
        model: String(body.model),
        output: [
          {
            type: "message",
            id: "msg_2",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "done", annotations: [] }],
          },
        ],
      });
    }
    if (path.endsWith("/messages")) {
      const hasResults = objs(body.messages).some((m) =>
        objs(m.content).some((b) => b.type === "tool_result"),
      );
      if (!hasResults) return send(res, 200, first.anthropic);
      const problem = checkAnthropic(body);
      if (problem)
        return send(res, 400, {
          type: "error",
          error: { type: "invalid_request_error", message: problem },
        });
      return send(res, 200, {
        id: "msg_2",
        type: "message",
        role: "assistant",
        model: String(body.model),
        content: [{ type: "text", text: "done" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    }
    if (path.endsWith(":generateContent")) {
      const hasResults = objs(body.contents).some((c) =>
        objs(c.parts).some((p) => isObj(p.functionResponse)),
      );
      if (!hasResults) return send(res, 200, first.gemini);
      const problem = checkGemini(body);
      if (problem)
        return send(res, 400, {
          error: { code: 400, message: problem, status: "INVALID_ARGUMENT" },
        });
      return send(res, 200, {
        candidates: [
          { index: 0, finishReason: "STOP", content: { role: "model", parts: [{ text: "done" }] } },
        ],
      });
    }
    send(res, 404, { error: { message: `no route ${path}` } });
  });
}
