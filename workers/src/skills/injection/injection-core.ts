/**
 * The scoring core of the injection index (see injection-index.ts for the algorithm): answers
 * "the best k candidates for this request" over one version of a {@link CoreState}. Cores are
 * identified by a fingerprint of their candidates that does not depend on slot order, so a
 * registry reload with unchanged candidates reuses a core, and a core stored in the KV-style cache
 * can be matched to the candidates of another instance (injection-serial.ts).
 */
import type { RequestProvider } from "../../formats/types.js";
import { buildCoreState, type CoreState, type ScorableCandidate } from "./injection-features.js";
import { type Fingerprint, fingerprintKey, fingerprintOf } from "./injection-fingerprint.js";
import { AUTO_MIN_SCORE, type ScoringContext } from "./scoring.js";
import { TokenTable } from "./token-table.js";

/** Local copy of AUTO_MIN_SCORE for the hot loops. A candidate needs score >= this. */
const MIN_SCORE = AUTO_MIN_SCORE;
const EMPTY = new Int32Array(0);

/** Set in a {@link ScoringCore} feature pair's length for a frequent feature. */
const FREQUENT = 1 << 31;
const LENGTH = ~FREQUENT;
/** Int32 entries per feature record of a {@link ScoringCore}. */
const FEAT = 3;
/** Touched slots are scored in slot order when more than 1 in this many slots are touched. */
const DENSE_SCAN = 2;
/** `base` is read in order before scoring touched slots when more than 1 in this many are touched. */
const STREAM_BASE = 16;
/**
 * Postings are added without listing touched slots when a request's rare postings number at least
 * NUM/DEN of the slots (about half of the slots are then touched).
 */
const UNLISTED_NUM = 4;
const UNLISTED_DEN = 5;
/** The whole gain array is zeroed (in order) when more than 1 in this many slots were touched. */
const DENSE_CLEAR = 8;

/**
 * Scoring over one version of a core state (positions are slots). What a request reads per
 * feature and per slot is also held interleaved, so that each is one cache line rather than two
 * or three (docs/scoring.md, "Injection with cold CPU caches").
 */
export class ScoringCore {
  readonly key: string;
  /**
   * Per feature `f`, one 12-byte record at `3f`: start of its posting list, its length | FREQUENT,
   * and the last request of this core in which it was present (a request reads one line per
   * feature it finds).
   */
  private readonly feat: Int32Array;
  /** Request stamp of this core's feature records (1..2^31-1). */
  private stamp = 0;
  /** Per slot `s`: `[2s]` start and `[2s + 1]` end of its frequent-feature list in `freq`. */
  private readonly slotFreq: Int32Array;
  private readonly statics: Partial<
    Record<RequestProvider, { base: Int32Array; order: Int32Array }>
  > = {};

  constructor(
    readonly state: CoreState,
    readonly fingerprint: Fingerprint,
  ) {
    this.key = fingerprintKey(fingerprint);
    const { featureCount, featStart, featLen, featFrequent, slotCount, freqStart, freqEnd } = state;
    this.feat = new Int32Array(featureCount * FEAT);
    for (let f = 0; f < featureCount; f++) {
      this.feat[FEAT * f] = featStart[f]!;
      this.feat[FEAT * f + 1] = featLen[f]! | (featFrequent[f] === 1 ? FREQUENT : 0);
    }
    this.slotFreq = new Int32Array(slotCount * 2);
    for (let s = 0; s < slotCount; s++) {
      this.slotFreq[2 * s] = freqStart[s]!;
      this.slotFreq[2 * s + 1] = freqEnd[s]!;
    }
  }

  /** Builds a core from scratch (slot = position in `candidates`). */
  static build(candidates: readonly ScorableCandidate[]): ScoringCore {
    return new ScoringCore(buildCoreState(candidates), fingerprintOf(candidates));
  }

  /** The statics already built for `provider` (used by incremental updates), if any. */
  builtStatics(provider: RequestProvider): { base: Int32Array; order: Int32Array } | undefined {
    return this.statics[provider];
  }

  /** Installs statics computed elsewhere (incremental updates). */
  setStatics(provider: RequestProvider, statics: { base: Int32Array; order: Int32Array }): void {
    this.statics[provider] = statics;
  }

  /**
   * `S + hint` per slot and the live slots in static order (by it desc, then tie-break rank),
   * built per provider on first use.
   */
  staticsFor(provider: RequestProvider): { base: Int32Array; order: Int32Array } {
    const cached = this.statics[provider];
    if (cached) return cached;
    const { staticScore, hints, tieRank, tieOrder } = this.state;
    const hint = hints[provider];
    const base = staticScore.map((v, i) => v + hint[i]!);
    const order = Int32Array.from(tieOrder).sort(
      (a, b) => base[b]! - base[a]! || tieRank[a]! - tieRank[b]!,
    );
    const built = { base, order };
    this.statics[provider] = built;
    return built;
  }

