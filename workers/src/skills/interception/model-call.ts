/**
 * A model's call of a skill (docs/policies.md): the one place that decides what happens when a
 * model — through interception of a provider response, the proxy, an MCP `tools/call`, the MCP
 * execute tool or an A2A skill — asks for a skill to run. An operator's explicit execution
 * (`POST /api/skills/executions`) does not come here: it needs no approval. An explicit execute
 * request made by a model (the MCP execute tool, an A2A skill) is decided by
 * {@link decideModelCall} with `explicit: true`: the floors apply, the stored policy does not.
 *
 * Rules, in order:
 * - arguments the model wrote that could not be parsed → an error result, nothing recorded;
 * - the skill is not active (`enabled: false` or mode `off`) → an error result ("disabled");
 * - custom skills switched off for this caller (`customSkillExecutionEnabled: false`) and the
 *   skill is not a builtin → an error result;
 * - the policy is the skill's own raised to its handler's floor (policy-floor.ts:
 *   `execute_command` manual, `eval_code` hybrid, unless the operator lifted the floors);
 * - policy `manual` → an error result saying an explicit execution is needed;
 * - the provider-safe argument names are turned back into the skill's own
 *   (docs/schema-adaptation.md);
 * - policy `hybrid` → an execution awaiting approval (`pending_approval`, with its id);
 * - policy `auto` → the executor runs it; the terminal execution becomes the result.
 * The executor's own checks (master switch, handler, input validation) still apply; any
 * {@link AppError} they throw becomes an error result. Never throws.
 */
import { AppError, isStorageFull, STORAGE_FULL_MESSAGE } from "../../errors.js";
import type { OutcomeStatus } from "../../formats/types.js";
import { restoreCallArguments } from "../injection/schema-prepare.js";
import { isActive, isBuiltin } from "../registry/tool-resolver.js";
import type { CallerContext, Execution, Skill } from "../types.js";
import { modelPolicy, type PolicyFloors, raisedByFloor } from "./policy-floor.js";

/** What a model's call needs from the executor (docs/execution.md). */
export interface ModelCallExecutor {
  /**
   * Runs `skill` now and resolves with the finished execution (`success` | `error` | `timeout`).
   * `signal` cancels a running execution (it then ends `error` `cancelled`).
   * @throws AppError when nothing could run (InvalidInputError for bad input, DisabledError, ...).
   */
  execute(
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    signal?: AbortSignal,
  ): Promise<Execution>;
  /** Records an execution of a `hybrid` skill that waits for approval (`pending`, approval `required`). */
  requestApproval(skill: Skill, input: unknown, ctx: CallerContext): Promise<Execution>;
}

/** Options of {@link runModelCall}. */
export interface ModelCallOptions {
  executor: ModelCallExecutor;
  ctx: CallerContext;
  /** false → only builtins may run (docs/interception.md). Default true. */
  customSkillExecutionEnabled?: boolean;
  /** Policy floors of handlers that run commands or code; default: the floors apply. */
  policyFloors?: PolicyFloors;
  /** Set when the model's arguments could not be parsed; the call then fails with it. */
  inputError?: string;
  /** Cancels the execution when the caller goes away (a proxy client that disconnected). */
  signal?: AbortSignal;
}

/** The result of one model call. */
export interface ModelCallOutcome {
  status: OutcomeStatus;
  /** Handler output (success), or the partial output kept on a failed / timed-out execution. */
  output?: unknown;
  /** Error message for `error` / `timeout`. */
  error?: string;
  /** Null when no execution was recorded (bad arguments, disabled or manual skill, rejected input). */
  executionId: string | null;
}

/** Message of the error result a `manual` skill gets when the model calls it. */
export const MANUAL_POLICY_ERROR =
  "needs an explicit execution (executor policy manual): the model cannot call it; run it with POST /api/skills/executions";

/** Added to the manual error when the handler's floor, not the skill's own policy, decided. */
export const FLOOR_POLICY_NOTE =
  "its handler runs commands, so model calls are held at this policy unless the operator sets SKILLS_ALLOW_MODEL_COMMANDS=true";

/** Message of the error result a custom skill gets when only builtins may run. */
export const CUSTOM_DISABLED_ERROR =
  "is a custom skill and custom skill execution is off for this call (only builtins run)";

