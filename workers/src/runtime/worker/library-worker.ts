/**
 * Skillgate as a library, for a Cloudflare Worker (docs/library.md): builds the Worker's `fetch`
 * and `scheduled` handlers with the caller's own skill handlers registered.
 *
 * ```ts
 * import { createSkillgateWorker } from "skillgate/worker";
 * export default createSkillgateWorker({
 *   handlers: { "reverse-text": async (input) => ({ text: [...(input as { text: string }).text].reverse().join("") }) },
 * });
 * ```
 */
import type { BuiltApp } from "../../app.js";
import { registerOwnHandlers, type SkillgateOptions } from "../../library-handlers.js";
import { appFor, type ExecutionContextLike, runCron, type WorkerEnv } from "./worker-app.js";

export { ExecutionFailure, RetryableError } from "../../errors.js";
export type { SkillgateOptions } from "../../library-handlers.js";
export type { HandlerContext, SkillHandler } from "../../skills/types.js";
/** The per-key limiter's Durable Object class: export it from the Worker entry to bind it. */
export { KeyLimiter } from "./key-limiter.js";
export type { ExecutionContextLike, WorkerEnv } from "./worker-app.js";

/** The handlers a Worker module exports as `default`. */
export interface SkillgateWorker {
  /** Serves the API; answers 503 `misconfigured` when a binding is missing (fail closed). */
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContextLike): Response | Promise<Response>;
  /** The cron trigger: finishes stale executions and expires approvals. */
  scheduled(controller: unknown, env: WorkerEnv, ctx: ExecutionContextLike): Promise<void>;
}

/**
 * Builds the Worker handlers. The app is built once per isolate and bindings object, and the
 * caller's handlers are registered on it before it serves its first request.
 * @throws Error (on the first request) when a handler name is taken or invalid.
 */
export function createSkillgateWorker(options: SkillgateOptions = {}): SkillgateWorker {
  const ready = new WeakSet<BuiltApp>();
  const prepared = (env: WorkerEnv): BuiltApp => {
    const app = appFor(env);
    if (!ready.has(app)) {
      registerOwnHandlers(app.services, options.handlers);
      ready.add(app);
    }
    return app;
  };
  return {
    fetch(request, env, ctx) {
      let app: BuiltApp;
      try {
        app = prepared(env);
      } catch (err) {
        console.error("[skillgate] misconfigured Worker:", (err as Error).message);
        return Response.json(
          { error: { code: "misconfigured", message: "The service is not configured" } },
          { status: 503 },
        );
      }
      return app.app.fetch(request, env, ctx as never);
    },
    async scheduled(_controller, env, ctx) {
      prepared(env);
      const work = runCron(env).then(({ recovered, expired, deleted }) => {
        if (recovered || expired || deleted)
          console.log(
            `[skillgate] cron: ${recovered} interrupted, ${expired} approvals expired, ${deleted} old executions deleted`,
          );
      });
      ctx.waitUntil(work);
      await work;
    },
  };
}
