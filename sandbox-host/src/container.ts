/**
 * One hardened sandbox container, through the engine seam (docker-client.ts). Builds the create
 * options of the sandbox flags (no network, all capabilities dropped, no-new-privileges, pids,
 * CPU and memory limits, read-only root, noexec tmpfs, init, an unprivileged user, a small
 * /dev/shm, no log driver), attaches stdin/stdout/stderr before start, and offers kill / inspect /
 * remove, for which the seam settles the engine's races.
 */
import { constants } from "node:os";
import type { AttachedIo, ContainerCreateOptions, DockerClient } from "./docker-client.js";
import type { SandboxRuntime } from "./env-schema.js";
import { OutputSink } from "./output.js";

/** Label every sandbox container carries; its value is the host's instance name. */
export const LABEL_SANDBOX = "org.skillgate.sandbox";
/** Label with the container's slot id (owned by one host process while it lives). */
export const LABEL_SLOT = "org.skillgate.slot";
/** Label with the run id (or `pool` for a pre-started container). */
export const LABEL_RUN = "org.skillgate.run";

/** A named Docker volume and where it appears in the container (an absolute path). */
export interface VolumeMount {
  volume: string;
  target: string;
}

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
  /** Host paths mounted read-only, `host:container` (default none). */
  readOnlyBinds?: string[];
  /** Named volumes mounted read-only (default none); never filled from the image. */
  readOnlyVolumes?: VolumeMount[];
  /** Container runtime (docs/sandbox.md#runtimes); default runc. */
  runtime?: SandboxRuntime;
  /** The container's pids cgroup limit (default 100). */
  pidsLimit?: number;
  /**
   * RLIMIT_NPROC of the program (soft = hard); unset: none. Only meaningful under runsc, whose
   * kernel counts the sandbox's own processes: under runc the limit is per user id across the
   * whole machine (docs/sandbox.md#limits-per-runtime).
   */
  nproc?: number;
  /** Size of each tmpfs (/tmp, /workspace) in MB (default 64). */
  tmpfsMb?: number;
}

/**
 * Container create options for a spec: the spec's runtime (runc by default), network none|bridge,
 * cap-drop ALL, no-new-privileges, pids limit 100 (or the spec's), RLIMIT_NPROC when the spec has
 * one, read-only bind mounts and read-only named-volume mounts (with
 * `NoCopy`: the image's files never enter the volume) when the spec has any, NanoCpus =
 * cpuLimit/1000 CPUs, memory with swap equal to memory, noexec tmpfs
 * /tmp and /workspace (64 MB, owned by the user: runc ignores `mode=` on existing dirs), read-only
 * root, init (tini) as PID 1, small /dev/shm, log driver none, no auto-remove (so that OOMKilled
 * can be read before removal). Stdin is open once for the program text.
 */
export function createOptions(spec: ContainerSpec): ContainerCreateOptions {
  const [uid, gid] = spec.user.split(":");
  const tmpfs = `rw,noexec,nosuid,nodev,size=${spec.tmpfsMb ?? 64}m,uid=${uid},gid=${gid}`;
  const memory = spec.memoryMb * 1_048_576;
  // A bind source without a leading `/` is a volume name for the engine; `nocopy` keeps the
  // image's files at the target out of the volume.
  const binds = [
    ...(spec.readOnlyBinds ?? []).map((b) => `${b}:ro`),
    ...(spec.readOnlyVolumes ?? []).map((m) => `${m.volume}:${m.target}:ro,nocopy`),
  ];
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
      Runtime: spec.runtime ?? "runc",
      PidsLimit: spec.pidsLimit ?? 100,
      ...(spec.nproc !== undefined
        ? { Ulimits: [{ Name: "nproc", Soft: spec.nproc, Hard: spec.nproc }] }
        : {}),
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
      ...(binds.length > 0 ? { Binds: binds } : {}),
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

/** A created, attached container; one program run; removed after inspection. */
export class SandboxContainer {
  /** Resolves with the exit status (null when the wait failed) once the container exits. */
  readonly exited: Promise<number | null>;
  private exitedFlag = false;

  private constructor(
    private readonly engine: DockerClient,
    /** Engine id of the container. */
    readonly id: string,
    readonly spec: ContainerSpec,
    private readonly io: AttachedIo,
    /** Captured stdout (capped; see OutputSink). */
    readonly stdout: OutputSink,
    /** Captured stderr (capped; see OutputSink). */
    readonly stderr: OutputSink,
    wait: Promise<number | null>,
  ) {
    this.exited = wait.catch(() => null);
    void this.exited.then(() => {
      this.exitedFlag = true;
    });
  }

  /**
   * Creates and attaches a container (not started) and starts waiting for its exit. On a failure
   * after creation the container is removed before the error is rethrown.
   * @param maxChars per-stream output cap in characters.
   * @throws EngineError (`not_found` when the image is missing).
   */
  static async create(
    engine: DockerClient,
    spec: ContainerSpec,
    maxChars: number,
  ): Promise<SandboxContainer> {
    const id = await engine.createContainer(createOptions(spec));
    try {
      const stdout = new OutputSink(maxChars);
      const stderr = new OutputSink(maxChars);
      const io = await engine.attach(id, stdout, stderr);
      const wait = engine.wait(id);
      return new SandboxContainer(engine, id, spec, io, stdout, stderr, wait);
    } catch (err) {
      await engine.remove(id).catch(() => {});
      throw err;
    }
  }

  /** Starts the container; the program waits on stdin until {@link send}. */
  async start(): Promise<void> {
    await this.engine.start(this.id);
  }

  /** Whether the container has not exited yet. */
  alive(): boolean {
    return !this.exitedFlag;
  }

  /** Writes the program text (if any) to stdin and closes stdin. */
  send(input: Buffer | undefined): void {
    if (input && input.length > 0) this.io.write(input);
    this.io.end();
  }

  /**
   * Sends a signal to the container's PID 1 (init forwards it). A container that already exited
   * or is gone is not an error.
   */
  async kill(signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    await this.engine.kill(this.id, signal);
  }

  /** Waits (at most `ms`) until the output stream has ended, so late chunks are captured. */
  async drain(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.io.ended, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /**
   * Exit code and OOM flag from the engine; `exitCode` is null while the container still runs or
   * when it is already gone.
   */
  async inspectState(): Promise<{ exitCode: number | null; oomKilled: boolean; running: boolean }> {
    const gone = { exitCode: null, oomKilled: false, running: false };
    try {
      return (await this.engine.inspect(this.id)) ?? gone;
    } catch {
      return gone;
    }
  }

  /** Removes the container (forcefully); one already gone or being removed is not an error. */
  async remove(): Promise<void> {
    this.io.destroy();
    await this.engine.remove(this.id);
  }
}
