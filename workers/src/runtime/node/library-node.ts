/**
 * Skillgate as a library, on Node (docs/library.md): starts the API server (embedded libSQL under
 * `DATA_DIR`, or `LIBSQL_URL`) with the caller's own skill handlers registered.
 *
 * ```ts
 * import { startSkillgate } from "skillgate/node";
 * const server = await startSkillgate({
 *   env: process.env,
 *   handlers: { "reverse-text": async (input) => ({ text: [...(input as { text: string }).text].reverse().join("") }) },
 * });
 * console.log(server.url);
 * ```
 */
import type { SkillgateOptions } from "../../library-handlers.js";
import { startApiServer } from "./node.js";

export { ExecutionFailure, RetryableError } from "../../errors.js";
export type { SkillgateOptions } from "../../library-handlers.js";
export type { HandlerContext, SkillHandler } from "../../skills/types.js";

/** Options of {@link startSkillgate}. */
export interface NodeSkillgateOptions extends SkillgateOptions {
  /** Configuration variables (docs/configuration.md); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts the API server with `handlers` registered.
 * @returns its base URL and a function that stops it.
 * @throws Error when a handler name is taken or invalid, or the configuration is invalid.
 */
export function startSkillgate(
  options: NodeSkillgateOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  return startApiServer(options.env ?? process.env, { handlers: options.handlers });
}
