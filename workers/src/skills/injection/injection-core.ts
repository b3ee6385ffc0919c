/**
 * The scoring core of the injection index (see injection-index.ts for the algorithm): features,
 * the Aho-Corasick matcher, static scores and per-request scratch of one candidate list. Cores
 * are cached by a fingerprint of the candidates' scoring fields, so a registry reload with
 * unchanged skills (a new snapshot every cache TTL) reuses the core instead of rebuilding it.
 */
import type { RequestProvider } from "../../formats/types.js";
import type { Skill } from "../types.js";
import { AhoCorasick } from "./aho-corasick.js";
import { buildFeatures, type Feature, type FeatureSet } from "./injection-features.js";
import { AUTO_MIN_SCORE, type ScoringContext } from "./scoring.js";
import { TokenTable } from "./token-table.js";

/** Local copy of AUTO_MIN_SCORE for the hot loops. A candidate needs score >= this. */
const MIN_SCORE = AUTO_MIN_SCORE;
const EMPTY = new Int32Array(0);

/** Scoring state of one candidate list (positions are candidate ids). */
export class ScoringCore {
  readonly fingerprint: string;
  private readonly features: Feature[];
  private readonly tokenTable: TokenTable;
  private readonly reasonFeature: Map<string, number>;
  /** Aho-Corasick pattern id → feature id. */
  private readonly patternFeature: Int32Array;
  private readonly matcher: AhoCorasick;
  private readonly frequent: number[];
  private readonly staticScore: Int32Array;
  /** Position of each candidate in tie-break order (installCount desc, name asc). */
  private readonly tieRank: Int32Array;
  private readonly hints: Record<RequestProvider, Int8Array>;
  private readonly freqStart: Int32Array;
  private readonly freqFeature: Int32Array;
  private readonly freqPoints: Int8Array;
  /** Per provider: `S + hint` per candidate, and candidates in static order. */
  private readonly statics: Partial<
    Record<RequestProvider, { base: Int32Array; order: Int32Array }>
  > = {};
  // Per-request scratch: points gained from present features (packed `query << 16 | points`, one
  // array read per posting), the candidates touched, and the features present.
  private readonly gain: Int32Array;
  private readonly touched: Int32Array;
  private nTouched = 0;
  private readonly activeStamp: Uint32Array;
  private query = 0;

  constructor(candidates: readonly Skill[], fingerprint: string) {
    const f: FeatureSet = buildFeatures(candidates);
    this.fingerprint = fingerprint;
    this.features = f.features;
    this.tokenTable = new TokenTable(f.tokenFeature);
    this.reasonFeature = f.reasonFeature;
    this.patternFeature = f.patternFeature;
    this.matcher = new AhoCorasick(f.patterns);
    this.frequent = f.frequent;
    this.staticScore = f.staticScore;
    this.tieRank = f.tieRank;
    this.hints = f.hints;
    this.freqStart = f.freqStart;
    this.freqFeature = f.freqFeature;
    this.freqPoints = f.freqPoints;
    this.gain = new Int32Array(candidates.length);
    this.touched = new Int32Array(candidates.length);
    this.activeStamp = new Uint32Array(this.features.length);
  }

  /** `S + hint` and the static order (by it desc, then tie-break rank), built per provider on first use. */
  private staticsFor(provider: RequestProvider): { base: Int32Array; order: Int32Array } {
    const cached = this.statics[provider];
    if (cached) return cached;
    const hint = this.hints[provider];
    const base = this.staticScore.map((v, i) => v + hint[i]!);
    const order = Int32Array.from(
      Array.from({ length: base.length }, (_, i) => i).sort(
        (a, b) => base[b]! - base[a]! || this.tieRank[a]! - this.tieRank[b]!,
      ),
    );
    const built = { base, order };
    this.statics[provider] = built;
    return built;
  }

