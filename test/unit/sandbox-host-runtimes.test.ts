/**
 * Container runtimes of the sandbox host (docs/sandbox.md#runtimes): `SANDBOX_RUNTIME` and its
 * per-kind overrides, the create options and process limits of each runtime
 * (docs/sandbox.md#limits-per-runtime), and the start-up refusal when the engine lacks a
 * configured runtime, against the stand-in engine.
 */
import { sandboxHealthSchema } from "@skillgate/sandbox-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { HostConfigError, parseHostConfig } from "../../sandbox-host/src/config.js";
import { createOptions } from "../../sandbox-host/src/container.js";
import { containerSpec, planRun } from "../../sandbox-host/src/plan.js";
import { RuntimeUnavailableError } from "../../sandbox-host/src/runtimes.js";
import { type SandboxHost, startSandboxHost } from "../../sandbox-host/src/server.js";
import { StandInEngine } from "../support/stand-in-engine.js";

const SECRET = "unit-test-secret-0123456789";
const config = (env: Record<string, string> = {}) =>
  parseHostConfig({
    SANDBOX_SECRET: SECRET,
    SANDBOX_HOST: "127.0.0.1",
    SANDBOX_PORT: "0",
    SANDBOX_INSTANCE: `unit-rt-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
    ...env,
  });

const hosts: SandboxHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe("SANDBOX_RUNTIME and its overrides", () => {
  it("defaults every kind to runc", () => {
    expect(config().runtimes).toEqual({
      node: "runc",
      python: "runc",
      shell: "runc",
      browser: "runc",
    });
  });

  it("puts the code kinds on runsc and keeps the browser on runc unless told", () => {
    expect(config({ SANDBOX_RUNTIME: "runsc" }).runtimes).toEqual({
      node: "runsc",
      python: "runsc",
      shell: "runsc",
      browser: "runc",
    });
    expect(
      config({
        SANDBOX_RUNTIME: "runsc",
        SANDBOX_RUNTIME_SHELL: "runc",
        SANDBOX_RUNTIME_BROWSER: "runsc",
      }).runtimes,
    ).toEqual({ node: "runsc", python: "runsc", shell: "runc", browser: "runsc" });
  });

  it("refuses an unknown runtime, naming the variable", () => {
    expect(() => config({ SANDBOX_RUNTIME: "kata" })).toThrow(HostConfigError);
    expect(() => config({ SANDBOX_RUNTIME_NODE: "kata" })).toThrow(/SANDBOX_RUNTIME_NODE/);
  });
});

describe("create options per runtime", () => {
  it("runc: the pids cgroup is the program's limit, no RLIMIT_NPROC", () => {
    const cfg = config();
    const plan = planRun({ language: "python", code: "print(1)" }, cfg);
    const options = createOptions(containerSpec(plan, cfg, "slot", "run"));
    expect(options.HostConfig).toMatchObject({ Runtime: "runc", PidsLimit: 100 });
    expect(options.HostConfig?.Ulimits).toBeUndefined();
    expect(options.Cmd).toEqual(["python3", "-u", "-"]);
  });

  it("runsc: a high pids cgroup for gVisor's helpers and RLIMIT_NPROC for the program", () => {
    const cfg = config({ SANDBOX_RUNTIME: "runsc", SANDBOX_RUNSC_NPROC: "48" });
    const plan = planRun({ language: "python", code: "print(1)" }, cfg);
    const options = createOptions(containerSpec(plan, cfg, "slot", "run"));
    expect(options.HostConfig).toMatchObject({
      Runtime: "runsc",
      PidsLimit: 1024,
      Ulimits: [{ Name: "nproc", Soft: 48, Hard: 48 }],
    });
    // Python reads its program in one read under gVisor (not one byte per trapped read).
    expect(options.Cmd?.slice(0, 3)).toEqual(["python3", "-u", "-c"]);
    const shell = planRun({ language: "shell", command: "id" }, cfg);
    expect(createOptions(containerSpec(shell, cfg, "s", "r")).Cmd).toEqual(["id"]);
  });
});

describe("start-up check of the engine's runtimes", () => {
  it("refuses to start when the engine has no runsc, naming the daemon setting", async () => {
    const engine = new StandInEngine();
    const err = await startSandboxHost(config({ SANDBOX_RUNTIME: "runsc" }), {
      docker: engine,
      log: () => {},
    }).then(
      (host) => {
        hosts.push(host);
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RuntimeUnavailableError);
    expect((err as Error).message).toMatch(/no container runtime "runsc"/);
    expect((err as Error).message).toContain('"runtimes": {"runsc"');
    expect((err as Error).message).toContain("/etc/docker/daemon.json");
    // Nothing was created on the engine.
    expect(engine.containers.size).toBe(0);
  });

  it("starts when the engine lists the runtime, and health names each kind's runtime", async () => {
    const engine = new StandInEngine();
    engine.registeredRuntimes.add("runsc");
    const host = await startSandboxHost(
      config({ SANDBOX_RUNTIME: "runsc", SANDBOX_RUNTIME_NODE: "runc" }),
      { docker: engine, log: () => {} },
    );
    hosts.push(host);
    const health = await host.health();
    expect(sandboxHealthSchema.parse(health)).toEqual(health);
    expect(health.runtimes).toEqual({
      node: "runc",
      python: "runsc",
      shell: "runsc",
      browser: "runc",
    });
  });
});
