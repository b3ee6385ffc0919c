/**
 * The tools service (docs/injection.md, docs/interception.md): injects a caller's skills into a
 * provider request as tools, and runs the tool calls of a provider response that Skillgate owns.
 * It brings what the domain functions need besides the request: the registry snapshot, the
 * master switch, the builtins this deployment cannot run, builtin aliases, policy floors and
 * the executor. Front doors that offer skills as tools outside a provider request (MCP, A2A) list
 * them, resolve a tool name and run a model's call here too (docs/mcp.md#skill-tools).
 */
import { getFormatAdapter } from "../formats/index.js";
import type { ExtractedCall, JsonObject, WireFormat } from "../formats/types.js";
import type { Metrics } from "../metrics/types.js";
import type { Executor } from "../skills/execution/executor.js";
import {
  type InjectedTool,
  type InjectResult,
  injectSkills,
  skillToolSpec,
} from "../skills/injection/injection.js";
import { getInjectionIndex } from "../skills/injection/injection-index.js";
import { bm25Query } from "../skills/injection/rankers/bm25-query.js";
import {
  chooseRanker,
  DEFAULT_RANKER,
  type RankerName,
} from "../skills/injection/rankers/index.js";
import { AUTO_MAX_SKILLS } from "../skills/injection/scoring.js";
import {
  type CallerToolSet,
  callerTools,
  resolveCallerTool,
} from "../skills/interception/caller-tools.js";
import {
  type CallWrapper,
  type InjectedRef,
  type InterceptResult,
  interceptToolCalls,
  type ToolResult,
} from "../skills/interception/interception.js";
import { type ModelCallOutcome, runModelCall } from "../skills/interception/model-call.js";
import type { PolicyFloors } from "../skills/interception/policy-floor.js";
import { learningFeatures } from "../skills/learning/features.js";
import type { LearningSource, SelectionLearning } from "../skills/learning/learning.js";
import type { SelectionCounts, SelectionStats } from "../skills/learning/selection-stats.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import { isBuiltin, type SkillSource } from "../skills/registry/tool-resolver.js";
import {
  type AnthropicToolSearch,
  deferrableSkills,
} from "../skills/search/anthropic-tool-search.js";
import {
  parseSkillSearchArgs,
  SKILL_SEARCH_DESCRIPTION,
  SKILL_SEARCH_INPUT_SCHEMA,
  SKILL_SEARCH_REF,
  SKILL_SEARCH_TOOL,
  type SkillSearchMode,
  type SkillSearchOutput,
  searchSkills,
  seesMoreAutoSkills,
  toolsDisabledIn,
  withSkillSearchTool,
} from "../skills/search/skill-search.js";
import type { CallerContext, JsonSchema, Skill } from "../skills/types.js";
import { FOUND_SKILLS_MAX, type FoundEntry, type FoundSkillsStore } from "./found-skills.js";
import type { SettingsService } from "./settings.js";

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
}

/**
 * What inject answers: the request and picks, plus (learning on) the `selectionId` an intercept
 * may send back and the request's hashed features (for a door that links them itself).
 */
