/**
 * The gateway's combined abort signals (workers/src/services/gateway/signals.ts): they abort like
 * `AbortSignal.any`, and — unlike it on Node — leave nothing of a finished request reachable. The
 * memory case forces a full collection (`--expose-gc` set at run time, as the benches do) and
 * checks through a WeakRef that a finished upstream call's time budget was collected.
 */
import { getEventListeners } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { requestSignal } from "../../workers/src/services/gateway/signals.js";
import { callUpstream, TimeBudget } from "../../workers/src/services/gateway/upstream.js";
import type { UpstreamConfig } from "../../workers/src/services/proxy.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("requestSignal", () => {
  it("aborts with the reason of the first source that aborts, and then leaves the others", () => {
    const a = new AbortController();
    const b = new AbortController();
    const signal = requestSignal([a.signal, b.signal]);
    expect(signal.aborted).toBe(false);
    expect(getEventListeners(a.signal, "abort")).toHaveLength(1);
    const reason = new Error("budget spent");
    b.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
    a.abort(new Error("later"));
    expect(signal.reason).toBe(reason);
  });

  it("is aborted at once when a source already is", () => {
    const done = new AbortController();
    done.abort("client gone");
    const live = new AbortController();
    const signal = requestSignal([live.signal, done.signal]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("client gone");
    expect(getEventListeners(live.signal, "abort")).toHaveLength(0);
  });
});

const CONFIG: UpstreamConfig = {
  baseUrls: {
    openai: "http://127.0.0.1:9/v1",
    anthropic: "http://127.0.0.1:9",
    gemini: "http://127.0.0.1:9",
  },
  apiKeys: {},
};

/** A fetch answering every call with a short event stream, as an upstream does. */
const streamingFetch = (async () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('data: {"ok":true}\n\ndata: [DONE]\n\n'));
        c.close();
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  )) as unknown as typeof fetch;

/**
 * One streamed upstream call whose body is read up to its last event (not to its end, as a
 * renderer that has seen `[DONE]` does); the budget disposed as the gateway does.
 * @returns a WeakRef to the call's time budget.
 */
async function finishedCall(): Promise<WeakRef<TimeBudget>> {
  const client = new AbortController();
  const budget = new TimeBudget(60_000);
  const res = await callUpstream(streamingFetch, CONFIG, {
    format: "openai-chat",
    stream: true,
    body: { model: "m", messages: [] },
    clientHeaders: new Headers({ authorization: "Bearer sg_client" }),
    signal: client.signal,
    budget,
    idleMs: 30_000,
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(new TextDecoder().decode(first.value)).toContain("[DONE]");
  budget.dispose();
  return new WeakRef(budget);
}

describe("a finished upstream call", () => {
  it("leaves its request collectable (no listener kept alive process-wide)", async () => {
    const refs: WeakRef<TimeBudget>[] = [];
    for (let i = 0; i < 20; i++) refs.push(await finishedCall());
    // WeakRef targets stay alive until the job that created the WeakRef has ended, and a busy
    // machine may leave a finished stream's last callbacks for a later turn: a few collections,
    // a turn apart (a request kept by a listener stays alive through all of them).
    let alive = refs.length;
    for (let i = 0; i < 10 && alive > 0; i++) {
      await new Promise((r) => setImmediate(r));
      gc();
      alive = refs.filter((r) => r.deref() !== undefined).length;
    }
    expect(alive).toBe(0);
  });
});

describe("a long upstream stream", () => {
  it("keeps nothing per read: 200,000 reads hold no more memory than 2,000", async () => {
    const one = new Uint8Array([10]);
    // An endless body of one-byte chunks, produced as they are read.
    const endless = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(one) }, { highWaterMark: 0 }),
        { headers: { "content-type": "text/event-stream" } },
      )) as unknown as typeof fetch;
    const budget = new TimeBudget(600_000);
    const res = await callUpstream(endless, CONFIG, {
      format: "openai-chat",
      stream: true,
      body: { model: "m", messages: [] },
      clientHeaders: new Headers(),
      signal: new AbortController().signal,
      budget,
      idleMs: 60_000,
    });
    const reader = res.body!.getReader();
    for (let i = 0; i < 2_000; i++) await reader.read();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) await reader.read();
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    await reader.cancel();
    budget.dispose();
    // Racing each read against one promise that never settles kept ~200 bytes per read (~40 MB).
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  });
});
