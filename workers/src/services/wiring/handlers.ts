/**
 * Wiring of execution handlers (docs/architecture.md#layers): what builtin handlers are built
 * from, which handlers count as sandbox runs for the per-key limits, and the handlers of skills
 * that carry their own handler (HTTP endpoints, code).
 */
import { globalFetch } from "../../catalogs/upstream.js";
import { createRepositories } from "../../db/repositories/index.js";
import type { AppDeps } from "../../deps.js";
import { sandboxTiming } from "../../skills/builtins/sandbox.js";
import type { BuiltinDefinition, BuiltinDeps, BuiltinEnv } from "../../skills/builtins/types.js";
import type { Executor } from "../../skills/execution/executor.js";
import { CODE_HANDLER_NAME, createCodeHandler } from "../../skills/handlers/code.js";
import { createHttpHandler, HTTP_HANDLER_NAME } from "../../skills/handlers/http.js";
import type { SkillRegistry } from "../../skills/registry/registry.js";

/**
 * What builtin handlers are built from: the app's dependencies without the database, plus the
 * repositories the builtins use (workspace files).
 */
export function builtinDeps(deps: AppDeps): BuiltinDeps {
  const workspaces = createRepositories(deps.db, deps.clock ?? Date.now).workspaces;
  return { ...envOf(deps), workspaces };
}

/** The app's dependencies without the database handle (`db`), as handlers are given them. */
export function envOf(deps: AppDeps): BuiltinEnv {
  const { db: _db, ...env } = deps;
  return env;
}

/**
 * Handlers whose runs use the sandbox host (docs/rate-limits.md): the builtins declared `sandbox`
 * (`eval_code`, `execute_command`, `browser`) and code skills.
 */
export function sandboxHandlerNames(builtins: readonly BuiltinDefinition[]): string[] {
  return [...builtins.filter((b) => b.sandbox === true).map((b) => b.name), CODE_HANDLER_NAME];
}

/**
 * Registers the handlers of skills that carry their handler (docs/custom-skills.md): HTTP
 * endpoints (signed with the secret read from the registry) and code run on the sandbox host
 * (timed as `eval_code`, without a limit from the input: the input is the program's data).
 */
export function registerSpecHandlers(
  env: BuiltinEnv,
  registry: SkillRegistry,
  executor: Executor,
): void {
  executor.registerHandler(
    HTTP_HANDLER_NAME,
    createHttpHandler({
      fetch: env.fetch ?? globalFetch,
      allowlist: env.config.SKILLS_HTTP_HANDLER_ALLOWLIST,
      maxResponseBytes: env.config.SKILLS_HTTP_HANDLER_MAX_RESPONSE_BYTES,
      secretFor: (id) => registry.handlerSecret(id),
      clock: env.clock,
    }),
  );
  const { limitFromInput: _fromInput, ...codeTiming } = sandboxTiming(env.config);
  // A code skill's input is its program's data, never a request for limits.
  codeTiming.sandbox = { autoUpgrade: false };
  executor.registerHandler(CODE_HANDLER_NAME, createCodeHandler(env), codeTiming);
}
