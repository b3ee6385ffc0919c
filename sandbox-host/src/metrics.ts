/**
 * The metrics seam of the sandbox host. The server, runner and warm pool report through
 * {@link HostMetrics}; the entry (main.ts) plugs in the Prometheus backend (prometheus.ts), and
 * {@link noopHostMetrics} is the default, so nothing here imports a metrics library.
 */
import type { SandboxLanguage, SandboxRunKind } from "@skillgate/sandbox-protocol";

/**
 * How a started run ended: `success` (exit code 0), `failure` (another exit code or none),
 * `timeout` (stopped by its time limit), `oom` (killed for memory), `killed` (by a kill call).
 */
export type RunOutcome = "success" | "failure" | "timeout" | "oom" | "killed";

/**
 * Container lifecycle steps that are timed: `create` (create + attach + wait registration),
 * `start`, `handover` (the start acknowledgement to the caller, before the program is sent),
 * `program` (program sent → exit reported), `output` (program sent → its first output byte, the
 * part of `program` the program itself needs to answer; not reported for a silent run), `drain` (exit → end of the output stream),
 * `inspect` (exit code and OOM flag), `remove`.
 */
export type ContainerPhase =
  | "create"
  | "start"
  | "handover"
  | "program"
  | "output"
  | "drain"
  | "inspect"
  | "remove";

/** Live state read at scrape time (gauges). */
export interface HostState {
  /** The image and container runtime of each kind of run (fixed by the configuration). */
  images(): Array<{ kind: SandboxRunKind; image: string; runtime: string }>;
  /** Runs holding a concurrency slot. */
  running(): number;
  /** Runs waiting for a slot. */
  queued(): number;
  /** Ready pre-started containers per image. */
  poolReady(): Record<string, number>;
}

/** Where the host reports what happened. Implementations never throw. */
export interface HostMetrics {
  /** One answered HTTP request; `route` is the route pattern or `unmatched`; duration in ms. */
  observeRequest(sample: {
    method: string;
    route: string;
    status: number;
    durationMs: number;
  }): void;
  /**
   * One run that started in a container; duration of the program in ms. `kind` is the run's
   * language, or `browser` for a browse.
   */
  observeRun(sample: {
    kind: SandboxRunKind;
    outcome: RunOutcome;
    durationMs: number;
    pooled: boolean;
  }): void;
  /** One run refused before it started, by error code (`busy`, `image_not_allowed`, ...). */
  countRefusedRun(code: string): void;
  /** Time a run waited for a concurrency slot, in ms. */
  observeQueueWait(ms: number): void;
  /** A poolable run found a ready container (`hit`) or had to create one (`miss`). */
  countPoolTake(language: SandboxLanguage, hit: boolean): void;
  /** Time one container lifecycle step took, in ms. */
  observeContainerPhase(phase: ContainerPhase, ms: number): void;
  /** Registers the live state the gauges read (called once by the server). */
  watch(state: HostState): void;
  /** Present on pull-based backends: the Prometheus text exposition, served at `/metrics`. */
  scrape?(): Promise<{ contentType: string; body: string }>;
}

/** Reports nothing. */
export const noopHostMetrics: HostMetrics = {
  observeRequest() {},
  observeRun() {},
  countRefusedRun() {},
  observeQueueWait() {},
  countPoolTake() {},
  observeContainerPhase() {},
  watch() {},
};

/** Runs `step` and reports its duration as `phase` (also when it throws). */
export async function timed<T>(
  metrics: HostMetrics,
  phase: ContainerPhase,
  step: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    metrics.observeContainerPhase(phase, performance.now() - started);
  }
}
