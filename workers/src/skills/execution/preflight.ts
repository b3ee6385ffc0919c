/**
 * The checks an execution passes before anything is written (README "Errors",
 * docs/configuration.md#settings-stored-not-configured): the master switch, the custom-execution
 * setting, the skill's mode, a registered handler and the input against the skill's schema.
 */
import { DisabledError, NotFoundError } from "../../errors.js";
import { isBuiltin } from "../registry/tool-resolver.js";
import type { Skill } from "../types.js";
import { prepareInputValidation, validateSkillInput } from "./input-validation.js";

/** What the preflight reads: the settings and the handler registry. */
export interface PreflightGates {
  /** Reads the master switch (`skillsEnabled` setting). */
  isSkillsEnabled: () => Promise<boolean>;
  /** Reads the `customSkillExecution` setting (false → only builtins run). */
  isCustomExecutionEnabled: () => Promise<boolean>;
  /** True when a handler of that name is registered. */
  hasHandler: (name: string) => boolean;
}

/**
 * Checks that `skill` may run now with `input`, before anything is written.
 * @throws DisabledError `skills_disabled` (503, master switch), `custom_execution_disabled` (409,
 *   a custom skill while the `customSkillExecution` setting is off) or `skill_disabled` (409, mode off);
 *   NotFoundError `handler_not_found` when no handler is registered; InvalidInputError for bad input.
 */
export async function preflight(
  gates: PreflightGates,
  skill: Skill,
  input: unknown,
): Promise<void> {
  if (!(await gates.isSkillsEnabled())) {
    throw new DisabledError(
      "Skills execution is disabled (skillsEnabled = false)",
      "skills_disabled",
    );
  }
  if (!isBuiltin(skill) && !(await gates.isCustomExecutionEnabled())) {
    throw new DisabledError(
      `Skill ${skill.name}@${skill.version} is a custom skill and custom skill execution is off (setting customSkillExecution = false): only builtins run`,
      "custom_execution_disabled",
    );
  }
  if (skill.mode === "off" || !skill.enabled) {
    throw new DisabledError(
      `Skill ${skill.name}@${skill.version} is disabled (mode "off")`,
      "skill_disabled",
    );
  }
  if (!gates.hasHandler(skill.handlerCode)) {
    throw new NotFoundError(
      `No handler "${skill.handlerCode}" is registered for ${skill.name}@${skill.version}`,
      "handler_not_found",
    );
  }
  await prepareInputValidation(skill);
  validateSkillInput(skill, input);
}
