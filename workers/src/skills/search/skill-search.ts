/**
 * `skill_search` (docs/scoring.md#skill-search): the builtin tool a model calls to find the
 * caller's skills that the ranker did not inject. It is declared beside the AUTO picks, answered
 * by Skillgate itself (never a call the client runs), and ranks the caller's AUTO skills with the
 * same `bm25` index as injection, with the model's query as the text. A skill is found only when
 * injection could offer it to the same caller: visible to the key (its own and global skills,
 * the competing version of each name), active, mode `auto`, not `manual` (own policy or its
 * handler's floor), a custom skill only while custom execution is on, not an unavailable builtin.
 */
import { getFormatAdapter } from "../../formats/index.js";
import type { JsonObject, WireFormat } from "../../formats/types.js";
import { getInjectionIndex } from "../injection/index-cache.js";
import type { InjectedTool } from "../injection/injection.js";
import { toolDescription, topWithLearned } from "../injection/injection.js";
import { bm25Query } from "../injection/rankers/bm25-query.js";
import { adaptSchema } from "../injection/schema-adapt.js";
import { prepareInputSchema } from "../injection/schema-prepare.js";
import { modelPolicy, type PolicyFloors } from "../interception/policy-floor.js";
import { BUILTIN_VERSION } from "../registry/registry.js";
import { isActive, isBuiltin, type SkillSource } from "../registry/tool-resolver.js";
import type { JsonSchema, Skill } from "../types.js";

/** The tool's name, the same in every wire format. */
export const SKILL_SEARCH_TOOL = "skill_search";
/** `name@version` reported for the tool's calls (`toolResults[].skill`). */
export const SKILL_SEARCH_REF = `${SKILL_SEARCH_TOOL}@${BUILTIN_VERSION}`;
/** Skills returned when the call gives no `limit`. */
export const SKILL_SEARCH_DEFAULT_LIMIT = 5;
/** Largest `limit` a call may ask for. */
export const SKILL_SEARCH_MAX_LIMIT = 10;
/** Longest `query`, in characters (UTF-16 code units). */
export const SKILL_SEARCH_MAX_QUERY_CHARS = 1_000;

/**
 * When the tool is offered (`SKILLS_SEARCH_TOOL`, docs/configuration.md): `on` always, `off`
 * never, `auto` when the caller sees more AUTO skills than the request got and the found skills
 * can be offered again (a `sessionId` on inject; at MCP, more skill tools than one request's
 * five AUTO places).
 */
export type SkillSearchMode = "auto" | "on" | "off";

/** The tool's input schema (JSON Schema, root object). */
export const SKILL_SEARCH_INPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description:
        "What you need a tool for, in a few words (for example: return an order, weather forecast)",
      maxLength: SKILL_SEARCH_MAX_QUERY_CHARS,
    },
    limit: {
      type: "integer",
      description: `How many tools to return (1 to ${SKILL_SEARCH_MAX_LIMIT}, default ${SKILL_SEARCH_DEFAULT_LIMIT})`,
      minimum: 1,
      maximum: SKILL_SEARCH_MAX_LIMIT,
    },
  },
  required: ["query"],
};

/** The tool's description, as a model reads it. */
export const SKILL_SEARCH_DESCRIPTION =
  "Search for more tools when none of the offered tools fits the task. Returns the best matching " +
  "tools (name, tool name, description, parameters); they can be called from the next turn on.";

/** One skill a search found. */
export interface FoundSkill {
  name: string;
  version: string;
  /** The emitted tool name the model calls it by (docs/tool-names.md). */
  toolName: string;
  description: string;
  /** Its input schema in portable JSON Schema (docs/schema-adaptation.md). */
  parameters: JsonSchema;
  /** Its `bm25` score for the query. */
  score: number;
}

/** The tool's answer (the `output` of its result). */
export interface SkillSearchOutput {
  query: string;
  skills: FoundSkill[];
  /** A sentence for the model: how the found tools become callable, or that none matched. */
  note: string;
}

/** A parsed call: the query and the bounded limit. */
export interface SkillSearchArgs {
  query: string;
  limit: number;
}

/**
 * Reads a call's arguments.
 * @returns the query (trimmed) and limit, or an `error` message for the model: `query` missing,
 *   not a string, empty or longer than {@link SKILL_SEARCH_MAX_QUERY_CHARS}; `limit` not an
 *   integer in 1..{@link SKILL_SEARCH_MAX_LIMIT}.
 */
export function parseSkillSearchArgs(input: unknown): SkillSearchArgs | { error: string } {
  const args = (typeof input === "object" && input !== null ? input : {}) as Record<
    string,
    unknown
  >;
  const { query, limit } = args;
  if (typeof query !== "string" || query.trim() === "") {
    return { error: "skill_search needs a non-empty string argument query" };
  }
  if (query.length > SKILL_SEARCH_MAX_QUERY_CHARS) {
    return {
      error: `skill_search query is longer than ${SKILL_SEARCH_MAX_QUERY_CHARS} characters`,
    };
  }
  if (
    limit !== undefined &&
    limit !== null &&
    (typeof limit !== "number" ||
      !Number.isInteger(limit) ||
      limit < 1 ||
      limit > SKILL_SEARCH_MAX_LIMIT)
  ) {
    return { error: `skill_search limit must be an integer from 1 to ${SKILL_SEARCH_MAX_LIMIT}` };
  }
  return {
    query: query.trim(),
    limit: typeof limit === "number" ? limit : SKILL_SEARCH_DEFAULT_LIMIT,
  };
}

