/**
 * Worker entry (SPEC §1; DESIGN.md "Runtimes"): builds the deps from bindings — Turso/libSQL over
 * HTTP (`@libsql/client/web`), the `SKILLS_KV` namespace (with a per-isolate memory layer),
 * secrets (`MGMT_TOKEN`, `SANDBOX_SECRET`, `LIBSQL_AUTH_TOKEN`, ...) — and serves `createApp`.
 * The cron trigger finishes executions left `running` past their timeout plus a minute, and
 * expires approvals. With an `ANALYTICS` dataset bound, requests and executions are written to
 * Workers Analytics Engine (see metrics/analytics-engine.ts); without one, nothing is recorded. Migrations are applied ahead of deployment with `npm run db:migrate`.
 */
import { createClient } from "@libsql/client/web";
import { type BuiltApp, createApp } from "./app.js";
import { KvCache, type KvNamespaceLike } from "./cache/kv-cache.js";
import { parseConfig } from "./config.js";
import { createDb } from "./db/client.js";
import {
  type AnalyticsEngineDatasetLike,
  createAnalyticsEngineMetrics,
} from "./metrics/analytics-engine.js";
import { sandboxClientFromConfig } from "./sandbox/client.js";
import { DEFAULT_TIMEOUT_MS } from "./skills/executor.js";

/** Worker bindings (wrangler.toml vars, secrets and the KV namespace). */
export interface WorkerEnv {
  SKILLS_KV: KvNamespaceLike;
  /** Optional Workers Analytics Engine dataset: one data point per request and execution. */
  ANALYTICS?: AnalyticsEngineDatasetLike;
  LIBSQL_URL: string;
  LIBSQL_AUTH_TOKEN?: string;
  [name: string]: unknown;
}

/** The subset of the Workers execution context the entry uses. */
interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException?(): void;
}

/** SPEC §5: stale `running` rows are finished by cron after their timeout plus this grace (ms). */
export const CRON_STALE_GRACE_MS = 60_000;

let built: { env: WorkerEnv; app: BuiltApp } | null = null;

/**
 * Builds (once per isolate and bindings object) the app for `env`.
 * @throws Error when `LIBSQL_URL` or the `SKILLS_KV` binding is missing (fail closed).
 */
export function appFor(env: WorkerEnv): BuiltApp {
  if (built && built.env === env) return built.app;
  if (!env.LIBSQL_URL) throw new Error("LIBSQL_URL is not configured");
  if (!env.SKILLS_KV) throw new Error("The SKILLS_KV namespace binding is missing");
  const config = parseConfig(env);
  const client = createClient({
    url: env.LIBSQL_URL,
    authToken: env.LIBSQL_AUTH_TOKEN || undefined,
  });
  const app = createApp({
    db: createDb(client),
    cache: new KvCache(env.SKILLS_KV),
    config,
    sandbox: sandboxClientFromConfig(config),
    fetch: (input, init) => fetch(input, init),
    metrics: env.ANALYTICS ? createAnalyticsEngineMetrics(env.ANALYTICS) : undefined,
    runtime: "workerd",
  });
  built = { env, app };
  return app;
}

export default {
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

  async scheduled(_controller: unknown, env: WorkerEnv, ctx: ExecutionContextLike): Promise<void> {
    const { services } = appFor(env);
    const work = (async () => {
      const recovered = await services.executor.store.recoverInterrupted({
        staleAfterMs: CRON_STALE_GRACE_MS,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
      });
      const expired = await services.executor.store.expireApprovals(
        services.deps.config.APPROVAL_TTL_MS,
      );
      if (recovered || expired)
        console.log(`[skillgate] cron: ${recovered} interrupted, ${expired} approvals expired`);
    })();
    ctx.waitUntil(work);
    await work;
  },
};
