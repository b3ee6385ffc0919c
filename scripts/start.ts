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
  api = await startApiServer(env);
}

main().catch((err) => {
  console.error("[skillgate] failed to start:", err instanceof Error ? err.message : err);
  process.exit(1);
});
