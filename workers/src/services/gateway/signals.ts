/**
 * Abort signals of one gateway request, combined without `AbortSignal.any`.
 *
 * Node keeps a signal made by `AbortSignal.any` in a process-wide set for as long as it has an
 * abort listener and one of its sources can still abort, so that a source's abort still reaches
 * it; a request that ends without aborting (the normal case) leaves it there, and with it
 * whatever its listeners reach — the request's body, headers and time budget, about 16 KB per
 * streamed proxy request, measured with heap snapshots. The signals combined here all belong to
 * the one request (the client's disconnect, its time budget, an idle timer), so a plain listener
 * on each is enough: they are collected together with the request.
 */

/**
 * A signal that aborts, with the same reason, as soon as one of `sources` aborts (at once when one
 * already has). Listeners stay on the sources only, which must live no longer than the request.
 */
export function requestSignal(sources: readonly AbortSignal[]): AbortSignal {
  const controller = new AbortController();
  const already = sources.find((s) => s.aborted);
  if (already) {
    controller.abort(already.reason);
    return controller.signal;
  }
  const onAbort = (event: Event) => {
    for (const s of sources) s.removeEventListener("abort", onAbort);
    controller.abort((event.target as AbortSignal).reason);
  };
  for (const s of sources) s.addEventListener("abort", onAbort, { once: true });
  return controller.signal;
}
