/**
 * One attempt of an execution (README "Time limits"): a handler call raced against the
 * execution's abort signal, with whatever it throws normalised to an {@link ExecutionFailure}.
 */
import { ExecutionFailure } from "../../errors.js";
import type { SkillHandler } from "../types.js";

/** How an attempt ended. */
export type AttemptOutcome =
  | { ok: true; output: unknown }
  | { ok: false; failure: ExecutionFailure };

/**
 * Waits `ms` milliseconds, or less when `signal` aborts first. Never rejects.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * Runs one handler attempt, racing it against `ctx.signal`: an abort ends the attempt at once as
 * a `timeout` failure, even when the handler ignores the signal. Never rejects.
 */
export async function runAttempt(
  handler: SkillHandler,
  input: unknown,
  ctx: Parameters<SkillHandler>[1],
): Promise<AttemptOutcome> {
  const { signal } = ctx;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<AttemptOutcome>((resolve) => {
    onAbort = () =>
      resolve({ ok: false, failure: new ExecutionFailure("timed out", { status: "timeout" }) });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([
      handler(input, ctx).then(
        (output): AttemptOutcome => ({ ok: true, output: output === undefined ? null : output }),
        (err): AttemptOutcome => ({ ok: false, failure: toFailure(err) }),
      ),
      aborted,
    ]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/**
 * Normalises anything a handler throws to an {@link ExecutionFailure} (keeping `retryable` and
 * `code` of plain errors that carry them).
 */
export function toFailure(err: unknown): ExecutionFailure {
  if (err instanceof ExecutionFailure) return err;
  const e = err as { message?: unknown; retryable?: unknown; code?: unknown } | null;
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  return new ExecutionFailure(message, {
    retryable: e?.retryable === true,
    code: typeof e?.code === "string" ? e.code : "handler_error",
  });
}
