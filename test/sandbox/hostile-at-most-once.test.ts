/**
 * A program runs at most once (docs/sandbox.md#at-most-once), against real hosts on the real
 * Docker engine: a host killed with SIGKILL while it runs programs does not get them re-sent to
 * another host (their rows end `sandbox_outcome_unknown`, naming the lost host), while a run it
 * only held in its queue moves to the other host; a connection dropped after the start is never
 * retried on the same host either.
 *
 * "Started" is the host's acknowledgement as the API read it (the client's `onStarted` hook), not
 * a slot taken on the host (`running` in its health counts a run from its slot, before its
 * container exists) nor a pause: a connection lost before the acknowledgement may be legitimately
 * sent again when the host says the program never started, so each case waits for the
 * acknowledgements it is about before it breaks anything.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server, Socket } from "node:net";
import type { SandboxRunRequest } from "@skillgate/sandbox-protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LABEL_SANDBOX } from "../../sandbox-host/src/container.js";
import {
  createSandboxClient,
  type RunHooks,
  type SandboxClient,
  type SandboxRunStart,
} from "../../workers/src/sandbox/client.js";
import { createMultiHostClient } from "../../workers/src/sandbox/multi-host.js";
import type { Execution } from "../../workers/src/skills/types.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { expectApiAvailable, startHealthProbe } from "../support/health-probe.js";
import {
  docker,
  LOCAL_IMAGE_ENV,
  newSecret,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
  type TestHost,
} from "./helpers.js";

/** A host's client that records the run ids sent through it. */
function counting(client: SandboxClient, runs: string[]): SandboxClient {
  return {
    run: (req: SandboxRunRequest, signal?: AbortSignal, hooks?: RunHooks) => {
      runs.push(req.runId ?? "");
      return client.run(req, signal, hooks);
    },
    browse: (req, signal) => client.browse(req, signal),
    kill: (id) => client.kill(id),
    health: () => client.health(),
  };
}

/**
 * A host's client that records each start its host acknowledged, once the API has read the
 * `started` line (after the caller's own `onStarted`; docs/sandbox.md#at-most-once).
 */
function acknowledging(client: SandboxClient, acks: SandboxRunStart[]): SandboxClient {
  return {
    run: (req: SandboxRunRequest, signal?: AbortSignal, hooks?: RunHooks) =>
      client.run(req, signal, {
        ...hooks,
        onStarted: (start) => {
          hooks?.onStarted?.(start);
          acks.push(start);
        },
      }),
    browse: (req, signal) => client.browse(req, signal),
    kill: (id) => client.kill(id),
    health: () => client.health(),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function until(cond: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

/** Removes the containers of `instance` (a host killed with SIGKILL leaves them). */
async function removeContainersOf(instance: string): Promise<void> {
  const list = await docker.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`${LABEL_SANDBOX}=${instance}`] }),
  });
  await Promise.all(list.map((c) => docker.getContainer(c.Id).remove({ force: true })));
}

const SLEEPER = 'import time\ntime.sleep(6)\nprint("done")\n';
/** Outlives any wait of the test: a program that is still running when its host is killed. */
const LONG_SLEEPER = 'import time\ntime.sleep(60)\nprint("done")\n';

