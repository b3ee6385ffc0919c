/**
 * The streamed answer of `POST /v1/run` (docs/sandbox.md#at-most-once): the acknowledgement line
 * before the program is handed over, then the result. Used by server.ts for callers that accept
 * `application/x-ndjson`.
 */
import {
  RUN_STREAM_CONTENT_TYPE,
  type SandboxRunEvent,
  type SandboxRunResult,
} from "@skillgate/sandbox-protocol";
import { HostError } from "./errors.js";
import type { OnRunStart, RunStart } from "./runner.js";

/** One line of a streamed run answer. */
const line = (event: SandboxRunEvent) => new TextEncoder().encode(`${JSON.stringify(event)}\n`);

/**
 * `POST /v1/run` for a caller that accepts `application/x-ndjson` (docs/sandbox.md#at-most-once):
 * every failure before the program is handed over is an ordinary error answer (thrown); once it
 * is about to be handed over, 200 with the `started` line, and the program is handed over only
 * after the body stream has passed that line on to the connection (its next read). Then the
 * `result` line, or an `error` line for a failure after the start. `run` starts the run (the
 * runner's `run` with the request and its signal, `onStart` passed on); `kill` stops it by run id
 * when the caller cancels the body.
 * @throws HostError as the runner's `run`, for failures before the start.
 */
export async function streamedRun(
  run: (onStart: OnRunStart) => Promise<SandboxRunResult>,
  kill: (runId: string) => void,
  instance: string,
): Promise<Response> {
  let announce!: (start: RunStart) => void;
  const announced = new Promise<RunStart>((resolve) => (announce = resolve));
  let delivered!: () => void;
  const ackDelivered = new Promise<void>((resolve) => (delivered = resolve));
  const running = run((start) => {
    announce(start);
    return ackDelivered;
  });
  const first = await Promise.race([
    announced.then((start) => ({ start })),
    running.then((result) => ({ result })),
  ]);
  // Without an announcement the run failed before its start (thrown above) or never needed one.
  if (!("start" in first)) return Response.json(first.result satisfies SandboxRunResult);
  const { start } = first;
  let sentAck = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!sentAck) {
          sentAck = true;
          controller.enqueue(
            line({
              event: "started",
              runId: start.runId,
              instance,
              queueWaitMs: start.queueWaitMs,
            }),
          );
          return;
        }
        // The connection took the acknowledgement: the program may be handed over now.
        delivered();
        try {
          controller.enqueue(line({ event: "result", result: await running }));
        } catch (err) {
          const e =
            err instanceof HostError ? err : new HostError(500, "internal_error", undefined);
          controller.enqueue(line({ event: "error", error: { code: e.code, message: e.message } }));
        }
        controller.close();
      },
      cancel() {
        kill(start.runId);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: { "content-type": RUN_STREAM_CONTENT_TYPE, "cache-control": "no-store" },
  });
}
