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