/** Who searches, and what injection would allow them. */
export interface SkillSearchScope {
  snapshot: SkillSource;
  /** The caller; null = management acting globally (global skills only). */
  apiKeyId: string | null;
  /** The `customSkillExecution` setting: false → builtins only. */
  customSkillsEnabled: boolean;
  policyFloors?: PolicyFloors;
  /** Builtins this deployment cannot run (never found). */
  unavailableBuiltins: readonly string[];
}

/**
 * Share of the `bm25` gate a skill must reach to be found by a search: a model that searches has
 * said it lacks a tool, so weaker matches are worth showing it than injection would offer unasked
 * (docs/scoring.md#skill-search).
 */
export const SKILL_SEARCH_GATE_SHARE = 0.5;

/**
 * Ranks the caller's AUTO skills for `args.query` with the `bm25` index of the snapshot
 * (docs/scoring.md#the-bm25-ranker: same terms; {@link SKILL_SEARCH_GATE_SHARE} of the gate),
 * with what learning taught for the query when `learned` (skill id → learned score for the
 * query's features) is given, as injection adds it (docs/scoring.md#learning-from-traffic),
 * best first, at most `args.limit`.
 * `offered` names the tools the model already has (emitted tool names, `name@version` or bare
 * names, as `injected` lists them): those are left out, so a search brings what the ranker missed.
 * Never throws.
 */
export function searchSkills(
  scope: SkillSearchScope,
  args: SkillSearchArgs,
  offered: ReadonlySet<string> = new Set(),
  learned?: ReadonlyMap<string, number>,
): FoundSkill[] {
  const index = getInjectionIndex(scope.snapshot);
  const unavailable = new Set(scope.unavailableBuiltins);
  const has = (s: Skill) =>
    offered.size > 0 &&
    (offered.has(s.name) ||
      offered.has(`${s.name}@${s.version}`) ||
      offered.has(index.resolver.toolName(s)));
  const usable = (s: Skill) =>
    !has(s) &&
    (scope.customSkillsEnabled || isBuiltin(s)) &&
    !(isBuiltin(s) && unavailable.has(s.name)) &&
    modelPolicy(s, scope.policyFloors) !== "manual";
  const query = bm25Query(args.query);
  const hits =
    learned && learned.size > 0
      ? topWithLearned(
          index,
          query,
          scope.apiKeyId,
          usable,
          learned,
          args.limit,
          SKILL_SEARCH_GATE_SHARE,
        )
      : index.topBm25(query, scope.apiKeyId, usable, args.limit, SKILL_SEARCH_GATE_SHARE);
  return hits.map(({ skill, score }) => ({
    name: skill.name,
    version: skill.version,
    toolName: index.resolver.toolName(skill),
    description: toolDescription(skill),
    parameters: prepareInputSchema(skill.schema.input).schema,
    score,
  }));
}

/**
 * True when the caller sees more than `n` active AUTO skills (competing versions, builtins in
 * `unavailable` left out): the case where the ranker left some out. Stops at the (n+1)-th, so its
 * cost is small unless the caller sees few skills among many.
 */
export function seesMoreAutoSkills(
  snapshot: SkillSource,
  apiKeyId: string | null,
  n: number,
  unavailable: readonly string[] = [],
): boolean {
  const { resolver } = getInjectionIndex(snapshot);
  let count = 0;
  for (const s of snapshot.skills) {
    if (s.mode !== "auto" || !isActive(s)) continue;
    if (isBuiltin(s) && unavailable.includes(s.name)) continue;
    if (s.apiKeyId !== null && s.apiKeyId !== apiKeyId) continue;
    if (!resolver.isWinner(s, apiKeyId)) continue;
    if (++count > n) return true;
  }
  return false;
}

/**
 * `request` with the `skill_search` tool added in `format`'s shape, and `injected` with its
 * entry (`mode: "on"`, no score), unless the request declares a tool of that name itself (the
 * client's tool wins). The inputs are not mutated.
 */
export function withSkillSearchTool(
  format: WireFormat,
  request: JsonObject,
  injected: readonly InjectedTool[],
): { request: JsonObject; injected: InjectedTool[] } {
  const adapter = getFormatAdapter(format);
  if (adapter.clientToolNames(request).has(SKILL_SEARCH_TOOL)) {
    return { request, injected: [...injected] };
  }
  const spec = {
    name: SKILL_SEARCH_TOOL,
    description: SKILL_SEARCH_DESCRIPTION,
    parameters: adaptSchema(SKILL_SEARCH_INPUT_SCHEMA, adapter.schemaDialect),
  };
  return {
    request: adapter.addTools(request, [spec]),
    injected: [
      ...injected,
      {
        name: SKILL_SEARCH_TOOL,
        version: BUILTIN_VERSION,
        toolName: SKILL_SEARCH_TOOL,
        mode: "on",
        score: null,
        ranker: null,
      },
    ],
  };
}

/** True when a request's own choices rule tools out (`tool_choice: "none"`, Gemini `NONE`). */
export function toolsDisabledIn(format: WireFormat, request: JsonObject): boolean {
  return getFormatAdapter(format).toolsDisabled(request);
}
