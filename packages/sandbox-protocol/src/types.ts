/**
 * Shapes exchanged between the API and the sandbox host. The wire format is exactly these shapes
 * as JSON: `POST /v1/run` takes a {@link SandboxRunRequest} and answers a {@link SandboxRunResult},
 * `POST /v1/kill/{runId}` answers a {@link SandboxKillResult}, `GET /v1/health` a
 * {@link SandboxHealth}, and every failure a {@link SandboxErrorBody}.
 */

/** Upper bound of a sandbox time limit in ms: a run never lasts longer than 60 s. */
export const MAX_SANDBOX_TIMEOUT_MS = 60_000;

/** Languages the host knows; each maps to one image on the host (`SANDBOX_IMAGE_*`). */
export type SandboxLanguage = "node" | "python" | "shell";

/**
 * What a sandbox container is started for: a program in one of the {@link SandboxLanguage}s, or
 * the `browser` builtin (`POST /v1/browse`, image `SANDBOX_IMAGE_BROWSER`). Keys the host's images
 * in {@link SandboxHealth} and labels its run metrics (docs/sandbox.md).
 */
export type SandboxRunKind = SandboxLanguage | "browser";

/**
 * One run request. `node` / `python` receive `code` on stdin (never argv, so 200 KB of code
 * works); `shell` runs `command` + `args` as argv (never a shell string).
 */
export interface SandboxRunRequest {
  language: SandboxLanguage;
  /** Program text for `node` / `python` (UTF-8, sent on stdin). */
  code?: string;
  /** Executable for `shell` (looked up on the image's PATH). */
  command?: string;
  /** Arguments for `shell`, passed as argv. */
  args?: string[];
  /**
   * The program's time limit in ms, counted from the moment its program is handed over (a wait for
   * a slot is not taken from it); default the host's `SKILLS_SANDBOX_TIMEOUT_MS`; capped at
   * {@link MAX_SANDBOX_TIMEOUT_MS}.
   */
  timeoutMs?: number;
  /**
   * Longest wait for a slot in ms; past it the run is refused with 429 `queue_timeout` and never
   * starts. Capped by the host's `SANDBOX_QUEUE_TIMEOUT_MS`, which is also the default.
   */
  queueTimeoutMs?: number;
  /** Asks for bridge networking; honoured only when the host's master gate is on. */
  networkEnabled?: boolean;
  /** CPU in thousandths of a CPU (100 = 0.1 CPU, the default). */
  cpuLimit?: number;
  /** Memory limit in MB (swap equals memory; default 256). */
  memoryLimit?: number;
  /** Extra environment variables; names outside the host's allowlist are rejected (400). */
  env?: Record<string, string>;
  /** An explicit image instead of the language's one; must be on the host's allowlist. */
  image?: string;
  /** Caller-chosen id (`[A-Za-z0-9_.-]{1,100}`), so `kill(runId)` can stop the run on abort. */
  runId?: string;
}

/** One run result: every run that started ends with one, whatever its exit, timeout or OOM. */
export interface SandboxRunResult {
  /** The run's id (the caller's `runId`, or one the host chose). */
  runId: string;
  /** Exit status of the container's main process; `null` when it never ran to an exit. */
  exitCode: number | null;
  /** Signal name (`SIGKILL`, `SIGTERM`, ...) when the exit code says the process was signalled. */
  signal: string | null;
  /** Captured stdout, decoded as UTF-8 (invalid bytes replaced), at most the host's char cap. */
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** `stdoutTruncated || stderrTruncated`; the host stops a run whose output passes the cap. */
  truncated: boolean;
  /** The time limit ended the run (SIGTERM, then SIGKILL after a grace); output is partial. */
  timedOut: boolean;
  /** The kernel OOM killer fired in the container (reported apart from the exit code). */
  oomKilled: boolean;
  /** Wall time from handing over the program to the exit, in ms (the program's time). */
  durationMs: number;
  /**
   * Time the run waited on the host before its program was handed over, in ms: the wait for a
   * slot and the container's start (docs/sandbox.md#queue-wait-and-program-time). Absent from
   * hosts of older versions.
   */
  queueWaitMs?: number;
  /** The normalised image that ran (`name:tag`). */
  image: string;
  /** Whether a pre-started pooled container served the run. */
  pooled: boolean;
  /**
   * The limits the run had and the most the host allows, so a caller can retry with larger ones
   * (docs/execution.md#auto-upgrade); absent from hosts of older versions.
   */
  limits?: SandboxRunLimits;
}

