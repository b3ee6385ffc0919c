/**
 * One program's time in its container (docs/sandbox.md#how-a-run-ends): the program on stdin,
 * the time limit with SIGTERM then SIGKILL after a grace, output caps (the program is stopped
 * once past them), late output drained, and the exit code and OOM flag read from the engine's
 * state.
 */
import { MAX_SANDBOX_TIMEOUT_MS, type SandboxRunResult } from "@skillgate/sandbox-protocol";
import { type SandboxContainer, signalOf } from "./container.js";
import { type HostMetrics, timed } from "./metrics.js";
import type { RunPlan } from "./plan.js";

/** Extra time after the hard kill before the runner stops waiting for the engine, in ms. */
export const ENGINE_SLACK_MS = 10_000;
/** Time allowed for late output after the exit, in ms. */
const DRAIN_MS = 2_000;

/** What {@link superviseProgram} needs besides the container and the plan. */
export interface SuperviseOptions {
  /** Time between SIGTERM at the limit and SIGKILL, in ms (`SANDBOX_KILL_GRACE_MS`). */
  killGraceMs: number;
  /** The host's memory ceiling, in MB, reported in the result's limits. */
  maxMemoryMb: number;
  /**
   * Receives the program time, the time to its first output byte (not for a silent run) and the
   * drain and inspect step times.
   */
  metrics: HostMetrics;
  /** Whether the run was killed (checked once the output caps are armed). */
  isKilled: () => boolean;
  /** Time from the run's arrival to the handover, in ms, reported in the result. */
  queueWaitMs: number;
  /** The container came from the warm pool. */
  pooled: boolean;
}

/**
 * Hands `plan`'s program to a started container and waits for its end: SIGTERM at
 * `plan.timeoutMs`, SIGKILL `killGraceMs` later or as soon as either output passes its cap, and
 * at most {@link ENGINE_SLACK_MS} more for the engine (then the exit code is null). Output: the
 * run's result (`durationMs` is the program's time, in ms). The caller removes the container.
 * @throws what the engine throws while draining or inspecting the container.
 */
export async function superviseProgram(
  container: SandboxContainer,
  plan: RunPlan,
  opts: SuperviseOptions,
): Promise<SandboxRunResult> {
  const grace = opts.killGraceMs;
  let timedOut = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const hardKill = () => void container.kill("SIGKILL").catch(() => {});
  container.stdout.onOverflow = hardKill;
  container.stderr.onOverflow = hardKill;
  try {
    // Output can pass the cap before the handlers above were set (a command that prints at once).
    if (opts.isKilled() || container.stdout.truncated || container.stderr.truncated) hardKill();
    const started = performance.now();
    container.send(plan.input);
    const limitTimer = setTimeout(() => {
      timedOut = true;
      void container.kill("SIGTERM").catch(() => {});
      graceTimer = setTimeout(hardKill, grace);
    }, plan.timeoutMs);
    let slackTimer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      container.exited,
      new Promise<"slack">(
        (r) =>
          (slackTimer = setTimeout(() => r("slack"), plan.timeoutMs + grace + ENGINE_SLACK_MS)),
      ),
    ]);
    const programMs = performance.now() - started;
    const durationMs = Math.round(programMs);
    opts.metrics.observeContainerPhase("program", programMs);
    const firstByteAt = Math.min(
      container.stdout.firstByteAt ?? Number.POSITIVE_INFINITY,
      container.stderr.firstByteAt ?? Number.POSITIVE_INFINITY,
    );
    if (Number.isFinite(firstByteAt))
      opts.metrics.observeContainerPhase("output", Math.max(0, firstByteAt - started));
    clearTimeout(limitTimer);
    clearTimeout(graceTimer);
    clearTimeout(slackTimer);
    await timed(opts.metrics, "drain", () => container.drain(DRAIN_MS));
    const state = await timed(opts.metrics, "inspect", () => container.inspectState());
    const exitCode = waited === "slack" ? null : (waited ?? state.exitCode);
    const stdout = container.stdout.text();
    const stderr = container.stderr.text();
    return {
      runId: plan.runId,
      exitCode,
      signal: signalOf(exitCode),
      stdout,
      stderr,
      stdoutTruncated: container.stdout.truncated,
      stderrTruncated: container.stderr.truncated,
      truncated: container.stdout.truncated || container.stderr.truncated,
      timedOut,
      oomKilled: state.oomKilled,
      durationMs,
      queueWaitMs: opts.queueWaitMs,
      image: plan.image,
      pooled: opts.pooled,
      limits: {
        timeoutMs: plan.timeoutMs,
        memoryMb: plan.memoryMb,
        maxTimeoutMs: MAX_SANDBOX_TIMEOUT_MS,
        maxMemoryMb: opts.maxMemoryMb,
      },
    };
  } finally {
    clearTimeout(graceTimer);
  }
}
