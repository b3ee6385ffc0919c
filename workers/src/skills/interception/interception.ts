/**
 * Interception of the tool calls of a provider response (docs/interception.md): reads every call
 * of the turn the client replays (Chat `choices[0]`, Gemini `candidates[0]`), runs the ones
 * Skillgate owns concurrently, and hands back the results in the provider's shape. A call is
 * owned when its name is
 * - a builtin alias (`omniroute_web_search` → `web_search`), resolved first;
 * - an emitted tool name, `name@version` or `name@<constraint>` that resolves for the caller;
 * - a builtin's bare name, unless the caller passed `injected` without it (then a client tool of
 *   the same name is never hijacked);
 * - a bare custom skill name, only when `injected` lists that skill;
 * - a version or constraint of a skill name the caller sees that resolves to no version: it gets
 *   a "Version not found" tool error and nothing runs.
 * Names are resolved by the registry's tool resolver (registry/tool-resolver.ts).
 * Everything else passes through untouched, and every call is either answered or listed in
 * `passThrough`, exactly once. With `customSkillExecutionEnabled: false` only builtins are
 * intercepted. Each owned call then goes through the executor policies shared with every
 * model-facing front door (model-call.ts). The policy of a call is the skill's own, raised to its handler's floor
 * (policy-floor.ts: `execute_command` manual, `eval_code` hybrid unless the operator lifted the
 * floors). A `manual` call gets an error result (it needs an explicit execution); a `hybrid` one
 * creates an execution awaiting approval (docs/policies.md#approval).
 */
import { getFormatAdapter } from "../../formats/index.js";
import type {
  CallOutcome,
  ExtractedCall,
  JsonObject,
  OutcomeStatus,
  WireFormat,
} from "../../formats/types.js";
import {
  isBuiltin,
  type MissingVersion,
  type SkillSource,
  type ToolResolver,
  toolResolverFor,
} from "../registry/tool-resolver.js";
import type { Skill } from "../types.js";
import {
  FLOOR_POLICY_NOTE,
  MANUAL_POLICY_ERROR,
  type ModelCallExecutor,
  runModelCall,
} from "./model-call.js";
import type { PolicyFloors } from "./policy-floor.js";

/** What interception needs from the executor (the same as a model's call; model-call.ts). */
export type InterceptionExecutor = ModelCallExecutor;

/** An `injected` entry: a tool name / `name@version` / bare name, or an item of inject's `injected`. */
export type InjectedRef = string | { name: string; version?: string; toolName?: string };

/** Input of {@link interceptToolCalls}. */
export interface InterceptOptions {
  format: WireFormat;
  response: JsonObject;
  snapshot: SkillSource;
  apiKeyId: string | null;
  sessionId?: string | null;
  injected?: readonly InjectedRef[];
  /** false → only builtins are intercepted (docs/interception.md). Default true. */
  customSkillExecutionEnabled?: boolean;
  /** Builtin aliases: alias → builtin name (from the builtin declarations). */
  builtinAliases?: ReadonlyMap<string, string>;
  /** Policy floors by handler name; default the product's (policy-floor.ts). */
  policyFloors?: PolicyFloors;
  /**
   * Names of the tools the client declared itself, when known (the proxy): a call of a builtin
   * that was not injected and that the client did not declare is then Skillgate's (see
   * `CallResolution.clientTools`); unknown (the intercept API), such a call passes through.
   */
  clientTools?: readonly string[];
  executor: InterceptionExecutor;
  /** Cancels the running executions when the caller goes away (the proxy's client). */
  signal?: AbortSignal;
  /**
   * Most owned calls run from this turn (the proxy's `PROXY_MAX_CALLS_PER_TURN`); the owned
   * calls after them get {@link tooManyCallsMessage} as their error result, record no execution
   * and run nothing. Default: no bound.
   */
  maxOwnedCalls?: number;
  /**
   * Tools Skillgate answers itself, by tool name (`skill_search`, docs/scoring.md#skill-search):
   * a call of one of these names is owned before any skill name is resolved (unless it is a
   * client-only call kind), counts against `maxOwnedCalls`, and records no execution.
   */
  serverTools?: ReadonlyMap<string, ServerTool>;
  /**
   * Called once per owned call that will run, with its skill, before it runs (learning from
   * traffic hooks in here, so its write joins the batch of the executions' rows).
   */
  onOwnedCall?: (skill: Skill) => void;
  /**
   * Wraps the answer of each owned call (run, refused or answered in-process alike): the proxy's
   * tracing runs it inside the call's `execute_tool` span (docs/deployment.md#opentelemetry).
   */
  aroundCall?: CallWrapper;
}

