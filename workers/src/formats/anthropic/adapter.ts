/**
 * Anthropic Messages wire format (docs/injection.md, docs/interception.md; Anthropic docs "Tool
 * use": `tools[]` of `{ name, description, input_schema }`, calls as `tool_use` content blocks,
 * results as one `user` message whose content starts with one `tool_result` block per
 * `tool_use_id`, `is_error: true` on failures).
 *
 * Splice: `tool_result` blocks are not valid in an assistant message, so results travel only in the
 * follow-up user message (the client adds its own `tool_result` blocks for passed-through calls to
 * that same message, before any other content). The returned response differs from the input only
 * where a `tool_use` id was missing, empty, repeated or made of characters Anthropic refuses (it
 * requires `^[a-zA-Z0-9_-]+$`): the synthesised id is written into the block.
 */
import type { JsonSchema } from "../../skills/types.js";
import {
  type AnthropicToolContentBlock,
  anthropicToolContent,
  mcpContentOf,
} from "../tool-content.js";
import type { CallOutcome, ExtractedCall, JsonObject, ToolAdapter, ToolSpec } from "../types.js";
import {
  asArray,
  contentText,
  idSeed,
  isFailure,
  isObject,
  outcomeText,
  uniqueCallIds,
  withAppended,
} from "../wire.js";
import { markDeferred } from "./tool-search.js";

/** A client tool declaration (`Tool`); `input_schema` has root `type: "object"`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: "object" };
}

/**
 * A `tool_result` content block (`ToolResultBlockParam`): text, or `text` / `image` / `document`
 * blocks for an MCP result with images or documents (tool-content.ts).
 */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | AnthropicToolContentBlock[];
  is_error?: true;
}

/** The follow-up user message (`MessageParam`). */
export interface AnthropicToolResultMessage {
  role: "user";
  content: AnthropicToolResultBlock[];
}

const TEXT_PARTS = new Set(["text"]);
const CONTEXT_ROLES = new Set(["user", "assistant"]);

/** Tool declaration for one spec. */
export function anthropicTool(spec: ToolSpec): AnthropicTool {
  const schema = spec.parameters ?? { type: "object", properties: {} };
  return {
    name: spec.name,
    description: spec.description,
    input_schema: { ...schema, type: "object" },
  };
}

/**
 * One user message with one `tool_result` block per outcome, in call order; empty
 * when there are no outcomes.
 */
export function anthropicFollowUp(outcomes: readonly CallOutcome[]): AnthropicToolResultMessage[] {
  if (outcomes.length === 0) return [];
  const content = outcomes.map((o): AnthropicToolResultBlock => {
    const block: AnthropicToolResultBlock = {
      type: "tool_result",
      tool_use_id: o.call.callId,
      content: outcomeText(o),
    };
    const blocks = o.status === "success" ? mcpContentOf(o.output) : undefined;
    if (blocks) block.content = anthropicToolContent(blocks);
    if (isFailure(o)) block.is_error = true;
    return block;
  });
  return [{ role: "user", content }];
}

function toolUses(response: JsonObject): JsonObject[] {
  return asArray(response.content).filter(
    (block): block is JsonObject => isObject(block) && block.type === "tool_use",
  );
}

/** The ids Anthropic accepts on a replayed `tool_use` block (Messages API reference). */
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Unique ids for the `tool_use` blocks: the block's own id when it is present, unique and made of
 * accepted characters (a translating gateway may hand over ids like `call|x.1`); otherwise
 * `toolu_<hash>_<index>`.
 */
function callIds(response: JsonObject, blocks: readonly JsonObject[]): string[] {
  return uniqueCallIds(
    blocks.map((b) => b.id),
    "toolu_",
    () => idSeed(response, blocks),
    (id) => TOOL_USE_ID.test(id),
  );
}

function extractCalls(response: JsonObject): ExtractedCall[] {
  const blocks = toolUses(response);
  const ids = callIds(response, blocks);
  return blocks.map((block, index): ExtractedCall => {
    const name = typeof block.name === "string" ? block.name : "";
    return {
      callId: ids[index]!,
      providerId: typeof block.id === "string" ? block.id : undefined,
      name,
      input: block.input ?? {},
      index,
      ...(name === "" ? { clientOnly: true as const } : {}),
    };
  });
}

/**
 * `response` with every synthesised id written into its `tool_use` block (Anthropic refuses a
 * replayed turn whose `tool_use` ids are missing, repeated or badly formed); the response itself
 * otherwise.
 */
function withCallIds(response: JsonObject): JsonObject {
  const blocks = toolUses(response);
  const ids = callIds(response, blocks);
  if (blocks.every((b, i) => b.id === ids[i])) return response;
  let next = 0;
  const content = asArray(response.content).map((block) =>
    isObject(block) && block.type === "tool_use" ? { ...block, id: ids[next++] } : block,
  );
  return { ...response, content };
}

/** The Anthropic Messages adapter. */
export const anthropicTools: ToolAdapter = {
  format: "anthropic",
  responseFields: ["content"],
  provider: "anthropic",
  schemaDialect: "json-schema",
  contextText(request) {
    const parts: string[] = [];
    const system = contentText(request.system, TEXT_PARTS);
    if (system) parts.push(system);
    for (const m of asArray(request.messages)) {
      if (!isObject(m) || !CONTEXT_ROLES.has(String(m.role))) continue;
      const text = contentText(m.content, TEXT_PARTS);
      if (text) parts.push(text);
    }
    return parts.join("\n");
  },
  toolsDisabled(request) {
    return isObject(request.tool_choice) && request.tool_choice.type === "none";
  },
  relaxToolChoice(request) {
    const choice = request.tool_choice;
    if (!isObject(choice) || (choice.type !== "any" && choice.type !== "tool")) return request;
    // Anthropic docs "Tool use": `{ type: "auto" }` keeps `disable_parallel_tool_use`.
    const relaxed: JsonObject = { type: "auto" };
    if (typeof choice.disable_parallel_tool_use === "boolean")
      relaxed.disable_parallel_tool_use = choice.disable_parallel_tool_use;
    return { ...request, tool_choice: relaxed };
  },
  clientToolNames(request) {
    const names = new Set<string>();
    for (const t of asArray(request.tools)) {
      if (isObject(t) && typeof t.name === "string") names.add(t.name);
    }
    return names;
  },
  addTools(request, tools) {
    return tools.length === 0 ? request : withAppended(request, "tools", tools.map(anthropicTool));
  },
  extractCalls,
  followUp: anthropicFollowUp,
  splice: withCallIds,
  replayTurn(response) {
    return [{ role: "assistant", content: asArray(withCallIds(response).content) }];
  },
  deferTools: markDeferred,
};
