/**
 * The `browser` builtin with the sandbox host itself in a container, as in deploy/compose.yaml
 * (docs/sandbox.md#the-browser-builtin): the host runs in a container of the local Node image
 * (this repository mounted read-only, the engine's socket through its group, read-only root, no
 * capabilities) and creates its egress sockets in a directory that exists only inside that
 * container, where a named volume is mounted. `SANDBOX_BROWSER_SOCKET_VOLUME` makes browser
 * containers mount the same volume by name; a browse of a page served by this test on 127.0.0.1
 * (the host container shares this machine's network, the page's port is allowed through
 * `SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS`) must load through that socket. A bind mount of the
 * host's path could not work here: the engine's machine has no such directory.
 */
import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import type { BrowseResult } from "@skillgate/sandbox-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LABEL_SANDBOX } from "../../sandbox-host/src/container.js";
import { createSandboxClient, type SandboxClient } from "../../workers/src/sandbox/client.js";
import {
  docker,
  LOCAL_IMAGE_ENV,
  LOCAL_IMAGES,
  newSecret,
  requireDocker,
  SKIP_DOCKER,
} from "./helpers.js";

const BROWSER_IMAGE = "skillgate-local/browser:latest";
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const DOCKER_SOCKET = "/var/run/docker.sock";

/** A free TCP port of 127.0.0.1 (closed again: the host container binds it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Runs `cmd` as root in a busybox container with `volume` at /v. Output: its stdout. */
async function withVolume(volume: string, cmd: string[]): Promise<string> {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString("utf8")));
  const [result, container] = (await docker.run(LOCAL_IMAGES.shell, cmd, out, {
    User: "0:0",
    HostConfig: { Binds: [`${volume}:/v`], NetworkMode: "none" },
  })) as [{ StatusCode: number }, { remove(): Promise<unknown> }];
  await container.remove();
  if (result.StatusCode !== 0) throw new Error(`${cmd.join(" ")} exited ${result.StatusCode}`);
  return text;
}

describe.skipIf(SKIP_DOCKER)("browser builtin with the sandbox host in a container", () => {
  const tag = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const volume = `skillgate-test-egress-${tag}`;
  const instance = `test-browser-volume-${tag}`;
  /** Where the host container mounts the volume: a path the engine's machine does not have. */
  const socketDir = `/srv/skillgate-egress-${tag}`;
  const secret = newSecret();
  let site: Server;
  let sitePort: number;
  let hostId: string | undefined;
  let client: SandboxClient;

  const hostLogs = async () => {
    if (!hostId) return "";
    const raw = (await docker.getContainer(hostId).logs({ stdout: true, stderr: true })) as Buffer;
    return raw.toString("utf8");
  };

  beforeAll(async () => {
    await requireDocker();
    try {
      await docker.getImage(BROWSER_IMAGE).inspect();
    } catch {
      throw new Error(`Image ${BROWSER_IMAGE} is missing; run \`npm run sandbox:images\``);
    }
    site = createServer((req, res) => {
      res.writeHead(req.url === "/page" ? 200 : 404, { "content-type": "text/html" });
      res.end(
        `<title>Through the volume</title><h1>Served on loopback</h1>
         <img src="http://10.0.0.1/tracker.gif">`,
      );
    });
    await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
    sitePort = (site.address() as AddressInfo).port;

    // An empty volume owned by the host's unprivileged user (the image's mount point does this
    // in deploy/docker/sandbox-host.Dockerfile; this image has no such directory).
    await docker.createVolume({ Name: volume, Labels: { "org.skillgate.test": instance } });
    await withVolume(volume, ["sh", "-c", "chown 65534:65534 /v && chmod 0711 /v"]);

    const port = await freePort();
    const env: Record<string, string> = {
      ...LOCAL_IMAGE_ENV,
      SANDBOX_SECRET: secret,
      SANDBOX_HOST: "127.0.0.1",
      SANDBOX_PORT: String(port),
      SANDBOX_INSTANCE: instance,
      SANDBOX_DOCKER_SOCKET: DOCKER_SOCKET,
      SANDBOX_BROWSER_SOCKET_DIR: socketDir,
      SANDBOX_BROWSER_SOCKET_VOLUME: volume,
      SANDBOX_BROWSER_ALLOW_LOOPBACK_PORTS: String(sitePort),
    };
    const host = await docker.createContainer({
      Image: LOCAL_IMAGES.node,
      Cmd: ["node", "--import", "tsx", "sandbox-host/src/main.ts"],
      WorkingDir: "/app",
      User: "65534:65534",
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Labels: { "org.skillgate.test": instance },
      HostConfig: {
        NetworkMode: "host",
        Binds: [`${REPO}:/app:ro`, `${DOCKER_SOCKET}:${DOCKER_SOCKET}`, `${volume}:${socketDir}`],
        GroupAdd: [String(statSync(DOCKER_SOCKET).gid)],
        ReadonlyRootfs: true,
        Tmpfs: { "/tmp": "rw,nosuid,nodev" },
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
      },
    });
    hostId = host.id;
    await host.start();
    client = createSandboxClient({ baseUrl: `http://127.0.0.1:${port}`, secret, keyId: "k1" });
    for (let i = 0; ; i++) {
      const ok = await client.health().then(
        (h) => h.ok,
        () => false,
      );
      if (ok) break;
      const state = await host.inspect();
      if (!state.State.Running || i >= 120)
        throw new Error(`sandbox host container did not become healthy:\n${await hostLogs()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }, 120_000);

  afterAll(async () => {
    site?.close();
    if (hostId) {
      const host = docker.getContainer(hostId);
      // SIGTERM: the host kills its runs and removes its containers before it exits.
      await host.stop({ t: 20 }).catch(() => {});
      await host.remove({ force: true }).catch(() => {});
    }
    const left = await docker.listContainers({
      all: true,
      filters: JSON.stringify({ label: [`${LABEL_SANDBOX}=${instance}`] }),
    });
    await docker
      .getVolume(volume)
      .remove()
      .catch(() => {});
    expect(left).toEqual([]);
  }, 60_000);

  it("loads a page through the egress socket in the named volume", async () => {
    // The directory the host writes its sockets to is not a path of the engine's machine.
    expect(existsSync(socketDir)).toBe(false);
    const result: BrowseResult = await client.browse({
      url: `http://127.0.0.1:${sitePort}/page`,
      runId: `volume-${tag}`,
      timeoutMs: 45_000,
    });
    if (result.status !== "ok") throw new Error(`${JSON.stringify(result)}\n${await hostLogs()}`);
    expect(result).toMatchObject({
      status: "ok",
      title: "Through the volume",
      httpStatus: 200,
      url: `http://127.0.0.1:${sitePort}/page`,
    });
    expect(result.text).toContain("Served on loopback");
    // The page's other request went to the same proxy, which applied the address rules.
    expect(result.blocked.map((b) => b.target)).toContain("http://10.0.0.1/tracker.gif");
    // The browse's socket directory is gone from the volume; the volume's root kept its owner.
    expect((await withVolume(volume, ["ls", "-A", "/v"])).trim()).toBe("");
    expect((await withVolume(volume, ["stat", "-c", "%u %a", "/v"])).trim()).toBe("65534 711");
    expect(existsSync(socketDir)).toBe(false);
  }, 90_000);
});