/**
 * Wraps the answer of one owned call: must call `run` exactly once and resolve with its outcome
 * (it never rejects: a call's failure is an `error` outcome).
 */
export type CallWrapper = (
  call: ExtractedCall,
  run: () => Promise<CallOutcome>,
) => Promise<CallOutcome>;

/** A tool answered in-process by Skillgate rather than by a skill's handler. */
export interface ServerTool {
  /** `name@version` reported as the result's `skill`. */
  ref: string;
  /** Answers one call; must not throw (a failure is an `error` outcome). */
  run(call: ExtractedCall): Promise<Omit<CallOutcome, "call">>;
}

/** One owned call's result (`toolResults[]`). */
export interface ToolResult {
  callId: string;
  toolName: string;
  /** `name@version` of the skill that ran; the requested `name@<version or constraint>` when none resolved. */
  skill: string;
  status: OutcomeStatus;
  output?: unknown;
  error?: string;
  /** Null when no execution was recorded (bad arguments, disabled or manual skill, rejected input). */
  executionId: string | null;
}

/** Output of {@link interceptToolCalls}. */
export interface InterceptResult {
  toolResults: ToolResult[];
  /** Provider-native follow-up items for the owned calls, to append after the assistant turn. */
  messages: object[];
  /** callIds of the calls left to the client, in call order. */
  passThrough: string[];
  /**
   * The response to replay: synthesised call ids written in (Chat, Responses, Anthropic) and the
   * documented splice where the format admits it; otherwise the input unchanged.
   */
  response: JsonObject;
}

export { FLOOR_POLICY_NOTE, MANUAL_POLICY_ERROR };

function injectedSkills(
  refs: readonly InjectedRef[],
  resolver: ToolResolver,
  apiKeyId: string | null,
): Map<string, Skill> {
  const out = new Map<string, Skill>();
  for (const ref of refs) {
    const text =
      typeof ref === "string"
        ? ref
        : ref.version
          ? `${ref.name}@${ref.version}`
          : (ref.toolName ?? ref.name);
    const skill = resolver.resolveName(text, apiKeyId);
    if (skill) out.set(skill.name, skill);
  }
  return out;
}

/** The tool error a call gets for a {@link MissingVersion}; starts with "Version not found". */
export function versionNotFoundMessage(missing: MissingVersion): string {
  const available = missing.versions.map((s) => s.version).join(", ");
  return `Version not found: ${missing.name}@${missing.requested}. Available versions of ${missing.name}: ${available}`;
}

/** The tool error of an owned call past `maxOwnedCalls`; it starts with "Not run". */
export function tooManyCallsMessage(max: number): string {
  return `Not run: at most ${max} of Skillgate's tool calls run from one turn; make this call again in a later turn`;
}

/** Runs one owned call under the executor policies (model-call.ts, the shared rules). */
async function runCall(
  call: ExtractedCall,
  skill: Skill,
  opts: InterceptOptions,
): Promise<CallOutcome> {
  const outcome = await runModelCall(skill, call.input, {
    executor: opts.executor,
    ctx: { apiKeyId: opts.apiKeyId, sessionId: opts.sessionId ?? null },
    customSkillExecutionEnabled: opts.customSkillExecutionEnabled,
    policyFloors: opts.policyFloors,
    inputError: call.inputError,
    signal: opts.signal,
  });
  return { call, ...outcome };
}

