/**
 * The `skill_search` part of the tools service (docs/scoring.md#skill-search,
 * docs/proxy.md#skill-search): answers a search for a caller, and declares what searches found
 * for the next upstream round of a door that runs the rounds itself.
 */
import { getFormatAdapter } from "../formats/index.js";
import type { JsonObject, WireFormat } from "../formats/types.js";
import { getInjectionIndex } from "../skills/injection/index-cache.js";
import {
  type InjectedTool,
  type InjectResult,
  skillToolSpec,
} from "../skills/injection/injection.js";
import { bm25Query } from "../skills/injection/rankers/bm25-query.js";
import type { InjectedRef, ToolResult } from "../skills/interception/interception.js";
import type { ModelCallOutcome } from "../skills/interception/model-call.js";
import { learningFeatures } from "../skills/learning/features.js";
import {
  parseSkillSearchArgs,
  SKILL_SEARCH_REF,
  SKILL_SEARCH_TOOL,
  type SkillSearchMode,
  type SkillSearchOutput,
  searchSkills,
} from "../skills/search/skill-search.js";
import type { CallerContext } from "../skills/types.js";
import { FOUND_SKILLS_MAX } from "./found-skills.js";
import type { LinkRef, SelectionFeedback } from "./selection-feedback.js";
import { MCP_LINK, sessionLink, type ToolsServiceOptions } from "./tools-types.js";

/** `skill_search` for the tools service (see the module docs). */
export class ToolsSearch {
  constructor(
    private readonly opts: ToolsServiceOptions,
    private readonly feedback: SelectionFeedback,
  ) {}

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
    where?: LinkRef,
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
      const links = where ?? {
        ids: ctx.sessionId !== null ? [sessionLink(ctx.sessionId)] : [MCP_LINK],
      };
      await this.feedback.noteSearchFound(
        ctx.apiKeyId,
        links,
        learningFeatures(args.query, null),
        found,
      );
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
}

/** The tool names, `name@version`s and names an `injected` list gives. */
export function offeredBy(injected: readonly InjectedRef[] | undefined): Set<string> {
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
export function listsSearch(injected: readonly InjectedRef[] | undefined): boolean {
  return (injected ?? []).some((r) =>
    typeof r === "string"
      ? r === SKILL_SEARCH_TOOL || r === SKILL_SEARCH_REF
      : r.name === SKILL_SEARCH_TOOL || r.toolName === SKILL_SEARCH_TOOL,
  );
}
