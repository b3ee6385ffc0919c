/**
 * The injection index of one registry snapshot (issue 4 performance target). Scoring (SPEC §3)
 * is a sum of per-feature points: context tokens (+2 per name token, +1 per description token),
 * patterns found in the context (+6 verbatim name, +3 per tag, by one Aho-Corasick pass), reason
 * tokens (+2 per name or tag token) and a provider hint. Each feature has a posting list.
 *
 * Short ("rare") postings are added per request. Long ("frequent") ones — words such as "the"
 * that occur in most descriptions — would make every request touch every skill, so they are
 * folded into a static per-skill score `S` (all frequent features present) with a static order
 * by `S + hint`. When a request holds most of the frequent features ("static mode"), a skill's
 * score is `S + hint + gain − loss`, where `loss` (points of its absent frequent features) is
 * computed only for skills whose bound `S + hint + gain` can still enter the top five, and the
 * best skills untouched by rare features are read off the static order until no later one can
 * beat the current fifth (a threshold scan, as in Fagin's threshold algorithm). Otherwise the
 * postings of the present frequent features are added like rare ones. Only a name's competing
 * version can win (SPEC §2/§3), so only potential winners are indexed. Results equal
 * `scoreAutoSkill` (scoring.ts) exactly; a unit test checks that on random data.
 */
import type { RequestProvider } from "../providers/types.js";
import { AhoCorasick } from "./aho-corasick.js";
import { buildFeatures, type Feature } from "./injection-features.js";
import { AUTO_MIN_SCORE, type ScoringContext } from "./scoring.js";
import { SkillLookup, type SkillSource } from "./skill-lookup.js";
import type { Skill } from "./types.js";

/** A scored auto candidate. */
export interface ScoredSkill {
  skill: Skill;
  score: number;
}

/** Local copy of AUTO_MIN_SCORE for the hot loops. A candidate needs score >= this. */
const MIN_SCORE = AUTO_MIN_SCORE;
const EMPTY = new Int32Array(0);

/** Scoring index plus lookups of one snapshot. */
export class InjectionIndex {
  readonly lookup: SkillLookup;
  /** Potential winners with mode `auto` and a policy the model may trigger. */
  private readonly candidates: Skill[] = [];
  private readonly onGlobal: Skill[] = [];
  private readonly onOwn = new Map<string, Skill[]>();
  private readonly features: Feature[];
  private readonly tokenFeature: Map<string, number>;
  private readonly reasonFeature: Map<string, number>;
  /** Aho-Corasick pattern id → feature id. */
  private readonly patternFeature: Int32Array;
  private readonly matcher: AhoCorasick;
  private readonly frequent: number[];
  private readonly staticScore: Int32Array;
  /** Position of each candidate in SPEC §3 tie-break order (installCount desc, name asc). */
  private readonly tieRank: Int32Array;
  private readonly hints: Record<RequestProvider, Int8Array>;
  /** Per provider: `S + hint` per candidate, and candidates in static order. */
  private readonly statics: Partial<
    Record<RequestProvider, { base: Int32Array; order: Int32Array }>
  > = {};
  // Per-request scratch (the index serves one request at a time): points gained from present
  // features (with the list of touched candidates) and lost to absent frequent features.
  /** Packed `query << 16 | points` per candidate (one array read per posting). */
  private readonly gain: Int32Array;
  private readonly touched: Int32Array;
  private nTouched = 0;
  /** Per candidate, its frequent features (CSR: `freqStart[id]..freqStart[id+1]`), for lazy losses. */
  private readonly freqStart: Int32Array;
  private readonly freqFeature: Int32Array;
  private readonly freqPoints: Int8Array;
  private readonly activeStamp: Uint32Array;
  private query = 0;