/** An owned call: the skill it runs, or the version it names that does not exist. */
type OwnedCall =
  | { call: ExtractedCall; skill: Skill; missing?: undefined; server?: undefined }
  | { call: ExtractedCall; skill?: undefined; missing: MissingVersion; server?: undefined }
  | { call: ExtractedCall; skill?: undefined; missing?: undefined; server: ServerTool };

/**
 * What an owned call targets, or undefined when the call passes through: the resolved skill (a
 * custom one only when custom skill execution is enabled), else a missing version of a skill
 * the caller sees (for builtins always, for custom skills only when custom execution is enabled).
 */
function callTarget(
  toolName: string,
  resolver: ToolResolver,
  opts: InterceptOptions,
  injected: ReadonlyMap<string, Skill> | undefined,
): { skill: Skill } | { missing: MissingVersion } | undefined {
  const customAllowed = opts.customSkillExecutionEnabled !== false;
  const target = resolver.resolveCall(toolName, opts.apiKeyId, {
    injected,
    builtinAliases: opts.builtinAliases,
    clientTools: opts.clientTools && new Set(opts.clientTools),
  });
  if (!target || customAllowed) return target;
  if (target.skill) return isBuiltin(target.skill) ? target : undefined;
  return target.missing.versions.every(isBuiltin) ? target : undefined;
}

/**
 * Intercepts the tool calls of `opts.response` (see the module docs).
 * @returns results of owned calls in call order, their provider-native follow-up, the callIds
 *   passed through, and the response to replay. Never throws for a call's failure: each becomes
 *   an error result.
 */
export async function interceptToolCalls(opts: InterceptOptions): Promise<InterceptResult> {
  const adapter = getFormatAdapter(opts.format);
  const resolver = toolResolverFor(opts.snapshot);
  const injected = opts.injected
    ? injectedSkills(opts.injected, resolver, opts.apiKeyId)
    : undefined;
  const owned: OwnedCall[] = [];
  const passThrough: string[] = [];
  for (const call of adapter.extractCalls(opts.response)) {
    const server = call.clientOnly ? undefined : opts.serverTools?.get(call.name);
    const target = call.clientOnly
      ? undefined
      : server
        ? { server }
        : callTarget(call.name, resolver, opts, injected);
    if (target) owned.push({ call, ...target });
    else passThrough.push(call.callId);
  }
  const max = opts.maxOwnedCalls ?? Number.POSITIVE_INFINITY;
  if (opts.onOwnedCall) {
    for (let i = 0; i < Math.min(owned.length, max); i++) {
      const skill = owned[i]!.skill;
      if (skill) opts.onOwnedCall(skill);
    }
  }
  const around: CallWrapper = opts.aroundCall ?? ((_call, run) => run());
  const outcomes = await Promise.all(
    owned.map(
      (o, i): Promise<CallOutcome> =>
        around(
          o.call,
          async (): Promise<CallOutcome> =>
            i >= max
              ? {
                  call: o.call,
                  status: "error",
                  error: tooManyCallsMessage(max),
                  executionId: null,
                }
              : o.server
                ? o.server.run(o.call).then((r) => ({ ...r, call: o.call }))
                : o.skill
                  ? runCall(o.call, o.skill, opts)
                  : {
                      call: o.call,
                      status: "error",
                      error: versionNotFoundMessage(o.missing),
                      executionId: null,
                    },
        ),
    ),
  );
  const toolResults = outcomes.map((o, i): ToolResult => {
    const target = owned[i]!;
    const r: ToolResult = {
      callId: o.call.callId,
      toolName: o.call.name,
      skill: target.server
        ? target.server.ref
        : target.skill
          ? `${target.skill.name}@${target.skill.version}`
          : `${target.missing.name}@${target.missing.requested}`,
      status: o.status,
      executionId: o.executionId,
    };
    if (o.output !== undefined) r.output = o.output;
    if (o.error !== undefined) r.error = o.error;
    return r;
  });
  return {
    toolResults,
    messages: adapter.followUp(outcomes),
    passThrough,
    response: adapter.splice(opts.response, outcomes),
  };
}