/** Limits of one run and the host's maxima. Units: ms and MB. */
export interface SandboxRunLimits {
  /** Time limit the program ran with (after any wait for a slot). */
  timeoutMs: number;
  /** Memory limit of the container (swap equals memory). */
  memoryMb: number;
  /** Largest time limit the host grants ({@link MAX_SANDBOX_TIMEOUT_MS}). */
  maxTimeoutMs: number;
  /** Largest memory limit the host grants (`SANDBOX_MAX_MEMORY_MB`). */
  maxMemoryMb: number;
}

/** Health of the sandbox host as `GET /v1/health` reports it. */
export type SandboxHealth = {
  ok: boolean;
  docker: boolean;
  running: number;
  queued: number;
  maxConcurrency: number;
  maxQueue: number;
  /** Ready pooled containers per image. */
  pool: Record<string, number>;
  /**
   * The image of each language, and `browser`: the image of the browser builtin (absent from
   * hosts of older versions).
   */
  images: Record<SandboxLanguage, string> & { browser?: string };
  /**
   * The container runtime of each kind of run, by the keys of `images`: `runc` (Docker's
   * default) or `runsc` (gVisor). Absent from hosts of older versions.
   */
  runtimes?: Partial<Record<SandboxRunKind, string>>;
  /**
   * Whether each image of `images` is present in the host's Docker engine, by the same keys:
   * `false` means the next run of that kind first pulls it (and fails with `image_unavailable`
   * when no registry serves it); `null` means unknown (not checked yet, or the engine did not
   * answer). Checked in the background and cached for a few seconds, so it can lag a pull or a
   * removal. Absent from hosts of older versions.
   */
  imagesPresent?: Partial<Record<SandboxRunKind, boolean | null>>;
  /** When `imagesPresent` was last checked (ISO-8601); null before the first check. */
  imagesCheckedAt?: string | null;
  /** The host's container label (`SANDBOX_INSTANCE`); absent from hosts of older versions. */
  instance?: string;
};

/** Answer of `POST /v1/kill/{runId}`: false when the run is unknown or already finished. */
export interface SandboxKillResult {
  killed: boolean;
  /**
   * For a known run: whether its program had been handed over before the kill (`false`: it was
   * still waiting, and now never starts). Absent for an unknown run and from older hosts.
   */
  started?: boolean;
}

/**
 * Media type of a streamed run answer (docs/sandbox.md#at-most-once): a client that sends
 * `Accept: application/x-ndjson` to `POST /v1/run` gets, once the program is about to be handed
 * over, 200 with one {@link SandboxRunEvent} per line: first `started`, then `result` or `error`.
 * Every failure before that point is an ordinary error answer.
 */
export const RUN_STREAM_CONTENT_TYPE = "application/x-ndjson";

/**
 * One line of a streamed run answer: `started` (the acknowledgement: the program is handed over
 * right after it was written), then the `result`, or an `error` that happened after the start.
 */
export type SandboxRunEvent =
  | {
      event: "started";
      runId: string;
      /** The host's container label (`SANDBOX_INSTANCE`). */
      instance: string;
      /** Time the run waited for a slot and a container, in ms. */
      queueWaitMs: number;
    }
  | { event: "result"; result: SandboxRunResult }
  | { event: "error"; error: { code: string; message: string } };

/** Error body of every failed host request: `{ error: { code, message } }` (codes: errors.ts). */
export interface SandboxErrorBody {
  error: { code: string; message: string };
}
