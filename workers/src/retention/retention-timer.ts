/**
 * Node's retention timer (docs/execution.md#retention): the Worker's cron does the same work.
 * Runs a retention pass shortly after start and then every {@link RETENTION_INTERVAL_MS}, one pass
 * at a time, yielding to the event loop between batches so executions keep being served.
 */
import type { DeleteOptions, DeleteOutcome } from "./execution-retention.js";

/** One retention pass at `now` (ms since the epoch): the executions service's `applyRetention`. */
export type RetentionPass = (
  retentionDays: number,
  now: number,
  opts: DeleteOptions,
) => Promise<DeleteOutcome>;

/** Time between retention passes on Node, in ms (10 minutes). */
export const RETENTION_INTERVAL_MS = 10 * 60_000;
/** Delay of the first pass after start, in ms. */
export const RETENTION_FIRST_DELAY_MS = 5_000;

/** A running retention timer. */
export interface RetentionTimer {
  /** Runs one pass now (waits for a pass already under way instead of starting a second one). */
  runNow(): Promise<DeleteOutcome>;
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>;
}

/**
 * Starts the timer. With `retentionDays` 0 no pass ever deletes anything and no timer is armed.
 * @param pass runs one retention pass (the executions service's `applyRetention`).
 * @param onError called with a failed pass's error (the timer keeps going).
 * @param clock ms since the epoch (default `Date.now`).
 */
export function startRetentionTimer(
  pass: RetentionPass,
  retentionDays: number,
  onError: (err: Error) => void,
  clock: () => number = Date.now,
): RetentionTimer {
  let running: Promise<DeleteOutcome> | null = null;
  let stopped = false;
  const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
  const runNow = (): Promise<DeleteOutcome> => {
    running ??= pass(retentionDays, clock(), { pause }).finally(() => {
      running = null;
    });
    return running;
  };
  const tick = () => {
    if (stopped) return;
    runNow().catch((err: unknown) => onError(err instanceof Error ? err : new Error(String(err))));
  };
  const timers: NodeJS.Timeout[] = [];
  if (retentionDays > 0) {
    timers.push(
      setTimeout(tick, RETENTION_FIRST_DELAY_MS),
      setInterval(tick, RETENTION_INTERVAL_MS),
    );
    for (const t of timers) t.unref();
  }
  return {
    runNow,
    stop: async () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await running?.catch(() => undefined);
    },
  };
}
