/**
 * The builtin catalogue (SPEC §2 "Builtins"): declarations seeded into the registry and the
 * handler factories registered with the executor.
 */
import type { AppDeps } from "../../deps.js";
import type { SkillHandler } from "../types.js";
import { exampleHandlers } from "./echo.js";
import type { BuiltinDefinition } from "./types.js";

/** Every builtin declaration, in registry order. */
export const BUILTIN_DEFINITIONS: readonly BuiltinDefinition[] = [];

/** Builds every builtin handler (and the example handlers) for `deps`, keyed by handler name. */
export function createBuiltinHandlers(_deps: AppDeps): Record<string, SkillHandler> {
  return { ...exampleHandlers };
}
