/**
 * {@link DockerClient} over the Docker Engine API with dockerode (never the CLI). The only file of
 * the host that imports dockerode at run time, and the one place where the engine's status codes
 * are read: 404 (no such container or image), 304 (already in that state) and 409 (not running,
 * removal in progress) become outcomes or an {@link EngineError} kind.
 * Engine API reference: https://docs.docker.com/reference/api/engine/
 */
import type { Duplex, Writable } from "node:stream";
import Docker from "dockerode";
import {
  type AttachedIo,
  type ContainerCreateOptions,
  type ContainerState,
  type DockerClient,
  EngineError,
  type ListedContainer,
} from "./docker-client.js";

/** HTTP status of a dockerode (docker-modem) error; undefined for a connection failure. */
function statusOf(err: unknown): number | undefined {
  const code = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof code === "number" ? code : undefined;
}

/**
 * Whether an error of `kill` or `remove` only says the container is already where the call
 * wanted it: gone (404), already stopped (304), not running or being removed (409).
 */
export function isSettledRace(err: unknown): boolean {
  const status = statusOf(err);
  return status === 404 || status === 304 || status === 409;
}

/**
 * Maps an error of dockerode to an {@link EngineError}: 404 → `not_found`, 409 → `conflict`,
 * anything else (no answer, 5xx, unexpected status) → `unavailable`. The message keeps the
 * engine's first line; the original error is the `cause`.
 */
export function engineErrorOf(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const status = statusOf(err);
  const kind = status === 404 ? "not_found" : status === 409 ? "conflict" : "unavailable";
  const text = err instanceof Error ? err.message : String(err);
  return new EngineError(kind, text.split("\n")[0] ?? text, { cause: err });
}

/** Runs an engine call, turning its failure into an {@link EngineError}. */
async function engineCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw engineErrorOf(err);
  }
}

/** The Docker engine through dockerode. */
export class DockerodeClient implements DockerClient {
  /** @param docker dockerode instance (socket, host or DOCKER_HOST as dockerode resolves it). */
  constructor(private readonly docker: Docker) {}

  /** A client of the engine at `socketPath`, or of dockerode's default (DOCKER_HOST, the socket). */
  static connect(socketPath?: string): DockerodeClient {
    return new DockerodeClient(new Docker(socketPath ? { socketPath } : undefined));
  }

  async ping(): Promise<void> {
    await engineCall(() => this.docker.ping());
  }

  async createContainer(options: ContainerCreateOptions): Promise<string> {
    const container = await engineCall(() => this.docker.createContainer(options));
    return container.id;
  }

  async attach(id: string, stdout: Writable, stderr: Writable): Promise<AttachedIo> {
    const stream = (await engineCall(() =>
      this.docker.getContainer(id).attach({
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        hijack: true,
      }),
    )) as unknown as Duplex;
    stream.on("error", () => {});
    this.docker.modem.demuxStream(stream, stdout, stderr);
    const ended = new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
    });
    return {
      write: (chunk) => void stream.write(chunk),
      end: () => void stream.end(),
      ended,
      destroy: () => void stream.destroy(),
    };
  }

  async wait(id: string): Promise<number | null> {
    const result = (await engineCall(() =>
      this.docker.getContainer(id).wait({ condition: "next-exit" }),
    )) as { StatusCode?: unknown } | undefined;
    return typeof result?.StatusCode === "number" ? result.StatusCode : null;
  }

  async start(id: string): Promise<void> {
    await engineCall(() => this.docker.getContainer(id).start());
  }

  async kill(id: string, signal: "SIGTERM" | "SIGKILL"): Promise<boolean> {
    try {
      await this.docker.getContainer(id).kill({ signal });
      return true;
    } catch (err) {
      if (isSettledRace(err)) return false;
      throw engineErrorOf(err);
    }
  }

  async inspect(id: string): Promise<ContainerState | undefined> {
    try {
      const { State } = await this.docker.getContainer(id).inspect();
      const running = State.Running === true;
      return {
        running,
        exitCode: running ? null : (State.ExitCode ?? null),
        oomKilled: State.OOMKilled === true,
      };
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw engineErrorOf(err);
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true });
    } catch (err) {
      if (!isSettledRace(err)) throw engineErrorOf(err);
    }
  }

  async listByLabel(label: string, value: string): Promise<ListedContainer[]> {
    const list = await engineCall(() =>
      this.docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: [`${label}=${value}`] }),
      }),
    );
    return list.map((c) => ({ id: c.Id, labels: c.Labels ?? {} }));
  }

  async runtimes(): Promise<string[]> {
    const info = (await engineCall(() => this.docker.info())) as { Runtimes?: unknown };
    const runtimes = info.Runtimes;
    return runtimes && typeof runtimes === "object" ? Object.keys(runtimes) : [];
  }

  async imageExists(image: string): Promise<boolean> {
    try {
      await this.docker.getImage(image).inspect();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw engineErrorOf(err);
    }
  }

  async volumeExists(name: string): Promise<boolean> {
    try {
      await this.docker.getVolume(name).inspect();
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw engineErrorOf(err);
    }
  }

  async pullImage(image: string, timeoutMs: number): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMs);
    const stream = (await this.docker.pull(image, {
      abortSignal: signal,
    })) as NodeJS.ReadableStream & { destroy?: () => void };
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        stream.destroy?.();
        reject(new Error(`pull timed out after ${timeoutMs} ms`));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.docker.modem.followProgress(
        stream,
        (err: Error | null, events: Array<{ error?: string }>) => {
          signal.removeEventListener("abort", onAbort);
          const failed = events?.find((e) => e.error);
          if (err) reject(err);
          else if (failed) reject(new Error(failed.error));
          else resolve();
        },
      );
    });
  }
}