  /**
   * Adds the postings of feature `fid` to `gain`, listing newly touched slots (points are
   * positive, so a slot is new when its gain is 0; the list is appended to without a branch).
   */
  private gainFeature(fid: number): void {
    const { scratch } = this.state.shared;
    const { gain, touched } = scratch;
    const { entries } = this.state.postings;
    let nt = scratch.nTouched;
    const { feat } = this;
    const at = FEAT * fid;
    for (let i = feat[at]!, end = i + (feat[at + 1]! & LENGTH); i < end; i++) {
      const e = entries[i]!;
      const id = e >> 8;
      const v = gain[id]!;
      touched[nt] = id;
      nt += v === 0 ? 1 : 0;
      gain[id] = v + ((e << 24) >> 24);
    }
    scratch.nTouched = nt;
  }

  /**
   * Adds the postings of feature `fid` to `gain` without listing touched slots: the list's store
   * address depends on the gain just read, which makes each entry wait for the previous one, and a
   * request that touches most slots scores them in slot order anyway.
   */
  private gainFeatureUnlisted(fid: number): void {
    const { gain } = this.state.shared.scratch;
    const { entries } = this.state.postings;
    const { feat } = this;
    const at = FEAT * fid;
    for (let i = feat[at]!, end = i + (feat[at + 1]! & LENGTH); i < end; i++) {
      const e = entries[i]!;
      const id = e >> 8;
      gain[id] = gain[id]! + ((e << 24) >> 24);
    }
  }

  /** Points of slot `id` from frequent features absent in the request of stamp `stamp` (on demand). */
  private lossOf(id: number, stamp: number): number {
    const { slotFreq, feat } = this;
    const { entries } = this.state.freq;
    let loss = 0;
    for (let i = slotFreq[2 * id]!, end = slotFreq[2 * id + 1]!; i < end; i++) {
      const e = entries[i]!; // packEntry(feature, points)
      if (feat[FEAT * (e >> 8) + 2] !== stamp) loss += (e << 24) >> 24;
    }
    return loss;
  }

