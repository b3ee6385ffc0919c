/**
 * What one learning scope (an API key, or the global skills across keys) learned from traffic
 * (docs/scoring.md#learning-from-traffic), held in memory: for each skill, the decayed weight of
 * each hashed context feature that preceded a call of it. A call adds 1 to each of its features;
 * a weight halves every half-life (w(t) = w₀ · 2^(−(t − t₀)/H)). Each skill keeps at most
 * `maxFeaturesPerSkill` features: past that, the lightest is forgotten.
 *
 * The learned evidence is scored as one more BM25 field of the skill whose term counts are the
 * weights (document expansion from the query log):
 *
 *   learned(s) = Σ_{f ∈ q} q(f) · idf(f) · w(s,f) / (1 + W(f)),  idf(f) = ln(1 + (N − n_f + 0.5)/(n_f + 0.5))
 *
 * with N the number of AUTO candidates, n_f the number of skills that learned f and W(f) the sum of
 * f's weights over them, so that a feature many skills learned (a greeting, "please") counts
 * little, and q(f) the `bm25` ranker's weight of the term f hashes (features.ts: everyday spoken
 * words weigh less). The model is built from rows
 * and changed one call at a time; the same rows give the same model on Node and in the Worker.
 */

import { featureWeight } from "./features.js";

/** The feature of a row holding the skill's decayed call count. */
export const CALLS_FEATURE = -1;

/** One stored weight (a row of the learning table). */
export interface LearnedRow {
  skillId: string;
  /** A feature hash, or {@link CALLS_FEATURE}. */
  feature: number;
  /** The weight as of `updatedAt`. */
  weight: number;
  /** ms since the epoch. */
  updatedAt: number;
}

/** Bounds and decay of learning. */
export interface LearningParams {
  /** Half-life of a weight, in ms. */
  halfLifeMs: number;
  /** Most features kept per skill and scope. */
  maxFeaturesPerSkill: number;
}

/** What {@link LearnedModel.record} changed: rows to write and features forgotten. */
export interface RecordedCall {
  upserts: LearnedRow[];
  /** Features of the skill dropped to keep its bound. */
  evicted: number[];
}

interface Entry {
  w: number;
  t: number;
}

/** Weights below this are treated as forgotten. */
const FORGOTTEN = 1e-3;

/** The learned weights of one scope. */
export class LearnedModel {
  private readonly bySkill = new Map<string, Map<number, Entry>>();
  private readonly byFeature = new Map<number, Map<string, Entry>>();
  private readonly calls = new Map<string, Entry>();

  constructor(readonly params: LearningParams) {}

  /** A model holding `rows` (extra features of a skill beyond the bound are dropped, lightest first). */
  static fromRows(rows: Iterable<LearnedRow>, params: LearningParams, now: number): LearnedModel {
    const m = new LearnedModel(params);
    for (const r of rows) m.put(r.skillId, r.feature, { w: r.weight, t: r.updatedAt });
    for (const skillId of m.bySkill.keys()) m.trim(skillId, now);
    return m;
  }

  /** Skills with learned features. */
  get skills(): number {
    return this.bySkill.size;
  }

  /** The weight of `e` at `now`. */
  private decayed(e: Entry, now: number): number {
    const age = now - e.t;
    return age <= 0 ? e.w : e.w * 2 ** (-age / this.params.halfLifeMs);
  }

  private put(skillId: string, feature: number, e: Entry): void {
    if (feature === CALLS_FEATURE) {
      this.calls.set(skillId, e);
      return;
    }
    let own = this.bySkill.get(skillId);
    if (!own) {
      own = new Map();
      this.bySkill.set(skillId, own);
    }
    own.set(feature, e);
    let posting = this.byFeature.get(feature);
    if (!posting) {
      posting = new Map();
      this.byFeature.set(feature, posting);
    }
    posting.set(skillId, e);
  }

  private drop(skillId: string, feature: number): void {
    this.bySkill.get(skillId)?.delete(feature);
    const posting = this.byFeature.get(feature);
    if (posting) {
      posting.delete(skillId);
      if (posting.size === 0) this.byFeature.delete(feature);
    }
  }

  /** Drops the lightest features of `skillId` beyond the bound. @returns the dropped features. */
  private trim(skillId: string, now: number): number[] {
    const own = this.bySkill.get(skillId);
    if (!own || own.size <= this.params.maxFeaturesPerSkill) return [];
    const order = [...own].sort((a, b) => this.decayed(a[1], now) - this.decayed(b[1], now));
    const out: number[] = [];
    for (const [feature] of order.slice(0, own.size - this.params.maxFeaturesPerSkill)) {
      this.drop(skillId, feature);
      out.push(feature);
    }
    return out;
  }

  /**
   * Records one call of `skillId` preceded by `features` at `now` (ms).
   * @returns the rows to write (each feature's new weight and the call count) and the features
   *   forgotten to keep the bound.
   */
  record(skillId: string, features: readonly number[], now: number): RecordedCall {
    const upserts: LearnedRow[] = [];
    const bump = (feature: number, old: Entry | undefined) => {
      const w = (old ? this.decayed(old, now) : 0) + 1;
      this.put(skillId, feature, { w, t: now });
      upserts.push({ skillId, feature, weight: w, updatedAt: now });
    };
    bump(CALLS_FEATURE, this.calls.get(skillId));
    const own = this.bySkill.get(skillId);
    for (const f of new Set(features)) bump(f, own?.get(f) ?? this.bySkill.get(skillId)?.get(f));
    const evicted = this.trim(skillId, now);
    return { upserts: upserts.filter((u) => !evicted.includes(u.feature)), evicted };
  }

  /** Forgets everything learned for `skillId`. */
  forget(skillId: string): void {
    for (const feature of [...(this.bySkill.get(skillId)?.keys() ?? [])]) {
      this.drop(skillId, feature);
    }
    this.bySkill.delete(skillId);
    this.calls.delete(skillId);
  }

  /** The decayed call count of `skillId` at `now`. */
  callsOf(skillId: string, now: number): number {
    const e = this.calls.get(skillId);
    return e ? this.decayed(e, now) : 0;
  }

  /**
   * The learned score of every skill that learned one of `features` (see the module docs), added
   * into `out` (skill id → score).
   * @param candidates N, the number of AUTO candidates the idf is taken over (at least 1).
   */
  addScores(
    features: readonly number[],
    candidates: number,
    now: number,
    out: Map<string, number>,
  ): void {
    const n = Math.max(candidates, 1);
    for (const f of features) {
      const posting = this.byFeature.get(f);
      if (!posting) continue;
      const df = Math.min(posting.size, n);
      const idf = featureWeight(f) * Math.log(1 + (n - df + 0.5) / (df + 0.5));
      let total = 0;
      for (const e of posting.values()) total += this.decayed(e, now);
      for (const [skillId, e] of posting) {
        const w = this.decayed(e, now);
        if (w < FORGOTTEN) continue;
        out.set(skillId, (out.get(skillId) ?? 0) + (idf * w) / (1 + total));
      }
    }
  }
}
