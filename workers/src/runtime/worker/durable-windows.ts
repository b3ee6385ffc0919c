/**
 * The short-window counters of the Worker ({@link ShortWindowCounters}) kept in the `KeyLimiter`
 * Durable Object, one object per API key (docs/rate-limits.md#the-per-key-limiter-durable-object).
 * Every call is one request to the key's object; a call that fails, answers an error or takes
 * longer than the timeout rejects, and the limiter then fails the way the operator configured.
 */
import type {
  LiveUsage,
  MinuteDecision,
  ShortWindowCounters,
} from "../../skills/execution/limit-counters.js";
import type { KeyLimiterOp } from "./key-limiter.js";

/** The subset of a Durable Object namespace binding this module uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** Counters in the `KeyLimiter` Durable Object of each key. */
export class DurableObjectWindows implements ShortWindowCounters {
  /**
   * @param namespace the `KEY_LIMITER` binding.
   * @param timeoutMs longest wait for one answer of the object (`KEY_LIMITER_TIMEOUT_MS`).
   */
  constructor(
    private readonly namespace: DurableObjectNamespaceLike,
    private readonly timeoutMs: number,
  ) {}

  async take(key: string, limit: number | null, now: number): Promise<MinuteDecision> {
    const r = await this.call<{ ok: boolean; remaining: number | null; resetS: number }>(key, {
      op: "take",
      limit,
      now,
    });
    return { ok: r.ok, remaining: r.remaining ?? Number.POSITIVE_INFINITY, resetS: r.resetS };
  }

  async refund(key: string, now: number): Promise<void> {
    await this.call(key, { op: "refund", now });
  }

  async acquire(
    key: string,
    limit: number | null,
    leaseMs: number,
    now: number,
  ): Promise<string | null> {
    const lease = crypto.randomUUID();
    const r = await this.call<{ ok: boolean }>(key, { op: "acquire", limit, leaseMs, now, lease });
    return r.ok ? lease : null;
  }

  async release(key: string, lease: string): Promise<void> {
    await this.call(key, { op: "release", lease, now: Date.now() });
  }

  live(key: string, now: number): Promise<LiveUsage> {
    return this.call<LiveUsage>(key, { op: "live", now });
  }

  private async call<T>(key: string, op: KeyLimiterOp): Promise<T> {
    const stub = this.namespace.get(this.namespace.idFromName(key) as never);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the key limiter did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      const res = await Promise.race([
        stub.fetch("https://key-limiter/", { method: "POST", body: JSON.stringify(op) }),
        timeout,
      ]);
      if (!res.ok) throw new Error(`the key limiter answered ${res.status}`);
      return (await res.json()) as T;
    } finally {
      clearTimeout(timer);
    }
  }
}
