/**
 * OpenAI Chat Completions wire format (docs/injection.md, docs/interception.md; OpenAI API
 * reference "Chat Completions": `tools[]` of `{ type: "function", function: { name, description,
 * parameters } }`, calls in `choices[].message.tool_calls[]`, results as one `{ role: "tool",
 * tool_call_id, content }` message per call).
 *
 * Only `choices[0]` is read: it is the assistant message a client replays; calls in other choices
 * (`n > 1`) are never run nor answered (docs/interception.md).
 *
 * Splice: the original design put a non-standard `tool_results` field next to a turn that still
 * ends with `finish_reason: "tool_calls"`; that is not valid Chat Completions, so results travel
 * only in the follow-up `tool` messages (plus `passThrough`). The returned response differs from
 * the input only where a call id was missing, empty or repeated: the synthesised id is written into
 * the call, so the replayed assistant message and the `tool` messages agree.
 */
import type { JsonSchema } from "../../skills/types.js";
import {
  functionCallOf,
  OPENAI_CONTEXT_ROLES,
  openaiCallIds,
  openaiToolBasics,
} from "../openai-common.js";
import { chatToolContent, mcpContentOf } from "../tool-content.js";
import type { CallOutcome, ExtractedCall, JsonObject, ToolAdapter, ToolSpec } from "../types.js";
import { asArray, contentText, isObject, outcomeText, withAppended } from "../wire.js";

/** A function tool as Chat Completions declares it (`ChatCompletionFunctionTool`). */
export interface ChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/**
 * A tool result message (`ChatCompletionToolMessageParam`): text, or text parts describing an MCP
 * result's blocks (Chat tool messages take no images; tool-content.ts).
 */
export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string | { type: "text"; text: string }[];
}

const TEXT_PARTS = new Set(["text"]);

/** Tool declaration for one spec; a tool without parameters gets an empty object schema. */
export function chatTool(spec: ToolSpec): ChatFunctionTool {
  return {
    type: "function",
    function: {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters ?? { type: "object", properties: {} },
    },
  };
}

/** One `tool` message per outcome, in call order. */
export function chatFollowUp(outcomes: readonly CallOutcome[]): ChatToolMessage[] {
  return outcomes.map((o) => {
    const blocks = o.status === "success" ? mcpContentOf(o.output) : undefined;
    return {
      role: "tool",
      tool_call_id: o.call.callId,
      content: blocks ? chatToolContent(blocks) : outcomeText(o),
    };
  });
}

/** The message of `choices[0]`, the only choice a client replays (docs/interception.md). */
function firstMessage(response: JsonObject): JsonObject | undefined {
  const choices = response.choices;
  if (!Array.isArray(choices) || !isObject(choices[0])) return undefined;
  const message = choices[0].message;
  return isObject(message) ? message : undefined;
}

/** The tool calls of `choices[0]` (object entries, in order). */
function rawCalls(response: JsonObject): JsonObject[] {
  return asArray(firstMessage(response)?.tool_calls).filter(isObject);
}

function toCall(tc: JsonObject, callId: string, index: number): ExtractedCall {
  const base = { callId, providerId: typeof tc.id === "string" ? tc.id : undefined, index };
  const fn = tc.function;
  if (tc.type !== "custom" && isObject(fn) && typeof fn.name === "string") {
    return functionCallOf(base, fn.name, fn.arguments);
  }
  // A custom tool call (free-form input), a function call without a name, or a kind of call this
  // module does not know: never ours, reported as the client's.
  const custom = isObject(tc.custom) ? tc.custom : {};
  return {
    ...base,
    name: typeof custom.name === "string" ? custom.name : "",
    input: custom.input ?? null,
    clientOnly: true,
  };
}

function extractCalls(response: JsonObject): ExtractedCall[] {
  const raw = rawCalls(response);
  const ids = openaiCallIds(response, raw, "id");
  return raw.map((tc, i) => toCall(tc, ids[i]!, i));
}

/**
 * `response` with the synthesised ids written into `choices[0].message.tool_calls` (the
 * assistant message the client replays must carry the ids its `tool` messages answer); the
 * response itself when no id was synthesised.
 */
function withCallIds(response: JsonObject): JsonObject {
  const raw = rawCalls(response);
  const ids = openaiCallIds(response, raw, "id");
  if (raw.every((tc, i) => tc.id === ids[i])) return response;
  const message = firstMessage(response)!;
  let next = 0;
  const toolCalls = asArray(message.tool_calls).map((tc) =>
    isObject(tc) ? { ...tc, id: ids[next++] } : tc,
  );
  const choices = [...(response.choices as unknown[])];
  choices[0] = { ...(choices[0] as JsonObject), message: { ...message, tool_calls: toolCalls } };
  return { ...response, choices };
}

/** The assistant message of `choices[0]` as a request message (`ChatCompletionAssistantMessageParam`). */
function replayTurn(response: JsonObject): JsonObject[] {
  const msg = firstMessage(withCallIds(response));
  if (!msg) return [];
  const out: JsonObject = { role: "assistant", content: msg.content ?? null };
  if (Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) {
    out.tool_calls = msg.tool_calls
      .filter(isObject)
      .map((tc) =>
        isObject(tc.custom) && !isObject(tc.function)
          ? { id: tc.id, type: "custom", custom: tc.custom }
          : { id: tc.id, type: tc.type ?? "function", function: tc.function },
      );
  }
  if (typeof msg.refusal === "string") out.refusal = msg.refusal;
  return [out];
}

/** The Chat Completions adapter. */
export const openaiChatTools: ToolAdapter = {
  format: "openai-chat",
  responseFields: ["choices"],
  ...openaiToolBasics,
  contextText(request) {
    const parts: string[] = [];
    for (const m of asArray(request.messages)) {
      if (!isObject(m) || !OPENAI_CONTEXT_ROLES.has(String(m.role))) continue;
      const text = contentText(m.content, TEXT_PARTS);
      if (text) parts.push(text);
    }
    return parts.join("\n");
  },
  clientToolNames(request) {
    const names = new Set<string>();
    for (const t of asArray(request.tools)) {
      if (!isObject(t)) continue;
      if (isObject(t.function) && typeof t.function.name === "string") names.add(t.function.name);
      if (isObject(t.custom) && typeof t.custom.name === "string") names.add(t.custom.name);
    }
    for (const f of asArray(request.functions)) {
      if (isObject(f) && typeof f.name === "string") names.add(f.name);
    }
    return names;
  },
  addTools(request, tools) {
    return tools.length === 0 ? request : withAppended(request, "tools", tools.map(chatTool));
  },
  extractCalls,
  followUp: chatFollowUp,
  splice: withCallIds,
  replayTurn,
};
