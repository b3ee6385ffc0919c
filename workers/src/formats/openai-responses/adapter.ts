/**
 * OpenAI Responses API wire format (docs/injection.md, docs/interception.md; OpenAI API reference
 * "Responses": `tools[]` of `{ type: "function", name, description, parameters, strict }`, calls as
 * `output[]` items of type `function_call` keyed by `call_id`, results as `function_call_output`
 * input items).
 *
 * Splice: `function_call_output` is a valid `output[]` item of a Response, so each owned call's
 * output item is inserted right after its `function_call` item. A `call_id` that is missing, empty
 * or repeated gets a synthesised one, written into the returned output so a replay of it agrees
 * with the results (docs/interception.md).
 */
import type { JsonSchema } from "../../skills/types.js";
import {
  functionCallOf,
  OPENAI_CONTEXT_ROLES,
  openaiCallIds,
  openaiToolBasics,
} from "../openai-common.js";
import {
  mcpContentOf,
  type ResponsesToolOutputItem,
  responsesToolOutput,
} from "../tool-content.js";
import type { CallOutcome, ExtractedCall, JsonObject, ToolAdapter, ToolSpec } from "../types.js";
import { asArray, contentText, isObject, outcomeText, safeIdPart, withAppended } from "../wire.js";

/** A function tool as the Responses API declares it (`FunctionTool`). */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchema;
  /** Off: strict mode would demand `additionalProperties: false` and every property required. */
  strict: false;
}

/**
 * A tool result input item (`ResponseInputItem.FunctionCallOutput`): text, or `input_text` /
 * `input_image` / `input_file` items for an MCP result with images or files (tool-content.ts).
 */
export interface ResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string | ResponsesToolOutputItem[];
}

/** The spliced output item (`ResponseFunctionToolCallOutputItem`). */
export interface ResponsesFunctionCallOutputItem extends ResponsesFunctionCallOutput {
  id: string;
  status: "completed";
}

const TEXT_PARTS = new Set(["input_text", "output_text", "text"]);

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
  return outcomes.map((o) => {
    const blocks = o.status === "success" ? mcpContentOf(o.output) : undefined;
    return {
      type: "function_call_output",
      call_id: o.call.callId,
      output: blocks ? responsesToolOutput(blocks) : outcomeText(o),
    };
  });
}

/**
 * Output item types a client runs itself besides `function_call` (OpenAI API reference
 * "Responses": each is answered with a `<type>_output` input item carrying its `call_id`).
 * Skillgate never injects these tools, so their calls are always passed through.
 */
const CLIENT_CALL_TYPES = new Set([
  "custom_tool_call",
  "computer_call",
  "local_shell_call",
  "shell_call",
  "apply_patch_call",
]);

/**
 * True for an output item that is a call (`function_call`, or a call of a tool kind the client
 * runs itself): the items {@link ToolAdapter.extractCalls} counts, in the same order.
 */
export function isResponsesCallItem(item: unknown): item is JsonObject {
  return (
    isObject(item) && (item.type === "function_call" || CLIENT_CALL_TYPES.has(String(item.type)))
  );
}

function toCall(item: JsonObject, callId: string, index: number): ExtractedCall {
  const base = {
    callId,
    providerId: typeof item.call_id === "string" ? item.call_id : undefined,
    index,
  };
  const name = typeof item.name === "string" ? item.name : "";
  if (item.type === "function_call" && name !== "") {
    return functionCallOf(base, name, item.arguments);
  }
  return { ...base, name, input: item.input ?? item.action ?? null, clientOnly: true };
}

function extractCalls(response: JsonObject): ExtractedCall[] {
  const items = asArray(response.output).filter(isResponsesCallItem);
  const ids = openaiCallIds(response, items, "call_id");
  return items.map((item, i) => toCall(item, ids[i]!, i));
}

/** Longest generated item id; OpenAI's own item ids are about 50 characters. */
const MAX_ITEM_ID = 64;

/**
 * A spliced output item id: `fco_` and the call id with every character outside
 * `[A-Za-z0-9_-]` replaced (OpenAI refuses other characters in replayed item ids, and checks the
 * id's prefix), made unique among `taken` with a `_<n>` suffix; added to `taken`.
 */
function outputItemId(callId: string, taken: Set<string>): string {
  const base = `fco_${safeIdPart(callId)}`.slice(0, MAX_ITEM_ID - 4);
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

/**
 * `response` as the client replays it: synthesised `call_id`s written into their call items, and
 * one `function_call_output` item right after each owned `function_call`, paired by position.
 */
function splice(response: JsonObject, outcomes: readonly CallOutcome[]): JsonObject {
  if (!Array.isArray(response.output)) return response;
  const items = response.output.filter(isResponsesCallItem);
  const ids = openaiCallIds(response, items, "call_id");
  const renamed = items.some((item, i) => item.call_id !== ids[i]);
  if (!renamed && outcomes.length === 0) return response;
  const byIndex = new Map(outcomes.map((o) => [o.call.index, o]));
  const taken = new Set<string>();
  for (const item of response.output)
    if (isObject(item) && typeof item.id === "string") taken.add(item.id);
  const output: unknown[] = [];
  let index = 0;
  for (const item of response.output) {
    if (!isResponsesCallItem(item)) {
      output.push(item);
      continue;
    }
    const callId = ids[index]!;
    const outcome = byIndex.get(index);
    index++;
    output.push(item.call_id === callId ? item : { ...item, call_id: callId });
    if (!outcome || item.type !== "function_call") continue;
    const spliced: ResponsesFunctionCallOutputItem = {
      id: outputItemId(callId, taken),
      type: "function_call_output",
      call_id: callId,
      output: outcomeText(outcome),
      status: "completed",
    };
    output.push(spliced);
  }
  return { ...response, output };
}

/** The Responses API adapter. */
export const openaiResponsesTools: ToolAdapter = {
  format: "openai-responses",
  responseFields: ["output"],
  ...openaiToolBasics,
  contextText(request) {
    const parts: string[] = [];
    if (typeof request.instructions === "string" && request.instructions)
      parts.push(request.instructions);
    if (typeof request.input === "string") parts.push(request.input);
    for (const item of asArray(request.input)) {
      if (!isObject(item) || !OPENAI_CONTEXT_ROLES.has(String(item.role))) continue;
      if (item.type !== undefined && item.type !== "message") continue;
      const text = contentText(item.content, TEXT_PARTS);
      if (text) parts.push(text);
    }
    return parts.join("\n");
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
    return asArray(splice(response, []).output).filter(isObject);
  },
};
