/**
 * Typed-array helpers of the injection index's incremental updates (injection-update.ts): growing
 * copies, merging new slots into sorted orders, and appending to and compacting the shared pools
 * of list entries (see `Pool` in injection-features.ts).
 */
import type { Pool } from "./injection-features.js";

/** A copy of `a` at least `length` long (doubling when it must grow). */
export function grown<T extends Int32Array | Int8Array | Uint8Array>(a: T, length: number): T {
  if (a.length >= length) return a.slice() as T;
  const out = new (a.constructor as new (n: number) => T)(Math.max(length, a.length * 2));
  out.set(a);
  return out;
}

/**
 * Merges `sorted` (ascending by `before`) into `order` without the slots marked in `drop` (of which
 * `order` holds `dropped`). The kept slots are copied in runs and each new slot is placed by a
 * binary search, so `before` is called O(added × log size) times.
 */
export function mergeInto(
  order: Int32Array,
  drop: Uint8Array,
  dropped: number,
  sorted: readonly number[],
  before: (a: number, b: number) => boolean,
): Int32Array {
  let kept = order;
  if (dropped > 0) {
    kept = new Int32Array(order.length - dropped);
    let o = 0;
    for (let i = 0; i < order.length; i++) if (drop[order[i]!] !== 1) kept[o++] = order[i]!;
  }
  if (sorted.length === 0) return kept === order ? order.slice() : kept;
  const out = new Int32Array(kept.length + sorted.length);
  let from = 0;
  let o = 0;
  for (const slot of sorted) {
    let lo = from;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(kept[mid]!, slot)) lo = mid + 1;
      else hi = mid;
    }
    out.set(kept.subarray(from, lo), o);
    o += lo - from;
    out[o++] = slot;
    from = lo;
  }
  out.set(kept.subarray(from), o);
  return out;
}

/** Room for `more` entries past `used` in `pool` (its arrays are replaced by larger copies). */
export function reserve(pool: Pool, more: number): void {
  if (pool.used + more <= pool.entries.length) return;
  const entries = new Int32Array(Math.max(pool.used + more, pool.entries.length * 2));
  entries.set(pool.entries.subarray(0, pool.used));
  pool.entries = entries;
}

/**
 * Copies the lists `start[i] .. start[i] + len[i]` of `from` for `i < count` into a new pool,
 * rewriting `start` (and `end`, when given, as `start + len`). @returns the new pool.
 */
export function compact(
  from: Pool,
  count: number,
  start: Int32Array,
  len: (i: number) => number,
  end?: Int32Array,
): Pool {
  let total = 0;
  for (let i = 0; i < count; i++) total += len(i);
  const out: Pool = { entries: new Int32Array(Math.max(16, total + (total >> 2))), used: 0 };
  for (let i = 0; i < count; i++) {
    const l = len(i);
    const s = start[i]!;
    out.entries.set(from.entries.subarray(s, s + l), out.used);
    start[i] = out.used;
    out.used += l;
    if (end) end[i] = out.used;
  }
  return out;
}
