/**
 * Captures what code under test writes to `console.log` / `console.error` / `console.warn`, so that
 * expected log lines are asserted rather than printed (and a secret a start-up line shows never
 * reaches the test output). Works on Node and inside workerd (no Node APIs).
 */
import { vi } from "vitest";

/** A capture in progress: the lines written so far, one string per console call. */
export interface ConsoleCapture {
  readonly lines: string[];
  /** Restores the console. */
  restore(): void;
}

/** Starts capturing the console; call `restore()` (e.g. in `finally` or `afterEach`). */
export function captureConsole(): ConsoleCapture {
  const lines: string[] = [];
  const record = (...args: unknown[]) => {
    lines.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  };
  const spies = [
    vi.spyOn(console, "log").mockImplementation(record),
    vi.spyOn(console, "error").mockImplementation(record),
    vi.spyOn(console, "warn").mockImplementation(record),
  ];
  return {
    lines,
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
