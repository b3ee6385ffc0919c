/**
 * Warm pool (docs/sandbox.md#concurrency-queue-and-warm-pool): pre-started containers serve default runs, are replaced after
 * one run, never serve runs that differ from the defaults, and give a run exactly the restrictions
 * of a fresh container.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LOCAL_IMAGES,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
  type TestHost,
} from "./helpers.js";

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe.skipIf(SKIP_DOCKER)("warm pool", () => {
  let t: TestHost;
  const poolFull = async () => {
    const { pool } = await t.client.health();
    return pool[LOCAL_IMAGES.python] === 1 && pool[LOCAL_IMAGES.node] === 1;
  };

  beforeAll(async () => {
    await requireDocker();
    t = await startTestHost("pool", { SANDBOX_POOL_SIZE: "1" });
    expect(await waitFor(poolFull, 30_000)).toBe(true);
  });

  afterAll(async () => {
    if (!t) return;
    await t.close();
    expect(await t.containers()).toEqual([]);
  });

  // A pooled run's container is removed in the background after its answer: count once it is gone.
  const onlyPool = async () => (await t.containers()).length === 2;

  it("serves a default run from a pre-started container and replaces it", async () => {
    expect(await waitFor(onlyPool, 10_000)).toBe(true);
    const r = await t.client.run({ language: "python", code: "print(6*7)", timeoutMs: 10_000 });
    expect(r).toMatchObject({ exitCode: 0, stdout: "42\n", pooled: true });
    const n = await t.client.run({ language: "node", code: "console.log(6*7)", timeoutMs: 10_000 });
    expect(n).toMatchObject({ exitCode: 0, stdout: "42\n", pooled: true });
    expect(await waitFor(poolFull, 30_000)).toBe(true);
    expect(await waitFor(onlyPool, 10_000)).toBe(true);
    expect((await t.containers()).length).toBe(2);
  });

  it("gives a pooled run the same restrictions as a fresh one", async () => {
    expect(await waitFor(poolFull, 30_000)).toBe(true);
    const code = [
      "import os, socket",
      "print(os.getuid(), os.getgid())",
      "print(sorted(os.environ))",
      "try:",
      "    open('/etc/x', 'w'); print('root writable')",
      "except OSError as e:",
      "    print('root', e.strerror)",
      "try:",
      "    socket.create_connection(('1.1.1.1', 80), timeout=2); print('net open')",
      "except OSError:",
      "    print('net blocked')",
    ].join("\n");
    const pooled = await t.client.run({ language: "python", code, timeoutMs: 10_000 });
    const fresh = await t.client.run({
      language: "python",
      code,
      timeoutMs: 10_000,
      env: { TZ: "UTC" },
    });
    expect(pooled.pooled).toBe(true);
    expect(fresh.pooled).toBe(false);
    expect(pooled.stdout.split("\n")[0]).toBe("65534 65534");
    expect(pooled.stdout).toContain("root Read-only file system");
    expect(pooled.stdout).toContain("net blocked");
    const envOf = (s: string) => s.split("\n")[1];
    expect(envOf(pooled.stdout)).toBe(envOf(fresh.stdout)?.replace(", 'TZ'", ""));
  });

  it("never uses the pool for a run with other limits, and still enforces the time limit", async () => {
    const other = await t.client.run({
      language: "python",
      code: "print(1)",
      timeoutMs: 10_000,
      memoryLimit: 128,
    });
    expect(other.pooled).toBe(false);
    expect(await waitFor(poolFull, 30_000)).toBe(true);
    const loop = await t.client.run({
      language: "python",
      code: "while True: pass",
      timeoutMs: 1500,
    });
    expect(loop).toMatchObject({ pooled: true, timedOut: true });
  });
});
