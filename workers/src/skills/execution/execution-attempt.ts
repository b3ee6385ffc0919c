/**
 * One attempt of an execution (README "Time limits"): a handler call raced against the
 * execution's abort signal, with whatever it throws normalised to an {@link ExecutionFailure}.
 */
import { ExecutionFailure } from "../../errors.js";
import { jsonDepthExceeds, MAX_VALUE_DEPTH, valueDepthExceeds } from "../../json-depth.js";
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
 * a `timeout` failure, even when the handler ignores the signal. An output (or a failure's
 * output) nested deeper than {@link MAX_VALUE_DEPTH} levels ends the attempt as the failure
 * {@link outputTooDeep} (docs/execution.md#output-depth). Never rejects.
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
        (output): AttemptOutcome =>
          valueDepthExceeds(output, MAX_VALUE_DEPTH)
            ? { ok: false, failure: outputTooDeep() }
            : { ok: true, output: output === undefined ? null : output },
        (err): AttemptOutcome => {
          const failure = toFailure(err);
          return valueDepthExceeds(failure.output, MAX_VALUE_DEPTH)
            ? { ok: false, failure: outputTooDeep(failure.message) }
            : { ok: false, failure };
        },
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

/**
 * The failure of an attempt whose output nests deeper than {@link MAX_VALUE_DEPTH} levels
 * (docs/execution.md#output-depth): code `output_too_deep`, not retryable, and in place of the
 * output a marker `{ truncated: true, reason, excerpt? }`.
 * @param excerptOrMessage the start of the output's text when the handler has it (e.g. an HTTP
 *   answer or a program's stdout), else the handler's own failure message; at most 1000
 *   characters are kept.
 */
export function outputTooDeep(excerptOrMessage?: string): ExecutionFailure {
  const reason = `the output nests deeper than ${MAX_VALUE_DEPTH} levels`;
  return new ExecutionFailure(`The skill's output cannot be kept: ${reason}`, {
    code: "output_too_deep",
    output: {
      truncated: true,
      reason,
      ...(excerptOrMessage ? { excerpt: excerptOrMessage.slice(0, 1000) } : {}),
    },
  });
}

/**
 * A handler's text answer as its output: the JSON value when the text is JSON, else the text
 * itself (docs/custom-skills.md).
 * @param text non-empty text (an HTTP answer's body, a program's stdout).
 * @throws ExecutionFailure `output_too_deep` when the text is JSON nested deeper than
 *   {@link MAX_VALUE_DEPTH} levels (text that is not JSON stays text, however many brackets).
 */
export function parseJsonOutput(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (jsonDepthExceeds(text, MAX_VALUE_DEPTH)) throw outputTooDeep(text);
  return value;
}
