/**
 * A stand-in Docker engine implementing the sandbox host's engine seam
 * (sandbox-host/src/docker-client.ts) in memory, so the runner, the warm pool, the image store and
 * the leftover sweep run without Docker. Each container runs a scripted {@link Program} that reads
 * stdin, writes output and exits; signals end it with 128 + the signal number unless the program
 * handles them. It follows the engine's rules the seam promises: `kill` of a stopped or removed
 * container answers false (the engine's 409/404), `inspect` of a removed one undefined, `remove`
 * of a removed one is not an error, and a create with a missing image fails `not_found`.
 */
import { constants } from "node:os";
import type { Writable } from "node:stream";
import type {
  AttachedIo,
  ContainerCreateOptions,
  ContainerState,
  DockerClient,
  ListedContainer,
} from "../../sandbox-host/src/docker-client.js";
import { EngineError } from "../../sandbox-host/src/docker-client.js";

type Signal = "SIGTERM" | "SIGKILL";

/** What a program sees of its container. */
export interface ProgramIo {
  /** The create options of its container. */
  options: ContainerCreateOptions;
  /** Resolves with everything written to stdin once stdin is closed. */
  stdin: Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Ends the process (ignored once it has ended). */
  exit(code: number, opts?: { oomKilled?: boolean }): void;
  /**
   * Handles signals instead of the default (exit with 128 + signal number). SIGKILL cannot be
   * handled: it always ends the process.
   */
  onSignal(handler: (signal: Signal) => void): void;
}

/** A scripted program; runs when its container starts. */
export type Program = (io: ProgramIo) => void | Promise<void>;

/** Exits 0 after echoing stdin to stdout. */
export const echoProgram: Program = async (io) => {
  io.stdout(await io.stdin);
  io.exit(0);
};

interface StandInContainer {
  id: string;
  options: ContainerCreateOptions;
  labels: Record<string, string>;
  state: "created" | "running" | "exited";
  exitCode: number | null;
  oomKilled: boolean;
  stdinChunks: Buffer[];
  stdinClosed: () => void;
  stdinDone: Promise<void>;
  sinks?: { stdout: Writable; stderr: Writable };
  outputEnded: () => void;
  waiters: Array<(code: number | null) => void>;
  signalHandler?: (signal: Signal) => void;
}

/** In-memory engine; inspect `calls` to see what the host asked for. */
export class StandInEngine implements DockerClient {
  /** Images present. */
  readonly images = new Set<string>();
  /** Named volumes present. */
  readonly volumes = new Set<string>();
  /** Images a pull can fetch (added to `images` by the pull). */
  readonly pullable = new Set<string>();
  /** Container runtimes the engine has registered (`docker info`); tests add or remove. */
  readonly registeredRuntimes = new Set<string>(["runc"]);
  /** Live (not removed) containers by id. */
  readonly containers = new Map<string, StandInContainer>();
  /** Calls in order, e.g. `kill c1 SIGTERM false`. */
  readonly calls: string[] = [];
  /** Program of the next containers; tests replace it. */
  program: Program = echoProgram;
  /** Makes `start` fail (engine error) while set. */
  failStart = false;
  /** Makes every call fail as when the engine is down, while set. */
  down = false;
  /**
   * Runs when a kill reaches the engine, before it is delivered: a test makes the program exit
   * here to race the kill (the engine then answers "not running").
   */
  beforeKill: ((id: string) => void) | undefined;
  /** While set, every `remove` waits for it before it removes anything (a slow engine). */
  holdRemovals: Promise<void> | undefined;
  private next = 0;

  private check(): void {
    if (this.down)
      throw new EngineError("unavailable", "connect ECONNREFUSED /var/run/docker.sock");
  }

  private get(id: string): StandInContainer {
    const c = this.containers.get(id);
    if (!c) throw new EngineError("not_found", `No such container: ${id}`);
    return c;
  }

  /** Adds a container as if another process had left it behind (never started). */
  leftover(labels: Record<string, string>): string {
    const id = `left${++this.next}`;
    this.containers.set(id, this.newContainer(id, { Labels: labels }));
    return id;
  }

  private newContainer(id: string, options: ContainerCreateOptions): StandInContainer {
    let stdinClosed!: () => void;
    const stdinDone = new Promise<void>((r) => (stdinClosed = r));
    return {
      id,
      options,
      labels: { ...(options.Labels ?? {}) },
      state: "created",
      exitCode: null,
      oomKilled: false,
      stdinChunks: [],
      stdinClosed,
      stdinDone,
      outputEnded: () => {},
      waiters: [],
    };
  }

