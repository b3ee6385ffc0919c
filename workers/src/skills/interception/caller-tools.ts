/**
 * The skills a caller can call as tools outside a provider request (docs/mcp.md#skill-tools): one
 * tool per skill name — the version that competes for injection for that caller (its own skill
 * shadows a global one; docs/registry.md#visibility-and-shadowing) — for every active skill
 * (modes `on` and `auto`, every policy: a `manual` skill is listed and answers that it needs an
 * explicit execution), builtins included unless the deployment cannot run them.
 *
 * Each tool is named and described exactly as injection emits it (docs/tool-names.md) and carries
 * the portable input schema (docs/schema-adaptation.md): a top-level object with provider-safe
 * property names, which a call's arguments are mapped back from before execution.
 */

import { toolDescription } from "../injection/injection.js";
import { type PreparedSchema, prepareInputSchema } from "../injection/schema-prepare.js";
import {
  isBuiltin,
  type SkillSource,
  type ToolResolver,
  toolResolverFor,
} from "../registry/tool-resolver.js";
import type { Skill } from "../types.js";

/** One skill offered as a tool. */
export interface CallerTool {
  /** The emitted tool name (matches `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`). */
  name: string;
  description: string;
  /** The portable input schema: `type: "object"` with `properties`. */
  inputSchema: PreparedSchema["schema"];
  skill: Skill;
}

/** A caller's tools, in name order and by name. */
export interface CallerToolSet {
  list: readonly CallerTool[];
  byName: ReadonlyMap<string, CallerTool>;
}

const memo = new WeakMap<ToolResolver, Map<string, CallerToolSet>>();

/**
 * The tools of a caller over a registry snapshot, sorted by tool name and by name (memoised per
 * snapshot and caller; shared, do not mutate).
 * @param apiKeyId the caller's key; null = management acting globally (global skills only).
 * @param unavailable builtin names the deployment cannot run (never listed).
 */
export function callerTools(
  source: SkillSource,
  apiKeyId: string | null,
  unavailable: readonly string[] = [],
): CallerToolSet {
  const resolver = toolResolverFor(source);
  let perKey = memo.get(resolver);
  if (!perKey) {
    perKey = new Map();
    memo.set(resolver, perKey);
  }
  const memoKey = `${apiKeyId ?? ""}\u0000${unavailable.join(",")}`;
  const hit = perKey.get(memoKey);
  if (hit) return hit;
  const tools: CallerTool[] = [];
  for (const name of resolver.competingNames(apiKeyId)) {
    const skill = resolver.winner(name, apiKeyId);
    if (!skill || (isBuiltin(skill) && unavailable.includes(skill.name))) continue;
    tools.push({
      name: resolver.toolName(skill),
      description: toolDescription(skill),
      inputSchema: prepareInputSchema(skill.schema.input).schema,
      skill,
    });
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const set: CallerToolSet = { list: tools, byName: new Map(tools.map((t) => [t.name, t])) };
  perKey.set(memoKey, set);
  return set;
}

/**
 * The skill a tool name means for a caller: a listed tool, or any skill the caller can see under
 * an emitted name, `name@version` or a builtin alias (so that a tool listed before its skill was
 * switched off answers "disabled" rather than "unknown"). Undefined when the name means nothing.
 */
export function resolveCallerTool(
  source: SkillSource,
  apiKeyId: string | null,
  toolName: string,
  builtinAliases?: ReadonlyMap<string, string>,
): Skill | undefined {
  return toolResolverFor(source).resolveCall(toolName, apiKeyId, { builtinAliases })?.skill;
}
