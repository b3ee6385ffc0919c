/**
 * A byte stream passed on as it is read (pull-based, nothing read ahead), with a callback run
 * once when it ends, fails or is cancelled by its reader: how the gateway releases a request's
 * budget after a relayed answer, and how the proxy door tells the runtime that a streamed answer
 * is over (docs/proxy.md#streaming).
 */

/**
 * `body` relayed as it is; `done` runs exactly once, at the first of its end, its failure (the
 * error is passed on) or its cancellation (the reason is passed to `body`).
 */
export function relayStream(
  body: ReadableStream<Uint8Array>,
  done: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    done();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const r = await reader.read();
          if (r.done) {
            finish();
            controller.close();
          } else controller.enqueue(r.value);
        } catch (err) {
          finish();
          controller.error(err);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
