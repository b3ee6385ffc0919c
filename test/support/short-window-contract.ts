/**
 * The contract every short-window counter store keeps (docs/rate-limits.md#where-limits-are-counted),
 * run over the in-process counters on Node and the `KeyLimiter` Durable Object inside workerd:
 * fixed one-minute windows per key, refunds, concurrency slots as leases, and exact limits under
 * concurrent callers (the store is shared by every caller built on it). Runs inside workerd too:
 * no Node APIs.
 */
import { describe, expect, it } from "vitest";
import type { ShortWindowCounters } from "../../workers/src/skills/execution/limit-counters.js";

/** A fresh key (the stores keep state per key, so every test uses its own). */
const freshKey = () => `contract-${crypto.randomUUID()}`;

/** A time in the middle of a UTC minute, far from any other test's. */
const MINUTE = 60_000;
const base = () => (Math.floor(Date.now() / MINUTE) + 10) * MINUTE + 15_000;

/**
 * Defines the contract's tests for the counters `make` builds. `make` is called once per
 * "caller": two calls must give two callers of the same shared counters (two isolates, two
 * connections).
 */
export function shortWindowContract(name: string, make: () => ShortWindowCounters): void {
  describe(`short-window counters contract: ${name}`, () => {
    it("counts up to the limit in one minute, refuses the next, and starts again the next minute", async () => {
      const w = make();
      const key = freshKey();
      const t = base();
      const first = await w.take(key, 2, t);
      expect(first).toMatchObject({ ok: true, remaining: 1, resetS: 45 });
      expect((await w.take(key, 2, t + 1000)).ok).toBe(true);
      expect(await w.take(key, 2, t + 2000)).toEqual({ ok: false, remaining: 0, resetS: 43 });
      expect(await w.live(key, t + 2000)).toEqual({
        executionsThisMinute: 2,
        concurrentSandboxRuns: 0,
      });
      expect((await w.take(key, 2, t + MINUTE)).ok).toBe(true);
      expect((await w.live(key, t + MINUTE)).executionsThisMinute).toBe(1);
    });

    it("counts without a limit, keeps keys apart, and gives back a refunded execution", async () => {
      const w = make();
      const [a, b] = [freshKey(), freshKey()];
      const t = base();
      for (let i = 0; i < 3; i++) expect((await w.take(a, null, t)).ok).toBe(true);
      expect((await w.take(b, 1, t)).ok).toBe(true);
      expect((await w.take(b, 1, t)).ok).toBe(false);
      await w.refund(b, t);
      expect((await w.take(b, 1, t)).ok).toBe(true);
      expect((await w.live(a, t)).executionsThisMinute).toBe(3);
      expect((await w.live(b, t)).executionsThisMinute).toBe(1);
    });

    it("holds concurrent runs to the limit and frees a slot on release (once per lease)", async () => {
      const w = make();
      const key = freshKey();
      const t = base();
      const l1 = await w.acquire(key, 2, 60_000, t);
      const l2 = await w.acquire(key, 2, 60_000, t);
      expect(l1).toEqual(expect.any(String));
      expect(l2).toEqual(expect.any(String));
      expect(await w.acquire(key, 2, 60_000, t)).toBeNull();
      expect((await w.live(key, t)).concurrentSandboxRuns).toBe(2);
      await w.release(key, l1!);
      await w.release(key, l1!);
      expect((await w.live(key, t)).concurrentSandboxRuns).toBe(1);
      expect(await w.acquire(key, 2, 60_000, t)).toEqual(expect.any(String));
      expect(await w.acquire(key, 0, 60_000, t)).toBeNull();
    });

    it("two callers firing at once cannot pass the limit together", async () => {
      const [one, two] = [make(), make()];
      const key = freshKey();
      const t = base();
      const takes = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (i % 2 ? one : two).take(key, 7, t)),
      );
      expect(takes.filter((d) => d.ok)).toHaveLength(7);
      const slots = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? one : two).acquire(key, 3, 60_000, t)),
      );
      expect(slots.filter((s) => s !== null)).toHaveLength(3);
      expect(await one.live(key, t)).toEqual({ executionsThisMinute: 7, concurrentSandboxRuns: 3 });
      expect(await two.live(key, t)).toEqual({ executionsThisMinute: 7, concurrentSandboxRuns: 3 });
    });
  });
}
