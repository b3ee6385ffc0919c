/**
 * Anthropic Messages wire format (docs/injection.md, docs/interception.md; Anthropic docs "Tool
 * use": `tools[]` of `{ name, description, input_schema }`, calls as `tool_use` content blocks,
 * results as one `user` message whose content starts with one `tool_result` block per
 * `tool_use_id`, `is_error: true` on failures).
 *
 * Splice: `tool_result` blocks are not valid in an assistant message, so the response stays
 * unchanged; the follow-up user message is what goes back (the client adds its own `tool_result`
 * blocks for passed-through calls to that same message, before any other content).
 */
import type { JsonSchema } from "../skills/types.js";
import type { CallOutcome, ExtractedCall, JsonObject, ProviderAdapter, ToolSpec } from "./types.js";
import { asArray, contentText, isFailure, isObject, outcomeText, withAppended } from "./wire.js";

/** A client tool declaration (`Tool`); `input_schema` has root `type: "object"`. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema & { type: "object" };
}

/** A `tool_result` content block (`ToolResultBlockParam`). */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
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
    if (isFailure(o)) block.is_error = true;
    return block;
  });
  return [{ role: "user", content }];
}

function extractCalls(response: JsonObject): ExtractedCall[] {
  const calls: ExtractedCall[] = [];
  for (const block of asArray(response.content)) {
    if (!isObject(block) || block.type !== "tool_use") continue;
    if (typeof block.id !== "string" || typeof block.name !== "string") continue;
    calls.push({
      callId: block.id,
      providerId: block.id,
      name: block.name,
      input: block.input ?? {},
      index: calls.length,
    });
  }
  return calls;
}

/** The Anthropic Messages adapter. */
export const anthropic: ProviderAdapter = {
  format: "anthropic",
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
  splice(response) {
    return response;
  },
  replayTurn(response) {
    return [{ role: "assistant", content: asArray(response.content) }];
  },
};
