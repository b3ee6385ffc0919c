/**
 * Instruction skills (docs/catalogs.md#running-an-instruction-skill): a catalog (SKILL.md) skill's
 * tool takes an optional `{ task }` and returns the SKILL.md body stored in the skill's
 * `instructions` field (progressive disclosure, as Agent Skills work). Every catalog install names
 * this handler in `handlerCode`, so such skills always execute ("handler not found" is ruled out).
 */
import { z } from "zod";
import { ExecutionFailure } from "../../errors.js";
import type { HandlerContext, JsonSchema, SkillHandler } from "../types.js";
import type { BuiltinHandlerFactory } from "./types.js";

/** Handler name stored in `handlerCode` of every catalog skill. */
export const INSTRUCTION_HANDLER = "skill-instructions";

/** Input schema of every instruction skill: an optional description of the task at hand. */
export const INSTRUCTION_INPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    task: {
      type: "string",
      description: "Optional: the task you want to use this skill for.",
    },
  },
  additionalProperties: false,
};

/** What an instruction skill returns. */
export interface InstructionResult {
  skill: string;
  version: string;
  /** The task the model passed, echoed when present. */
  task?: string;
  /** The SKILL.md body (Markdown, frontmatter removed). */
  instructions: string;
}

const input = z.object({ task: z.string().optional() }).passthrough().nullish();

/**
 * Returns `ctx.skill.instructions` for any `{ task? }` input.
 * @throws ExecutionFailure `no_instructions` when the skill has no stored body (a misconfigured,
 *   non-catalog skill pointing at this handler).
 */
export const instructionHandler: SkillHandler = async (raw, ctx: HandlerContext) => {
  const parsed = input.safeParse(raw);
  const task = parsed.success ? parsed.data?.task : undefined;
  const body = ctx.skill.instructions;
  if (body === null || body.trim() === "") {
    throw new ExecutionFailure(`Skill ${ctx.skill.name}@${ctx.skill.version} has no instructions`, {
      code: "no_instructions",
    });
  }
  const result: InstructionResult = {
    skill: ctx.skill.name,
    version: ctx.skill.version,
    instructions: body,
  };
  if (task !== undefined && task.trim() !== "") result.task = task;
  return result;
};

/** Registers {@link instructionHandler} under {@link INSTRUCTION_HANDLER}; needs no deps. */
export const createInstructionHandlers: BuiltinHandlerFactory = () => ({
  [INSTRUCTION_HANDLER]: instructionHandler,
});
