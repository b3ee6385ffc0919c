/**
 * The scoring core of the `bm25` ranker (docs/scoring.md#the-bm25-ranker): BM25F over the fields
 * of bm25-fields.ts, with one inverted index per registry snapshot.
 *
 * For a request with the set of terms Q, a skill d scores
 *
 *   score(d) = Σ_{t ∈ Q ∩ d} q(t) · idf(t) · tf̃(t, d) / (k1 + tf̃(t, d))  +  c · cover(d)
 *   tf̃(t, d) = Σ_f w_f · tf_f(t, d) / (1 − b_f + b_f · len_f(d) / avglen_f)
 *   idf(t)   = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009, §3.6),
 * where q(t) ∈ (0, 1] is the query term's weight ({@link Bm25Query.weights}, 1 when absent) and
 * `cover(d)` the idf-weighted share of the skill's name terms that occur in Q, each counted
 * q(t) times. The collection statistics N (in idf and the gate) and avglen_f are rounded to a
 * sixteenth of an octave ({@link quantised}), as a search engine keeps them per segment: a
 * one-skill write then rarely changes them, so a derived core keeps every per-slot normaliser,
 * idf and contribution that the write did not touch. A skill is
 * a candidate when its score reaches `gate · ln(1 + (N − 0.5) / 1.5)`, a fixed share of the idf of
 * a term that only one skill has, so that the gate means the same at every registry size.
 *
 * Each term has a posting list (slot, packed per-field counts) and each slot a forward list (its
 * terms and counts); a slot's per-field normalisers and every term's idf are computed once per
 * core. A request adds the postings of its terms into a per-core scratch array (the BM25 part of
 * each touched skill's score); the k-th best of those among the skills the caller may use bounds
 * the k-th best score from below, so only the skills within the name-coverage points of it are
 * scored exactly, from their forward lists, and sorted. The result is the same as scoring every
 * skill. Incremental updates ({@link Bm25Core.derive}) copy only the posting
 * lists of the terms of changed skills, and carry over the caches the change leaves valid; the
 * result equals a build from scratch exactly (same formulas on the same integers, in the same
 * order).
 */
import type { Skill } from "../../types.js";
import { FIELD_COUNT } from "./bm25-fields.js";
import { type CarryOver, type Scratch, scratchFor } from "./bm25-scratch.js";
import {
  BM25_PARAMS,
  type Bm25Change,
  type Bm25Hit,
  type Bm25Params,
  type Bm25Query,
  type Bm25State,
  buildState,
  deriveState,
  MAX_TF,
  quantised,
} from "./bm25-state.js";

/** The BM25F scoring core of one candidate set. */
export class Bm25Core {
  readonly state: Bm25State;
  readonly params: Bm25Params;
  private readonly norm: Float64Array;
  /** Each term's idf, computed on first use by {@link idfOf} (NaN = not yet). */
  private readonly idf: Float64Array;
  /** Per-request scratch, shared by the cores of one derivation family (see {@link Scratch} in bm25-scratch.ts). */
  private readonly scratch: Scratch;
  /**
   * Each term's contribution to each slot of its posting list, idf · tf̃ / (k1 + tf̃), computed
   * the first time a request holds the term (at most one number per posting).
   */
  private contrib: (Float64Array | undefined)[];
  /** Whether a core was derived from this one (only the newest version may be derived from). */
  private derivedFrom = false;

  /** The rounded mean length of each field (see {@link quantised}). */
  private readonly avg: Float64Array;
  /** The rounded number of candidates used by idf and the gate. */
  private readonly nq: number;

  /**
   * A core over `state`. `carry` (from {@link derive}) names the core it was derived from and what
   * changed: normalisers, idf values and contributions the change leaves equal are reused.
   */
  constructor(state: Bm25State, params: Bm25Params = BM25_PARAMS, carry?: CarryOver) {
    this.state = state;
    this.params = params;
    const slots = state.slotIds.length;
    const { n, totals } = state;
    this.nq = quantised(Math.max(n, 1));
    this.avg = new Float64Array(FIELD_COUNT);
    for (let f = 0; f < FIELD_COUNT; f++) {
      this.avg[f] = n > 0 && totals[f]! > 0 ? quantised(totals[f]! / n) : 1;
    }
    const prev = carry?.from;
    const sameAvg = prev !== undefined && this.avg.every((a, f) => a === prev.avg[f]);
    this.norm = new Float64Array(slots * FIELD_COUNT);
    if (sameAvg) {
      this.norm.set(prev.norm.subarray(0, Math.min(prev.norm.length, this.norm.length)));
      for (const s of carry!.slots) this.setNorm(s);
    } else {
      for (let s = 0; s < slots; s++) this.setNorm(s);
    }
    // Filled on first use (NaN = not yet): a write then costs no pass over every term's formula.
    this.idf = new Float64Array(state.post.length).fill(Number.NaN);
    this.contrib = new Array(state.post.length);
    if (prev !== undefined && prev.nq === this.nq) {
      // idf depends on N (unchanged) and df (changed only for the changed terms).
      this.idf.set(prev.idf);
      for (const t of carry!.terms) this.idf[t] = Number.NaN;
      if (sameAvg) {
        // A contribution depends on idf, the postings and the slots' normalisers: all unchanged
        // outside the changed terms (a changed slot's terms are all changed terms).
        this.contrib = prev.contrib.slice();
        this.contrib.length = state.post.length;
        for (const t of carry!.terms) this.contrib[t] = undefined;
      }
    }
    this.scratch = scratchFor(prev?.scratch, slots, state.post.length);
  }

