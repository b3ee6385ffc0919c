/**
 * Worker entry: exports only the handlers (`default` with `fetch` and `scheduled`). workerd
 * treats every named export of this module as an entrypoint and refuses to start when one is not
 * a handler, so everything else lives in ./worker-app.ts. Migrations are applied ahead of
 * deployment with `npm run db:migrate` (README "Deployment (Cloudflare Workers)").
 */
import type { BuiltApp } from "./app.js";
import { appFor, type ExecutionContextLike, runCron, type WorkerEnv } from "./worker-app.js";

export default {
  /** Serves the API; answers 503 `misconfigured` when a binding is missing (fail closed). */
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContextLike): Response | Promise<Response> {
    let app: BuiltApp;
    try {
      app = appFor(env);
    } catch (err) {
      console.error("[skillgate] misconfigured Worker:", (err as Error).message);
      return Response.json(
        { error: { code: "misconfigured", message: "The service is not configured" } },
        { status: 503 },
      );
    }
    return app.app.fetch(request, env, ctx as never);
  },

  /** The cron trigger: finishes stale executions and expires approvals (see `runCron`). */
  async scheduled(_controller: unknown, env: WorkerEnv, ctx: ExecutionContextLike): Promise<void> {
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
