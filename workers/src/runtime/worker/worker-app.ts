/**
 * The Worker's app and cron work, kept out of the entry module (workers/src/runtime/worker/index.ts): workerd
 * treats every named export of the entry as an entrypoint and refuses to start when one is not a
 * handler, so constants, types and helpers the tests share live here.
 *
 * Builds the deps from bindings — Turso/libSQL over HTTP (`@libsql/client/web`), the `SKILLS_KV`
 * namespace (with a per-isolate memory layer), secrets (`MGMT_TOKEN`, `SANDBOX_SECRET`,
 * `LIBSQL_AUTH_TOKEN`, ...) — and serves `createApp`. With an `ANALYTICS` dataset bound, requests
 * and executions are written to Workers Analytics Engine (metrics/analytics-engine.ts); with an
 * `EXECUTION_RATE_LIMITER` rate limiting binding, executions per minute are limited across
 * isolates too (docs/rate-limits.md#the-rate-limiting-binding).
 */
import { createClient } from "@libsql/client/web";
import { type BuiltApp, createApp } from "../../app.js";
import { KvCache, type KvNamespaceLike } from "../../cache/kv-cache.js";
import { parseConfig } from "../../config.js";
import { createDb } from "../../db/client.js";
import {
  type AnalyticsEngineDatasetLike,
  createAnalyticsEngineMetrics,
} from "../../metrics/analytics-engine.js";
import { sandboxClientFromConfig } from "../../sandbox/client.js";
import type { PlatformRateLimiter } from "../../skills/execution/limit-counters.js";
import { type DurableObjectNamespaceLike, DurableObjectWindows } from "./durable-windows.js";

/** Worker bindings (wrangler.toml vars, secrets and the KV namespace). */
export interface WorkerEnv {
  SKILLS_KV: KvNamespaceLike;
  /** Optional Workers Analytics Engine dataset: one data point per request and execution. */
  ANALYTICS?: AnalyticsEngineDatasetLike;
  /**
   * Optional rate limiting binding (`[[ratelimits]]`, period 60): executions per minute of each
   * key across isolates (docs/rate-limits.md#the-rate-limiting-binding).
   */
  EXECUTION_RATE_LIMITER?: PlatformRateLimiter;
  /**
   * The per-key limiter's Durable Object namespace (class `KeyLimiter`): executions per minute
   * and concurrent sandbox runs exact across isolates (docs/rate-limits.md#the-per-key-limiter-durable-object).
   * Absent: counted per isolate.
   */
  KEY_LIMITER?: DurableObjectNamespaceLike;
  LIBSQL_URL: string;
  LIBSQL_AUTH_TOKEN?: string;
  [name: string]: unknown;
}

/** The subset of the Workers execution context the entry uses. */
export interface ExecutionContextLike {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException?(): void;
}

/**
 * Stale `running` rows are finished by the cron trigger after their timeout plus this grace, in
 * ms (README "Deployment (Cloudflare Workers)").
 */
export const CRON_STALE_GRACE_MS = 60_000;

/**
 * Most delete statements of one cron run (250 rows each): a run stays well inside the Workers
 * limits, and what is left goes on the next run.
 */
export const CRON_RETENTION_MAX_BATCHES = 200;

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
    executionRateLimiter: env.EXECUTION_RATE_LIMITER,
    shortWindows: env.KEY_LIMITER
      ? new DurableObjectWindows(env.KEY_LIMITER, config.KEY_LIMITER_TIMEOUT_MS)
      : undefined,
    runtime: "workerd",
  });
  built = { env, app };
  return app;
}

/**
 * One cron run: finishes executions left `running` past their timeout plus
 * {@link CRON_STALE_GRACE_MS} as interrupted, expires approvals older than `APPROVAL_TTL_MS`,
 * deletes finished executions older than `EXECUTION_RETENTION_DAYS` (at most
 * {@link CRON_RETENTION_MAX_BATCHES} batches per run), and prunes chart rollups older than 48 h.
 * @returns how many executions were finished and how many approvals expired.
 * @throws Error when the Worker is misconfigured (see {@link appFor}) or the database fails.
 */
export async function runCron(
  env: WorkerEnv,
): Promise<{ recovered: number; expired: number; deleted: number }> {
  const { services } = appFor(env);
  const recovered = await services.executions.recoverInterrupted(CRON_STALE_GRACE_MS);
  const expired = await services.executions.expireApprovals();
  const { deleted } = await services.executions.applyRetention(
    parseConfig(env).EXECUTION_RETENTION_DAYS,
    Date.now(),
    { maxBatches: CRON_RETENTION_MAX_BATCHES },
  );
  await services.learning.applyRetention(
    parseConfig(env).EXECUTION_RETENTION_DAYS,
    Date.now(),
    CRON_RETENTION_MAX_BATCHES,
  );
  await services.executions.pruneRollups(Date.now());
  return { recovered, expired, deleted };
}
