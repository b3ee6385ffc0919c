/**
 * `handleToolCallExecution` (docs/interception.md): reads the tool calls of a provider
 * response, runs the ones Skillgate owns concurrently, and hands back the results in the
 * provider's shape. A call is owned when its name is
 * - a builtin alias (`omniroute_web_search` → `web_search`), resolved first;
 * - an emitted tool name or `name@version` that resolves for the caller (tool-names.ts);
 * - a builtin's bare name, unless the caller passed `injected` without it (then a client tool of
 *   the same name is never hijacked);
 * - a bare custom skill name, only when `injected` lists that skill.
 * Everything else passes through untouched. With `customSkillExecutionEnabled: false`
 * only builtins are intercepted. Each owned call then goes through the executor policies shared
 * with every model-facing front door (model-call.ts): a `manual` skill gets an error result (it
 * needs an explicit execution); a `hybrid` one creates an execution awaiting approval
 * (docs/policies.md#approval).
 */
import { getProvider } from "../providers/index.js";
import type {
  CallOutcome,
  ExtractedCall,
  JsonObject,
  OutcomeStatus,
  ProviderFormat,
} from "../providers/types.js";
import { getInjectionIndex } from "./injection-index.js";
import { MANUAL_POLICY_ERROR, type ModelCallExecutor, runModelCall } from "./model-call.js";
import { isBuiltin, type SkillLookup, type SkillSource } from "./skill-lookup.js";
import { parseToolName } from "./tool-names.js";
import type { Skill } from "./types.js";

/** What interception needs from the executor (the same as a model's call; model-call.ts). */
export type InterceptionExecutor = ModelCallExecutor;

/** An `injected` entry: a tool name / `name@version` / bare name, or an item of inject's `injected`. */
export type InjectedRef = string | { name: string; version?: string; toolName?: string };

/** Input of {@link interceptToolCalls}. */
export interface InterceptOptions {
  format: ProviderFormat;
  response: JsonObject;
  snapshot: SkillSource;
  apiKeyId: string | null;
  sessionId?: string | null;
  injected?: readonly InjectedRef[];
  /** false → only builtins are intercepted (docs/interception.md). Default true. */
  customSkillExecutionEnabled?: boolean;
  /** Builtin aliases: alias → builtin name (from the builtin declarations). */
  builtinAliases?: ReadonlyMap<string, string>;
  executor: InterceptionExecutor;
}

/** One owned call's result (`toolResults[]`). */
export interface ToolResult {
  callId: string;
  toolName: string;
  /** `name@version` of the skill that ran. */
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
  /** The response with the documented splice where the format admits it, otherwise unchanged. */
  response: JsonObject;
}

export { MANUAL_POLICY_ERROR };

function injectedSkills(
  refs: readonly InjectedRef[],
  lookup: SkillLookup,
  apiKeyId: string | null,
): Map<string, Skill> {
  const out = new Map<string, Skill>();
  for (const ref of refs) {
    let skill: Skill | undefined;
    const text =
      typeof ref === "string"
        ? ref
        : ref.version
          ? `${ref.name}@${ref.version}`
          : (ref.toolName ?? ref.name);
    const parsed = parseToolName(text);
    if (parsed.kind === "ref") skill = lookup.resolveRef(parsed.name, parsed.version, apiKeyId);
    else if (parsed.kind === "hash") skill = lookup.resolveHash(parsed.hash, apiKeyId);
    else skill = lookup.builtin(parsed.name) ?? lookup.winner(parsed.name, apiKeyId);
    if (skill) out.set(skill.name, skill);
  }
  return out;
}

/**
 * The skill a call name means for the caller, or undefined when the call is not ours (see the
 * module docs for the rules, in order).
 */
export function resolveCallSkill(
  toolName: string,
  lookup: SkillLookup,
  apiKeyId: string | null,
  opts: {
    injected?: ReadonlyMap<string, Skill>;
    builtinAliases?: ReadonlyMap<string, string>;
  } = {},
): Skill | undefined {
  const alias = opts.builtinAliases?.get(toolName);
  if (alias !== undefined) return lookup.builtin(alias);
  const parsed = parseToolName(toolName);
  const byName =
    parsed.kind === "ref"
      ? lookup.resolveRef(parsed.name, parsed.version, apiKeyId)
      : parsed.kind === "hash"
        ? lookup.resolveHash(parsed.hash, apiKeyId)
        : undefined;
  if (byName) return byName;
  const builtin = lookup.builtin(toolName);
  if (builtin)
    return !opts.injected || opts.injected.get(toolName) === builtin ? builtin : undefined;
  return opts.injected?.get(toolName);
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
    inputError: call.inputError,
  });
  return { call, ...outcome };
}

/**
 * Intercepts the tool calls of `opts.response` (see the module docs).
 * @returns results of owned calls in call order, their provider-native follow-up, the callIds
 *   passed through, and the response with the documented splice. Never throws for a call's
 *   failure: each becomes an error result.
 */
export async function interceptToolCalls(opts: InterceptOptions): Promise<InterceptResult> {
  const adapter = getProvider(opts.format);
  const { lookup } = getInjectionIndex(opts.snapshot);
  const injected = opts.injected ? injectedSkills(opts.injected, lookup, opts.apiKeyId) : undefined;
  const owned: { call: ExtractedCall; skill: Skill }[] = [];
  const passThrough: string[] = [];
  for (const call of adapter.extractCalls(opts.response)) {
    const skill = call.clientOnly
      ? undefined
      : resolveCallSkill(call.name, lookup, opts.apiKeyId, {
          injected,
          builtinAliases: opts.builtinAliases,
        });
    if (!skill || (opts.customSkillExecutionEnabled === false && !isBuiltin(skill)))
      passThrough.push(call.callId);
    else owned.push({ call, skill });
  }
  const outcomes = await Promise.all(owned.map(({ call, skill }) => runCall(call, skill, opts)));
  const toolResults = outcomes.map((o, i): ToolResult => {
    const skill = owned[i]!.skill;
    const r: ToolResult = {
      callId: o.call.callId,
      toolName: o.call.name,
      skill: `${skill.name}@${skill.version}`,
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
