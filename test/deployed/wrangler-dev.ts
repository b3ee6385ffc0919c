/**
 * Runs the Worker the way it is deployed: `wrangler dev` with the repository's wrangler.toml
 * (unchanged), which bundles workers/src/runtime/worker/index.ts with wrangler's own build and serves it in
 * workerd on 127.0.0.1, next to a real libSQL database served over Hrana HTTP
 * (test/workerd/hrana-server.ts) with the migrations applied over HTTP, as `npm run db:migrate`
 * does against Turso.
 *
 * Offline by construction: telemetry, error reports, the update check (banner) and the
 * `Request.cf` download are switched off through wrangler's documented environment variables,
 * `--local` keeps every binding local, and secrets come from a temp `.dev.vars`-format file
 * passed with `--env-file` (a developer's own `.dev.vars` is not read). KV state goes to a temp
 * folder (`--persist-to`), and wrangler's config and logs to a temp `XDG_CONFIG_HOME`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@libsql/client";
import { createDb } from "../../workers/src/db/client.js";
import { applyMigrations } from "../../workers/src/runtime/node/migrate.js";
import { type HranaServer, startHranaServer } from "../workerd/hrana-server.js";

/** Repository root (where wrangler.toml lives). */
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A running `wrangler dev` with its database. */
export interface DeployedWorker {
  /** Base URL of the Worker, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The management token bound as the `MGMT_TOKEN` secret. */
  mgmtToken: string;
  /** The database server the Worker reaches through `LIBSQL_URL`. */
  database: HranaServer;
  /** Everything wrangler printed so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Stops wrangler and workerd, the database server, and removes the temp folder. */
  close(): Promise<void>;
}

/** Path of wrangler's CLI script in node_modules (what `npx wrangler` runs). */
function wranglerCli(): string {
  const pkg = createRequire(import.meta.url).resolve("wrangler/package.json");
  return join(dirname(pkg), "bin", "wrangler.js");
}

/** Waits until `child` exits; sends SIGKILL to its group if it has not after `graceMs` (ms). */
async function stop(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig); // the whole group: wrangler and the workerd it started
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts the database and `wrangler dev` on free ports of 127.0.0.1 and waits until wrangler
 * reports `Ready on <url>`.
 * @param vars extra bindings for the Worker, written to the env file beside `LIBSQL_URL` and
 *   `MGMT_TOKEN` (values must be single-line).
 * @param main another entry module than wrangler.toml's `main` (path from the repository root),
 *   e.g. an example Worker built on the library.
 * @throws when wrangler exits before it is ready (the message carries its output).
 */
export async function startDeployedWorker(
  vars: Record<string, string> = {},
  main?: string,
): Promise<DeployedWorker> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-wrangler-dev-"));
  const cleanups: (() => Promise<void> | void)[] = [
    () => rmSync(dir, { recursive: true, force: true }),
  ];
  const closeAll = async () => {
    for (const fn of cleanups.reverse()) await fn();
  };
  try {
    const database = await startHranaServer({ path: join(dir, "registry.db") });
    cleanups.push(() => database.close());
    const migrator = createClient({ url: database.url });
    try {
      await applyMigrations(createDb(migrator));
    } finally {
      migrator.close();
    }

    const mgmtToken = `mgmt-${randomBytes(24).toString("hex")}`;
    const envFile = join(dir, ".dev.vars");
    const bindings = { LIBSQL_URL: database.url, MGMT_TOKEN: mgmtToken, ...vars };
    writeFileSync(
      envFile,
      Object.entries(bindings)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}\n`)
        .join(""),
      { mode: 0o600 },
    );
    const configHome = join(dir, "config");
    mkdirSync(configHome);

    const child = spawn(
      process.execPath,
      [
        wranglerCli(),
        "dev",
        ...(main ? [join(ROOT, main)] : []),
        "--config",
        join(ROOT, "wrangler.toml"),
        "--local",
        "--ip",
        "127.0.0.1",
        "--port",
        "0",
        "--inspector-port",
        "0",
        "--env-file",
        envFile,
        "--persist-to",
        join(dir, "state"),
        "--show-interactive-dev-session=false",
        "--log-level",
        "info",
      ],
      {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          WRANGLER_SEND_METRICS: "false",
          WRANGLER_SEND_ERROR_REPORTS: "false",
          WRANGLER_HIDE_BANNER: "true",
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
          XDG_CONFIG_HOME: configHome,
          NO_COLOR: "1",
          FORCE_COLOR: "0",
        },
      },
    );
    cleanups.push(() => stop(child, 10_000));

    let output = "";
    const url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const ready = /Ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (ready?.[1]) resolve(ready[1]);
        // workerd refusing the script (e.g. a named export that is not a handler) leaves
        // wrangler running without ever becoming ready.
        if (output.includes("failed to start"))
          reject(new Error(`The Workers runtime failed to start:\n${output}`));
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("error", reject);
      child.once("exit", (code, sig) =>
        reject(new Error(`wrangler dev exited (${code ?? sig}) before it was ready:\n${output}`)),
      );
    });
    return { url, mgmtToken, database, output: () => output, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
