/**
 * The short-window counters of the per-key execution limits (docs/rate-limits.md): executions per
 * minute in fixed one-minute windows (UTC minute boundaries), and concurrent sandbox runs. Both are
 * in-process: exact on one Node process, per isolate in a Worker (where the platform's rate
 * limiting binding, {@link PlatformRateLimiter}, adds a limit across isolates when configured).
 */

/** Length of a per-minute window, in ms. */
export const MINUTE_MS = 60_000;

/** A per-minute decision. Units: executions and whole seconds. */
export interface MinuteDecision {
  ok: boolean;
  /** Executions the key may still start in this window (after this one when ok). */
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetS: number;
}

/**
 * The platform's rate limiting binding (Cloudflare Workers `ratelimits`: `limit({ key })` resolves
 * `{ success }`; its limit and period are set in wrangler.toml, see docs/rate-limits.md#the-rate-limiting-binding).
 */
export interface PlatformRateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

/**
 * Whether the platform's rate limiting binding holds a key whose executions-per-minute limit is
 * `perMinute`, given the default limit `defaultPerMinute` (null: none). The binding's limit is
 * fixed in its configuration and stands for the default, so it holds the keys limited to at most
 * the default. A key given a higher limit of its own is not held to it (the binding would refuse
 * it below its limit) and is limited per isolate only; a key without a limit, and every key while
 * there is no default, is not held to it either (docs/rate-limits.md#the-rate-limiting-binding).
 */
export function bindingHolds(perMinute: number | null, defaultPerMinute: number | null): boolean {
  return perMinute !== null && defaultPerMinute !== null && perMinute <= defaultPerMinute;
}

/** Seconds until the end of the one-minute window holding `now` (ms), at least 1. */
export function minuteResetS(now: number): number {
  return Math.max(1, Math.ceil((MINUTE_MS - (now % MINUTE_MS)) / 1000));
}

/** Fixed one-minute windows per key, in process memory. */
export class MinuteCounter {
  private readonly windows = new Map<string, { window: number; count: number }>();

  /**
   * Counts one execution for `key` when fewer than `limit` were counted in the window holding
   * `now` (ms). @returns the decision; nothing is counted when refused.
   */
  take(key: string, limit: number, now: number): MinuteDecision {
    const window = Math.floor(now / MINUTE_MS);
    const entry = this.windows.get(key);
    const count = entry && entry.window === window ? entry.count : 0;
    const resetS = minuteResetS(now);
    if (count >= limit) return { ok: false, remaining: 0, resetS };
    this.windows.set(key, { window, count: count + 1 });
    if (this.windows.size > 10_000) this.prune(window);
    return { ok: true, remaining: limit - count - 1, resetS };
  }

  /** Gives back one execution counted for `key` in the window holding `now` (a later check refused). */
  refund(key: string, now: number): void {
    const entry = this.windows.get(key);
    if (entry && entry.window === Math.floor(now / MINUTE_MS) && entry.count > 0) entry.count--;
  }

  /** Executions counted for `key` in the window holding `now`. */
  count(key: string, now: number): number {
    const entry = this.windows.get(key);
    return entry && entry.window === Math.floor(now / MINUTE_MS) ? entry.count : 0;
  }

  private prune(window: number): void {
    for (const [key, entry] of this.windows) if (entry.window !== window) this.windows.delete(key);
  }
}

/** Runs in progress per key, in process memory. */
export class ConcurrencyCounter {
  private readonly running = new Map<string, number>();

  /** Adds a run for `key` when fewer than `limit` are running. @returns whether it was added. */
  tryAcquire(key: string, limit: number | null): boolean {
    const current = this.running.get(key) ?? 0;
    if (limit !== null && current >= limit) return false;
    this.running.set(key, current + 1);
    return true;
  }

  /** Ends a run of `key` added by {@link tryAcquire}. */
  release(key: string): void {
    const current = this.running.get(key) ?? 0;
    if (current <= 1) this.running.delete(key);
    else this.running.set(key, current - 1);
  }

  /** Runs of `key` in progress. */
  current(key: string): number {
    return this.running.get(key) ?? 0;
  }
}

/** A key's short-window usage as the counters see it. Units: executions, runs. */
export interface LiveUsage {
  executionsThisMinute: number;
  concurrentSandboxRuns: number;
}

/**
 * Where the short-window limits of every key are counted (docs/rate-limits.md#where-limits-are-counted):
 * in process ({@link InProcessWindows}, Node), or in one Durable Object per key in the Worker
 * (`limiter/durable-windows.ts`), exact across isolates. Every method may reject when the counters
 * cannot be reached; the caller decides which way to fail.
 */
export interface ShortWindowCounters {
  /**
   * Counts one execution for `key` when fewer than `limit` (null: no limit) were counted in the
   * one-minute window holding `now` (ms). @returns the decision; nothing is counted when refused.
   */
  take(key: string, limit: number | null, now: number): Promise<MinuteDecision>;
  /** Gives back one execution counted for `key` in the window holding `now`. */
  refund(key: string, now: number): Promise<void>;
  /**
   * Starts a sandbox run of `key` when fewer than `limit` (null: none) are going. The slot is a
   * lease that lapses `leaseMs` after `now` (ms) if it is never released (an isolate that died).
   * @returns the lease's id, or null when the limit refused (nothing held).
   */
  acquire(key: string, limit: number | null, leaseMs: number, now: number): Promise<string | null>;
  /** Ends the run holding lease `lease` of `key` (unknown or lapsed leases: nothing happens). */
  release(key: string, lease: string): Promise<void>;
  /** What is counted for `key` at `now` (ms). */
  live(key: string, now: number): Promise<LiveUsage>;
}

/**
 * The short-window counters in process memory: exact on one process, per isolate in a Worker.
 * Never rejects.
 */
export class InProcessWindows implements ShortWindowCounters {
  private readonly minute = new MinuteCounter();
  private readonly concurrent = new ConcurrencyCounter();
  private readonly leases = new Map<string, string>();

  async take(key: string, limit: number | null, now: number): Promise<MinuteDecision> {
    return this.minute.take(key, limit ?? Number.POSITIVE_INFINITY, now);
  }

  async refund(key: string, now: number): Promise<void> {
    this.minute.refund(key, now);
  }

  async acquire(key: string, limit: number | null): Promise<string | null> {
    if (!this.concurrent.tryAcquire(key, limit)) return null;
    const lease = crypto.randomUUID();
    this.leases.set(lease, key);
    return lease;
  }

  async release(key: string, lease: string): Promise<void> {
    if (this.leases.get(lease) !== key) return;
    this.leases.delete(lease);
    this.concurrent.release(key);
  }

  async live(key: string, now: number): Promise<LiveUsage> {
    return {
      executionsThisMinute: this.minute.count(key, now),
      concurrentSandboxRuns: this.concurrent.current(key),
    };
  }
}
