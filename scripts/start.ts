/**
 * `npm start`: the local default (docs/deployment.md#local-one-machine). Starts the sandbox host as
 * a child process and the API in this process, on the embedded defaults: API on 127.0.0.1:20128
 * with an embedded libSQL file under `.data/`, sandbox host on 127.0.0.1:20129. Secrets not given
 * in the environment are created on first start in the data folder (mode 0600): the management
 * token (`.data/mgmt-token`, printed once) and the sandbox secret (`.data/sandbox-secret`, handed
 * to both processes). Stopping either process stops the other.
 *
 * The host is tied to this process: it is spawned with an IPC channel and stops when the channel
 * closes, which happens even when this process is killed with SIGKILL (sandbox-host/src/main.ts).
 * Its pid is kept in `.data/sandbox-host.pid`; a start that finds a recorded host still running
 * (one that is still shutting down after such a crash) stops it before starting its own
 * (stale-host.ts), so a restart after a crash comes up without manual steps.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadOrCreateSecret, startApiServer } from "../workers/src/runtime/node/node.js";
import { ensurePrivateDir, nodeSettings } from "../workers/src/runtime/node/node-deps.js";
import { preferLocalImages } from "./local-images.js";
import { forgetHostPid, HOST_ENTRY, recordHostPid, stopStaleHost } from "./stale-host.js";

const root = fileURLToPath(new URL("..", import.meta.url));

function startSandboxHost(env: NodeJS.ProcessEnv): ChildProcess {
  // The "ipc" channel is the host's lifeline: it closes when this process dies, however it dies.
  return spawn(process.execPath, ["--import", "tsx", HOST_ENTRY], {
    cwd: root,
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** Waits until the sandbox host accepts TCP connections (it answers 401 unsigned; that is enough). */
async function waitForHost(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the sandbox host exited with code ${child.exitCode}`);
    try {
      await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`the sandbox host did not start within ${timeoutMs} ms`);
}

async function main(): Promise<void> {
  const env = { ...process.env };
  const settings = nodeSettings(env);
  if (!env.SANDBOX_SECRET?.trim())
    env.SANDBOX_SECRET = loadOrCreateSecret(settings.dataDir, "sandbox-secret").value;
  const sandboxPort = env.SANDBOX_PORT?.trim() || "20129";
  env.SANDBOX_PORT = sandboxPort;
  env.SANDBOX_URL ||= `http://127.0.0.1:${sandboxPort}`;

  ensurePrivateDir(settings.dataDir);
  await stopStaleHost(settings.dataDir);
  const started = Date.now();
  const since = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  if (await preferLocalImages(env))
    say("using the local sandbox images (skillgate-local/*, from npm run sandbox:images)");
  const pool = Number(env.SANDBOX_POOL_SIZE?.trim() || 0);
  say(
    `starting the sandbox host on ${env.SANDBOX_URL} (Docker engine${pool > 0 ? `, warm pool of ${pool}` : ""})…`,
  );
  const child = startSandboxHost(env);
  const childPid = child.pid;
  if (childPid !== undefined) recordHostPid(settings.dataDir, childPid);
  child.once("exit", () => {
    if (childPid !== undefined) forgetHostPid(settings.dataDir, childPid);
  });
  let stopping = false;
  let api: Awaited<ReturnType<typeof startApiServer>> | undefined;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    const done = () => process.exit(code);
    if (child.exitCode === null) child.kill("SIGTERM");
    (api ? api.close() : Promise.resolve()).finally(() => {
      if (child.exitCode !== null) return done();
      child.once("exit", done);
      setTimeout(done, 10_000).unref();
    });
  };
  child.once("exit", (code) => {
    if (!stopping) {
      console.error(`[skillgate] the sandbox host stopped (code ${code}); stopping the API`);
      stop(code ?? 1);
    }
  });
  process.on("SIGINT", () => stop(0));
  process.on("SIGTERM", () => stop(0));

  await waitForHost(env.SANDBOX_URL, child);
  say(`sandbox host up after ${since()}; starting the API (migrations on ${settings.libsqlUrl})…`);
  api = await startApiServer(env);
  await reportReady(api.url, env, settings.dataDir, since());
}

/** One progress line of `npm start` on stdout. */
function say(line: string): void {
  console.log(`[skillgate] ${line}`);
}

/**
 * Prints the state of the sandbox images and the URLs once the API answers (its management health
 * report: docs/api.md#health). A failing health call is reported, not fatal.
 */
async function reportReady(
  url: string,
  env: NodeJS.ProcessEnv,
  dataDir: string,
  elapsed: string,
): Promise<void> {
  const token = env.MGMT_TOKEN?.trim() || loadOrCreateSecret(dataDir, "mgmt-token", "mgmt_").value;
  try {
    const res = await fetch(`${url}/api/health`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as {
      status?: string;
      details?: {
        sandbox?: {
          images?: Record<string, string>;
          imagesPresent?: Record<string, boolean | null>;
        };
        reasons?: { component: string; reason: string }[];
      };
    };
    const sandbox = body.details?.sandbox;
    const images = Object.entries(sandbox?.images ?? {}).map(([kind, image]) => {
      const present = sandbox?.imagesPresent?.[kind];
      const state =
        present === true ? "present" : present === false ? "MISSING" : "not checked yet";
      return `${kind} ${image} (${state})`;
    });
    if (images.length) say(`sandbox images: ${images.join(", ")}`);
    for (const r of body.details?.reasons ?? []) say(`degraded: ${r.component}: ${r.reason}`);
    say(`health: ${body.status ?? res.status}`);
  } catch (err) {
    say(`health could not be read: ${(err as Error).message}`);
  }
  say(`ready after ${elapsed}: API ${url}/api, dashboard ${url}/dashboard`);
}

main().catch((err) => {
  console.error("[skillgate] failed to start:", err instanceof Error ? err.message : err);
  process.exit(1);
});
