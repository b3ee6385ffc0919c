/**
 * Policy floors (README "Injection and interception", policies): handlers that run commands or
 * code have a least strict executor policy that applies to every call a model makes, whatever
 * policy an operator stored on the skill. The floor follows the skill's `handlerCode`, not its
 * name, so a custom skill whose handler is `execute_command` is held like the builtin. Only the
 * operator's deployment setting `SKILLS_ALLOW_MODEL_COMMANDS=true` lifts the floors; explicit
 * execute calls (`POST /api/skills/executions`) are not model calls and are not affected.
 */
import type { ExecutionPolicy, Skill } from "../types.js";

/** Least strict policy a model's call may have, by handler name. */
export type PolicyFloors = ReadonlyMap<string, ExecutionPolicy>;

/**
 * The product's floors: `execute_command` runs shell commands (`manual`: a model never triggers
 * it), `eval_code` runs programs (`hybrid`: a person approves each model call).
 */
export const COMMAND_HANDLER_FLOORS: PolicyFloors = new Map<string, ExecutionPolicy>([
  ["execute_command", "manual"],
  ["eval_code", "hybrid"],
]);

/** No floors: the skills' stored policies apply as they are. */
export const NO_POLICY_FLOORS: PolicyFloors = new Map();

/**
 * The floors of a deployment.
 * @param allowModelCommands the operator's `SKILLS_ALLOW_MODEL_COMMANDS` setting.
 * @returns {@link NO_POLICY_FLOORS} when the operator opted in, else {@link COMMAND_HANDLER_FLOORS}.
 */
export function policyFloorsFor(allowModelCommands: boolean): PolicyFloors {
  return allowModelCommands ? NO_POLICY_FLOORS : COMMAND_HANDLER_FLOORS;
}

const STRICTNESS: Record<ExecutionPolicy, number> = { auto: 0, hybrid: 1, manual: 2 };

/**
 * The policy that governs a model's call of `skill`: the stricter of the skill's own policy and
 * the floor of its handler (`auto` < `hybrid` < `manual`).
 * @param floors the deployment's floors; default {@link COMMAND_HANDLER_FLOORS} (fail closed).
 */
export function modelPolicy(
  skill: Pick<Skill, "policy" | "handlerCode">,
  floors: PolicyFloors = COMMAND_HANDLER_FLOORS,
): ExecutionPolicy {
  const floor = floors.get(skill.handlerCode);
  if (floor === undefined) return skill.policy;
  return STRICTNESS[floor] > STRICTNESS[skill.policy] ? floor : skill.policy;
}

/**
 * True when the floor of `skill`'s handler, not its own policy, decides a model's call (the
 * operator stored a less strict policy than the floor allows).
 */
export function raisedByFloor(
  skill: Pick<Skill, "policy" | "handlerCode">,
  floors: PolicyFloors = COMMAND_HANDLER_FLOORS,
): boolean {
  return modelPolicy(skill, floors) !== skill.policy;
}