  /** Adds the postings of `f` to `gain`, listing newly touched candidates. */
  private gainFeature(f: Feature, q: number): void {
    const { gain, touched } = this;
    const { ids, points } = f;
    const tag = q << 16;
    let nt = this.nTouched;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const v = gain[id]!;
      if (v >>> 16 === q) gain[id] = v + points[i]!;
      else {
        gain[id] = tag | points[i]!;
        touched[nt++] = id;
      }
    }
    this.nTouched = nt;
  }

  /** Points of candidate `id` from frequent features absent in request `q` (computed on demand). */
  private lossOf(id: number, q: number): number {
    const { freqFeature, freqPoints, activeStamp } = this;
    let loss = 0;
    for (let i = this.freqStart[id]!, end = this.freqStart[id + 1]!; i < end; i++) {
      if (activeStamp[freqFeature[i]!] !== q) loss += freqPoints[i]!;
    }
    return loss;
  }

  /** Marks feature `fid` present; rare features are applied at once. */
  private markPresent(fid: number | undefined, q: number): void {
    if (fid === undefined || this.activeStamp[fid] === q) return;
    this.activeStamp[fid] = q;
    const f = this.features[fid]!;
    if (!f.frequent) this.gainFeature(f, q);
  }

  /**
   * The best `k` candidates with score >= {@link AUTO_MIN_SCORE} that `accept` (called only for
   * candidates that would enter the top `k`), ordered by score desc, then tie-break rank
   * (installCount desc, name asc; docs/scoring.md#selection). Not re-entrant: one request at a time
   * per core.
   */
  top(
    ctx: ScoringContext,
    k: number,
    accept: (id: number) => boolean,
  ): { id: number; score: number }[] {
    const q = this.nextQuery();
    const { gain, touched, activeStamp, features, tieRank } = this;
    this.nTouched = 0;
    this.matcher.search(ctx.text, (pid) => this.markPresent(this.patternFeature[pid], q));
    this.tokenTable.scan(ctx.text, (fid) => this.markPresent(fid, q));
    for (const t of ctx.reasonTokens) {
      const fid = this.reasonFeature.get(t);
      if (fid !== undefined) this.gainFeature(features[fid]!, q);
    }
    let activeLen = 0;
    let missingLen = 0;
    for (const fid of this.frequent) {
      if (activeStamp[fid] === q) activeLen += features[fid]!.ids.length;
      else missingLen += features[fid]!.ids.length;
    }
    // Static mode: every candidate starts from S; absent frequent features are subtracted lazily.
    const staticMode = activeLen > missingLen;
    for (const fid of this.frequent) {
      const active = activeStamp[fid] === q;
      if (!staticMode && active) this.gainFeature(features[fid]!, q);
    }
    const base = staticMode ? this.staticsFor(ctx.provider).base : this.hints[ctx.provider];
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
    // Untouched candidates in static order: exact score = S + hint − loss <= S + hint, so the walk
    // stops once the bound cannot beat the current k-th. A first walk fills the top `k` before the
    // touched candidates are scored, so that few of those reach the (costlier) filters.
    const order = staticMode ? this.staticsFor(ctx.provider).order : EMPTY;
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
        if (gain[id]! >>> 16 === q) continue;
        const score = bound - this.lossOf(id, q);
        if (score > worstScore || (score === worstScore && tieRank[id]! < worstRank))
          offer(id, score);
      }
    };
    walk(true);
    for (let i = 0, nt = this.nTouched; i < nt; i++) {
      const id = touched[i]!;
      const bound = base[id]! + (gain[id]! & 0xffff);
      if (bound < worstScore || (bound === worstScore && tieRank[id]! >= worstRank)) continue;
      const score = staticMode ? bound - this.lossOf(id, q) : bound;
      if (score > worstScore || (score === worstScore && tieRank[id]! < worstRank))
        offer(id, score);
    }
    walk(false);
    return top;
  }

  /** Next request stamp, 1..32767 (it shares an int32 with 16 bits of points in `gain`). */
  private nextQuery(): number {
    this.query++;
    if (this.query > 0x7fff) {
      this.gain.fill(0);
      this.activeStamp.fill(0);
      this.query = 1;
    }
    return this.query;
  }
}

/**
 * A fingerprint of everything scoring reads from `candidates`, in order: id, name, description,
 * tags and installCount (two FNV-1a 32-bit hashes and the count).
 */
export function candidatesFingerprint(candidates: readonly Skill[]): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x0100019b);
    }
    a = Math.imul(a ^ 0x1f, 0x01000193);
    b = Math.imul(b ^ 0x1f, 0x0100019b);
  };
  for (const s of candidates) {
    mix(s.id);
    mix(s.name);
    mix(s.description);
    for (const t of s.tags) mix(t);
    mix(String(s.installCount));
  }
  return `${candidates.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

const CORE_CACHE_SIZE = 4;
const cores: ScoringCore[] = [];

/** The core for `candidates`: a cached one with the same fingerprint, or a new one. */
export function scoringCoreFor(candidates: readonly Skill[]): ScoringCore {
  const fingerprint = candidatesFingerprint(candidates);
  const at = cores.findIndex((c) => c.fingerprint === fingerprint);
  if (at >= 0) {
    const [hit] = cores.splice(at, 1);
    cores.unshift(hit!);
    return hit!;
  }
  const core = new ScoringCore(candidates, fingerprint);
  cores.unshift(core);
  if (cores.length > CORE_CACHE_SIZE) cores.pop();
  return core;
}
