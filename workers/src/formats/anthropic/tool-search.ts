/**
 * The wire side of Anthropic's tool search (docs/proxy.md#anthropic-tool-search): deferred tool
 * declarations carry `defer_loading: true`, and the request declares the tool search tool of one
 * variant (`tool_search_tool_regex_20251119` or `tool_search_tool_bm25_20251119`), which Claude
 * runs server-side to load only the deferred tools it needs. Source: Anthropic's tool search tool
 * documentation. Which skills to defer is the domain's choice
 * (`skills/search/anthropic-tool-search.ts`).
 */
import type { JsonObject, ToolSearchVariant } from "../types.js";
import { asArray, isObject } from "../wire.js";

/** The tool search tool Skillgate adds for a variant (Anthropic's own type and name). */
export function anthropicSearchTool(variant: ToolSearchVariant): JsonObject {
  return {
    type: `tool_search_tool_${variant}_20251119`,
    name: `tool_search_tool_${variant}`,
  };
}

/** True when `request.tools` already holds a tool search tool of either variant. */
export function hasAnthropicSearchTool(request: JsonObject): boolean {
  return asArray(request.tools).some(
    (t) => isObject(t) && typeof t.type === "string" && t.type.startsWith("tool_search_tool_"),
  );
}

/**
 * `request` (an Anthropic Messages request whose tools already end with the `deferred` tool
 * names' declarations) with those declarations marked `defer_loading: true` and the tool search
 * tool of `variant` appended unless the request carries one. A declaration with a `type` (a
 * server tool) is never marked. The input is not mutated.
 */
export function markDeferred(
  request: JsonObject,
  deferred: ReadonlySet<string>,
  variant: ToolSearchVariant,
): JsonObject {
  const tools = asArray(request.tools).map((t) =>
    isObject(t) && deferred.has(String(t.name)) && !("type" in t)
      ? { ...t, defer_loading: true }
      : t,
  );
  if (!hasAnthropicSearchTool(request)) tools.push(anthropicSearchTool(variant));
  return { ...request, tools };
}
