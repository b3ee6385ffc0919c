/**
 * Deferred loading for Anthropic's own tool search (docs/proxy.md#anthropic-tool-search): beside
 * an inject's picks, the caller's other visible AUTO skills are declared with
 * `defer_loading: true` next to Anthropic's search tool, so that Claude finds them itself.
 */
import type { FormatAdapter, JsonObject } from "../formats/types.js";
import {
  type InjectedTool,
  type InjectResult,
  skillToolSpec,
} from "../skills/injection/injection.js";
import type { ToolResolver } from "../skills/registry/tool-resolver.js";
import { deferrableSkills } from "../skills/search/anthropic-tool-search.js";
import type { SkillSearchScope } from "../skills/search/skill-search.js";
import type { InjectRequest } from "./tools-types.js";

/** What {@link deferForAnthropicSearch} answers. */
export interface Deferral {
  /** The inject's result, with the deferred skills declared when `native`. */
  result: InjectResult;
  /** Ids of the deferred skills (a call of one teaches as found by search). */
  deferred: string[];
  /** True when the request asked for Anthropic's search and its format can defer tools. */
  native: boolean;
}

/**
 * Declares the caller's deferrable skills in `result.request` when `req.anthropicToolSearch` is
 * set, the format's adapter can defer tools, skills are on and the request has not turned tools
 * off; otherwise answers `result` unchanged. The deferred skills are the best of the `bm25`
 * ranker for the context text, at most `maxTools`, none of them a tool the request already has.
 * @param scope whose skills, under which settings.
 * @param contextText the request's context text if already read (else read from the request).
 */
export function deferForAnthropicSearch(
  req: InjectRequest,
  adapter: FormatAdapter,
  result: InjectResult,
  resolver: ToolResolver,
  scope: SkillSearchScope & { skillsEnabled: boolean },
  contextText?: string,
): Deferral {
  const deferTools = adapter.deferTools;
  const ask = req.anthropicToolSearch;
  if (!ask || !deferTools || !scope.skillsEnabled || adapter.toolsDisabled(req.request))
    return { result, deferred: [], native: false };
  const taken = new Set([
    ...adapter.clientToolNames(req.request),
    ...result.injected.map((t) => t.toolName),
  ]);
  const skills = deferrableSkills(
    scope,
    contextText ?? adapter.contextText(req.request),
    taken,
    ask.maxTools,
  );
  const names = skills.map((sk) => resolver.toolName(sk));
  const specs = skills.map((sk, i) => skillToolSpec(sk, names[i]!, adapter.schemaDialect));
  const request: JsonObject = deferTools(
    adapter.addTools(result.request, specs),
    new Set(names),
    ask.variant,
  );
  const injected = [
    ...result.injected,
    ...skills.map(
      (sk, i): InjectedTool => ({
        name: sk.name,
        version: sk.version,
        toolName: names[i]!,
        mode: sk.mode,
        score: null,
        ranker: null,
        deferred: true,
      }),
    ),
  ];
  return { result: { request, injected }, deferred: skills.map((sk) => sk.id), native: true };
}
