/**
 * The API-side view of the sandbox host (SPEC §6; DESIGN.md "Protocol between API and sandbox
 * host"). Implemented by a signing HTTP client in `client.ts`.
 */

/** One run request. Code/commands reach the container on stdin or as argv, never via a shell string. */
export interface SandboxRunRequest {
  /** `node` / `python` run `code`; `shell` runs `command` + `args` as argv. */
  language: "node" | "python" | "shell";
  code?: string;
  command?: string;
  args?: string[];
  /** Hard time limit in ms (capped at 60 000 by the host). */
  timeoutMs: number;
  /** Asks for bridge networking; honoured only when the host's master gate is on. */
  networkEnabled?: boolean;
  /** CPU in thousandths of a CPU (100 = 0.1 CPU). */
  cpuLimit?: number;
  /** Memory limit in MB. */
  memoryLimit?: number;
  /** Extra environment variables (only names on the host's allowlist pass). */
  env?: Record<string, string>;
  /** Caller-chosen id, so `kill(runId)` can stop the run on abort. */
  runId?: string;
}

/** One run result (SPEC §5 "Outcomes"). */
export interface SandboxRunResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  truncated: boolean;
  timedOut: boolean;
  oomKilled: boolean;
  durationMs: number;
  image: string;
}

/** Signed client for the sandbox host. Errors: `ExecutionFailure` with code `sandbox_unavailable` (retryable) etc. */
export interface SandboxClient {
  run(req: SandboxRunRequest, signal?: AbortSignal): Promise<SandboxRunResult>;
  kill(runId: string): Promise<void>;
  health(): Promise<Record<string, unknown>>;
}
