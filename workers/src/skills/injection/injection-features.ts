/**
 * Builds the scoring features of the injection index (see injection-index.ts) from the auto
 * candidates of a snapshot: one posting list per signal source of docs/scoring.md — context tokens
 * (+2 per name token, +1 per description token), patterns for the substring rules (+6 verbatim
 * name, +3 per tag), reason tokens (+2 per name or tag token) — plus provider-hint points, the
 * static score of the frequent features and the tie-break rank.
 */
import type { RequestProvider } from "../../formats/types.js";
import type { Skill } from "../types.js";
import { nameTokens, normaliseTags, providerHintPoints, tokenize } from "./scoring.js";

/** Postings of one feature: parallel arrays of candidate ids and points. */
export interface Feature {
  ids: Int32Array;
  points: Int8Array;
  /** Long enough to be folded into the static score (context tokens and patterns only). */
  frequent: boolean;
}

/** Everything the index scores with, by candidate position. */
export interface FeatureSet {
  features: Feature[];
  tokenFeature: Map<string, number>;
  reasonFeature: Map<string, number>;
  /** Lowercased names and tags, in Aho-Corasick pattern order. */
  patterns: string[];
  /** Pattern id → feature id. */
  patternFeature: Int32Array;
  /** Ids of the frequent features. */
  frequent: number[];
  /** Points of each candidate from all frequent features (`S`). */
  staticScore: Int32Array;
  /** Each candidate's frequent features (CSR: `freqStart[id]..freqStart[id+1]`). */
  freqStart: Int32Array;
  freqFeature: Int32Array;
  freqPoints: Int8Array;
  /** Position in tie-break order (installCount desc, name asc; docs/scoring.md#selection). */
  tieRank: Int32Array;
  hints: Record<RequestProvider, Int8Array>;
}

const PROVIDERS: readonly RequestProvider[] = ["openai", "anthropic", "google"];

/** Collects (feature key → postings) while indexing. */
class FeatureTable {
  readonly ids = new Map<string, number>();
  readonly flat: number[][] = [];
  add(key: string, candidate: number, points: number): void {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.flat.length;
      this.ids.set(key, id);
      this.flat.push([]);
    }
    this.flat[id]!.push(candidate, points);
  }
}

/**
 * Builds the features of `candidates`. A context-token or pattern feature is frequent when its
 * posting holds at least max(64, n/64) candidates.
 */
export function buildFeatures(candidates: readonly Skill[]): FeatureSet {
  const n = candidates.length;
  const tokens = new FeatureTable();
  const reason = new FeatureTable();
  const patterns = new FeatureTable();
  const hints = { openai: new Int8Array(n), anthropic: new Int8Array(n), google: new Int8Array(n) };
  candidates.forEach((s, id) => {
    const nSet = new Set(nameTokens(s.name));
    const tags = normaliseTags(s.tags);
    const dSet = new Set(tokenize(s.description));
    for (const t of new Set([...nSet, ...dSet]))
      tokens.add(t, id, (nSet.has(t) ? 2 : 0) + (dSet.has(t) ? 1 : 0));
    const tagTokens = new Set(tokenize(tags.join(" ")));
    for (const t of new Set([...nSet, ...tagTokens]))
      reason.add(t, id, (nSet.has(t) ? 2 : 0) + (tagTokens.has(t) ? 2 : 0));
    patterns.add(s.name.toLowerCase(), id, 6);
    for (const tag of tags) patterns.add(tag, id, 3);
    for (const p of PROVIDERS) hints[p][id] = providerHintPoints(tags, p);
  });
  const features: Feature[] = [];
  const frequentAt = Math.max(64, Math.ceil(n / 64));
  const addAll = (
    table: FeatureTable,
    map: Map<string, number> | null,
    mayBeFrequent: boolean,
  ): number[] => {
    const out: number[] = [];
    for (const local of table.ids.values()) {
      const flat = table.flat[local]!;
      const ids = new Int32Array(flat.length / 2);
      const points = new Int8Array(flat.length / 2);
      for (let i = 0; i < ids.length; i++) {
        ids[i] = flat[2 * i]!;
        points[i] = flat[2 * i + 1]!;
      }
      out.push(features.length);
      features.push({ ids, points, frequent: mayBeFrequent && ids.length >= frequentAt });
    }
    if (map) {
      let i = 0;
      for (const key of table.ids.keys()) map.set(key, out[i++]!);
    }
    return out;
  };
  const tokenFeature = new Map<string, number>();
  const reasonFeature = new Map<string, number>();
  addAll(tokens, tokenFeature, true);
  addAll(reason, reasonFeature, false);
  const patternFeature = Int32Array.from(addAll(patterns, null, true));

  const frequent: number[] = [];
  const staticScore = new Int32Array(n);
  const counts = new Int32Array(n + 1);
  features.forEach((f, fid) => {
    if (!f.frequent) return;
    frequent.push(fid);
    for (let i = 0; i < f.ids.length; i++) {
      staticScore[f.ids[i]!]! += f.points[i]!;
      counts[f.ids[i]! + 1]!++;
    }
  });
  for (let i = 0; i < n; i++) counts[i + 1]! += counts[i]!;
  const freqFeature = new Int32Array(counts[n]!);
  const freqPoints = new Int8Array(counts[n]!);
  const next = counts.slice(0, n);
  for (const fid of frequent) {
    const f = features[fid]!;
    for (let i = 0; i < f.ids.length; i++) {
      const at = next[f.ids[i]!]!++;
      freqFeature[at] = fid;
      freqPoints[at] = f.points[i]!;
    }
  }
  const tieRank = new Int32Array(n);
  Array.from({ length: n }, (_, i) => i)
    .sort((a, b) => {
      const sa = candidates[a]!;
      const sb = candidates[b]!;
      return (
        sb.installCount - sa.installCount || (sa.name < sb.name ? -1 : sa.name > sb.name ? 1 : 0)
      );
    })
    .forEach((id, rank) => {
      tieRank[id] = rank;
    });
  return {
    features,
    tokenFeature,
    reasonFeature,
    patterns: [...patterns.ids.keys()],
    patternFeature,
    frequent,
    staticScore,
    freqStart: counts,
    freqFeature,
    freqPoints,
    tieRank,
    hints,
  };
}
