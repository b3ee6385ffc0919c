/**
 * Example handlers that ship registered (issue 2): `echo-handler` returns its input, so the
 * install example of SPEC §9 works end to end.
 */
import type { SkillHandler } from "../types.js";

/** Returns its input unchanged. */
export const echoHandler: SkillHandler = async (input) => input;

/** Handlers registered by name on every executor (not skills themselves). */
export const exampleHandlers: Record<string, SkillHandler> = {
  "echo-handler": echoHandler,
};
