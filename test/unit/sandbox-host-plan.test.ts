/**
 * Run planning of the sandbox host (sandbox-host/src/plan.ts) and the container options built
 * from a plan (container.ts): the image allowlist, the time limit cap, the network gate, CPU and
 * memory bounds, the environment allowlist, when the warm pool may serve a run, and the flags
 * every container gets. Pure functions, no Docker.
 */
import type { SandboxRunRequest } from "@skillgate/sandbox-protocol";
import { describe, expect, it } from "vitest";
import { parseHostConfig } from "../../sandbox-host/src/config.js";
import { createOptions, signalOf } from "../../sandbox-host/src/container.js";
import { HostError } from "../../sandbox-host/src/errors.js";
import { containerSpec, planRun } from "../../sandbox-host/src/plan.js";

function config(env: Record<string, string> = {}) {
  return parseHostConfig({ SANDBOX_SECRET: "unit-test-secret-0123456789", ...env });
}

function refusal(req: SandboxRunRequest, env: Record<string, string> = {}): HostError {
  try {
    planRun(req, config(env));
  } catch (err) {
    expect(err).toBeInstanceOf(HostError);
    return err as HostError;
  }
  throw new Error("planRun accepted the request");
}

describe("planRun", () => {
  it("plans a default python run: its image, stdin command, limits and no network", () => {
    const plan = planRun({ language: "python", code: "print(1)", runId: "r-1" }, config());
    expect(plan).toMatchObject({
      runId: "r-1",
      kind: "python",
      language: "python",
      image: "python:3.12-alpine",
      cmd: ["python3", "-u", "-"],
      network: "none",
      cpuLimit: 100,
      memoryMb: 256,
      timeoutMs: 10_000,
      poolable: true,
    });
    expect(plan.input?.toString("utf8")).toBe("print(1)");
    expect(plan.env).toMatchObject({ HOME: "/workspace", LANG: "C.UTF-8" });
  });

  it("runs shell commands as argv with no stdin, and never from the pool", () => {
    const plan = planRun({ language: "shell", command: "echo", args: ["a b", "$HOME"] }, config());
    expect(plan.cmd).toEqual(["echo", "a b", "$HOME"]);
    expect(plan.input).toBeUndefined();
    expect(plan.poolable).toBe(false);
    expect(plan.image).toBe("alpine:3.20");
  });

  it("chooses a run id when the caller gives none", () => {
    const a = planRun({ language: "node", code: "" }, config());
    const b = planRun({ language: "node", code: "" }, config());
    expect(a.runId).toMatch(/^[A-Za-z0-9_.-]{1,100}$/);
    expect(a.runId).not.toBe(b.runId);
  });

  it("caps the time limit at 60 s and uses the host default when none is given", () => {
    expect(planRun({ language: "node", code: "", timeoutMs: 600_000 }, config()).timeoutMs).toBe(
      60_000,
    );
    expect(
      planRun({ language: "node", code: "" }, config({ SKILLS_SANDBOX_TIMEOUT_MS: "2500" }))
        .timeoutMs,
    ).toBe(2500);
  });

  it("opens the network only when the master gate and the request both ask", () => {
    const ask = { language: "node", code: "", networkEnabled: true } as const;
    expect(planRun(ask, config()).network).toBe("none");
    const open = planRun(ask, config({ SKILLS_SANDBOX_NETWORK_ENABLED: "true" }));
    expect(open.network).toBe("bridge");
    expect(open.poolable).toBe(false);
    expect(
      planRun({ language: "node", code: "" }, config({ SKILLS_SANDBOX_NETWORK_ENABLED: "1" }))
        .network,
    ).toBe("none");
  });

  it("accepts an explicit image when its normalised form is on the allowlist", () => {
    const plan = planRun(
      { language: "python", code: "", image: "docker.io/library/python:3.12-alpine" },
      config(),
    );
    expect(plan.image).toBe("python:3.12-alpine");
    expect(plan.poolable).toBe(true);
  });

  it("refuses an unlisted or malformed image with 422 image_not_allowed", () => {
    for (const image of ["ubuntu:24.04", "python:3.12-alpine@sha256:nothex", "UPPER/case"]) {
      const err = refusal({ language: "python", code: "", image });
      expect([err.status, err.code]).toEqual([422, "image_not_allowed"]);
    }
  });

  it("refuses environment names outside the allowlist with 400, naming them", () => {
    const err = refusal({ language: "node", code: "", env: { TZ: "UTC", AWS_SECRET: "x" } });
    expect([err.status, err.code]).toEqual([400, "invalid_input"]);
    expect(err.message).toContain("AWS_SECRET");
    expect(err.message).not.toContain("TZ");
    const plan = planRun({ language: "node", code: "", env: { TZ: "UTC" } }, config());
    expect(plan.env.TZ).toBe("UTC");
    expect(plan.poolable).toBe(false);
  });

  it("keeps CPU and memory within the host's bounds", () => {
    expect(refusal({ language: "node", code: "", cpuLimit: 5 }).code).toBe("invalid_input");
    expect(refusal({ language: "node", code: "", cpuLimit: 1001 }).code).toBe("invalid_input");
    expect(refusal({ language: "node", code: "", memoryLimit: 8 }).code).toBe("invalid_input");
    expect(
      refusal({ language: "node", code: "", memoryLimit: 2048 }, { SANDBOX_MAX_MEMORY_MB: "1024" })
        .code,
    ).toBe("invalid_input");
    const plan = planRun({ language: "node", code: "", cpuLimit: 500, memoryLimit: 512 }, config());
    expect([plan.cpuLimit, plan.memoryMb, plan.poolable]).toEqual([500, 512, false]);
  });
});