  /** Computes the per-field normalisers of `slot` (zero for a free slot). */
  private setNorm(s: number): void {
    const { state, params, avg, norm } = this;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const o = s * FIELD_COUNT + f;
      if ((state.slotIds[s] ?? null) === null) {
        norm[o] = 0;
        continue;
      }
      const b = params.b[f]!;
      norm[o] = params.weights[f]! / (1 - b + (b * state.lens[o]!) / avg[f]!);
    }
  }

  /** Candidates in the core. */
  get size(): number {
    return this.state.n;
  }

  /** The fingerprint key of the core's candidates. */
  get key(): string {
    return this.state.key;
  }

  /** The score a candidate must reach (see the module docs). */
  gate(): number {
    return this.params.gate * Math.log(1 + (this.nq - 0.5) / 1.5);
  }

  /** Builds the core of `candidates` (slot i = candidates[i]). @param key their fingerprint. */
  static build(candidates: readonly Skill[], key: string, params?: Bm25Params): Bm25Core {
    return new Bm25Core(buildState(candidates, key), params);
  }

  /**
   * The core after `change`, sharing the term dictionary and every untouched posting list.
   * @param key the fingerprint of the new candidate set.
   * @returns the new core and the slot of each added skill, or undefined when a core was already
   *   derived from this one (the caller builds instead).
   */
  derive(change: Bm25Change, key: string): { core: Bm25Core; slots: number[] } | undefined {
    if (this.derivedFrom) return undefined;
    this.derivedFrom = true;
    const { state, slots, changedSlots, changedTerms } = deriveState(this.state, change, key);
    const carry: CarryOver = { from: this, slots: changedSlots, terms: changedTerms };
    return { core: new Bm25Core(state, this.params, carry), slots };
  }

  /**
   * The best `k` slots for `query` that reach the gate and pass `accept`, ordered by score desc,
   * installCount desc, name asc, id asc (see the module docs for the strategy).
   * @param gateShare share of {@link gate} a slot must reach, in [0, 1] (1 = the gate itself; a
   *   search asked for explicitly passes a lower bar, docs/scoring.md#skill-search).
   */
  top(query: Bm25Query, k: number, accept: (slot: number) => boolean, gateShare = 1): Bm25Hit[] {
    const { state, params, scratch } = this;
    const { acc, touched, qmark, qweight } = scratch;
    const { post, dict } = state;
    scratch.stamp = (scratch.stamp + 1) >>> 0;
    if (scratch.stamp === 0) {
      qmark.fill(0);
      scratch.stamp = 1;
    }
    const stamp = scratch.stamp;
    const { weights } = query;
    // Each present term with an upper bound of what it adds to a score: w · idf (a contribution
    // is idf · tf̃ / (k1 + tf̃) < idf).
    const ids: number[] = [];
    const ubs: number[] = [];
    let total = 0;
    for (let q = 0; q < query.terms.length; q++) {
      const id = dict.get(query.terms[q]!);
      if (id === undefined || id >= post.length || qmark[id] === stamp) continue;
      qmark[id] = stamp;
      const w = weights ? weights[q]! : 1;
      qweight[id] = w;
      if (!post[id]) continue;
      const ub = w * this.idfOf(id);
      ids.push(id);
      ubs.push(ub);
      total += ub;
    }
    const gate = this.gate() * gateShare;
    const cover = params.coverage;
    // MaxScore (Turtle and Flood, 1995): the terms that can add the least, as many as together
    // (their bounds' sum `rest`) plus the coverage points stay below the gate, add no postings: a
    // skill only they reach cannot pass. The skills reached are scored exactly from their forward
    // lists below, which hold every query term, so the result is that of adding every posting.
    if (total + cover < gate) return [];
    // The skipped terms are the least ones whose bounds sum below `gate − cover`: only terms
    // below that bound each can be among them, so only those are sorted (least first).
    const room = gate - cover;
    const low: number[] = [];
    for (let i = 0; i < ids.length; i++) if (ubs[i]! < room) low.push(i);
    low.sort((a, b) => ubs[a]! - ubs[b]! || ids[a]! - ids[b]!);
    let rest = 0;
    const skip = new Uint8Array(ids.length);
    for (const i of low) {
      if (rest + ubs[i]! >= room) break;
      rest += ubs[i]!;
      skip[i] = 1;
    }
    let nt = 0;
    for (let i = 0; i < ids.length; i++) {
      if (!skip[i]) nt = this.addPostings(ids[i]!, nt, qweight[ids[i]!]!);
    }
    // acc holds each touched slot's score without the name coverage (at most `coverage`) and
    // the skipped terms (at most `rest`); the k-th best accepted acc is a lower bound of the
    // k-th best score.
    const slack = cover + rest;
    const best: number[] = [];
    for (let j = 0; j < nt; j++) {
      const s = touched[j]!;
      const a = acc[s]!;
      if (a + slack < gate) continue;
      if (best.length === k && a <= acc[best[k - 1]!]!) continue;
      if (!accept(s)) continue;
      let at = best.length;
      while (at > 0 && acc[best[at - 1]!]! < a) at--;
      best.splice(at, 0, s);
      if (best.length > k) best.pop();
    }
    const bound = best.length === k ? acc[best[k - 1]!]! : gate - slack;
    // Sums taken in another order may differ in the last bits.
    const floor = Math.max(gate - slack, bound - slack) - 1e-9 * (1 + Math.abs(bound) + total);
    const passing: Bm25Hit[] = [];
    for (let j = 0; j < nt; j++) {
      const slot = touched[j]!;
      if (acc[slot]! >= floor) {
        const score = this.exact(slot, stamp);
        if (score >= gate) passing.push({ id: slot, score });
      }
      acc[slot] = 0;
    }
    passing.sort((a, b) => this.compare(a, b));
    const out: Bm25Hit[] = [];
    for (const hit of passing) {
      if (out.length >= k) break;
      if (accept(hit.id)) out.push(hit);
    }
    return out;
  }

  /** Adds the postings of term `id` to the scratch scores. @returns the new touched count. */
  private addPostings(id: number, nt: number, w: number): number {
    const { acc, touched } = this.scratch;
    const { slots } = this.state.post[id]!;
    const c = this.contrib[id] ?? this.contributions(id);
    for (let j = 0; j < slots.length; j++) {
      const s = slots[j]!;
      if (acc[s] === 0) touched[nt++] = s;
      acc[s]! += w * c[j]!;
    }
    return nt;
  }

  /** The idf of term `t` (a term of this core's candidates), computed once per core. */
  private idfOf(t: number): number {
    let w = this.idf[t]!;
    if (Number.isNaN(w)) {
      const df = this.state.post[t]?.slots.length ?? 0;
      w = df > 0 ? Math.log(1 + (this.nq - df + 0.5) / (df + 0.5)) : 0;
      this.idf[t] = w;
    }
    return w;
  }

  /** Computes and keeps term `id`'s contribution to each slot of its posting list. */
  private contributions(id: number): Float64Array {
    const { norm } = this;
    const k1 = this.params.k1;
    const { slots, tfs } = this.state.post[id]!;
    const w = this.idfOf(id);
    const c = new Float64Array(slots.length);
    for (let j = 0; j < slots.length; j++) {
      const tf = this.tfOf(tfs[j]!, slots[j]! * FIELD_COUNT, norm);
      c[j] = (w * tf) / (k1 + tf);
    }
    this.contrib[id] = c;
    return c;
  }

  /** tf̃ of a packed count at slot offset `o`. */
  private tfOf(v: number, o: number, norm: Float64Array): number {
    return (
      (v & MAX_TF) * norm[o]! +
      ((v >>> 6) & MAX_TF) * norm[o + 1]! +
      ((v >>> 12) & MAX_TF) * norm[o + 2]! +
      ((v >>> 18) & MAX_TF) * norm[o + 3]! +
      ((v >>> 24) & MAX_TF) * norm[o + 4]!
    );
  }

  /** The exact score of `slot` for the query marked with `stamp`, from its forward list. */
  private exact(slot: number, stamp: number): number {
    const { state, params, norm } = this;
    const { qmark, qweight } = this.scratch;
    const terms = state.fwdTerms[slot]!;
    const tfs = state.fwdTfs[slot]!;
    const o = slot * FIELD_COUNT;
    let score = 0;
    for (let j = 0; j < terms.length; j++) {
      const t = terms[j]!;
      if (qmark[t] !== stamp) continue;
      const tf = this.tfOf(tfs[j]!, o, norm);
      score += (qweight[t]! * this.idfOf(t) * tf) / (params.k1 + tf);
    }
    const names = state.nameTerms[slot];
    if (names?.length && params.coverage > 0) {
      let total = 0;
      let got = 0;
      for (let j = 0; j < names.length; j++) {
        const t = names[j]!;
        const w = this.idfOf(t);
        total += w;
        if (qmark[t] === stamp) got += w * Math.min(1, qweight[t]!);
      }
      if (total > 0) score += (params.coverage * got) / total;
    }
    return score;
  }

  private compare(a: Bm25Hit, b: Bm25Hit): number {
    if (a.score !== b.score) return b.score - a.score;
    const { slotInstalls, slotName, slotIds } = this.state;
    const ia = slotInstalls[a.id]!;
    const ib = slotInstalls[b.id]!;
    if (ia !== ib) return ib - ia;
    const na = slotName[a.id]!;
    const nb = slotName[b.id]!;
    if (na !== nb) return na < nb ? -1 : 1;
    const da = slotIds[a.id]!;
    const db = slotIds[b.id]!;
    return da < db ? -1 : da > db ? 1 : 0;
  }
}
