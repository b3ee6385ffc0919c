/**
 * OpenAI Chat Completions wire format (docs/injection.md, docs/interception.md; OpenAI API
 * reference "Chat Completions": `tools[]` of
 * `{ type: "function", function: { name, description, parameters } }`, calls in
 * `choices[].message.tool_calls[]`, results as one `{ role: "tool", tool_call_id, content }`
 * message per call).
 *
 * Splice: the original put a non-standard `tool_results` field next to a turn that still ends with
 * `finish_reason: "tool_calls"`, which leaves a client holding calls it cannot run. That
 * splice is not valid Chat Completions, so the response stays unchanged and the follow-up
 * `tool` messages (plus `passThrough`) tell the client what is left for it to run.
 */
import type { JsonSchema } from "../skills/types.js";
import type { CallOutcome, ExtractedCall, JsonObject, ProviderAdapter, ToolSpec } from "./types.js";
import {
  asArray,
  contentText,
  isObject,
  outcomeText,
  parseArguments,
  withAppended,
} from "./wire.js";

/** A function tool as Chat Completions declares it (`ChatCompletionFunctionTool`). */
export interface ChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}

/** A tool result message (`ChatCompletionToolMessageParam`). */
export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

const TEXT_PARTS = new Set(["text"]);
const CONTEXT_ROLES = new Set(["system", "developer", "user", "assistant"]);

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
  return outcomes.map((o) => ({
    role: "tool",
    tool_call_id: o.call.callId,
    content: outcomeText(o),
  }));
}

function extractCalls(response: JsonObject): ExtractedCall[] {
  const calls: ExtractedCall[] = [];
  for (const choice of asArray(response.choices)) {
    if (!isObject(choice) || !isObject(choice.message)) continue;
    for (const tc of asArray(choice.message.tool_calls)) {
      if (
        isObject(tc) &&
        isObject(tc.custom) &&
        typeof tc.id === "string" &&
        typeof tc.custom.name === "string"
      ) {
        const input = tc.custom.input;
        calls.push({
          callId: tc.id,
          providerId: tc.id,
          name: tc.custom.name,
          input,
          index: calls.length,
          clientOnly: true,
        });
        continue;
      }
      if (!isObject(tc) || !isObject(tc.function) || typeof tc.id !== "string") continue;
      if (typeof tc.function.name !== "string") continue;
      const parsed = parseArguments(tc.function.arguments);
      calls.push({
        callId: tc.id,
        providerId: tc.id,
        name: tc.function.name,
        input: parsed.input,
        ...(parsed.error ? { inputError: parsed.error } : {}),
        index: calls.length,
      });
    }
  }
  return calls;
}

/** The assistant message of the first choice as a request message (`ChatCompletionAssistantMessageParam`). */
function replayTurn(response: JsonObject): JsonObject[] {
  const choice = asArray(response.choices).find(isObject);
  if (!choice || !isObject(choice.message)) return [];
  const msg = choice.message;
  const out: JsonObject = { role: "assistant", content: msg.content ?? null };
  if (Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) {
    out.tool_calls = msg.tool_calls
      .filter(isObject)
      .map((tc) => ({ id: tc.id, type: tc.type ?? "function", function: tc.function }));
  }
  if (typeof msg.refusal === "string") out.refusal = msg.refusal;
  return [out];
}

/** The Chat Completions adapter. */
export const openaiChat: ProviderAdapter = {
  format: "openai-chat",
  provider: "openai",
  schemaDialect: "json-schema",
  contextText(request) {
    const parts: string[] = [];
    for (const m of asArray(request.messages)) {
      if (!isObject(m) || !CONTEXT_ROLES.has(String(m.role))) continue;
      const text = contentText(m.content, TEXT_PARTS);
      if (text) parts.push(text);
    }
    return parts.join("\n");
  },
  toolsDisabled(request) {
    return request.tool_choice === "none";
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
  splice(response) {
    return response;
  },
  replayTurn,
};
