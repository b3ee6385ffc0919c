/**
 * Skillgate's skills searched by Anthropic's own tool search (docs/proxy.md#anthropic-tool-search):
 * the caller's visible AUTO skills that injection did not pick are declared to an Anthropic
 * Messages request with `defer_loading: true`, beside Anthropic's tool search tool (regex or BM25
 * variant, added unless the request already carries one), so Claude searches them server-side and
 * loads only what it needs. A deferred skill the model then calls is an ordinary owned call.
 * This module picks the skills; the wire shapes are the format's (`FormatAdapter.deferTools`,
 * formats/anthropic/tool-search.ts), and a format without them defers nothing.
 * Source of the wire shapes: Anthropic's tool search tool documentation (`defer_loading`,
 * `tool_search_tool_regex_20251119`, `tool_search_tool_bm25_20251119`); the catalogue it searches
 * holds up to 10,000 tools, Skillgate declares at most the operator's bound.
 */
import type { ToolSearchVariant } from "../../formats/types.js";
import { getInjectionIndex } from "../injection/index-cache.js";
import { bm25Query } from "../injection/rankers/bm25-query.js";
import { modelPolicy } from "../interception/policy-floor.js";
import { isActive, isBuiltin } from "../registry/tool-resolver.js";
import type { Skill } from "../types.js";
import type { SkillSearchScope } from "./skill-search.js";

/** The two variants of Anthropic's tool search tool (the format's {@link ToolSearchVariant}). */
export type AnthropicToolSearch = ToolSearchVariant;

/** The request header of the opt-in (docs/proxy.md#anthropic-tool-search). */
export const ANTHROPIC_TOOL_SEARCH_HEADER = "x-skillgate-anthropic-tool-search";

/** Values of the opt-in (`x-skillgate-anthropic-tool-search`, `PROXY_ANTHROPIC_TOOL_SEARCH`). */
export const ANTHROPIC_TOOL_SEARCH_MODES = ["off", "regex", "bm25"] as const;

/** The opt-in's setting: off, or one of the variants. */
export type AnthropicToolSearchMode = (typeof ANTHROPIC_TOOL_SEARCH_MODES)[number];

/** True for `off`, `regex` or `bm25`. */
export function isAnthropicToolSearchMode(value: string): value is AnthropicToolSearchMode {
  return (ANTHROPIC_TOOL_SEARCH_MODES as readonly string[]).includes(value);
}

/**
 * The caller's AUTO skills to defer, at most `max`: those the `bm25` index ranks for `text`
 * first (above its gate), then the rest in registry order. Only what injection could offer the
 * same caller (see skill-search.ts: visible, competing version, active, not `manual`, custom
 * only while custom execution is on, no unavailable builtin) and whose emitted tool name and bare
 * name are not in `taken` (tools the request already declares). Bounded work: stops at `max`.
 */
export function deferrableSkills(
  scope: SkillSearchScope,
  text: string,
  taken: ReadonlySet<string>,
  max: number,
): Skill[] {
  if (max <= 0) return [];
  const index = getInjectionIndex(scope.snapshot);
  const { resolver } = index;
  const unavailable = new Set(scope.unavailableBuiltins);
  const usable = (s: Skill) =>
    !taken.has(s.name) &&
    !taken.has(resolver.toolName(s)) &&
    (scope.customSkillsEnabled || isBuiltin(s)) &&
    !(isBuiltin(s) && unavailable.has(s.name)) &&
    modelPolicy(s, scope.policyFloors) !== "manual";
  const out = new Map<string, Skill>();
  for (const { skill } of index.topBm25(bm25Query(text), scope.apiKeyId, usable, max)) {
    out.set(skill.id, skill);
  }
  for (const s of scope.snapshot.skills) {
    if (out.size >= max) break;
    if (out.has(s.id) || s.mode !== "auto" || !isActive(s)) continue;
    if (s.apiKeyId !== null && s.apiKeyId !== scope.apiKeyId) continue;
    if (!resolver.isWinner(s, scope.apiKeyId) || !usable(s)) continue;
    out.set(s.id, s);
  }
  return [...out.values()];
}
