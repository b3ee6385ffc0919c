/**
 * How the egress proxy's Unix socket of a browse reaches its browser container
 * (docs/sandbox.md#the-browser-builtin). Each browse gets a fresh directory with an unguessable
 * name under `SANDBOX_BROWSER_SOCKET_DIR`; the container sees it below /run/skillgate-egress:
 *
 * - by path (default): the browse's directory is bind-mounted read-only as /run/skillgate-egress,
 *   so the directory must be a path of the machine that runs the Docker engine (a host on that
 *   machine, outside a container);
 * - through a named volume (`SANDBOX_BROWSER_SOCKET_VOLUME`, a host that itself runs in a
 *   container and mounts that volume at `SANDBOX_BROWSER_SOCKET_DIR`): the volume is mounted
 *   read-only at /run/skillgate-egress and the socket is `/run/skillgate-egress/<name>/proxy.sock`.
 *   The engine never needs to know a path of this host's file system.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { access, chmod, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { HostConfig } from "./config.js";
import type { VolumeMount } from "./container.js";
import type { DockerClient } from "./docker-client.js";

/** Where the egress socket's directory (or the volume) appears in a browser container. */
export const EGRESS_MOUNT = "/run/skillgate-egress";
/** File name of a browse's egress socket in its directory. */
export const EGRESS_SOCKET_NAME = "proxy.sock";

/** The configured socket directory, or the OS temp dir + `/skillgate-egress`. */
export function egressBaseDir(config: HostConfig): string {
  return config.browser.socketDir ?? join(tmpdir(), "skillgate-egress");
}

/**
 * Creates `path` and any missing parents, and makes every directory it created traversable by
 * other users (0711: the browser container's user must reach the socket, not list the directory),
 * whatever the process umask. Directories that already existed keep their mode.
 */
async function makeTraversable(path: string): Promise<void> {
  const first = await mkdir(path, { recursive: true, mode: 0o711 });
  if (first === undefined) return;
  for (let dir = path; ; dir = dirname(dir)) {
    await chmod(dir, 0o711);
    if (dir === first || dir === dirname(dir)) break;
  }
}

/**
 * Creates the directory of one browse's egress socket: a random 32-hex-character name under the
 * socket directory, mode 0711. Output: its absolute path (this host's view).
 * @throws Error from the file system (the directory cannot be created).
 */
export async function createEgressDir(config: HostConfig): Promise<string> {
  const base = egressBaseDir(config);
  await makeTraversable(base);
  const dir = join(base, randomBytes(16).toString("hex"));
  await mkdir(dir, { mode: 0o711 });
  await chmod(dir, 0o711);
  return dir;
}

/** Mounts of a browser container and the path of the egress socket inside it. */
export interface EgressMount {
  /** Host paths, `host:container` (by path). */
  readOnlyBinds?: string[];
  /** The socket volume (through a named volume). */
  readOnlyVolumes?: VolumeMount[];
  /** Absolute path of the proxy's socket in the container. */
  socketPath: string;
}

/**
 * The mounts that bring the socket directory `dir` (from {@link createEgressDir}) into a browser
 * container, following the host's configuration (module documentation).
 */
export function egressMount(config: HostConfig, dir: string): EgressMount {
  const volume = config.browser.socketVolume;
  if (volume === undefined) {
    return {
      readOnlyBinds: [`${dir}:${EGRESS_MOUNT}`],
      socketPath: `${EGRESS_MOUNT}/${EGRESS_SOCKET_NAME}`,
    };
  }
  const name = dir.slice(dir.lastIndexOf("/") + 1);
  return {
    readOnlyVolumes: [{ volume, target: EGRESS_MOUNT }],
    socketPath: `${EGRESS_MOUNT}/${name}/${EGRESS_SOCKET_NAME}`,
  };
}

/**
 * Start-up check of a socket volume (nothing to check without one): this host can create
 * directories in `SANDBOX_BROWSER_SOCKET_DIR`, and the engine has the volume. An engine that does
 * not answer is only logged (health reports it; browses fail with 503 until it answers).
 * @throws Error naming the variable and what to fix, when the directory is not writable or the
 *   engine has no such volume.
 */
export async function checkEgressShare(
  config: HostConfig,
  docker: DockerClient,
  log: (line: string) => void,
): Promise<void> {
  const volume = config.browser.socketVolume;
  if (volume === undefined) return;
  const dir = egressBaseDir(config);
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new Error(
      `SANDBOX_BROWSER_SOCKET_DIR (${dir}) is not a directory this host can write (${(err as NodeJS.ErrnoException).code ?? "error"}): mount the volume ${volume} (SANDBOX_BROWSER_SOCKET_VOLUME) there, owned by this host's user`,
    );
  }
  let exists: boolean;
  try {
    exists = await docker.volumeExists(volume);
  } catch (err) {
    log(`could not check SANDBOX_BROWSER_SOCKET_VOLUME (${volume}): ${(err as Error).message}`);
    return;
  }
  if (!exists) {
    throw new Error(
      `SANDBOX_BROWSER_SOCKET_VOLUME: the Docker engine has no volume named ${volume}; it must be the volume mounted at SANDBOX_BROWSER_SOCKET_DIR (${dir}) in this host's container`,
    );
  }
}
