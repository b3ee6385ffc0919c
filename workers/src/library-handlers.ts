/**
 * Registration of a library user's own handlers (docs/library.md): shared by the Worker and Node
 * factories.
 */
import type { Services } from "./services/index.js";
import type { SkillHandler } from "./skills/types.js";

/** Options shared by the Skillgate factories. */
export interface SkillgateOptions {
  /**
   * In-process handlers by name, `(input, ctx) => Promise<output>` (docs/execution.md#handlers).
   * A skill installed with `handlerCode: "<name>"` runs the handler of that name.
   */
  handlers?: Record<string, SkillHandler>;
}

/**
 * Registers `handlers` with the executor of `services`.
 * @throws Error when a name is already taken (a builtin, `echo-handler`, or a reserved handler
 *   of HTTP, code or MCP skills): a library user cannot replace them.
 */
export function registerOwnHandlers(
  services: Services,
  handlers: SkillgateOptions["handlers"],
): void {
  for (const [name, fn] of Object.entries(handlers ?? {})) {
    if (services.executor.hasHandler(name))
      throw new Error(`Handler name "${name}" is taken by a built-in handler`);
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(name))
      throw new Error(`Handler name "${name}" must match ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`);
    services.executor.registerHandler(name, fn);
  }
}