describe("container options of a plan", () => {
  it("apply the sandbox flags, the limits and the labels", () => {
    const cfg = config({ SANDBOX_INSTANCE: "host-a", SANDBOX_SHM_MB: "8" });
    const plan = planRun({ language: "node", code: "", cpuLimit: 250, memoryLimit: 128 }, cfg);
    const options = createOptions(containerSpec(plan, cfg, "slot-1", "run-1"));
    expect(options).toMatchObject({
      Image: "node:22-alpine",
      Cmd: ["node", "-"],
      Entrypoint: [],
      User: "65534:65534",
      WorkingDir: "/workspace",
      OpenStdin: true,
      StdinOnce: true,
      Tty: false,
      NetworkDisabled: true,
      Labels: {
        "org.skillgate.sandbox": "host-a",
        "org.skillgate.slot": "slot-1",
        "org.skillgate.run": "run-1",
      },
      HostConfig: {
        NetworkMode: "none",
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        PidsLimit: 100,
        NanoCpus: 250_000_000,
        Memory: 128 * 1_048_576,
        MemorySwap: 128 * 1_048_576,
        ReadonlyRootfs: true,
        Init: true,
        ShmSize: 8 * 1_048_576,
        LogConfig: { Type: "none" },
        AutoRemove: false,
        Privileged: false,
      },
    });
    const tmpfs = options.HostConfig?.Tmpfs ?? {};
    expect(Object.keys(tmpfs).sort()).toEqual(["/tmp", "/workspace"]);
    expect(tmpfs["/tmp"]).toContain("noexec");
    expect(tmpfs["/tmp"]).toContain("uid=65534");
    expect(options.Env).toContain("HOME=/workspace");
  });

  it("signalOf names the signal of an exit code above 128", () => {
    expect(signalOf(137)).toBe("SIGKILL");
    expect(signalOf(143)).toBe("SIGTERM");
    expect(signalOf(0)).toBeNull();
    expect(signalOf(1)).toBeNull();
    expect(signalOf(128)).toBeNull();
    expect(signalOf(null)).toBeNull();
  });
});