  /**
   * The best `k` slots with score >= {@link AUTO_MIN_SCORE} that `accept` (called only for slots
   * that would enter the top `k`), ordered by score desc, then tie-break rank (installCount desc,
   * name asc; docs/scoring.md#selection). Not re-entrant: one request at a time per core family.
   */
  top(
    ctx: ScoringContext,
    k: number,
    accept: (id: number) => boolean,
  ): { id: number; score: number }[] {
    this.clearScratch();
    const stamp = this.nextStamp();
    const { state } = this;
    const { featureCount, tieRank, shared, frequent } = state;
    const { feat } = this;
    const { scratch } = shared;
    const { gain, touched } = scratch;
    // The features found in the text, then what they point to, each read in a loop of its own:
    // the reads of one loop do not depend on each other, so their misses overlap
    // (docs/scoring.md, "Injection with cold CPU caches").
    let found = scratch.found;
    let nf = 0;
    const room = (more: number) => {
      if (nf + more <= found.length) return;
      const grown = new Int32Array(Math.max(nf + more, found.length * 2));
      grown.set(found.subarray(0, nf));
      found = grown;
      scratch.found = grown;
    };
    const collect = (fid: number | undefined) => {
      if (fid === undefined || fid >= featureCount) return;
      room(1);
      found[nf++] = fid;
    };
    shared.main.search(ctx.text, (pid) => collect(shared.mainFeature[pid]));
    if (state.extraCount > 0)
      shared.extra.search(ctx.text, (pid) => collect(shared.extraFeature[pid]), state.extraCount);
    room(TokenTable.room(ctx.text));
    const tokensFrom = nf;
    nf = shared.tokens.collect(ctx.text, found, nf);
    // The token table is shared with newer versions of this core: drop features it does not know.
    let kept = tokensFrom;
    for (let i = tokensFrom; i < nf; i++) if (found[i]! < featureCount) found[kept++] = found[i]!;
    nf = kept;
    let touch = 0;
    for (let i = 0; i < nf; i++) touch |= feat[FEAT * found[i]! + 1]!;
    // Each feature once: the first occurrence stamps it; rare ones keep their list's start.
    let nr = 0;
    for (let i = 0; i < nf; i++) {
      const at = FEAT * found[i]!;
      if (feat[at + 2] === stamp) continue;
      feat[at + 2] = stamp;
      if ((feat[at + 1]! & FREQUENT) === 0) found[nr++] = found[i]!;
    }
    const { entries } = state.postings;
    let postings = 0;
    for (let i = 0; i < nr; i++) {
      const at = FEAT * found[i]!;
      touch |= entries[feat[at]!]!;
      postings += feat[at + 1]! & LENGTH;
    }
    scratch.sink = touch;
    let activeLen = 0;
    let missingLen = 0;
    for (const fid of frequent) {
      if (feat[FEAT * fid + 2] === stamp) activeLen += feat[FEAT * fid + 1]! & LENGTH;
      else missingLen += feat[FEAT * fid + 1]! & LENGTH;
    }
    // Static mode: every candidate starts from S; absent frequent features are subtracted lazily.
    // Otherwise the postings of the present frequent features are added like rare ones.
    const staticMode = activeLen > missingLen;
    if (!staticMode) postings += activeLen;
    // So many postings that most slots will be touched: add them without listing the touched
    // slots, which are then scored in slot order (and all of `gain` is cleared next time).
    const unlisted = postings * UNLISTED_DEN >= state.slotCount * UNLISTED_NUM;
    const gainOf = (fid: number) =>
      unlisted ? this.gainFeatureUnlisted(fid) : this.gainFeature(fid);
    for (let i = 0; i < nr; i++) gainOf(found[i]!);
    for (const t of ctx.reasonTokens) {
      const fid = shared.reason.get(t);
      if (fid !== undefined && fid < featureCount) gainOf(fid);
    }
    if (!staticMode) {
      for (const fid of frequent) if (feat[FEAT * fid + 2] === stamp) gainOf(fid);
    }
    if (unlisted) scratch.nTouched = gain.length;
    const statics = staticMode ? this.staticsFor(ctx.provider) : undefined;
    const base = statics ? statics.base : state.hints[ctx.provider];
    const top: { id: number; score: number }[] = [];
    // The current k-th entry; a candidate must beat it (score, then tie-break rank).
    let worstScore = MIN_SCORE;
    let worstRank = Number.MAX_SAFE_INTEGER;
    const offer = (id: number, score: number) => {
      if (!accept(id)) return;
      let at = top.length;
      while (
        at > 0 &&
        (score > top[at - 1]!.score ||
          (score === top[at - 1]!.score && tieRank[id]! < tieRank[top[at - 1]!.id]!))
      )
        at--;
      top.splice(at, 0, { id, score });
      if (top.length > k) top.pop();
      if (top.length === k) {
        worstScore = top[k - 1]!.score;
        worstRank = tieRank[top[k - 1]!.id]!;
      }
    };
    // Untouched slots in static order: exact score = S + hint − loss <= S + hint, so the walk stops
    // once the bound cannot beat the current k-th. A first walk fills the top `k` before the
    // touched slots are scored, so that few of those reach the (costlier) filters.
    const order = statics ? statics.order : EMPTY;
    let pos = 0;
    const walk = (fill: boolean) => {
      for (; pos < order.length; pos++) {
        if (fill && top.length >= k) return;
        const id = order[pos]!;
        const bound = base[id]!;
        if (bound < worstScore || (bound === worstScore && tieRank[id]! >= worstRank)) {
          pos = order.length;
          return;
        }
        if (gain[id] !== 0) continue; // touched: scored below
        const score = bound - this.lossOf(id, stamp);
        if (score > worstScore || (score === worstScore && tieRank[id]! < worstRank))
          offer(id, score);
      }
    };
    walk(true);
    const consider = (id: number, bound: number) => {
      if (bound === worstScore && tieRank[id]! >= worstRank) return;
      const score = staticMode ? bound - this.lossOf(id, stamp) : bound;
      if (score > worstScore || (score === worstScore && tieRank[id]! < worstRank))
        offer(id, score);
    };
    const nt = scratch.nTouched;
    if (nt * DENSE_SCAN < state.slotCount) {
      // Enough touched slots that most lines of `base` will be read: read it in order first, so
      // that it comes in as one stream rather than as scattered misses (`gain` already did, when
      // the previous request's touched slots were cleared or as postings were added).
      if (nt * STREAM_BASE >= state.slotCount) {
        let acc = 0;
        for (let i = 0, n = state.slotCount; i < n; i += 16) acc |= base[i]!;
        scratch.sink = acc;
      }
      for (let i = 0; i < nt; i++) {
        const id = touched[i]!;
        const bound = base[id]! + gain[id]!;
        if (bound >= worstScore) consider(id, bound);
      }
    } else {
      // Many slots touched: read the per-slot arrays in order rather than at random.
      for (let id = 0, n = state.slotCount; id < n; id++) {
        const g = gain[id]!;
        const bound = base[id]! + g;
        if (bound >= worstScore && g !== 0) consider(id, bound);
      }
    }
    walk(false);
    return top;
  }

  /**
   * Zeroes the gain of the slots the previous request touched (the whole array when they were
   * many) and grows the shared scratch when this version has more slots than it holds.
   */
  private clearScratch(): void {
    const { scratch } = this.state.shared;
    const { gain, touched } = scratch;
    if (gain.length < this.state.slotCount) {
      const size = Math.max(this.state.slotCount, gain.length * 2);
      scratch.gain = new Int32Array(size);
      scratch.touched = new Int32Array(size + 1);
    } else if (scratch.nTouched * DENSE_CLEAR >= gain.length) gain.fill(0);
    else for (let i = 0; i < scratch.nTouched; i++) gain[touched[i]!] = 0;
    scratch.nTouched = 0;
  }

  /** Next stamp of this core's feature records, 1..2^31-1. */
  private nextStamp(): number {
    if (this.stamp === 0x7fffffff) {
      for (let i = 2; i < this.feat.length; i += FEAT) this.feat[i] = 0;
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}
