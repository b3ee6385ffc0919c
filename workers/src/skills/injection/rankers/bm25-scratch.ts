/**
 * What the cores of one derivation family of the `bm25` ranker share (bm25-core.ts,
 * docs/scoring.md#the-bm25-ranker): the per-request working arrays, grown rather than
 * reallocated as the registry grows, and what a derived core carries over from its parent.
 */
import type { Bm25Core } from "./bm25-core.js";

/**
 * The per-request working arrays of `Bm25Core.top`: each slot's partial score (all zero
 * between requests) and the touched slots, each term's request mark and weight, and the stamp
 * that marks the current request. A core derived from another shares them (grown when needed):
 * `top` runs to completion without yielding, so one set serves a family of cores, and a write
 * allocates none.
 */
export interface Scratch {
  acc: Float64Array;
  touched: Int32Array;
  qmark: Uint32Array;
  qweight: Float64Array;
  stamp: number;
}

/** `prev` when it holds `slots` slots and `terms` terms, else a larger copy of it (or a new one). */
export function scratchFor(prev: Scratch | undefined, slots: number, terms: number): Scratch {
  if (prev && prev.acc.length >= slots && prev.qmark.length >= terms) return prev;
  // Grown by half again, so a run of adds reallocates rarely.
  const s = prev && prev.acc.length < slots ? slots + (slots >> 1) : (prev?.acc.length ?? slots);
  const t =
    prev && prev.qmark.length < terms ? terms + (terms >> 1) : (prev?.qmark.length ?? terms);
  const next: Scratch = {
    acc: new Float64Array(s),
    touched: new Int32Array(s),
    qmark: new Uint32Array(t),
    qweight: new Float64Array(t),
    stamp: prev?.stamp ?? 0,
  };
  if (prev) next.qmark.set(prev.qmark);
  return next;
}

/** What a derived core may reuse from the core it was derived from. */
export interface CarryOver {
  from: Bm25Core;
  /** Slots whose skill changed (removed or added). */
  slots: ReadonlySet<number>;
  /** Term ids whose posting lists changed. */
  terms: ReadonlySet<number>;
}