export interface InjectOutcome extends InjectResult {
  selectionId?: string;
  features: number[];
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
function sessionLink(sessionId: string): string {
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

/** Injection and interception for a caller. */
export class ToolsService {
  constructor(private readonly opts: ToolsServiceOptions) {}

  /**
   * Injects the caller's skills into `req.request`.
   * @param apiKeyId the caller's key; null = global skills only.
   * @returns the new request and what was injected.
   */
  async inject(req: InjectRequest, apiKeyId: string | null): Promise<InjectOutcome> {
    const mode = this.searchMode;
    const search = req.offerSearch === true && mode !== "off";
    const session = search ? req.sessionId : undefined;
    const [snapshot, settings, keyRanker, found] = await Promise.all([
      this.opts.registry.snapshot(),
      this.opts.settings.get(),
      req.ranker === undefined && apiKeyId !== null && this.opts.keyRanker
        ? this.opts.keyRanker(apiKeyId)
        : null,
      session && this.opts.foundSkills ? this.opts.foundSkills.get(apiKeyId, session) : [],
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
      if (t.mode === "auto") this.count(skill, "injected");
    }
    const deferTools = adapter.deferTools;
    const native =
      req.anthropicToolSearch &&
      deferTools &&
      settings.skillsEnabled &&
      !adapter.toolsDisabled(req.request)
        ? { ...req.anthropicToolSearch, deferTools }
        : undefined;
    let base: InjectResult = result;
    const deferred: string[] = [];
    if (native) {
      const taken = new Set([
        ...adapter.clientToolNames(req.request),
        ...result.injected.map((t) => t.toolName),
      ]);
      const skills = deferrableSkills(
        {
          snapshot,
          apiKeyId,
          customSkillsEnabled: settings.customSkillExecution,
          policyFloors: this.opts.policyFloors,
          unavailableBuiltins: this.opts.unavailableBuiltins,
        },
        contextText ?? adapter.contextText(req.request),
        taken,
        native.maxTools,
      );
      const names = skills.map((sk) => resolver.toolName(sk));
      const specs = skills.map((sk, i) => skillToolSpec(sk, names[i]!, adapter.schemaDialect));
      base = {
        request: native.deferTools(
          adapter.addTools(result.request, specs),
          new Set(names),
          native.variant,
        ),
        injected: [
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
        ],
      };
      deferred.push(...skills.map((sk) => sk.id));
    }
    let outcome: InjectOutcome = { ...base, features };
    if (features.length > 0 && (picked.length > 0 || deferred.length > 0)) {
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
   * Deferred loading for a door that runs the model's rounds itself (the proxy,
   * docs/proxy.md#skill-search): `request` with the skills that the `skill_search` calls among
   * `results` found declared as tools, and `injected` with their entries, so the next upstream
   * round can call them. Found skills already in `injected` or declared by the client are left
   * out; at most {@link FOUND_SKILLS_MAX} found skills are added per request (those already
   * added count). Skills the caller cannot see (any more) are skipped. The inputs are not mutated.
   */
  async offerFound(
    format: WireFormat,
    request: JsonObject,
    injected: readonly InjectedTool[],
    results: readonly ToolResult[],
    apiKeyId: string | null,
  ): Promise<InjectResult> {
    const wanted = results.flatMap((r) =>
      r.skill === SKILL_SEARCH_REF && r.status === "success"
        ? ((r.output as SkillSearchOutput | undefined)?.skills ?? [])
        : [],
    );
    if (wanted.length === 0) return { request, injected: [...injected] };
    const adapter = getFormatAdapter(format);
    const { resolver } = getInjectionIndex(await this.opts.registry.snapshot());
    const taken = new Set([
      ...injected.map((t) => t.toolName),
      ...adapter.clientToolNames(request),
    ]);
    let room = FOUND_SKILLS_MAX - injected.filter((t) => t.found === true).length;
    const specs = [];
    const added: InjectedTool[] = [];
    for (const f of wanted) {
      if (room <= 0) break;
      const skill = resolver.resolveName(`${f.name}@${f.version}`, apiKeyId);
      if (!skill) continue;
      const toolName = resolver.toolName(skill);
      if (taken.has(toolName)) continue;
      taken.add(toolName);
      room--;
      specs.push(skillToolSpec(skill, toolName, adapter.schemaDialect));
      added.push({
        name: skill.name,
        version: skill.version,
        toolName,
        mode: skill.mode,
        score: f.score,
        ranker: "bm25",
        found: true,
      });
    }
    if (specs.length === 0) return { request, injected: [...injected] };
    return { request: adapter.addTools(request, specs), injected: [...injected, ...added] };
  }

  /** The `SKILLS_SEARCH_TOOL` setting. */
  get searchMode(): SkillSearchMode {
    return this.opts.searchMode ?? "auto";
  }

  /**
   * Answers one `skill_search` call for a caller (docs/scoring.md#skill-search): ranks the AUTO
   * skills the caller may use for the model's query and, with a `sessionId`, remembers them so
   * that the session's next inject offers them. `offered` names tools the model already has
   * (tool names, `name@version` or names, as `injected` lists them); they are left out.
   * @returns the outcome: `success` with a {@link SkillSearchOutput}, or `error` for bad
   *   arguments; never throws, records no execution.
   */
  async search(
    input: unknown,
    ctx: CallerContext,
    offered?: ReadonlySet<string>,
    linkIds?: readonly string[],
  ): Promise<ModelCallOutcome> {
    const args = parseSkillSearchArgs(input);
    if ("error" in args) return { status: "error", error: args.error, executionId: null };
    const [snapshot, settings] = await Promise.all([
      this.opts.registry.snapshot(),
      this.opts.settings.get(),
    ]);
    if (!settings.skillsEnabled) {
      return { status: "error", error: "Skills execution is disabled", executionId: null };
    }
    // What learning taught for the query's words counts as it does at injection.
    const { learning } = this.opts;
    let learned: Map<string, number> | undefined;
    if (learning.enabled) {
      const index = getInjectionIndex(snapshot);
      learned = await learning.scores(
        ctx.apiKeyId,
        learningFeatures(args.query, null),
        index.bm25Shape().candidates,
        (id) => index.bm25Candidate(id)?.apiKeyId === null,
      );
    }
    const skills = searchSkills(
      {
        snapshot,
        apiKeyId: ctx.apiKeyId,
        customSkillsEnabled: settings.customSkillExecution,
        policyFloors: this.opts.policyFloors,
        unavailableBuiltins: this.opts.unavailableBuiltins,
      },
      args,
      offered,
      learned,
    );
    const remembered = ctx.sessionId !== null && this.opts.foundSkills !== undefined;
    if (remembered && skills.length > 0) {
      const terms = bm25Query(args.query).terms;
      await this.opts.foundSkills!.add(
        ctx.apiKeyId,
        ctx.sessionId!,
        skills.map((f) => ({ skill: `${f.name}@${f.version}`, terms })),
      );
    }
    if (skills.length > 0) {
      const resolver = getInjectionIndex(snapshot).resolver;
      const found = skills.flatMap(
        (f) => resolver.resolveName(`${f.name}@${f.version}`, ctx.apiKeyId) ?? [],
      );
      const links = linkIds ?? (ctx.sessionId !== null ? [sessionLink(ctx.sessionId)] : [MCP_LINK]);
      await this.noteSearchFound(ctx.apiKeyId, links, learningFeatures(args.query, null), found);
    }
    const output: SkillSearchOutput = {
      query: args.query,
      skills,
      note:
        skills.length === 0
          ? "No tool matches this query; try other words."
          : remembered
            ? "These tools are offered from your next turn on; call them by toolName."
            : "Call these tools by toolName.",
    };
    return { status: "success", output, executionId: null };
  }

  private count(skill: Skill, event: "injected" | "called" | "searched"): void {
    this.opts.stats.count(skill.id, `${skill.name}@${skill.version}`, event);
    this.opts.metrics?.countSelection?.({ skill: skill.name, event });
  }

  /**
   * Learning's one entry point for every door (docs/scoring.md#learning-from-traffic): records
   * that a model called `skill` after a request with the hashed `features` (from
   * {@link InjectOutcome.features}), which reached it as `source`. Counts a call of an injected
   * AUTO skill. Only AUTO skills learn. Never throws: a lost learning write is not the call's error.
   */
  async learnFromCall(
    apiKeyId: string | null,
    skill: Skill,
    features: readonly number[],
    source: LearningSource,
  ): Promise<void> {
    // Only AUTO picks are counted as injected and learn (`on` skills are always offered).
    if (skill.mode !== "auto") return;
    if (source === "injected") this.count(skill, "called");
    try {
      await this.opts.learning.learn(apiKeyId, skill, features, source);
    } catch {
      // The write failed (the skill was deleted meanwhile, the database is away): the call
      // stands, and the next calls teach again.
    }
  }

  /**
   * A call of `skill` by a door that keeps no provider request (MCP): learns when the link
   * under one of `linkIds` (a selection id, {@link MCP_LINK}) injected or found the skill.
   * Never throws.
   */
  async learnFromLinkedCall(
    apiKeyId: string | null,
    skill: Skill,
    linkIds: readonly string[],
  ): Promise<void> {
    try {
      const link = await this.opts.learning.linked(apiKeyId, linkIds);
      const source = link && sourceIn(link, skill.id);
      if (link && source) await this.learnFromCall(apiKeyId, skill, link.features, source);
    } catch {
      // The cache is away: nothing is learned from this call.
    }
  }

  /**
   * For `skill_search`: notes that a search with hashed `features` found `found` for the caller,
   * so that a later call of one of them (linked by a selection id, session link or
   * {@link MCP_LINK} in `linkIds`) teaches with source `searched`; a found skill the link had not
   * injected counts as found by search (what the ranker missed). Never throws.
   */
  async noteSearchFound(
    apiKeyId: string | null,
    linkIds: readonly string[],
    features: readonly number[],
    found: readonly Skill[],
  ): Promise<void> {
    try {
      const { learning } = this.opts;
      const link = await learning.linked(apiKeyId, linkIds);
      const injected = link?.injected ?? [];
      for (const s of found) if (!injected.includes(s.id)) this.count(s, "searched");
      const searched = [...new Set([...(link?.searched ?? []), ...found.map((s) => s.id)])];
      await learning.link(apiKeyId, linkIds, {
        features: link?.features.length ? link.features : [...features],
        injected,
        searched: searched.slice(-200),
      });
    } catch {
      // The cache is away: the search still answers.
    }
  }

  /** This process's selection counters per skill, and the default ranker now. */
  async selectionStats(): Promise<{ ranker: RankerName; skills: SelectionCounts[] }> {
    const settings = await this.opts.settings.get();
    return { ranker: settings.ranker ?? DEFAULT_RANKER, skills: this.opts.stats.list() };
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
    const [snapshot, link] = await Promise.all([
      this.opts.registry.snapshot(),
      linkIds.length > 0
        ? this.opts.learning.linked(apiKeyId, linkIds).catch(() => undefined)
        : undefined,
    ]);
    const sessionId = req.sessionId ?? null;
    const answersSearch =
      req.answerSearch === true &&
      this.searchMode !== "off" &&
      (this.searchMode === "on" || sessionId !== null || listsSearch(req.injected)) &&
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
                  : this.search(
                      call.input,
                      { apiKeyId, sessionId },
                      offeredBy(req.injected),
                      linkIds,
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
            if (source) learning.push(this.learnFromCall(apiKeyId, skill, link.features, source));
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

/** The tool names, `name@version`s and names an `injected` list gives. */
function offeredBy(injected: readonly InjectedRef[] | undefined): Set<string> {
  const out = new Set<string>();
  for (const r of injected ?? []) {
    if (typeof r === "string") out.add(r);
    else {
      if (r.toolName) out.add(r.toolName);
      out.add(r.version ? `${r.name}@${r.version}` : r.name);
    }
  }
  return out;
}

/** True when an `injected` list names `skill_search` (as a string or an item). */
function listsSearch(injected: readonly InjectedRef[] | undefined): boolean {
  return (injected ?? []).some((r) =>
    typeof r === "string"
      ? r === SKILL_SEARCH_TOOL || r === SKILL_SEARCH_REF
      : r.name === SKILL_SEARCH_TOOL || r.toolName === SKILL_SEARCH_TOOL,
  );
}

/** How a link offered `skillId`: injected, found by search, or not at all. */
function sourceIn(
  link: { injected: readonly string[]; searched: readonly string[] },
  skillId: string,
): LearningSource | undefined {
  if (link.injected.includes(skillId)) return "injected";
  if (link.searched.includes(skillId)) return "searched";
  return undefined;
}
