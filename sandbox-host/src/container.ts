/**
 * One hardened sandbox container through the Docker Engine API (dockerode; never the CLI). Builds
 * the HostConfig of the container flags in docs/sandbox.md#container-flags (init, an unprivileged
 * user, a small /dev/shm and no log driver included), attaches stdin/stdout/stderr before start,
 * and offers kill / inspect / remove that tolerate the races the engine reports (404, 304, 409).
 */
import { constants } from "node:os";
import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import { OutputSink } from "./output.js";

/** Label every sandbox container carries; its value is the host's instance name. */
export const LABEL_SANDBOX = "org.skillgate.sandbox";
/** Label with the container's slot id (owned by one host process while it lives). */
export const LABEL_SLOT = "org.skillgate.slot";
/** Label with the run id (or `pool` for a pre-started container). */
export const LABEL_RUN = "org.skillgate.run";

/** What a container runs with. Units: CPU in thousandths of a CPU, memory in MB. */
export interface ContainerSpec {
  image: string;
  cmd: string[];
  env: Record<string, string>;
  network: "none" | "bridge";
  cpuLimit: number;
  memoryMb: number;
  /** Host instance name (value of {@link LABEL_SANDBOX}). */
  instance: string;
  slot: string;
  runLabel: string;
  /** `uid:gid` the process runs as; the tmpfs mounts are owned by it. */
  user: string;
  shmBytes: number;
}

/**
 * Container create options for a spec: network none|bridge, cap-drop ALL, no-new-privileges,
 * pids limit 100, NanoCpus = cpuLimit/1000 CPUs, memory with swap equal to memory, noexec tmpfs
 * /tmp and /workspace (64 MB, owned by the user: runc ignores `mode=` on existing dirs), read-only
 * root, init (tini) as PID 1, small /dev/shm, log driver none, no auto-remove (so that OOMKilled
 * can be read before removal). Stdin is open once for the program text.
 */
export function createOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  const [uid, gid] = spec.user.split(":");
  const tmpfs = `rw,noexec,nosuid,nodev,size=64m,uid=${uid},gid=${gid}`;
  const memory = spec.memoryMb * 1_048_576;
  return {
    Image: spec.image,
    Cmd: spec.cmd,
    Entrypoint: [],
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    User: spec.user,
    WorkingDir: "/workspace",
    Labels: { [LABEL_SANDBOX]: spec.instance, [LABEL_SLOT]: spec.slot, [LABEL_RUN]: spec.runLabel },
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    NetworkDisabled: spec.network === "none",
    HostConfig: {
      NetworkMode: spec.network,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      PidsLimit: 100,
      NanoCpus: Math.round((spec.cpuLimit / 1000) * 1e9),
      Memory: memory,
      MemorySwap: memory,
      Tmpfs: { "/tmp": tmpfs, "/workspace": tmpfs },
      ReadonlyRootfs: true,
      Init: true,
      ShmSize: spec.shmBytes,
      IpcMode: "private",
      LogConfig: { Type: "none", Config: {} },
      AutoRemove: false,
      Privileged: false,
    },
  };
}

const SIGNALS = new Map<number, string>(
  Object.entries(constants.signals).map(([name, num]) => [num, name]),
);

/** Signal name for an exit code above 128 (128 + signal number), else null. */
export function signalOf(exitCode: number | null): string | null {
  if (exitCode === null || exitCode <= 128 || exitCode > 128 + 64) return null;
  return SIGNALS.get(exitCode - 128) ?? null;
}

/** True for engine errors that only mean "already gone / not running" (safe to ignore). */
function benign(err: unknown): boolean {
  const code = (err as { statusCode?: number }).statusCode;
  return code === 404 || code === 304 || code === 409;
}

/** A created, attached container; one program run; removed after inspection. */
export class SandboxContainer {
  /** Captured stdout (capped; see OutputSink). */
  readonly stdout: OutputSink;
  /** Captured stderr (capped; see OutputSink). */
  readonly stderr: OutputSink;
  /** Resolves with the exit status (null when the wait failed) once the container exits. */
  readonly exited: Promise<number | null>;
  private exitedFlag = false;
  private readonly streamEnded: Promise<void>;

  private constructor(
    readonly container: Docker.Container,
    readonly spec: ContainerSpec,
    private readonly stream: Duplex,
    maxChars: number,
    wait: Promise<{ StatusCode?: number }>,
  ) {
    this.stdout = new OutputSink(maxChars);
    this.stderr = new OutputSink(maxChars);
    stream.on("error", () => {});
    container.modem.demuxStream(stream, this.stdout, this.stderr);
    this.streamEnded = new Promise((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
    });
    this.exited = wait.then(
      (r) => (typeof r?.StatusCode === "number" ? r.StatusCode : null),
      () => null,
    );
    void this.exited.then(() => {
      this.exitedFlag = true;
    });
  }

  /**
   * Creates and attaches a container (not started). On a failure after creation the container
   * is removed before the error is rethrown.
   * @param maxChars per-stream output cap in characters.
   * @throws the engine error (statusCode 404 "no such image" when the image is missing).
   */
  static async create(
    docker: Docker,
    spec: ContainerSpec,
    maxChars: number,
  ): Promise<SandboxContainer> {
    const container = await docker.createContainer(createOptions(spec));
    try {
      const stream = (await container.attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      })) as unknown as Duplex;
      const wait = container.wait({ condition: "next-exit" }) as Promise<{ StatusCode?: number }>;
      return new SandboxContainer(container, spec, stream, maxChars, wait);
    } catch (err) {
      await container.remove({ force: true }).catch(() => {});
      throw err;
    }
  }

  /** Starts the container; the program waits on stdin until {@link send}. */
  async start(): Promise<void> {
    await this.container.start();
  }

  /** Whether the container has not exited yet. */
  alive(): boolean {
    return !this.exitedFlag;
  }

  /** Writes the program text (if any) to stdin and closes stdin. */
  send(input: Buffer | undefined): void {
    if (input && input.length > 0) this.stream.write(input);
    this.stream.end();
  }

  /** Sends a signal to the container's PID 1 (init forwards it); ignores "not running". */
  async kill(signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    try {
      await this.container.kill({ signal });
    } catch (err) {
      if (!benign(err)) throw err;
    }
  }

  /** Waits (at most `ms`) until the output stream has ended, so late chunks are captured. */
  async drain(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.streamEnded, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /**
   * Exit code and OOM flag from the engine; `exitCode` is null while the container still runs or
   * when it is already gone.
   */
  async inspectState(): Promise<{ exitCode: number | null; oomKilled: boolean; running: boolean }> {
    try {
      const { State } = await this.container.inspect();
      const running = State.Running === true;
      return {
        exitCode: running ? null : (State.ExitCode ?? null),
        oomKilled: State.OOMKilled === true,
        running,
      };
    } catch {
      return { exitCode: null, oomKilled: false, running: false };
    }
  }

  /** Removes the container (forcefully); tolerates "already gone" / "removal in progress". */
  async remove(): Promise<void> {
    this.stream.destroy();
    try {
      await this.container.remove({ force: true });
    } catch (err) {
      if (!benign(err)) throw err;
    }
  }
}
