/**
 * The tools service (docs/injection.md, docs/interception.md): injects a caller's skills into a
 * provider request as tools, and runs the tool calls of a provider response that Skillgate owns.
 * It brings what the domain functions need besides the request: the registry snapshot, the
 * master switch, the builtins this deployment cannot run, builtin aliases, policy floors and
 * the executor. Front doors that offer skills as tools outside a provider request (MCP, A2A) list
 * them, resolve a tool name and run a model's call here too (docs/mcp.md#skill-tools).
 * Its parts: `skillSearch` (tools-search.ts) answers `skill_search` and declares what it found
 * for the proxy's next round; `feedback` (selection-feedback.ts) counts selections and tells
 * learning what was called; tools-defer.ts declares skills for Anthropic's own tool search; the
 * shapes are in tools-types.ts.
 */
import { getFormatAdapter } from "../formats/index.js";
import type { ExtractedCall } from "../formats/types.js";
import { getInjectionIndex } from "../skills/injection/index-cache.js";
import { injectSkills } from "../skills/injection/injection.js";
import { chooseRanker, DEFAULT_RANKER } from "../skills/injection/rankers/index.js";
import {
  type CallerToolSet,
  callerTools,
  resolveCallerTool,
} from "../skills/interception/caller-tools.js";
import { type InterceptResult, interceptToolCalls } from "../skills/interception/interception.js";
import { type ModelCallOutcome, runModelCall } from "../skills/interception/model-call.js";
import { learningFeatures } from "../skills/learning/features.js";
import { isBuiltin, type SkillSource } from "../skills/registry/tool-resolver.js";
import {
  SKILL_SEARCH_REF,
  SKILL_SEARCH_TOOL,
  seesMoreAutoSkills,
  toolsDisabledIn,
  withSkillSearchTool,
} from "../skills/search/skill-search.js";
import type { CallerContext, Skill } from "../skills/types.js";
import type { FoundEntry } from "./found-skills.js";
import { type LinkRef, SelectionFeedback, sourceIn } from "./selection-feedback.js";
import { deferForAnthropicSearch } from "./tools-defer.js";
import { listsSearch, offeredBy, ToolsSearch } from "./tools-search.js";
import {
  type InjectOutcome,
  type InjectRequest,
  type InterceptRequest,
  sessionLink,
  type ToolsServiceOptions,
} from "./tools-types.js";

export type { InjectResult } from "../skills/injection/injection.js";
export {
  isRankerName,
  RANKER_NAMES,
  type RankerName,
} from "../skills/injection/rankers/index.js";
export type { CallerTool, CallerToolSet } from "../skills/interception/caller-tools.js";
export type {
  CallWrapper,
  InjectedRef,
  InterceptResult,
  ToolResult,
} from "../skills/interception/interception.js";
export type { ModelCallOutcome } from "../skills/interception/model-call.js";
export type {
  InjectOutcome,
  InjectRequest,
  InterceptRequest,
  SearchedSkillCalled,
  ToolsServiceOptions,
} from "./tools-types.js";
export { MCP_LINK, SKILL_SEARCH_AUTO_ABOVE, SKILL_SEARCH_LISTING } from "./tools-types.js";

/** Injection and interception for a caller. */
export class ToolsService {
  /** Selection counters and learning signals (docs/scoring.md#learning-from-traffic). */
  readonly feedback: SelectionFeedback;
  /** `skill_search`: answering searches, and deferred loading for the proxy. */
  readonly skillSearch: ToolsSearch;

  constructor(private readonly opts: ToolsServiceOptions) {
    this.feedback = new SelectionFeedback(opts);
    this.skillSearch = new ToolsSearch(opts, this.feedback);
  }

