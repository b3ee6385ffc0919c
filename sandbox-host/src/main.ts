/**
 * Entry of the sandbox host (`npm run start:sandbox`): configuration from the environment
 * (config.ts; refuses to start without `SANDBOX_SECRET`), then {@link startSandboxHost} with
 * Prometheus metrics (served at `/metrics` when `METRICS_TOKEN` is set).
 * SIGTERM, SIGINT, SIGHUP and a crash (uncaught exception or rejection) kill every run and remove
 * every container, warm pool included, before the process exits. Started with an IPC channel (as
 * `npm start` starts it), the host does the same when the channel closes: its parent is gone,
 * even when it was killed with SIGKILL, and the host must not outlive it holding its port.
 */
import { HostConfigError, parseHostConfig } from "./config.js";
import { createPrometheusHostMetrics } from "./prometheus.js";
import { startSandboxHost } from "./server.js";

async function main(): Promise<void> {
  let config: ReturnType<typeof parseHostConfig>;
  try {
    config = parseHostConfig(process.env);
  } catch (err) {
    if (err instanceof HostConfigError) {
      process.stderr.write(`[sandbox-host] ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const host = await startSandboxHost(config, { metrics: createPrometheusHostMetrics() });
  process.stderr.write(
    `[sandbox-host] listening on ${host.url} (instance ${config.instance}, key ids ${[...config.keys.keys()].join(", ")}, ` +
      `concurrency ${config.maxConcurrency}, queue ${config.maxQueue}, pool ${config.poolSize})\n`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[sandbox-host] ${signal}: killing runs and removing containers\n`);
    host.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGHUP", () => stop("SIGHUP"));
  if (process.channel) process.once("disconnect", () => stop("parent process gone"));
  // A crash still removes this host's containers (runs and warm pool) before exiting.
  const crash = (err: unknown) => {
    process.stderr.write(`[sandbox-host] fatal: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = 1;
    if (stopping) return;
    stopping = true;
    host.close().finally(() => process.exit(1));
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
}

main().catch((err) => {
  process.stderr.write(`[sandbox-host] failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