/** The outcome an execution row stands for. */
export function outcomeOf(exec: Execution): ModelCallOutcome {
  const base = { executionId: exec.id, output: exec.output ?? undefined };
  if (exec.status === "success") return { ...base, status: "success" };
  if (exec.status === "timeout")
    return { ...base, status: "timeout", error: exec.errorMessage ?? "Skill execution timed out" };
  if (exec.status === "pending" && exec.approval === "required")
    return { executionId: exec.id, status: "pending_approval" };
  return {
    ...base,
    status: "error",
    error: exec.errorMessage ?? `Execution ended with status ${exec.status}`,
  };
}

/**
 * What happens to a model's call (docs/policies.md#model-calls-on-every-door): it runs now, it
 * waits for approval, or it is refused with a message for the model (nothing is recorded then).
 */
export type ModelCallDecision =
  | { kind: "run" }
  | { kind: "approve" }
  | {
      kind: "refuse";
      /** Why: the skill is off, custom skills may not run, or its policy (with floors) is manual. */
      reason: "disabled" | "custom_disabled" | "policy";
      error: string;
    };

/** Options of {@link decideModelCall}. */
export interface ModelCallDecisionOptions {
  /** false → only builtins may run (docs/interception.md). Default true. */
  customSkillExecutionEnabled?: boolean;
  /** Policy floors of handlers that run commands or code; default: the floors apply. */
  policyFloors?: PolicyFloors;
  /**
   * The model named the skill in an explicit execute request (the MCP execute tool, an A2A
   * skill): the skill's stored policy does not count, as for any explicit execution, but the
   * floors of its handler still do. Default false: a tool call, held to the stored policy too.
   */
  explicit?: boolean;
}

/**
 * The one rule every door applies to a model's call of `skill` (docs/policies.md): interception,
 * the proxy and MCP skill tools through {@link runModelCall}; the MCP execute tool and A2A skills
 * through the executions service's model view. Checks, in order: the skill is active, custom
 * skills may run, then the policy — the stored one raised to its handler's floor (policy-floor.ts),
 * or for an explicit request the floor alone — `manual` refuses, `hybrid` waits for approval.
 * @returns the decision; never throws.
 */
export function decideModelCall(
  skill: Skill,
  opts: ModelCallDecisionOptions = {},
): ModelCallDecision {
  const ref = `${skill.name}@${skill.version}`;
  if (!isActive(skill))
    return { kind: "refuse", reason: "disabled", error: `Skill ${ref} is disabled` };
  if (opts.customSkillExecutionEnabled === false && !isBuiltin(skill))
    return {
      kind: "refuse",
      reason: "custom_disabled",
      error: `Skill ${ref} ${CUSTOM_DISABLED_ERROR}`,
    };
  const governed: Pick<Skill, "policy" | "handlerCode"> = opts.explicit
    ? { policy: "auto", handlerCode: skill.handlerCode }
    : skill;
  const policy = modelPolicy(governed, opts.policyFloors);
  if (policy === "manual") {
    const note = raisedByFloor(governed, opts.policyFloors) ? `; ${FLOOR_POLICY_NOTE}` : "";
    return {
      kind: "refuse",
      reason: "policy",
      error: `Skill ${ref} ${MANUAL_POLICY_ERROR}${note}`,
    };
  }
  return policy === "hybrid" ? { kind: "approve" } : { kind: "run" };
}

/**
 * Applies the executor policies to a model's call of `skill` with `args` (see the module docs).
 * @param args the arguments as the model wrote them (provider-safe names).
 * @returns the outcome; never throws.
 */
export async function runModelCall(
  skill: Skill,
  args: unknown,
  opts: ModelCallOptions,
): Promise<ModelCallOutcome> {
  const fail = (error: string): ModelCallOutcome => ({ status: "error", error, executionId: null });
  if (opts.inputError) return fail(opts.inputError);
  const decision = decideModelCall(skill, opts);
  if (decision.kind === "refuse") return fail(decision.error);
  // The model wrote the provider-safe argument names; the skill gets its own (schema-prepare.ts).
  const input = restoreCallArguments(skill.schema.input, args);
  try {
    const exec =
      decision.kind === "approve"
        ? await opts.executor.requestApproval(skill, input, opts.ctx)
        : await opts.executor.execute(skill, input, opts.ctx, opts.signal);
    return outcomeOf(exec);
  } catch (err) {
    if (err instanceof AppError) return fail(err.message);
    // A full disk refused the execution's row as a whole: nothing ran (docs/execution.md#a-full-disk).
    if (isStorageFull(err)) return fail(`storage_full: ${STORAGE_FULL_MESSAGE}`);
    return fail(`Skill execution failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}
