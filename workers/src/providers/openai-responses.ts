/**
 * OpenAI Responses API wire format (docs/injection.md, docs/interception.md; OpenAI API reference
 * "Responses": `tools[]` of `{ type: "function", name, description, parameters, strict }`, calls as
 * `output[]` items of type `function_call` keyed by `call_id`, results as `function_call_output`
 * input items).
 *
 * Splice: `function_call_output` is a valid `output[]` item of a Response, so each owned call's
 * output item is inserted right after its `function_call` item
 * (docs/interception.md#results-and-follow-ups).
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

/** A function tool as the Responses API declares it (`FunctionTool`). */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  /** Off: strict mode would demand `additionalProperties: false` and every property required. */
  strict: false;
}

/** A tool result input item (`ResponseInputItem.FunctionCallOutput`). */
export interface ResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

/** The spliced output item (`ResponseFunctionToolCallOutputItem`). */
export interface ResponsesFunctionCallOutputItem extends ResponsesFunctionCallOutput {
  id: string;
  status: "completed";
}

const TEXT_PARTS = new Set(["input_text", "output_text", "text"]);
const CONTEXT_ROLES = new Set(["system", "developer", "user", "assistant"]);

/** Tool declaration for one spec. */
export function responsesTool(spec: ToolSpec): ResponsesFunctionTool {
  return {
    type: "function",
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters ?? { type: "object", properties: {} },
    strict: false,
  };
}

/** One `function_call_output` item per outcome, in call order. */
export function responsesFollowUp(outcomes: readonly CallOutcome[]): ResponsesFunctionCallOutput[] {
  return outcomes.map((o) => ({
    type: "function_call_output",
    call_id: o.call.callId,
    output: outcomeText(o),
  }));
}

function extractCalls(response: JsonObject): ExtractedCall[] {
  const calls: ExtractedCall[] = [];
  for (const item of asArray(response.output)) {
    if (
      isObject(item) &&
      item.type === "custom_tool_call" &&
      typeof item.call_id === "string" &&
      typeof item.name === "string"
    ) {
      calls.push({
        callId: item.call_id,
        providerId: item.call_id,
        name: item.name,
        input: item.input,
        index: calls.length,
        clientOnly: true,
      });
      continue;
    }
    if (!isObject(item) || item.type !== "function_call") continue;
    if (typeof item.call_id !== "string" || typeof item.name !== "string") continue;
    const parsed = parseArguments(item.arguments);
    calls.push({
      callId: item.call_id,
      providerId: item.call_id,
      name: item.name,
      input: parsed.input,
      ...(parsed.error ? { inputError: parsed.error } : {}),
      index: calls.length,
    });
  }
  return calls;
}

function splice(response: JsonObject, outcomes: readonly CallOutcome[]): JsonObject {
  if (outcomes.length === 0 || !Array.isArray(response.output)) return response;
  const byCall = new Map(outcomes.map((o) => [o.call.callId, o]));
  const output: unknown[] = [];
  for (const item of response.output) {
    output.push(item);
    if (!isObject(item) || item.type !== "function_call") continue;
    const outcome = byCall.get(String(item.call_id));
    if (!outcome) continue;
    const spliced: ResponsesFunctionCallOutputItem = {
      id: `fco_${outcome.call.callId}`,
      type: "function_call_output",
      call_id: outcome.call.callId,
      output: outcomeText(outcome),
      status: "completed",
    };
    output.push(spliced);
  }
  return { ...response, output };
}

/** The Responses API adapter. */
export const openaiResponses: ProviderAdapter = {
  format: "openai-responses",
  provider: "openai",
  schemaDialect: "json-schema",
  contextText(request) {
    const parts: string[] = [];
    if (typeof request.instructions === "string" && request.instructions)
      parts.push(request.instructions);
    if (typeof request.input === "string") parts.push(request.input);
    for (const item of asArray(request.input)) {
      if (!isObject(item) || !CONTEXT_ROLES.has(String(item.role))) continue;
      if (item.type !== undefined && item.type !== "message") continue;
      const text = contentText(item.content, TEXT_PARTS);
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
      if (
        isObject(t) &&
        (t.type === "function" || t.type === "custom") &&
        typeof t.name === "string"
      ) {
        names.add(t.name);
      }
    }
    return names;
  },
  addTools(request, tools) {
    return tools.length === 0 ? request : withAppended(request, "tools", tools.map(responsesTool));
  },
  extractCalls,
  followUp: responsesFollowUp,
  splice,
  replayTurn(response) {
    return asArray(response.output).filter(isObject);
  },
};