  /**
   * Injects the caller's skills into `req.request`.
   * @param apiKeyId the caller's key; null = global skills only.
   * @returns the new request and what was injected.
   */
  async inject(req: InjectRequest, apiKeyId: string | null): Promise<InjectOutcome> {
    const mode = this.skillSearch.searchMode;
    const search = req.offerSearch === true && mode !== "off";
    const session = search ? req.sessionId : undefined;
    const [snapshot, settings, keyRanker, found] = await Promise.all([
      this.opts.registry.snapshot(),
      this.opts.settings.get(),
      req.ranker === undefined && apiKeyId !== null && this.opts.keyRanker
        ? this.opts.keyRanker(apiKeyId)
        : null,
      // A session made for this request has found nothing yet: no lookup.
      session && req.sessionNew !== true && this.opts.foundSkills
        ? this.opts.foundSkills.get(apiKeyId, session)
        : [],
    ]);
    const include =
      found.length > 0 ? [...(req.include ?? []), ...found.map((f) => f.skill)] : req.include;
    const ranker = chooseRanker(req.ranker, keyRanker, settings.ranker);
    this.opts.metrics?.setRanker?.(settings.ranker ?? DEFAULT_RANKER);
    const { learning } = this.opts;
    const adapter = getFormatAdapter(req.format);
    const learns =
      learning.enabled && settings.skillsEnabled && !adapter.toolsDisabled(req.request);
    const contextText = learns ? adapter.contextText(req.request) : undefined;
    const features =
      contextText === undefined ? [] : learningFeatures(contextText, req.backgroundReason);
    let learned: Map<string, number> | undefined;
    if (features.length > 0 && ranker === "bm25") {
      const index = getInjectionIndex(snapshot);
      learned = await learning.scores(
        apiKeyId,
        features,
        index.bm25Shape().candidates,
        (id) => index.bm25Candidate(id)?.apiKeyId === null,
      );
    }
    const result = injectSkills({
      format: req.format,
      request: req.request,
      snapshot,
      apiKeyId,
      backgroundReason: req.backgroundReason ?? null,
      include,
      exclude: [...(req.exclude ?? []), ...this.opts.unavailableBuiltins],
      skillsEnabled: settings.skillsEnabled,
      customSkillsEnabled: settings.customSkillExecution,
      policyFloors: this.opts.policyFloors,
      ranker,
      learned,
      contextText,
    });
    const resolver = getInjectionIndex(snapshot).resolver;
    const picked: string[] = [];
    for (const t of result.injected) {
      const skill = resolver.resolveName(`${t.name}@${t.version}`, apiKeyId);
      if (!skill) continue;
      picked.push(skill.id);
      if (t.mode === "auto") this.feedback.count(skill, "injected");
    }
    const {
      result: base,
      deferred,
      native,
    } = deferForAnthropicSearch(
      req,
      adapter,
      result,
      resolver,
      {
        snapshot,
        apiKeyId,
        skillsEnabled: settings.skillsEnabled,
        customSkillsEnabled: settings.customSkillExecution,
        policyFloors: this.opts.policyFloors,
        unavailableBuiltins: this.opts.unavailableBuiltins,
      },
      contextText,
    );
    let outcome: InjectOutcome = { ...base, features };
    if (req.linkInRequest === true) {
      // The door holds the link for its own intercepts: nothing goes to the cache. No features
      // (learning off, no context): no link, as through the cache, so nothing is counted or learned.
      if (features.length > 0) outcome.link = { features, injected: picked, searched: deferred };
    } else if (features.length > 0 && (picked.length > 0 || deferred.length > 0)) {
      const selectionId = (this.opts.newId ?? (() => crypto.randomUUID()))();
      const ids = req.sessionId ? [selectionId, sessionLink(req.sessionId)] : [selectionId];
      // A deferred skill the model calls was found by Anthropic's search: it teaches as searched.
      await learning.link(apiKeyId, ids, { features, injected: picked, searched: deferred });
      outcome = { ...base, selectionId, features };
    }
    if (native || !search || !settings.skillsEnabled || toolsDisabledIn(req.format, req.request)) {
      return outcome;
    }
    if ((req.exclude ?? []).includes(SKILL_SEARCH_TOOL)) return outcome;
    if (mode === "auto") {
      const autoInjected = result.injected.filter((t) => t.mode === "auto").length;
      if (
        !session ||
        !seesMoreAutoSkills(snapshot, apiKeyId, autoInjected, this.opts.unavailableBuiltins)
      )
        return outcome;
    }
    return { ...outcome, ...withSkillSearchTool(req.format, outcome.request, outcome.injected) };
  }

