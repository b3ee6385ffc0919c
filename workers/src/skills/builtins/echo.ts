/**
 * Example handlers that ship registered: `echo-handler` returns its input, so the README's
 * install example works end to end (docs/builtins.md).
 */
import type { SkillHandler } from "../types.js";

/** Returns its input unchanged. */
export const echoHandler: SkillHandler = async (input) => input;

/** Handlers registered by name on every executor (not skills themselves). */
export const exampleHandlers: Record<string, SkillHandler> = {
  "echo-handler": echoHandler,
};
