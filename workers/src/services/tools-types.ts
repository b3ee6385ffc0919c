import type { JsonObject, WireFormat } from "../formats/types.js";
import type { Metrics } from "../metrics/types.js";
import type { Executor } from "../skills/execution/executor.js";
import type { InjectResult } from "../skills/injection/injection.js";
import type { RankerName } from "../skills/injection/rankers/index.js";
import { AUTO_MAX_SKILLS } from "../skills/injection/scoring.js";
import type { CallWrapper, InjectedRef } from "../skills/interception/interception.js";
import type { PolicyFloors } from "../skills/interception/policy-floor.js";
import type { SelectionLearning, SelectionLink } from "../skills/learning/learning.js";
import type { SelectionStats } from "../skills/learning/selection-stats.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import type { AnthropicToolSearch } from "../skills/search/anthropic-tool-search.js";
import {
  SKILL_SEARCH_DESCRIPTION,
  SKILL_SEARCH_INPUT_SCHEMA,
  SKILL_SEARCH_TOOL,
  type SkillSearchMode,
} from "../skills/search/skill-search.js";
import type { JsonSchema, Skill } from "../skills/types.js";
import type { FoundSkillsStore } from "./found-skills.js";
import type { SettingsService } from "./settings.js";

/** An inject request (`POST /api/skills/inject`). */
export interface InjectRequest {
  format: WireFormat;
  request: JsonObject;
  backgroundReason?: string;
  include?: readonly string[];
  exclude?: readonly string[];
  /** The ranker this request asks for (docs/scoring.md#choosing-a-ranker). */
  ranker?: RankerName;
  /** The session: the skills `skill_search` found in it are offered (docs/scoring.md#skill-search). */
  sessionId?: string;
  /** True when `sessionId` was made for this request: nothing was found under it, so no lookup. */
  sessionNew?: boolean;
  /**
   * True at a door that answers `skill_search` itself (the inject API): the tool is offered as
   * the `SKILLS_SEARCH_TOOL` setting says, and the session's found skills are injected.
   */
  offerSearch?: boolean;
  /**
   * Only in a format whose adapter has `deferTools` (Anthropic Messages): declare the caller's
   * other visible AUTO skills (at most `maxTools`) with `defer_loading: true` beside Anthropic's
   * tool search tool of `variant` (docs/proxy.md#anthropic-tool-search); `skill_search` is then
   * not offered. Ignored in other formats.
   */
  anthropicToolSearch?: { variant: AnthropicToolSearch; maxTools: number };
  /**
   * True at a door that runs the answer's calls itself within the same request (the proxy): the
   * learning link is returned as {@link InjectOutcome.link} for the door to hand to its
   * intercepts, and nothing is stored in the cache (docs/scoring.md#learning-from-traffic).
   */
  linkInRequest?: boolean;
}

/**
 * What inject answers: the request and picks, plus (learning on) the `selectionId` an intercept
 * may send back and the request's hashed features (for a door that links them itself).
 */
export interface InjectOutcome extends InjectResult {
  selectionId?: string;
  features: number[];
  /**
   * With {@link InjectRequest.linkInRequest}: the request's learning link (its features, the AUTO
   * picks, the deferred skills), held by the door for the request's intercepts instead of the cache.
   */
  link?: SelectionLink;
}

/** An intercept request (`POST /api/skills/intercept`). */
export interface InterceptRequest {
  format: WireFormat;
  response: JsonObject;
  injected?: readonly InjectedRef[];
  sessionId?: string;
  customSkillExecutionEnabled?: boolean;
  /** Names of the tools the client declared itself, when known (the proxy; interception.ts). */
  clientTools?: readonly string[];
  /** Cancels the running executions when the caller goes away (the proxy's client). */
  signal?: AbortSignal;
  /** Most owned calls run from this turn; the later ones get a tool error without running. */
  maxOwnedCalls?: number;
  /** The `selectionId` an inject returned (docs/scoring.md#learning-from-traffic). */
  selectionId?: string;
  /**
   * The link an inject with `linkInRequest` returned, held by a door that runs the calls in the
   * same request (the proxy): read instead of the cache, and a `skill_search` call notes what it
   * found in it (its `searched` list is replaced). Takes precedence over `selectionId`.
   */
  link?: SelectionLink;
  /**
   * True at a door whose inject offers `skill_search` (the intercept API): its calls are answered
   * here, unless the setting is `off`, `injected` is given without it, or the client declared it.
   */
  answerSearch?: boolean;
  /** Wraps the answer of each owned call (the proxy's `execute_tool` spans; interception.ts). */
  aroundCall?: CallWrapper;
}

/**
 * A skill that `skill_search` found in a session and the model then called: the learning signal
 * of a search (docs/scoring.md#skill-search). `terms` are the analysed terms of the query that
 * found it (stemmed words, never the query text).
 */
export interface SearchedSkillCalled {
  apiKeyId: string | null;
  sessionId: string;
  skill: Skill;
  terms: readonly string[];
}

/** What the tools service is built from. */
export interface ToolsServiceOptions {
  registry: SkillRegistry;
  settings: SettingsService;
  executor: Executor;
  /** Builtins this deployment cannot run; never injected. */
  unavailableBuiltins: readonly string[];
  /** Builtin alias → builtin name (e.g. `omniroute_web_search` → `web_search`). */
  builtinAliases: ReadonlyMap<string, string>;
  /** Policy floors of model calls by handler name. */
  policyFloors: PolicyFloors;
  /** The ranker a key chose (null: none); read per inject. */
  keyRanker?: (apiKeyId: string) => Promise<RankerName | null>;
  /** When `skill_search` is offered (`SKILLS_SEARCH_TOOL`); default `auto`. */
  searchMode?: SkillSearchMode;
  /** Where a session's found skills are kept (the KV-style cache); none → nothing is kept. */
  foundSkills?: FoundSkillsStore;
  /**
   * Called once per intercepted call of a skill that `skill_search` found earlier in the same
   * session: the one place where learning from traffic is told of it. Must not throw.
   */
  onSearchedSkillCalled?: (signal: SearchedSkillCalled) => void;
  /** Learning from traffic (docs/scoring.md#learning-from-traffic). */
  learning: SelectionLearning;
  /** This process's selection counters (docs/scoring.md#selection-counters). */
  stats: SelectionStats;
  /** Where selection events are reported as well. */
  metrics?: Metrics;
  /** A new random id (selection ids). */
  newId?: () => string;
}

/** The cache link id of a session id (kept apart from selection ids). */
export function sessionLink(sessionId: string): string {
  return `session:${sessionId}`;
}

/** The link id under which a key's latest MCP `skill_search` is kept (MCP has no sessions). */
export const MCP_LINK = "mcp:last";

/**
 * The `skill_search` tool as a front door lists it outside a provider request
 * (docs/scoring.md#skill-search, docs/mcp.md#skill-search): its name, description and JSON
 * Schema input.
 */
export const SKILL_SEARCH_LISTING: {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
} = {
  name: SKILL_SEARCH_TOOL,
  description: SKILL_SEARCH_DESCRIPTION,
  inputSchema: SKILL_SEARCH_INPUT_SCHEMA,
};

/**
 * Skill tools above which search mode `auto` offers `skill_search`: as many as one request's
 * AUTO places (docs/scoring.md#skill-search).
 */
export const SKILL_SEARCH_AUTO_ABOVE = AUTO_MAX_SKILLS;