  /**
   * Runs the owned tool calls of `req.response` for the caller.
   * @param apiKeyId the caller's key; null = global skills only.
   * @returns results, follow-up items, pass-through call ids and the response to replay; a
   *   call's failure is an error result, never an exception.
   */
  async intercept(req: InterceptRequest, apiKeyId: string | null): Promise<InterceptResult> {
    const linkIds = [
      ...(req.selectionId ? [req.selectionId] : []),
      ...(req.sessionId ? [sessionLink(req.sessionId)] : []),
    ];
    const where: LinkRef = req.link ? { held: req.link } : { ids: linkIds };
    const [snapshot, link] = await Promise.all([
      this.opts.registry.snapshot(),
      req.link ??
        (linkIds.length > 0
          ? this.opts.learning.linked(apiKeyId, linkIds).catch(() => undefined)
          : undefined),
    ]);
    const sessionId = req.sessionId ?? null;
    const answersSearch =
      req.answerSearch === true &&
      this.skillSearch.searchMode !== "off" &&
      (this.skillSearch.searchMode === "on" || sessionId !== null || listsSearch(req.injected)) &&
      (req.injected === undefined || listsSearch(req.injected)) &&
      !(req.clientTools ?? []).includes(SKILL_SEARCH_TOOL);
    const serverTools = answersSearch
      ? new Map([
          [
            SKILL_SEARCH_TOOL,
            {
              ref: SKILL_SEARCH_REF,
              run: (call: ExtractedCall) =>
                call.inputError
                  ? Promise.resolve({
                      status: "error" as const,
                      error: call.inputError,
                      executionId: null,
                    })
                  : this.skillSearch.search(
                      call.input,
                      { apiKeyId, sessionId },
                      offeredBy(req.injected),
                      where,
                    ),
            },
          ],
        ])
      : undefined;
    const found =
      sessionId !== null && this.opts.onSearchedSkillCalled && this.opts.foundSkills
        ? this.opts.foundSkills.get(apiKeyId, sessionId)
        : Promise.resolve([]);
    const learning: Promise<void>[] = [];
    const result = await interceptToolCalls({
      format: req.format,
      response: req.response,
      snapshot,
      serverTools,
      apiKeyId,
      sessionId: req.sessionId ?? null,
      injected: req.injected,
      customSkillExecutionEnabled: req.customSkillExecutionEnabled,
      builtinAliases: this.opts.builtinAliases,
      policyFloors: this.opts.policyFloors,
      clientTools: req.clientTools,
      executor: this.opts.executor,
      signal: req.signal,
      maxOwnedCalls: req.maxOwnedCalls,
      aroundCall: req.aroundCall,
      onOwnedCall: link
        ? (skill) => {
            const source = sourceIn(link, skill.id);
            if (source)
              learning.push(this.feedback.learnFromCall(apiKeyId, skill, link.features, source));
          }
        : undefined,
    });
    await Promise.all(learning);
    if (sessionId !== null)
      this.reportSearchedCalls(result, await found, snapshot, apiKeyId, sessionId);
    return result;
  }

  /** Tells learning of each result whose skill `skill_search` found in the session. */
  private reportSearchedCalls(
    result: InterceptResult,
    found: readonly FoundEntry[],
    snapshot: SkillSource,
    apiKeyId: string | null,
    sessionId: string,
  ): void {
    const report = this.opts.onSearchedSkillCalled;
    if (!report || found.length === 0) return;
    const byRef = new Map(found.map((f) => [f.skill, f.terms]));
    for (const r of result.toolResults) {
      const terms = byRef.get(r.skill);
      if (!terms || r.executionId === null) continue;
      const skill = snapshot.skills.find(
        (s) =>
          `${s.name}@${s.version}` === r.skill && (s.apiKeyId === null || s.apiKeyId === apiKeyId),
      );
      if (skill) report({ apiKeyId, sessionId, skill, terms });
    }
  }

  /**
   * The skills a caller can call as tools outside a provider request, by tool name (builtins the
   * deployment cannot run are left out; with the `customSkillExecution` setting off, only
   * builtins are listed). @param apiKeyId the caller's key; null = management.
   */
  async callerTools(apiKeyId: string | null): Promise<CallerToolSet> {
    const [snapshot, settings] = await Promise.all([
      this.opts.registry.snapshot(),
      this.opts.settings.get(),
    ]);
    const all = callerTools(snapshot, apiKeyId, this.opts.unavailableBuiltins);
    if (settings.customSkillExecution) return all;
    const list = all.list.filter((t) => isBuiltin(t.skill));
    return { list, byName: new Map(list.map((t) => [t.name, t])) };
  }

  /**
   * The skill a tool name means for a caller: a listed tool, or any skill the caller can see
   * under an emitted name, `name@version` or a builtin alias. Undefined when it means nothing.
   */
  async resolveTool(apiKeyId: string | null, toolName: string): Promise<Skill | undefined> {
    const snapshot = await this.opts.registry.snapshot();
    const listed = callerTools(snapshot, apiKeyId, this.opts.unavailableBuiltins).byName.get(
      toolName,
    );
    return (
      listed?.skill ?? resolveCallerTool(snapshot, apiKeyId, toolName, this.opts.builtinAliases)
    );
  }

  /**
   * Runs a model's call of `skill` with `args` under the executor policies and policy floors
   * (model-call.ts). @returns the outcome; never throws.
   */
  callAsModel(skill: Skill, args: unknown, ctx: CallerContext): Promise<ModelCallOutcome> {
    return runModelCall(skill, args, {
      executor: this.opts.executor,
      ctx,
      policyFloors: this.opts.policyFloors,
    });
  }
}