  async ping(): Promise<void> {
    this.check();
  }

  async createContainer(options: ContainerCreateOptions): Promise<string> {
    this.check();
    if (!this.images.has(String(options.Image)))
      throw new EngineError("not_found", `No such image: ${options.Image}`);
    const id = `c${++this.next}`;
    this.containers.set(id, this.newContainer(id, options));
    this.calls.push(`create ${id}`);
    return id;
  }

  async attach(id: string, stdout: Writable, stderr: Writable): Promise<AttachedIo> {
    this.check();
    const c = this.get(id);
    c.sinks = { stdout, stderr };
    const ended = new Promise<void>((r) => (c.outputEnded = r));
    return {
      write: (chunk) => void c.stdinChunks.push(chunk),
      end: () => c.stdinClosed(),
      ended,
      destroy: () => c.outputEnded(),
    };
  }

  wait(id: string): Promise<number | null> {
    const c = this.get(id);
    if (c.state === "exited") return Promise.resolve(c.exitCode);
    return new Promise((resolve) => c.waiters.push(resolve));
  }

  async start(id: string): Promise<void> {
    this.check();
    const c = this.get(id);
    this.calls.push(`start ${id}`);
    if (this.failStart) throw new EngineError("unavailable", "OCI runtime create failed");
    c.state = "running";
    const program = this.program;
    void Promise.resolve()
      .then(() => program(this.programIo(c)))
      .catch((err: unknown) => {
        this.write(c, "stderr", String(err));
        this.exit(c, 1, false);
      });
  }

  private programIo(c: StandInContainer): ProgramIo {
    return {
      options: c.options,
      stdin: c.stdinDone.then(() => Buffer.concat(c.stdinChunks).toString("utf8")),
      stdout: (text) => this.write(c, "stdout", text),
      stderr: (text) => this.write(c, "stderr", text),
      exit: (code, opts) => this.exit(c, code, opts?.oomKilled === true),
      onSignal: (handler) => {
        c.signalHandler = handler;
      },
    };
  }

  private write(c: StandInContainer, stream: "stdout" | "stderr", text: string): void {
    if (c.state !== "running" || !c.sinks) return;
    c.sinks[stream].write(Buffer.from(text, "utf8"));
  }

  private exit(c: StandInContainer, code: number, oomKilled: boolean): void {
    if (c.state !== "running") return;
    c.state = "exited";
    c.exitCode = code;
    c.oomKilled = oomKilled;
    c.outputEnded();
    for (const w of c.waiters.splice(0)) w(code);
  }

  async kill(id: string, signal: Signal): Promise<boolean> {
    this.check();
    this.beforeKill?.(id);
    const c = this.containers.get(id);
    const delivered = c?.state === "running";
    this.calls.push(`kill ${id} ${signal} ${delivered}`);
    if (!c || !delivered) return false;
    if (signal === "SIGTERM" && c.signalHandler) c.signalHandler(signal);
    else this.exit(c, 128 + constants.signals[signal], false);
    return true;
  }

  /**
   * Ends a running container's program with `code` at once, as a process that exits on its own
   * (used to make an exit race a kill).
   */
  exitNow(id: string, code: number): void {
    const c = this.containers.get(id);
    if (c) this.exit(c, code, false);
  }

  async inspect(id: string): Promise<ContainerState | undefined> {
    this.check();
    const c = this.containers.get(id);
    if (!c) return undefined;
    return { running: c.state === "running", exitCode: c.exitCode, oomKilled: c.oomKilled };
  }

  async remove(id: string): Promise<void> {
    this.check();
    if (this.holdRemovals) await this.holdRemovals;
    const c = this.containers.get(id);
    if (!c) return;
    this.calls.push(`remove ${id}`);
    if (c.state === "running") this.exit(c, 137, false);
    c.outputEnded();
    this.containers.delete(id);
  }

  async listByLabel(label: string, value: string): Promise<ListedContainer[]> {
    this.check();
    return [...this.containers.values()]
      .filter((c) => c.labels[label] === value)
      .map((c) => ({ id: c.id, labels: c.labels }));
  }

  async runtimes(): Promise<string[]> {
    this.check();
    return [...this.registeredRuntimes];
  }

  async imageExists(image: string): Promise<boolean> {
    this.check();
    return this.images.has(image);
  }

  async volumeExists(name: string): Promise<boolean> {
    this.check();
    return this.volumes.has(name);
  }

  async pullImage(image: string): Promise<void> {
    this.check();
    this.calls.push(`pull ${image}`);
    if (!this.pullable.has(image)) throw new Error(`pull access denied for ${image}`);
    this.images.add(image);
  }
}
