/**
 * The sandbox host a previous `npm start` left behind (docs/deployment.md#local-one-machine): the
 * start script records its child's pid in `<DATA_DIR>/sandbox-host.pid`, and before starting a
 * new host it stops a recorded one that is still alive, so that a restart after a crash of the
 * API process (kill -9) does not find the host's port taken. A recorded pid is signalled only when
 * the process is still a sandbox host entry (its command line names the entry module): a pid the
 * system has since given to another program is left alone.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Name of the pid file in the data folder. */
export const HOST_PID_FILE = "sandbox-host.pid";

/** The module the start script runs as the sandbox host; a live pid must name it to be ours. */
export const HOST_ENTRY = "sandbox-host/src/main.ts";

/** True while process `pid` exists (signal 0 probes without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The command line of `pid` (Linux `/proc/<pid>/cmdline`, arguments joined by spaces), or
 * undefined where it cannot be read (another platform, a process gone).
 */
function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return undefined;
  }
}

/**
 * True while `pid` is a live sandbox host entry. A zombie (exited, not yet reaped) has an empty
 * command line and counts as gone.
 */
function isHost(pid: number): boolean {
  return alive(pid) && (commandLine(pid)?.includes(HOST_ENTRY) ?? false);
}

/** Records the started host's pid in `dataDir` (mode 0600). */
export function recordHostPid(dataDir: string, pid: number): void {
  writeFileSync(join(dataDir, HOST_PID_FILE), `${pid}\n`, { mode: 0o600 });
}

/** Removes the pid file when it still names `pid` (a clean stop). */
export function forgetHostPid(dataDir: string, pid: number): void {
  if (recordedPid(dataDir) === pid) rmSync(join(dataDir, HOST_PID_FILE), { force: true });
}

function recordedPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, HOST_PID_FILE), "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops the sandbox host recorded in `dataDir` when it is still running: SIGTERM (the host kills
 * its runs and removes its containers), then SIGKILL once `graceMs` (default 20 000 ms) have
 * passed. Output: the pid that was stopped, or undefined when there was none (no file, a dead
 * pid, or a live pid that is not a sandbox host entry). Removes the pid file either way.
 */
export async function stopStaleHost(
  dataDir: string,
  graceMs = 20_000,
  log: (line: string) => void = (line) => console.error(line),
): Promise<number | undefined> {
  const pid = recordedPid(dataDir);
  const file = join(dataDir, HOST_PID_FILE);
  if (pid === undefined || !isHost(pid)) {
    rmSync(file, { force: true });
    return undefined;
  }
  log(`[skillgate] stopping the sandbox host (pid ${pid}) a previous start left running`);
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (isHost(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isHost(pid)) {
    process.kill(pid, "SIGKILL");
    const killDeadline = Date.now() + 5_000;
    while (isHost(pid) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 50));
  }
  rmSync(file, { force: true });
  return pid;
}
