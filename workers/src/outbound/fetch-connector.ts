/**
 * The Worker's connector for `http_request`: the platform `fetch` with `redirect: "manual"`, so a
 * 3xx comes back as is. It cannot pin an address (the runtime resolves names itself); see the
 * guard's docstring for the Worker's egress rules. Bundled into the Worker: no `node:` imports.
 */
import type { OutboundConnector, OutboundResponse } from "./types.js";

async function* chunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  while (true) {
    const { done, value } = await reader.read();
    if (done) return;
    if (value && value.length > 0) yield value;
  }
}

/**
 * Builds a connector over a fetch implementation.
 * @param fetchImpl the platform fetch (default: the global one, called through a wrapper since
 *   workerd refuses a detached `fetch`).
 * @returns a connector that rejects on network errors and aborts; its `cancel` cancels the body.
 */
export function createFetchConnector(
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
): OutboundConnector {
  return async (req): Promise<OutboundResponse> => {
    const res = await fetchImpl(req.url.href, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: "manual",
      signal: req.signal,
    });
    const reader = res.body?.getReader() ?? null;
    let cancelled = false;
    return {
      status: res.status,
      statusText: res.statusText,
      headers: [...res.headers.entries()],
      body: reader ? chunks(reader) : null,
      cancel() {
        if (cancelled || !reader) return;
        cancelled = true;
        reader.cancel().catch(() => {});
      },
    };
  };
}
