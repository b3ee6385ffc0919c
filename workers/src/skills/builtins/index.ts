/**
 * The builtin catalogue (docs/builtins.md): declarations seeded into the registry and the
 * handler factories registered with the executor. Policies (docs/registry.md#builtins): file I/O,
 * http and search `auto`; `eval_code` `hybrid`; `execute_command` `manual`; `browser` `manual`
 * and disabled (mode `off`) on a fresh install.
 */
import type { SkillHandler } from "../types.js";
import { browserDefinitions, createBrowserHandlers } from "./browser.js";
import { exampleHandlers } from "./echo.js";
import { createFileHandlers, fileDefinitions } from "./files.js";
import { createHttpRequestHandlers, httpRequestDefinitions } from "./http-request.js";
import { createInstructionHandlers } from "./instructions.js";
import { createSandboxHandlers, sandboxDefinitions } from "./sandbox.js";
import type { BuiltinDefinition, BuiltinDeps, BuiltinHandlerFactory } from "./types.js";
import { createWebSearchHandlers, webSearchDefinitions } from "./web-search.js";

/** Every builtin declaration, in registry order. */
export const BUILTIN_DEFINITIONS: readonly BuiltinDefinition[] = [
  ...fileDefinitions,
  ...httpRequestDefinitions,
  ...webSearchDefinitions,
  ...sandboxDefinitions,
  ...browserDefinitions,
];

const FACTORIES: readonly BuiltinHandlerFactory<BuiltinDeps>[] = [
  createFileHandlers,
  createHttpRequestHandlers,
  createWebSearchHandlers,
  createSandboxHandlers,
  createBrowserHandlers,
  createInstructionHandlers,
];

/**
 * Builds every builtin handler, the catalog instruction handler and the example handlers
 * (`echo-handler`) for `deps`, keyed by handler name.
 */
export function createBuiltinHandlers(deps: BuiltinDeps): Record<string, SkillHandler> {
  const handlers: Record<string, SkillHandler> = { ...exampleHandlers };
  for (const factory of FACTORIES) Object.assign(handlers, factory(deps));
  return handlers;
}
