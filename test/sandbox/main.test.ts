/**
 * The host entry (`sandbox-host/src/main.ts`) as a child process: it refuses to start without a
 * secret (fail closed), and on SIGTERM it kills every run and leaves no container behind.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { LABEL_SANDBOX, LABEL_SLOT } from "../../sandbox-host/src/container.js";
import { createSandboxClient } from "../../workers/src/sandbox/client.js";
import {
  docker,
  LOCAL_IMAGE_ENV,
  LOCAL_IMAGES,
  newSecret,
  requireDocker,
  SKIP_DOCKER,
  startTestHost,
} from "./helpers.js";

const ENTRY = "sandbox-host/src/main.ts";

function spawnHost(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
} {
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
  };
  const child = spawn(process.execPath, ["--import", "tsx", ENTRY], {
    env: { ...base, ...env },
    stdio: "pipe",
  });
  let text = "";
  child.stdout?.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => text, exited };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("sandbox host entry", () => {
  it("refuses to start without a secret", async () => {
    const { exited, output } = spawnHost({ SANDBOX_PORT: "0" });
    expect(await exited).toBe(1);
    expect(output()).toContain("SANDBOX_SECRET");
    expect(output()).not.toContain("listening");
  });

  it("refuses a short secret without echoing it", async () => {
    const { exited, output } = spawnHost({ SANDBOX_PORT: "0", SANDBOX_SECRET: "short-s3cret" });
    expect(await exited).toBe(1);
    expect(output()).toContain("SANDBOX_SECRET");
    expect(output()).not.toContain("short-s3cret");
  });

  it.skipIf(SKIP_DOCKER)(
    "on SIGTERM kills running programs and removes their containers",
    async () => {
      await requireDocker();
      const secret = newSecret();
      const port = await freePort();
      const instance = `test-main-${process.pid}`;
      const { child, exited, output } = spawnHost({
        ...LOCAL_IMAGE_ENV,
        SANDBOX_SECRET: secret,
        SANDBOX_PORT: String(port),
        SANDBOX_INSTANCE: instance,
      });
      const deadline = Date.now() + 30_000;
      while (!output().includes("listening on") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(output()).toContain(`listening on http://127.0.0.1:${port}`);
      expect(output()).not.toContain(secret);
      const client = createSandboxClient({ baseUrl: `http://127.0.0.1:${port}`, secret });
      const pending = client
        .run({ language: "python", code: "import time\ntime.sleep(50)", timeoutMs: 55_000 })
        .then(
          (r) => r.exitCode,
          () => "failed",
        );
      const labelled = () =>
        docker.listContainers({
          all: true,
          filters: JSON.stringify({ label: [`org.skillgate.sandbox=${instance}`] }),
        });
      while ((await labelled()).length === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect((await labelled()).length).toBe(1);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(["failed", 137]).toContain(await pending);
      expect(await labelled()).toEqual([]);
    },
  );

  it.skipIf(SKIP_DOCKER)(
    "removes leftover labelled containers at start-up and periodically",
    async () => {
      await requireDocker();
      const instance = `test-sweep-${process.pid}`;
      const leftover = (slot: string) =>
        docker.createContainer({
          Image: LOCAL_IMAGES.shell,
          Cmd: ["sleep", "300"],
          Labels: { [LABEL_SANDBOX]: instance, [LABEL_SLOT]: slot },
          HostConfig: { NetworkMode: "none" },
        });
      const before = await leftover("crashed-run");
      const t = await startTestHost("sweep", {
        SANDBOX_INSTANCE: instance,
        SANDBOX_SWEEP_INTERVAL_MS: "1000",
      });
      try {
        expect((await t.containers()).map((c) => c.Id)).not.toContain(before.id);
        const later = await leftover("another-crash");
        const gone = () =>
          later.inspect().then(
            () => false,
            (e: { statusCode?: number }) => e.statusCode === 404,
          );
        const deadline = Date.now() + 10_000;
        while (!(await gone()) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 200));
        expect(await gone()).toBe(true);
        expect(await t.containers()).toEqual([]);
      } finally {
        await t.close();
      }
    },
  );
});
