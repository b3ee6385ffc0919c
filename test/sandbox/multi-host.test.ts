/**
 * Two sandbox hosts on one Docker engine (different ports and instance labels) behind one API:
 * runs spread over both; a host stopped under load leaves later runs to the other with no failure
 * of a run that had not started; the host comes back and is used again; a host's sweep leaves the
 * other's containers alone.
 */
import type { SandboxRunRequest } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_SANDBOX, LABEL_SLOT } from "../../sandbox-host/src/container.js";
import { parseConfig } from "../../workers/src/config.js";
import { type SandboxClient, sandboxClientFromConfig } from "../../workers/src/sandbox/client.js";
import { createMultiHostClient, isMultiHost } from "../../workers/src/sandbox/multi-host.js";
import { startTestApp, type TestApp } from "../support/app.js";
import {
  docker,
  LOCAL_IMAGES,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
  type TestHost,
} from "./helpers.js";

/** A host's client that counts the runs sent through it. */
function counting(client: SandboxClient, runs: string[]): SandboxClient {
  return {
    run: (req: SandboxRunRequest, signal?: AbortSignal) => {
      runs.push(req.runId ?? "");
      return client.run(req, signal);
    },
    browse: (req, signal) => {
      runs.push(req.runId ?? "");
      return client.browse(req, signal);
    },
    kill: (id) => client.kill(id),
    health: () => client.health(),
  };
}

describe.skipIf(SKIP_DOCKER)("several sandbox hosts", () => {
  let a: TestHost;
  let b: TestHost;
  let t: TestApp;
  const onA: string[] = [];
  const onB: string[] = [];
  beforeAll(async () => {
    await requireDocker();
    a = await startTestHost("multi-a", { SANDBOX_POOL_SIZE: "1" });
    b = await startTestHost("multi-b", { SANDBOX_POOL_SIZE: "1" });
    const sandbox = createMultiHostClient(
      [
        { url: a.host.url, client: counting(a.client, onA) },
        { url: b.host.url, client: counting(b.client, onB) },
      ],
      { backoffMs: 100, maxBackoffMs: 400, healthMaxAgeMs: 100 },
    );
    t = await startTestApp({ deps: { sandbox } });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await a?.close();
    await b?.close();
  });

  /** B's containers once its warm pool is full and idle (a stable set to compare with). */
  async function settledContainersOfB(): Promise<string[]> {
    for (let i = 0; i < 300; i++) {
      const h = await b.host.health();
      if (h.running === 0 && Object.values(h.pool).every((n) => n >= 1)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return (await b.containers()).map((c) => c.Id).sort();
  }

  const run = (i: number) =>
    t.api.post("/api/skills/executions", {
      skillName: "eval_code",
      input: { language: "node", code: `console.log(${i} * 2)` },
    });

  it("SANDBOX_URLS with SANDBOX_SECRETS builds a client over both hosts, listed by /api/health", async () => {
    const client = sandboxClientFromConfig(
      parseConfig({
        SANDBOX_URLS: `${a.host.url}, ${b.host.url}`,
        SANDBOX_SECRETS: `${a.secret},${b.secret}`,
      }),
    );
    expect(client && isMultiHost(client)).toBe(true);
    if (!client || !isMultiHost(client)) return;
    const hosts = await client.hosts();
    expect(hosts.map((h) => [h.url, h.state, h.health?.instance])).toEqual([
      [a.host.url, "up", a.config.instance],
      [b.host.url, "up", b.config.instance],
    ]);
    expect(() =>
      sandboxClientFromConfig(
        parseConfig({ SANDBOX_URLS: `${a.host.url},${b.host.url}`, SANDBOX_SECRETS: a.secret }),
      ),
    ).toThrow(/SANDBOX_SECRETS/);
    const health = await t.api.get("/api/health");
    expect(health.body.details.sandbox.ok).toBe(true);
    expect(
      health.body.details.sandbox.hosts.map((h: { url: string; state: string }) => h.state),
    ).toEqual(["up", "up"]);
  });

  it("spreads runs over both hosts", async () => {
    const before = [onA.length, onB.length];
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => run(i)));
    for (const [i, res] of answers.entries()) {
      expect(res.body.execution.status).toBe("success");
      expect(res.body.execution.output.stdout).toBe(`${i * 2}\n`);
    }
    expect(onA.length - before[0]!).toBeGreaterThan(0);
    expect(onB.length - before[1]!).toBeGreaterThan(0);
    expect(onA.length - before[0]! + (onB.length - before[1]!)).toBe(8);
  });

  it("a host stopped under load: later runs go to the other, it comes back and is used again", async () => {
    const port = a.host.port;
    const load = Array.from({ length: 6 }, (_, i) => run(100 + i));
    await new Promise((r) => setTimeout(r, 150));
    await a.close();
    const during = await Promise.all(load);
    // A run may only fail when it had started on the stopped host (killed with it).
    for (const res of during) {
      if (res.body.execution.status !== "success")
        expect(res.body.execution.errorCode).not.toBe("sandbox_unavailable");
    }
    const bBefore = onB.length;
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => run(200 + i)));
    for (const res of after) expect(res.body.execution.status).toBe("success");
    expect(onB.length - bBefore).toBeGreaterThanOrEqual(6);
    const down = await t.api.get("/api/health");
    expect(down.body.details.sandbox.hosts[0].state).toBe("down");
    expect(down.body.details.sandbox.hosts[0].lastError).toMatch(/unreachable|did not answer/);

    a = await startTestHost("multi-a", {
      SANDBOX_SECRET: a.secret,
      SANDBOX_PORT: String(port),
      SANDBOX_POOL_SIZE: "1",
    });
    const aBefore = onA.length;
    for (let i = 0; i < 200 && onA.length === aBefore; i++) {
      const res = await run(300 + i);
      expect(res.body.execution.status).toBe("success");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(onA.length).toBeGreaterThan(aBefore);
    const back = await t.api.get("/api/health");
    expect(back.body.details.sandbox.hosts.map((h: { state: string }) => h.state)).toEqual([
      "up",
      "up",
    ]);
  }, 120_000);

  it("a host's sweep leaves the other host's containers alone", async () => {
    const ofB = await settledContainersOfB();
    expect(ofB.length).toBeGreaterThan(0);
    await a.host.runner.sweep();
    expect((await b.containers()).map((c) => c.Id).sort()).toEqual(ofB);
  });

  it("SANDBOX_SWEEP_INSTANCES removes a gone instance's leftovers and nothing of a live host", async () => {
    const gone = `test-gone-${process.pid}-${Date.now()}`;
    const leftover = await docker.createContainer({
      Image: LOCAL_IMAGES.shell,
      Cmd: ["sleep", "300"],
      Labels: { [LABEL_SANDBOX]: gone, [LABEL_SLOT]: "pool-of-a-gone-host" },
      HostConfig: { NetworkMode: "none" },
    });
    const ofB = await settledContainersOfB();
    expect(ofB.length).toBeGreaterThan(0);
    const c = await startTestHost("multi-c", { SANDBOX_SWEEP_INSTANCES: gone });
    try {
      const exists = await leftover.inspect().then(
        () => true,
        (e: { statusCode?: number }) => e.statusCode !== 404,
      );
      expect(exists).toBe(false);
      expect((await b.containers()).map((x) => x.Id).sort()).toEqual(ofB);
    } finally {
      await c.close();
    }
  });

  it("a host closed while its warm pool is still filling leaves no container behind", async () => {
    const d = await startTestHost("multi-pool", { SANDBOX_POOL_SIZE: "3" });
    await d.close();
    expect(await d.containers()).toEqual([]);
  });
});
