/**
 * Local entry (docs/architecture.md#runtimes): serves `createApp(deps)` on Node with `@hono/node-server`
 * (through `serveNode`, which lets a client still sending read a refusal: docs/limits.md),
 * an embedded libSQL file under `DATA_DIR` (default `.data/`) and the in-process cache.
 * Listens on 127.0.0.1:20128 (`HOST`, `PORT` override). When `MGMT_TOKEN` is unset, a random
 * management token is created on first start in `<DATA_DIR>/mgmt-token` (mode 0600) and printed
 * once. Executions a crash left `running` are finished as `error` ("interrupted") at start-up.
 * Serves Prometheus metrics at `GET /metrics` (bearer `METRICS_TOKEN` or the management token).
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../app.js";
import { registerOwnHandlers, type SkillgateOptions } from "../../library-handlers.js";
import { createPrometheusMetrics } from "../../metrics/prometheus.js";
import { startRetentionTimer } from "../../retention/retention-timer.js";
import { createNodeDeps, ensurePrivateDir, nodeSettings } from "./node-deps.js";
import { serveNode } from "./serve-node.js";

/**
 * Returns the secret stored in `<dataDir>/<file>`, creating it (0600) when absent.
 * @returns the secret and whether it was created now.
 */
export function loadOrCreateSecret(
  dataDir: string,
  file: string,
  prefix = "",
): { value: string; created: boolean } {
  const path = join(dataDir, file);
  if (existsSync(path)) return { value: readFileSync(path, "utf8").trim(), created: false };
  ensurePrivateDir(dataDir);
  const value = prefix + randomBytes(32).toString("base64url");
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: "wx" });
  return { value, created: true };
}

/**
 * Starts the local API server, with `options.handlers` registered (docs/library.md).
 * @returns its URL and a function that stops it.
 */
export async function startApiServer(
  env: NodeJS.ProcessEnv = process.env,
  options: SkillgateOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const settings = nodeSettings(env);
  const runtimeEnv = { ...env };
  if (!runtimeEnv.MGMT_TOKEN?.trim()) {
    const token = loadOrCreateSecret(settings.dataDir, "mgmt-token", "mgmt_");
    runtimeEnv.MGMT_TOKEN = token.value;
    if (token.created) {
      console.log(
        `[skillgate] management token (shown once, stored in ${join(settings.dataDir, "mgmt-token")}):`,
      );
      console.log(`[skillgate]   ${token.value}`);
    } else {
      console.log(`[skillgate] management token: see ${join(settings.dataDir, "mgmt-token")}`);
    }
  }
  const { deps, client } = await createNodeDeps(runtimeEnv, settings, {
    metrics: createPrometheusMetrics(),
  });
  const { app, services } = createApp(deps);
  registerOwnHandlers(services, options.handlers);
  const recovered = await services.executions.recoverInterrupted();
  if (recovered > 0)
    console.log(`[skillgate] finished ${recovered} interrupted execution(s) as error`);
  await services.skills.load();
  const sweep = setInterval(() => {
    services.executions.expireApprovals().catch((err) => {
      console.error("[skillgate] approval expiry failed:", (err as Error).message);
    });
    services.executions.pruneRollups(Date.now()).catch((err) => {
      console.error("[skillgate] chart rollup pruning failed:", (err as Error).message);
    });
    services.executions.flushDeferredFinishes().catch((err) => {
      console.error("[skillgate] writing deferred outcomes failed:", (err as Error).message);
    });
  }, 60_000);
  sweep.unref();
  const retention = startRetentionTimer(
    async (days, now, opts) => {
      const outcome = await services.executions.applyRetention(days, now, opts);
      await services.learning.applyRetention(days, now, opts?.maxBatches);
      return outcome;
    },
    deps.config.EXECUTION_RETENTION_DAYS,
    (err) => console.error("[skillgate] execution retention failed:", err.message),
  );
  const { server, port } = await serveNode({
    fetch: app.fetch,
    port: settings.port,
    hostname: settings.host,
    drainMaxBytes: deps.config.REQUEST_DRAIN_MAX_BYTES,
    drainMaxMs: deps.config.REQUEST_DRAIN_MAX_MS,
  });
  const url = `http://${settings.host}:${port}`;
  console.log(
    `[skillgate] API listening on ${url} (database ${settings.libsqlUrl.startsWith("file:") ? settings.libsqlUrl : "libSQL server"})`,
  );
  return {
    url,
    close: async () => {
      clearInterval(sweep);
      await retention.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // Usage and routing observations wait up to a second to be written together.
      await Promise.all([services.tokenUsage.settled(), services.routing.settled()]);
      client.close();
    },
  };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  startApiServer().then(
    (srv) => {
      const stop = () => {
        srv.close().finally(() => process.exit(0));
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    },
    (err) => {
      console.error("[skillgate] failed to start:", err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
