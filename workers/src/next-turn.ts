/**
 * Yielding to the event loop, for background work that runs on it (a write on the embedded
 * database executes synchronously inside its promise): work split into pieces with a turn between
 * them lets the requests that arrived meanwhile run first, so none waits for the whole.
 * `setImmediate` where the runtime has it (Node; the Worker with `nodejs_compat`), else
 * `setTimeout(…, 0)` (the HTML timers rules).
 */

/** Runs `fn` after the current turn of the event loop, once pending I/O callbacks have run. */
export function scheduleNextTurn(fn: () => void): void {
  const immediate = (globalThis as { setImmediate?: (cb: () => void) => unknown }).setImmediate;
  if (immediate) immediate(fn);
  else setTimeout(fn, 0);
}

/** Resolves after the current turn of the event loop ({@link scheduleNextTurn}). */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => scheduleNextTurn(resolve));
}
