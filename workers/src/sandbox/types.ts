/**
 * The API-side view of the sandbox host (docs/sandbox.md#protocol). Implemented by the signing HTTP
 * client in `client.ts`; served by `sandbox-host/`. The wire format is exactly these shapes as JSON
 * (`POST /v1/run` takes a {@link SandboxRunRequest} and answers a {@link SandboxRunResult}).
 */

/** Languages the host knows; each maps to one image on the host (`SANDBOX_IMAGE_*`). */
export type SandboxLanguage = "node" | "python" | "shell";

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
   * Time limit in ms, counted from the host's receipt of the request (a wait for a slot is taken
   * from it); default the host's `SKILLS_SANDBOX_TIMEOUT_MS`; capped at 60 000.
   */
  timeoutMs?: number;
  /** Asks for bridge networking; honoured only when the host's master gate is on. */
  networkEnabled?: boolean;
  /** CPU in thousandths of a CPU (default 100 = 0.1 CPU). */
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

/** One run result (docs/sandbox.md#protocol). */
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
  /** Wall time from handing over the program to the exit, in ms. */
  durationMs: number;
  /** The normalised image that ran (`name:tag`). */
  image: string;
  /** Whether a pre-started pooled container served the run. */
  pooled: boolean;
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
  images: Record<SandboxLanguage, string>;
};

/**
 * Signed client for the sandbox host. Every method throws `ExecutionFailure` (workers/src/errors.ts):
 * `sandbox_unavailable` (retryable) when the host cannot be reached or does not answer in time,
 * `sandbox_busy` (retryable) on 429, the host's error code otherwise.
 */
export interface SandboxClient {
  /** Runs one program; `signal` aborts the HTTP call (the caller also calls `kill(runId)`). */
  run(req: SandboxRunRequest, signal?: AbortSignal): Promise<SandboxRunResult>;
  /** Stops a queued or running run (best effort; an unknown or finished run is not an error). */
  kill(runId: string): Promise<void>;
  health(): Promise<SandboxHealth>;
}
