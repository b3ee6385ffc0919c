/**
 * The sandbox host's concurrency limit (sandbox-host/src/limiter.ts): slots, a FIFO queue, 429
 * `busy` with a Retry-After when the queue is full or the wait is too long, 409 `killed` when a
 * queued run is killed, 503 `shutting_down` for waiting runs at shutdown.
 */
import { describe, expect, it } from "vitest";
import { HostError } from "../../sandbox-host/src/errors.js";
import { Limiter } from "../../sandbox-host/src/limiter.js";

async function refusal(p: Promise<unknown>): Promise<HostError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HostError);
  return err as HostError;
}

describe("Limiter", () => {
  it("grants free slots at once and counts them", async () => {
    const limiter = new Limiter(2, 0, 1000);
    const a = await limiter.acquire();
    await limiter.acquire();
    expect([limiter.running, limiter.queued]).toEqual([2, 0]);
    a();
    a();
    expect(limiter.running).toBe(1);
  });

  it("hands released slots to waiting callers in arrival order", async () => {
    const limiter = new Limiter(1, 2, 60_000);
    const first = await limiter.acquire();
    const order: string[] = [];
    const b = limiter.acquire().then((release) => {
      order.push("b");
      return release;
    });
    const c = limiter.acquire().then((release) => {
      order.push("c");
      return release;
    });
    expect(limiter.queued).toBe(2);
    first();
    (await b)();
    (await c)();
    expect(order).toEqual(["b", "c"]);
    expect([limiter.running, limiter.queued]).toEqual([0, 0]);
  });

  it("answers 429 busy with a Retry-After when the queue is full", async () => {
    const limiter = new Limiter(1, 1, 60_000);
    const release = await limiter.acquire();
    const waiting = limiter.acquire();
    const err = await refusal(limiter.acquire());
    expect([err.status, err.code, err.retryable]).toEqual([429, "busy", true]);
    expect(err.retryAfterS).toBeGreaterThanOrEqual(1);
    release();
    (await waiting)();
  });

  it("answers 429 queue_timeout when the wait in the queue passes its limit", async () => {
    const limiter = new Limiter(1, 4, 10);
    const release = await limiter.acquire();
    const err = await refusal(limiter.acquire());
    expect([err.status, err.code]).toEqual([429, "queue_timeout"]);
    expect(err.message).toContain("never started");
    expect(err.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(limiter.queued).toBe(0);
    release();
  });

  it("answers 409 killed when the caller's signal aborts during the wait or before it", async () => {
    const limiter = new Limiter(1, 4, 60_000);
    const release = await limiter.acquire();
    const abort = new AbortController();
    const waiting = limiter.acquire(abort.signal);
    abort.abort();
    const err = await refusal(waiting);
    expect([err.status, err.code]).toEqual([409, "killed"]);
    expect(limiter.queued).toBe(0);
    const again = await refusal(limiter.acquire(abort.signal));
    expect(again.code).toBe("killed");
    release();
    expect(limiter.running).toBe(0);
  });

  it("fails every waiting caller with 503 shutting_down on rejectAll", async () => {
    const limiter = new Limiter(1, 4, 60_000);
    const release = await limiter.acquire();
    const waiting = [limiter.acquire(), limiter.acquire()];
    limiter.rejectAll();
    for (const w of waiting) {
      const err = await refusal(w);
      expect([err.status, err.code]).toEqual([503, "shutting_down"]);
    }
    release();
    expect([limiter.running, limiter.queued]).toEqual([0, 0]);
  });
});
