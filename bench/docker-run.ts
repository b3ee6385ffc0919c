/**
 * A bare `docker run` equal to what the sandbox host creates, the reference the sandbox and
 * browser benchmarks set the host's runs beside.
 */
import { spawn } from "node:child_process";
import type { createOptions } from "../sandbox-host/src/container.js";

/**
 * `docker run` CLI arguments equal to the host's create options `opts` (runtime, network,
 * capabilities, security options, limits and ulimits, tmpfs, binds, user, environment, image and command), with `--rm -i`.
 */
export function dockerRunArgs(opts: ReturnType<typeof createOptions>): string[] {
  const hc = opts.HostConfig!;
  const args = ["run", "--rm", "-i", "--network", String(hc.NetworkMode)];
  for (const cap of hc.CapDrop as string[]) args.push("--cap-drop", cap);
  for (const opt of hc.SecurityOpt as string[]) args.push("--security-opt", opt);
  args.push("--runtime", String(hc.Runtime ?? "runc"));
  args.push("--pids-limit", String(hc.PidsLimit), "--cpus", String(hc.NanoCpus! / 1e9));
  for (const u of hc.Ulimits ?? []) args.push("--ulimit", `${u.Name}=${u.Soft}:${u.Hard}`);
  args.push("--memory", `${hc.Memory}b`, "--memory-swap", `${hc.MemorySwap}b`);
  for (const [path, o] of Object.entries(hc.Tmpfs ?? {})) args.push("--tmpfs", `${path}:${o}`);
  for (const bind of hc.Binds ?? []) args.push("-v", bind);
  if (hc.ReadonlyRootfs) args.push("--read-only");
  if (hc.Init) args.push("--init");
  args.push("--shm-size", `${hc.ShmSize}b`, "--ipc", String(hc.IpcMode), "--log-driver", "none");
  args.push("--user", String(opts.User), "--workdir", String(opts.WorkingDir), "--entrypoint", "");
  for (const e of opts.Env ?? []) args.push("-e", e);
  args.push(String(opts.Image), ...(opts.Cmd as string[]));
  return args;
}

/**
 * One `docker run` with `args`, `stdin` on its standard input.
 * @throws Error when it exits non-zero or `accept` refuses its standard output.
 */
export function bareDockerRun(
  args: string[],
  stdin: Buffer | string,
  accept: (stdout: string) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", args, { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 && accept(out)
        ? resolve()
        : reject(new Error(`docker run failed (${code}): ${err.trim()} ${out.trim()}`)),
    );
    child.stdin.end(stdin);
  });
}