describe.skipIf(SKIP_DOCKER)("a program runs at most once", () => {
  beforeAll(() => requireDocker(), 30_000);

  describe("a host killed with SIGKILL while it runs three programs and queues a fourth", () => {
    let child: ChildProcess | undefined;
    let b: TestHost | undefined;
    let t: TestApp | undefined;
    const instanceA = `test-amo-a-${process.pid}`;
    afterAll(async () => {
      if (child && child.exitCode === null) child.kill("SIGKILL");
      await t?.close();
      await b?.close();
      await removeContainersOf(instanceA);
    });

    it("the running three end outcome-unknown on their host, only the queued one moves", async () => {
      const secretA = newSecret();
      const portA = await freePort();
      const portB = await freePort();
      child = spawn(process.execPath, ["--import", "tsx", "sandbox-host/src/main.ts"], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          ...LOCAL_IMAGE_ENV,
          SANDBOX_SECRET: secretA,
          SANDBOX_PORT: String(portA),
          SANDBOX_INSTANCE: instanceA,
          SANDBOX_MAX_CONCURRENCY: "3",
          SANDBOX_POOL_SIZE: "0",
        },
        stdio: "ignore",
      });
      const urlA = `http://127.0.0.1:${portA}`;
      const urlB = `http://127.0.0.1:${portB}`;
      const clientA = createSandboxClient({ baseUrl: urlA, secret: secretA });
      const acksA: SandboxRunStart[] = [];
      expect(
        await until(
          () =>
            clientA.health().then(
              (h) => h.ok,
              () => false,
            ),
          30_000,
        ),
      ).toBe(true);
      // B is not listening yet: every run goes to A.
      const secretB = newSecret();
      const onB: string[] = [];
      const clientB = createSandboxClient({ baseUrl: urlB, secret: secretB });
      const sandbox = createMultiHostClient(
        [
          { url: urlA, client: acknowledging(clientA, acksA) },
          { url: urlB, client: counting(clientB, onB) },
        ],
        { backoffMs: 100, maxBackoffMs: 400, healthMaxAgeMs: 100 },
      );
      t = await startTestApp({ deps: { sandbox } });
      const app = t;
      const running = Array.from({ length: 3 }, () =>
        app.api.post("/api/skills/executions", {
          skillName: "eval_code",
          input: { language: "python", code: LONG_SLEEPER, timeoutMs: 20_000 },
        }),
      );
      // The three have started: A acknowledged each and the API read it (hang bound only).
      expect(await until(async () => acksA.length === 3, 60_000)).toBe(true);
      expect(acksA.map((a) => a.host)).toEqual([urlA, urlA, urlA]);
      // A fourth waits in A's queue behind them (its three slots stay taken: they sleep 60 s).
      const queued = app.api.post("/api/skills/executions", {
        skillName: "eval_code",
        input: { language: "python", code: 'print("done")\n', timeoutMs: 20_000 },
      });
      expect(
        await until(
          () =>
            clientA.health().then(
              (h) => h.running === 3 && h.queued === 1,
              () => false,
            ),
          30_000,
        ),
      ).toBe(true);
      b = await startTestHost("amo-b", {
        SANDBOX_SECRET: secretB,
        SANDBOX_PORT: String(portB),
        SANDBOX_POOL_SIZE: "0",
      });
      const probe = startHealthProbe(app.url);
      child.kill("SIGKILL");

      const answers = await Promise.all([...running, queued]);
      // The API's health kept answering while its host died (generous bound, catches a freeze).
      const seen = await probe.stop();
      expectApiAvailable(seen);
      const executions = answers.map((r) => r.body.execution as Execution);
      const lost = executions.filter((e) => e.errorCode === "sandbox_outcome_unknown");
      const moved = executions.filter((e) => e.status === "success");
      expect(lost).toHaveLength(3);
      for (const e of lost) {
        expect(e.status).toBe("error");
        expect(e.attempts).toBe(1);
        expect(e.sandbox?.host).toBe(urlA);
        expect(e.errorMessage).toMatch(/unknown/);
        expect(e.attemptLog.map((a) => a.host)).toEqual([urlA]);
      }
      expect(moved).toHaveLength(1);
      expect(moved[0]!.sandbox?.host).toBe(urlB);
      expect((moved[0]!.output as { stdout: string }).stdout).toBe("done\n");
      expect(moved[0]!.sandbox?.programMs).toBeGreaterThan(0);
      // B was sent the queued run only: none of the three that had started.
      expect(onB).toHaveLength(1);
      expect(acksA).toHaveLength(3);
      // The row as stored says the same.
      for (const e of lost) {
        const stored = await app.api.get(`/api/skills/executions/${e.id}`);
        expect(stored.body.execution.sandbox.host).toBe(urlA);
        expect(stored.body.execution.errorCode).toBe("sandbox_outcome_unknown");
      }
    }, 120_000);
  });

  describe("a connection to the only host dropped while its program runs", () => {
    let host: TestHost | undefined;
    let t: TestApp | undefined;
    let relay: Server | undefined;
    const sockets = new Set<Socket>();
    afterEach(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => (relay ? relay.close(() => r()) : r()));
      await t?.close();
      await host?.close();
    });

    it("is not sent again: the row ends outcome-unknown and the host stops the program", async () => {
      host = await startTestHost("amo-drop", { SANDBOX_POOL_SIZE: "0" });
      const target = host.host.port;
      // A TCP relay in front of the host whose connections the test can cut.
      relay = createServer((inbound) => {
        const outbound = new Socket();
        outbound.connect(target, "127.0.0.1");
        sockets.add(inbound);
        sockets.add(outbound);
        inbound.pipe(outbound).pipe(inbound);
        const drop = () => {
          inbound.destroy();
          outbound.destroy();
          sockets.delete(inbound);
          sockets.delete(outbound);
        };
        inbound.on("error", drop).on("close", drop);
        outbound.on("error", drop).on("close", drop);
      });
      await new Promise<void>((r) => relay!.listen(0, "127.0.0.1", () => r()));
      const relayUrl = `http://127.0.0.1:${(relay.address() as { port: number }).port}`;
      const sent: string[] = [];
      const acks: SandboxRunStart[] = [];
      const client = acknowledging(
        counting(createSandboxClient({ baseUrl: relayUrl, secret: host.secret }), sent),
        acks,
      );
      t = await startTestApp({ deps: { sandbox: client } });
      const answer = t.api.post("/api/skills/executions", {
        skillName: "eval_code",
        input: { language: "python", code: SLEEPER, timeoutMs: 20_000 },
      });
      const h = host;
      // The API read the acknowledgement through the relay: from here on the program may run,
      // so nothing may send it again (hang bound only).
      expect(await until(async () => acks.length === 1, 30_000)).toBe(true);
      expect(acks[0]!.host).toBe(relayUrl);
      for (const s of [...sockets]) s.destroy();

      const execution = (await answer).body.execution as Execution;
      expect(execution.status).toBe("error");
      expect(execution.errorCode).toBe("sandbox_outcome_unknown");
      expect(execution.attempts).toBe(1);
      expect(execution.sandbox?.host).toBe(relayUrl);
      expect(sent).toHaveLength(1);
      // The host saw its caller go and stopped the program (no run left behind).
      expect(await until(() => h.host.health().then((x) => x.running === 0), 15_000)).toBe(true);
    }, 60_000);
  });
});
