/**
 * A restart after a crash (docs/deployment.md#local-one-machine): `npm start`'s API process is
 * killed with SIGKILL while its sandbox host child runs; the host must not outlive it holding its
 * port, and the next start must come up on the same ports without manual steps.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LOCAL_IMAGE_ENV } from "../sandbox/helpers.js";
import { tempDir } from "../support/app.js";

const MGMT = "restart-after-crash-token-0123456789";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` as its script runs it (`tsx scripts/start.ts`), output captured. */
function npmStart(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

interface Health {
  status: string;
  details?: { sandbox?: { ok?: boolean; instance?: string } };
}

/** The detailed health once the API answers it with the sandbox host up; throws after `ms`. */
async function healthyApi(port: number, started: Started, ms = 60_000): Promise<Health> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null)
      throw new Error(`npm start exited (${started.child.exitCode}): ${started.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`, {
        headers: { authorization: `Bearer ${MGMT}` },
        signal: AbortSignal.timeout(2_000),
      });
      const body = (await res.json()) as Health;
      if (res.status === 200 && body.details?.sandbox?.ok === true) return body;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the API did not become healthy within ${ms} ms: ${started.output()}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie has an empty command line: it is gone for every purpose here.
    return readFileSync(`/proc/${pid}/cmdline`, "utf8") !== "";
  } catch {
    return false;
  }
}

/** The pid of the sandbox host child of process `parent` (found in /proc by parent pid). */
function hostChildOf(parent: number): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (ppid === parent && cmd.includes("sandbox-host/src/main.ts")) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

describe("npm start after its API process was killed with SIGKILL", () => {
  const tmp = tempDir();
  const running: ChildProcess[] = [];
  const hostPids: number[] = [];
  afterAll(async () => {
    for (const child of running) if (child.exitCode === null) child.kill("SIGTERM");
    await until(() => running.every((c) => c.exitCode !== null), 20_000);
    for (const pid of hostPids) if (alive(pid)) process.kill(pid, "SIGKILL");
    tmp.cleanup();
  });

  it("the orphaned sandbox host stops, and the next start comes up on the same ports", async () => {
    const apiPort = await freePort();
    const hostPort = await freePort();
    const env = {
      ...LOCAL_IMAGE_ENV,
      DATA_DIR: tmp.dir,
      PORT: String(apiPort),
      SANDBOX_PORT: String(hostPort),
      SANDBOX_POOL_SIZE: "0",
      SANDBOX_INSTANCE: `test-restart-${process.pid}`,
      MGMT_TOKEN: MGMT,
    };
    const first = npmStart(env);
    running.push(first.child);
    const before = await healthyApi(apiPort, first);
    expect(before.details?.sandbox?.instance).toBe(`test-restart-${process.pid}`);
    const firstHost = hostChildOf(first.child.pid!)!;
    expect(firstHost).toBeGreaterThan(1);
    hostPids.push(firstHost);
    expect(alive(firstHost)).toBe(true);

    first.child.kill("SIGKILL");
    await first.exited;
    // The host sees its parent go (the IPC channel closes) and stops by itself.
    expect(await until(() => !alive(firstHost), 20_000)).toBe(true);

    const second = npmStart(env);
    running.push(second.child);
    const after = await healthyApi(apiPort, second);
    expect(after.status).toBe("ok");
    const secondHost = hostChildOf(second.child.pid!)!;
    hostPids.push(secondHost);
    expect(secondHost).not.toBe(firstHost);
    // Still up a moment later: the new host holds the port (a host that could not bind it would
    // have stopped the API by now).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(second.child.exitCode).toBe(null);
    expect(alive(secondHost)).toBe(true);
    expect(second.output()).not.toContain("EADDRINUSE");
  }, 150_000);

  it("a start replaces a recorded host still running from a crashed start", async () => {
    const apiPort = await freePort();
    const hostPort = await freePort();
    const dir = tempDir();
    try {
      const env = {
        ...LOCAL_IMAGE_ENV,
        DATA_DIR: dir.dir,
        PORT: String(apiPort),
        SANDBOX_PORT: String(hostPort),
        SANDBOX_POOL_SIZE: "0",
        SANDBOX_INSTANCE: `test-restart-b-${process.pid}`,
        MGMT_TOKEN: MGMT,
      };
      // A host the way a crashed start leaves it when it cannot notice its parent is gone: no IPC
      // channel, its pid recorded in the data folder.
      const secret = "stale-host-secret-0123456789abcdef";
      const stale = spawn(process.execPath, ["--import", "tsx", "sandbox-host/src/main.ts"], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          ...env,
          SANDBOX_SECRET: secret,
        },
        stdio: "ignore",
      });
      running.push(stale);
      const stalePid = stale.pid!;
      hostPids.push(stalePid);
      const { writeFileSync } = await import("node:fs");
      writeFileSync(join(dir.dir, "sandbox-host.pid"), `${stalePid}\n`);
      // Wait until it holds the port.
      const holds = async () => {
        try {
          await fetch(`http://127.0.0.1:${hostPort}/v1/health`, {
            signal: AbortSignal.timeout(1_000),
          });
          return true;
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 30_000;
      while (!(await holds()) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(await holds()).toBe(true);

      const next = npmStart(env);
      running.push(next.child);
      const health = await healthyApi(apiPort, next);
      expect(health.status).toBe("ok");
      expect(stale.exitCode !== null || !alive(stalePid)).toBe(true);
      expect(next.output()).toContain(`stopping the sandbox host (pid ${stalePid})`);
      const newHost = Number(readFileSync(join(dir.dir, "sandbox-host.pid"), "utf8").trim());
      hostPids.push(newHost);
      expect(newHost).not.toBe(stalePid);
      next.child.kill("SIGTERM");
      await next.exited;
    } finally {
      dir.cleanup();
    }
  }, 150_000);
});
