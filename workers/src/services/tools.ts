/**
 * The tools service (docs/injection.md, docs/interception.md): injects a caller's skills into a
 * provider request as tools, and runs the tool calls of a provider response that Skillgate owns.
 * It brings what the domain functions need besides the request: the registry snapshot, the
 * master switch, the builtins this deployment cannot run, builtin aliases, policy floors and
 * the executor. Front doors that offer skills as tools outside a provider request (MCP, A2A) list
 * them, resolve a tool name and run a model's call here too (docs/mcp.md#skill-tools).
 */
import type { JsonObject, WireFormat } from "../formats/types.js";
import type { Executor } from "../skills/execution/executor.js";
import { type InjectResult, injectSkills } from "../skills/injection/injection.js";
import { chooseRanker, type RankerName } from "../skills/injection/rankers/index.js";
import {
  type CallerToolSet,
  callerTools,
  resolveCallerTool,
} from "../skills/interception/caller-tools.js";
import {
  type InjectedRef,
  type InterceptResult,
  interceptToolCalls,
} from "../skills/interception/interception.js";
import { type ModelCallOutcome, runModelCall } from "../skills/interception/model-call.js";
import type { PolicyFloors } from "../skills/interception/policy-floor.js";
import type { SkillRegistry } from "../skills/registry/registry.js";
import { isBuiltin } from "../skills/registry/tool-resolver.js";
import type { CallerContext, Skill } from "../skills/types.js";
import type { SettingsService } from "./settings.js";

export type { InjectResult } from "../skills/injection/injection.js";
export {
  isRankerName,
  RANKER_NAMES,
  type RankerName,
} from "../skills/injection/rankers/index.js";
export type { CallerTool, CallerToolSet } from "../skills/interception/caller-tools.js";
export type {
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
}

/** Injection and interception for a caller. */
export class ToolsService {
  constructor(private readonly opts: ToolsServiceOptions) {}

  /**
   * Injects the caller's skills into `req.request`.
   * @param apiKeyId the caller's key; null = global skills only.
   * @returns the new request and what was injected.
   */
  async inject(req: InjectRequest, apiKeyId: string | null): Promise<InjectResult> {
    const [snapshot, settings, keyRanker] = await Promise.all([
      this.opts.registry.snapshot(),
      this.opts.settings.get(),
      req.ranker === undefined && apiKeyId !== null && this.opts.keyRanker
        ? this.opts.keyRanker(apiKeyId)
        : null,
    ]);
    return injectSkills({
      format: req.format,
      request: req.request,
      snapshot,
      apiKeyId,
      backgroundReason: req.backgroundReason ?? null,
      include: req.include,
      exclude: [...(req.exclude ?? []), ...this.opts.unavailableBuiltins],
      skillsEnabled: settings.skillsEnabled,
      customSkillsEnabled: settings.customSkillExecution,
      policyFloors: this.opts.policyFloors,
      ranker: chooseRanker(req.ranker, keyRanker, settings.ranker),
    });
  }

  /**
   * Runs the owned tool calls of `req.response` for the caller.
   * @param apiKeyId the caller's key; null = global skills only.
   * @returns results, follow-up items, pass-through call ids and the response to replay; a
   *   call's failure is an error result, never an exception.
   */
  async intercept(req: InterceptRequest, apiKeyId: string | null): Promise<InterceptResult> {
    return interceptToolCalls({
      format: req.format,
      response: req.response,
      snapshot: await this.opts.registry.snapshot(),
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
    });
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
