/**
 * The streamed answer of a sandbox run (docs/sandbox.md#protocol): the host acknowledges the start
 * in a first line, then sends the result (or an error) in a second; what a failure means depends
 * on which side of the acknowledgement it fell (docs/sandbox.md#at-most-once).
 */
import { type SandboxRunResult, sandboxRunEventSchema } from "@skillgate/sandbox-protocol";
import { ExecutionFailure } from "../errors.js";
import type { RunHooks } from "./client.js";
import { hostFailure } from "./host-failure.js";

/** What {@link readRunStream} needs of the run and its client. */
export interface RunStreamContext {
  /** The host's origin, reported with the start. */
  origin: string;
  /** The caller's callbacks of the run. */
  hooks: RunHooks | undefined;
  /** The caller's signal: when it fired, the failure is `aborted`. */
  callerSignal: AbortSignal | undefined;
  /** The run's overall bound. */
  timeout: AbortSignal;
  /** The failure of a connection lost before the start (the client asks the host whether it ran). */
  beforeAck(reason: string, cause?: unknown): Promise<ExecutionFailure>;
  /** The failure of a connection lost after the start. */
  outcomeUnknown(reason: string, cause?: unknown): ExecutionFailure;
  /** Asks the host to kill the run. */
  kill(): Promise<unknown>;
}

/**
 * Reads a streamed run answer (`RUN_STREAM_CONTENT_TYPE`, docs/sandbox.md#protocol): the
 * `started` line (reported to `ctx.hooks`), then the result. Lines are found by scanning each
 * chunk once; the answer is at most two lines.
 * @throws ExecutionFailure `sandbox_error` on a malformed answer, `aborted` when the caller's
 *   signal fired, `ctx.beforeAck`'s failure when the connection failed before the start,
 *   `sandbox_outcome_unknown` when it failed after the start (the run is then killed, best
 *   effort), and the host's failure of an `error` event (never retryable: the program may have
 *   run; docs/sandbox.md#at-most-once).
 */
export async function readRunStream(
  res: Response,
  ctx: RunStreamContext,
): Promise<SandboxRunResult> {
  const { origin, hooks, callerSignal, timeout, beforeAck, outcomeUnknown } = ctx;
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let acked = false;
  let head = "";
  const rest: string[] = [];
  const malformed = () =>
    new ExecutionFailure("Sandbox host sent a malformed run answer", { code: "sandbox_error" });
  const onStart = (text: string) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw malformed();
    }
    const event = sandboxRunEventSchema.safeParse(json);
    if (!event.success || event.data.event !== "started") throw malformed();
    acked = true;
    hooks?.onStarted?.({
      host: origin,
      instance: event.data.instance,
      queueWaitMs: event.data.queueWaitMs,
    });
  };
  try {
    if (!reader) throw malformed();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      if (acked) {
        rest.push(chunk);
        continue;
      }
      const nl = chunk.indexOf("\n");
      if (nl < 0) {
        head += chunk;
        continue;
      }
      onStart(head + chunk.slice(0, nl));
      rest.push(chunk.slice(nl + 1));
    }
  } catch (err) {
    if (err instanceof ExecutionFailure) throw err;
    if (callerSignal?.aborted)
      throw new ExecutionFailure("Sandbox call was aborted", { code: "aborted" });
    const reason = timeout.aborted
      ? "no answer within its bound"
      : err instanceof Error
        ? err.message
        : String(err);
    if (!acked) throw await beforeAck(reason, err);
    void ctx.kill().catch(() => {});
    throw outcomeUnknown(reason, err);
  }
  if (!acked) throw await beforeAck("the answer ended before the start");
  const text = (rest.join("") + decoder.decode()).trim();
  if (text === "") throw outcomeUnknown("the answer ended after the start");
  let event: ReturnType<typeof sandboxRunEventSchema.safeParse>;
  try {
    event = sandboxRunEventSchema.safeParse(JSON.parse(text));
  } catch {
    throw outcomeUnknown("the answer was cut after the start");
  }
  if (!event.success) throw malformed();
  if (event.data.event === "result") return event.data.result;
  if (event.data.event === "error") {
    // A failure after the start: the program may have run, so it is never retried.
    const failure = hostFailure(500, { error: event.data.error }, null);
    throw new ExecutionFailure(failure.message, { code: failure.code, retryable: false });
  }
  throw malformed();
}
