/**
 * How a browse's egress socket reaches its browser container (sandbox-host/src/egress-share.ts,
 * docs/sandbox.md#the-browser-builtin): the per-browse directory on this host's file system, the
 * container's mounts by path or through a named volume, the driver's socket path, and the
 * start-up check of a socket volume. Real file system in a temporary directory, a stand-in engine.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { browserRunPlan } from "../../sandbox-host/src/browser.js";
import { parseHostConfig } from "../../sandbox-host/src/config.js";
import { createOptions } from "../../sandbox-host/src/container.js";
import { checkEgressShare, createEgressDir } from "../../sandbox-host/src/egress-share.js";
import { containerSpec } from "../../sandbox-host/src/plan.js";
import { startSandboxHost } from "../../sandbox-host/src/server.js";
import { StandInEngine } from "../support/stand-in-engine.js";

const SECRET = "unit-test-secret-0123456789";
const VOLUME = "skillgate-unit-egress";

function config(env: Record<string, string> = {}) {
  return parseHostConfig({ SANDBOX_SECRET: SECRET, ...env });
}

/** Container options and the driver's program text of a browse whose socket dir is `dir`. */
function browse(env: Record<string, string>, dir: string) {
  const cfg = config(env);
  const plan = browserRunPlan(cfg, "run-1", dir, 30_000, {
    url: "https://example.com/",
    proxyPassword: "pw",
    actions: [],
    extract: "text",
  });
  return { options: createOptions(containerSpec(plan, cfg, "slot-1", "run-1")), plan };
}

/** The `egressSocket` the driver receives in its input (the last line of its program). */
function driverSocket(input: Buffer | undefined): string {
  const m = /"egressSocket":"([^"]+)"/.exec(input?.toString("utf8") ?? "");
  if (!m?.[1]) throw new Error("no egressSocket in the driver input");
  return m[1];
}

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "skillgate-egress-unit-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("browser container mounts", () => {
  it("by path (default): the browse's directory bind-mounted read-only, socket at its root", () => {
    const dir = join(base, "0123abcd");
    const { options, plan } = browse({ SANDBOX_BROWSER_SOCKET_DIR: base }, dir);
    expect(options.HostConfig?.Binds).toEqual([`${dir}:/run/skillgate-egress:ro`]);
    expect(plan.readOnlyVolumes).toBeUndefined();
    expect(driverSocket(plan.input)).toBe("/run/skillgate-egress/proxy.sock");
    // Counted as a browse, not as a node run, and never served by the warm pool.
    expect(plan).toMatchObject({ kind: "browser", language: "node", poolable: false });
  });

  it("through a named volume: the volume by name (read-only, nocopy), no host path at all", () => {
    const dir = "/run/skillgate-egress/5f2c9a0e11d4";
    const { options, plan } = browse(
      {
        SANDBOX_BROWSER_SOCKET_DIR: "/run/skillgate-egress",
        SANDBOX_BROWSER_SOCKET_VOLUME: VOLUME,
      },
      dir,
    );
    expect(options.HostConfig?.Binds).toEqual([`${VOLUME}:/run/skillgate-egress:ro,nocopy`]);
    expect(plan.readOnlyBinds).toBeUndefined();
    expect(driverSocket(plan.input)).toBe("/run/skillgate-egress/5f2c9a0e11d4/proxy.sock");
    // Everything else stays the sandbox's: no network, read-only root, no capabilities.
    expect(options.HostConfig).toMatchObject({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      PidsLimit: 512,
    });
  });

  it("plain runs mount nothing", () => {
    const cfg = config({ SANDBOX_BROWSER_SOCKET_VOLUME: VOLUME, SANDBOX_BROWSER_SOCKET_DIR: base });
    const options = createOptions(
      containerSpec(
        {
          runId: "r",
          kind: "node",
          language: "node",
          image: cfg.images.node,
          cmd: ["node", "-"],
          env: {},
          network: "none",
          cpuLimit: 100,
          memoryMb: 256,
          timeoutMs: 1000,
          queueTimeoutMs: 1000,
          input: undefined,
          poolable: true,
          runtime: "runc",
        },
        cfg,
        "s",
        "r",
      ),
    );
    expect(options.HostConfig?.Binds).toBeUndefined();
  });
});

describe("createEgressDir", () => {
  it("creates a fresh 0711 directory with an unguessable name per browse, parents 0711 too", async () => {
    const socketDir = join(base, "nested", "egress");
    const cfg = config({ SANDBOX_BROWSER_SOCKET_DIR: socketDir });
    const a = await createEgressDir(cfg);
    const b = await createEgressDir(cfg);
    expect(dirname(a)).toBe(socketDir);
    expect(basename(a)).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect((await readdir(socketDir)).sort()).toEqual([basename(a), basename(b)].sort());
    for (const dir of [a, socketDir, join(base, "nested")])
      expect((await stat(dir)).mode & 0o777).toBe(0o711);
    // An existing directory keeps its mode.
    expect((await stat(base)).mode & 0o777).toBe(0o700);
  });
});

describe("checkEgressShare (start-up)", () => {
  const volumeEnv = () => ({
    SANDBOX_BROWSER_SOCKET_DIR: base,
    SANDBOX_BROWSER_SOCKET_VOLUME: VOLUME,
  });

  it("checks nothing without a volume", async () => {
    const engine = new StandInEngine();
    engine.down = true;
    await checkEgressShare(config({ SANDBOX_BROWSER_SOCKET_DIR: "/nonexistent/x" }), engine, () => {
      throw new Error("no log expected");
    });
  });

  it("passes with a writable directory and a volume the engine has", async () => {
    const engine = new StandInEngine();
    engine.volumes.add(VOLUME);
    await checkEgressShare(config(volumeEnv()), engine, () => {});
  });

  it("refuses a volume the engine does not have; the host does not start", async () => {
    const engine = new StandInEngine();
    await expect(checkEgressShare(config(volumeEnv()), engine, () => {})).rejects.toThrow(
      `SANDBOX_BROWSER_SOCKET_VOLUME: the Docker engine has no volume named ${VOLUME}`,
    );
    await expect(
      startSandboxHost(config({ ...volumeEnv(), SANDBOX_PORT: "0" }), {
        docker: engine,
        log: () => {},
      }),
    ).rejects.toThrow("no volume named");
  });

  it("refuses a socket directory this host cannot write", async () => {
    const engine = new StandInEngine();
    engine.volumes.add(VOLUME);
    const missing = join(base, "not-mounted");
    const err = checkEgressShare(
      config({ SANDBOX_BROWSER_SOCKET_DIR: missing, SANDBOX_BROWSER_SOCKET_VOLUME: VOLUME }),
      engine,
      () => {},
    );
    await expect(err).rejects.toThrow(`SANDBOX_BROWSER_SOCKET_DIR (${missing})`);
  });

  it("only logs when the engine does not answer", async () => {
    const engine = new StandInEngine();
    engine.down = true;
    const lines: string[] = [];
    await checkEgressShare(config(volumeEnv()), engine, (l) => lines.push(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`could not check SANDBOX_BROWSER_SOCKET_VOLUME (${VOLUME})`);
  });
});