  constructor(source: SkillSource) {
    this.lookup = new SkillLookup(source);
    const potential: Skill[] = [...this.lookup.globalWinner.values()];
    for (const own of this.lookup.ownBest.values()) potential.push(...own.values());
    for (const s of potential) {
      if (s.policy === "manual") continue;
      if (s.mode === "auto") this.candidates.push(s);
      else if (s.mode === "on" && s.apiKeyId === null) this.onGlobal.push(s);
      else if (s.mode === "on" && s.apiKeyId !== null)
        this.onOwn.set(s.apiKeyId, [...(this.onOwn.get(s.apiKeyId) ?? []), s]);
    }
    const n = this.candidates.length;
    const f = buildFeatures(this.candidates);
    this.features = f.features;
    this.tokenFeature = f.tokenFeature;
    this.reasonFeature = f.reasonFeature;
    this.patternFeature = f.patternFeature;
    this.matcher = new AhoCorasick(f.patterns);
    this.frequent = f.frequent;
    this.staticScore = f.staticScore;
    this.freqStart = f.freqStart;
    this.freqFeature = f.freqFeature;
    this.freqPoints = f.freqPoints;
    this.tieRank = f.tieRank;
    this.hints = f.hints;
    this.gain = new Int32Array(n);
    this.touched = new Int32Array(n);
    this.activeStamp = new Uint32Array(this.features.length);
  }

  /** The `on` skills that compete for the caller (their names' winning versions). */
  onSkills(apiKeyId: string | null): Skill[] {
    const out = this.onGlobal.filter((s) => this.lookup.isWinner(s, apiKeyId));
    if (apiKeyId !== null)
      for (const s of this.onOwn.get(apiKeyId) ?? [])
        if (this.lookup.isWinner(s, apiKeyId)) out.push(s);
    return out;
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
   * The best `k` auto skills competing for the caller with score >= {@link AUTO_MIN_SCORE} and
   * passing `keep`, ordered by score desc, installCount desc, name asc (SPEC §3). `keep` and the
   * winner check run only for skills that would enter the top `k`. Not re-entrant per index.
   */
  topAuto(
    ctx: ScoringContext,
    apiKeyId: string | null,
    keep: (skill: Skill) => boolean,
    k: number,
  ): ScoredSkill[] {
    const q = this.nextQuery();
    const { gain, touched, activeStamp, features, tieRank } = this;
    this.nTouched = 0;
    this.matcher.search(ctx.text, (pid) => this.markPresent(this.patternFeature[pid], q));
    for (const t of ctx.tokens) this.markPresent(this.tokenFeature.get(t), q);
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
    const top: ScoredSkill[] = [];
    const topIds: number[] = [];
    // The current k-th entry; a candidate must beat it (score, then tie-break rank).
    let worstScore = MIN_SCORE;
    let worstRank = Number.MAX_SAFE_INTEGER;
    const offer = (id: number, score: number) => {
      const skill = this.candidates[id]!;
      if (!this.lookup.isWinner(skill, apiKeyId) || !keep(skill)) return;
      let at = top.length;
      while (
        at > 0 &&
        (score > top[at - 1]!.score ||
          (score === top[at - 1]!.score && tieRank[id]! < tieRank[topIds[at - 1]!]!))
      )
        at--;
      top.splice(at, 0, { skill, score });
      topIds.splice(at, 0, id);
      if (top.length > k) {
        top.pop();
        topIds.pop();
      }
      if (top.length === k) {
        worstScore = top[k - 1]!.score;
        worstRank = tieRank[topIds[k - 1]!]!;
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

const CACHE_SIZE = 4;
const cache: InjectionIndex[] = [];

/**
 * The index of a snapshot, built on first use and cached by generation (and skills array, so two
 * snapshots that reuse a generation number never share an index). Keeps the last few.
 */
export function getInjectionIndex(source: SkillSource): InjectionIndex {
  const hit = cache.find(
    (ix) => ix.lookup.generation === source.generation && ix.lookup.skills === source.skills,
  );
  if (hit) return hit;
  const index = new InjectionIndex(source);
  cache.unshift(index);
  if (cache.length > CACHE_SIZE) cache.pop();
  return index;
}
