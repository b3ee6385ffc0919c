/**
 * The one seam between the sandbox host and a Docker engine. The runner, the warm pool, the image
 * store and the leftover sweep use only this interface; `dockerode-client.ts` implements it over
 * the Docker Engine API, and tests implement it with a stand-in engine. The races the engine
 * reports (a container already gone: 404; already stopped: 304; not running or being removed:
 * 409) are settled by the implementation, so callers see plain outcomes instead of status codes.
 */
import type { Writable } from "node:stream";
import type Docker from "dockerode";

/** Body of a container create: the Docker Engine API's `ContainerCreate` options. */
export type ContainerCreateOptions = Docker.ContainerCreateOptions;

/** Engine state of a container. */
export interface ContainerState {
  running: boolean;
  /** Exit status once the container has stopped; null while it runs. */
  exitCode: number | null;
  /** Whether the kernel OOM killer fired in the container. */
  oomKilled: boolean;
}

/** A container found by label. */
export interface ListedContainer {
  id: string;
  labels: Readonly<Record<string, string>>;
}

/** Standard streams of an attached container. */
export interface AttachedIo {
  /** Writes bytes to the container's stdin. */
  write(chunk: Buffer): void;
  /** Closes stdin: the program reads end-of-file. */
  end(): void;
  /** Resolves once the output stream has ended (every chunk was handed to the sinks). */
  readonly ended: Promise<void>;
  /** Tears the connection down (no more output is delivered). */
  destroy(): void;
}

/** Why an engine call failed. */
export type EngineErrorKind =
  /** No such container or image (404). */
  | "not_found"
  /** The engine refused the call in the container's current state (409). */
  | "conflict"
  /** The engine did not answer, or answered with a server error. */
  | "unavailable";

/** A failed engine call; `message` may name internal hosts, so it goes to the log only. */
export class EngineError extends Error {
  /**
   * @param kind what went wrong, independent of the engine's wording.
   * @param message the engine's message.
   * @param options `cause`: the underlying error.
   */
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "EngineError";
  }
}

/**
 * What the sandbox host needs from a Docker engine. Every method rejects with
 * {@link EngineError} when the engine fails, unless its documentation says the failure is an
 * outcome.
 */
export interface DockerClient {
  /** Resolves when the engine answers. */
  ping(): Promise<void>;
  /**
   * Creates a container (not started). Output: its id.
   * @throws EngineError `not_found` when the image is not present.
   */
  createContainer(options: ContainerCreateOptions): Promise<string>;
  /**
   * Attaches to stdin, stdout and stderr of a created container (call before `start`, so no
   * output is lost); stdout and stderr are written to the given sinks.
   */
  attach(id: string, stdout: Writable, stderr: Writable): Promise<AttachedIo>;
  /**
   * Waits for the container's next exit (call before `start`). Output: the exit status, or null
   * when the engine reported none.
   */
  wait(id: string): Promise<number | null>;
  /** Starts a created container. */
  start(id: string): Promise<void>;
  /**
   * Sends a signal to the container's PID 1. Output: false when the container is not running
   * or no longer exists (the signal raced its exit), true when it was delivered.
   */
  kill(id: string, signal: "SIGTERM" | "SIGKILL"): Promise<boolean>;
  /** Engine state of a container; undefined when it no longer exists. */
  inspect(id: string): Promise<ContainerState | undefined>;
  /** Removes a container, running or not; one already gone or being removed is not an error. */
  remove(id: string): Promise<void>;
  /** Containers (running or not) whose label `label` equals `value`. */
  listByLabel(label: string, value: string): Promise<ListedContainer[]>;
  /** Names of the container runtimes registered with the engine (`docker info`'s `Runtimes`). */
  runtimes(): Promise<string[]>;
  /** Whether an image is present on the engine. */
  imageExists(image: string): Promise<boolean>;
  /** Whether a named volume exists on the engine. */
  volumeExists(name: string): Promise<boolean>;
  /**
   * Pulls an image, giving up after `timeoutMs` ms.
   * @throws Error naming the failure (registry unreachable, unknown image, timeout).
   */
  pullImage(image: string, timeoutMs: number): Promise<void>;
}
