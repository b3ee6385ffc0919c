/**
 * The start-up check of the configured container runtimes (docs/sandbox.md#runtimes): every
 * runtime a kind of run uses must be registered with the Docker engine, or the host does not
 * start. `runc` is Docker's built-in default; `runsc` (gVisor) is registered by the operator in the
 * engine's daemon configuration.
 */
import type { SandboxRunKind } from "@skillgate/sandbox-protocol";
import type { HostConfig } from "./config.js";
import type { DockerClient } from "./docker-client.js";
import type { SandboxRuntime } from "./env-schema.js";

/** The `runtimes` entry of `/etc/docker/daemon.json` that registers a runtime, as an example. */
const DAEMON_SETTING: Record<SandboxRuntime, string> = {
  runc: '"runtimes": {"runc": {"path": "runc"}}',
  runsc:
    '"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=none"]}}',
};

/** A configured runtime the engine does not have; the message says which daemon setting to add. */
export class RuntimeUnavailableError extends Error {
  override name = "RuntimeUnavailableError";
}

/**
 * Which kinds of run use each configured runtime. Output: runtime → kinds, e.g.
 * `{ runsc: ["node", "python", "shell"], runc: ["browser"] }`.
 */
export function runtimeUse(config: HostConfig): Map<SandboxRuntime, SandboxRunKind[]> {
  const use = new Map<SandboxRuntime, SandboxRunKind[]>();
  for (const [kind, runtime] of Object.entries(config.runtimes) as [
    SandboxRunKind,
    SandboxRuntime,
  ][]) {
    use.set(runtime, [...(use.get(runtime) ?? []), kind]);
  }
  return use;
}

/**
 * Checks that the engine has every runtime the configuration uses.
 * @throws RuntimeUnavailableError naming the missing runtime, the variables that chose it and the
 *   `runtimes` entry to add to the engine's daemon configuration (then reload the daemon).
 * @throws EngineError when the engine cannot be asked.
 */
export async function checkRuntimes(config: HostConfig, docker: DockerClient): Promise<void> {
  const registered = new Set(await docker.runtimes());
  for (const [runtime, kinds] of runtimeUse(config)) {
    if (registered.has(runtime)) continue;
    const variables = kinds.map((k) => `SANDBOX_RUNTIME_${k.toUpperCase()}`).join(", ");
    throw new RuntimeUnavailableError(
      `The Docker engine has no container runtime "${runtime}" (used by ${kinds.join(", ")} runs: ` +
        `SANDBOX_RUNTIME or ${variables}); the engine lists ${[...registered].join(", ") || "none"}. ` +
        `Add ${DAEMON_SETTING[runtime]} to the engine's daemon configuration (/etc/docker/daemon.json), ` +
        "reload the daemon (SIGHUP to dockerd) and check that `docker info` lists it.",
    );
  }
}
