/**
 * The data of the injection index's scoring core (see injection-index.ts for the algorithm) and
 * its full build from a candidate list: one posting list per signal source of docs/scoring.md —
 * context tokens (+2 per name token, +1 per description token), patterns for the substring rules
 * (+6 verbatim name, +3 per tag), reason tokens (+2 per name or tag token) — plus provider-hint
 * points, the static score of the frequent features and the tie-break order.
 *
 * Candidates live in numbered slots. Everything a request reads is in flat typed arrays: per slot
 * (static score, tie-break rank, hints, frequent-feature range), per feature (start and length of
 * its posting list, frequent flag), and two pools holding every posting list and every per-slot
 * frequent-feature list. A core state is immutable once built; a new version after a registry
 * change (injection-update.ts) copies the per-slot and per-feature arrays, appends the posting
 * lists it changes to the pools, and shares the lookup tables of {@link CoreShared}, which only
 * grow.
 */
import type { RequestProvider } from "../../formats/types.js";
import {
  nameTokens,
  normaliseTags,
  providerHintPoints,
  type ScorableSkill,
  tokenize,
} from "./scoring.js";
import { SubstringTable } from "./substring-table.js";
import { TokenTable } from "./token-table.js";

/** The request providers, in the order of per-provider arrays. */
export const PROVIDERS: readonly RequestProvider[] = ["openai", "anthropic", "google"];

/** What the core knows of a candidate: its id and the fields scoring reads. */
export interface ScorableCandidate extends ScorableSkill {
  id: string;
  installCount: number;
}

/**
 * Entries of lists stored back to back, each a slot (or feature id) and its points packed into one
 * int32 ({@link packEntry}), so that reading an entry touches one array. Versions of a core share
 * a pool and only append to it (past `used`), so older versions keep reading their own lists; a
 * compaction gives the new version a new pool.
 */
export interface Pool {
  entries: Int32Array;
  used: number;
}

/** Largest slot or feature id a pool entry holds (23 bits). */
export const MAX_ENTRY_ID = (1 << 23) - 1;

/** A pool entry: `id` (0..{@link MAX_ENTRY_ID}) in the high 24 bits, `points` (int8) in the low 8. */
export function packEntry(id: number, points: number): number {
  return (id << 8) | (points & 0xff);
}

/** The id of a pool entry. */
export function entryId(entry: number): number {
  return entry >> 8;
}

/** The points of a pool entry. */
export function entryPoints(entry: number): number {
  return (entry << 24) >> 24;
}

/** The scoring inputs one candidate contributes (docs/scoring.md#the-table). */
export interface CandidateFeatures {
  /** Context token → points: +2 when a name token, +1 when a description token. */
  tokens: [string, number][];
  /** Background-reason token → points: +2 when a name token, +2 when a token of the tags. */
  reason: [string, number][];
  /** Pattern → points: the lowercased name (+6) and each normalised tag (+3); may repeat. */
  patterns: [string, number][];
  /** Provider-hint points per provider (+2, −2 or 0). */
  hints: Record<RequestProvider, number>;
}

/** The features of one candidate, as the reference scorer (scoring.ts) counts them. */
export function candidateFeatures(s: ScorableSkill): CandidateFeatures {
  const nSet = new Set(nameTokens(s.name));
  const tags = normaliseTags(s.tags);
  const dSet = new Set(tokenize(s.description));
  const tokens: [string, number][] = [];
  for (const t of new Set([...nSet, ...dSet]))
    tokens.push([t, (nSet.has(t) ? 2 : 0) + (dSet.has(t) ? 1 : 0)]);
  const tagTokens = new Set(tokenize(tags.join(" ")));
  const reason: [string, number][] = [];
  for (const t of new Set([...nSet, ...tagTokens]))
    reason.push([t, (nSet.has(t) ? 2 : 0) + (tagTokens.has(t) ? 2 : 0)]);
  const patterns: [string, number][] = [[s.name.toLowerCase(), 6]];
  for (const tag of tags) patterns.push([tag, 3]);
  return {
    tokens,
    reason,
    patterns,
    hints: {
      openai: providerHintPoints(tags, "openai"),
      anthropic: providerHintPoints(tags, "anthropic"),
      google: providerHintPoints(tags, "google"),
    },
  };
}

/** Finds which patterns (by id) occur in a text; a pattern may be reported more than once. */
export interface PatternMatcher {
  search(text: string, visit: (patternId: number) => void): void;
}

/** Per-request scratch of a core family (one request at a time). */
export interface Scratch {
  /** Per slot: points gained in the current request (0: untouched). */
  gain: Int32Array;
  /** The slots touched in the current request (one more entry than slots). */
  touched: Int32Array;
  /** Entries of `touched` in use; the next request zeroes their gain first. */
  nTouched: number;
  /** The features found in the current request's text (grows as needed). */
  found: Int32Array;
  /** Where reads made only to bring memory into the cache put their result. */
  sink: number;
}

/** Empty scratch for a core of `slots` slots (all gains 0, nothing touched or found). */
export function newScratch(slots: number): Scratch {
  return {
    gain: new Int32Array(slots),
    touched: new Int32Array(slots + 1),
    found: new Int32Array(256),
    sink: 0,
    nTouched: 0,
  };
}

/** Lookup tables shared by every version of one core family; they only grow. */
export interface CoreShared {
  /** Context token → feature id. */
  tokens: TokenTable;
  /** Background-reason token → feature id. */
  reason: Map<string, number>;
  /** Pattern text → feature id. */
  patterns: Map<string, number>;
  /**
   * Matcher of the patterns known when the family was built (a substring table, filled from the
   * candidates or from a serialised core), its patterns, and pattern id → feature id.
   */
  main: PatternMatcher;
  mainPatterns: readonly string[];
  mainFeature: Int32Array;
  /** Matcher of the patterns added since, and pattern id → feature id. */
  extra: SubstringTable;
  extraFeature: number[];
  scratch: Scratch;
}

/** One version of a core's data. */
export interface CoreState {
  shared: CoreShared;
  /** Number of features; per-feature arrays are at least this long. */
  featureCount: number;
  /** Per feature: its posting list in `postings` (slots and points). */
  featStart: Int32Array;
  featLen: Int32Array;
  /** Per feature: 1 when folded into the static score (context tokens and patterns; fixed when built). */
  featFrequent: Uint8Array;
  postings: Pool;
  /** Sum of `featLen`: postings in use (the rest of the pool is garbage until compacted). */
  livePostings: number;
  /** Ids of the frequent features (fixed when built). */
  frequent: Int32Array;
  /** Slots in use or free; per-slot arrays are at least this long. */
  slotCount: number;
  /** Free slots, reused by later additions. */
  free: number[];
  /** Per slot: the candidate's id (null when free), name and installCount. */
  slotIds: (string | null)[];
  slotName: string[];
  slotInstall: Int32Array;
  /** Per slot: points of all its frequent features (`S`). */
  staticScore: Int32Array;
  /** Per slot: position in tie-break order (installCount desc, name asc; docs/scoring.md#selection). */
  tieRank: Int32Array;
  /** Live slots in tie-break order. */
  tieOrder: Int32Array;
  hints: Record<RequestProvider, Int8Array>;
  /** Per slot: its frequent features and their points in `freq` (`freqStart .. freqEnd`). */
  freqStart: Int32Array;
  freqEnd: Int32Array;
  freq: Pool;
  /** Patterns of `shared.extra` this version knows. */
  extraCount: number;
}

/** The newest version of each core family, by its shared tables. */
const heads = new WeakMap<CoreShared, CoreState>();

/** Marks `state` as the newest version of its family (a full build is the first). */
export function markHead(state: CoreState): void {
  heads.set(state.shared, state);
}

/** True when `state` is the newest version of its family (only that one may be derived from). */
export function isHead(state: CoreState): boolean {
  return heads.get(state.shared) === state;
}

/** Tie-break order of two candidates: installCount desc, then name asc. */
export function tieCompare(ia: number, na: string, ib: number, nb: string): number {
  return ib - ia || (na < nb ? -1 : na > nb ? 1 : 0);
}

/** Collects (feature key → postings) while indexing. */
class FeatureTable {
  readonly ids = new Map<string, number>();
  readonly flat: number[][] = [];
  add(key: string, slot: number, points: number): void {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.flat.length;
      this.ids.set(key, id);
      this.flat.push([]);
    }
    this.flat[id]!.push(slot, points);
  }
}

/**
 * Builds the core state of `candidates` (slot = position). A context-token or pattern feature is
 * frequent when its posting holds at least max(64, n/64) candidates.
 */
export function buildCoreState(candidates: readonly ScorableCandidate[]): CoreState {
  const n = candidates.length;
  const tokens = new FeatureTable();
  const reason = new FeatureTable();
  const patterns = new FeatureTable();
  const hints = { openai: new Int8Array(n), anthropic: new Int8Array(n), google: new Int8Array(n) };
  candidates.forEach((s, slot) => {
    const f = candidateFeatures(s);
    for (const [t, pts] of f.tokens) tokens.add(t, slot, pts);
    for (const [t, pts] of f.reason) reason.add(t, slot, pts);
    for (const [p, pts] of f.patterns) patterns.add(p, slot, pts);
    for (const p of PROVIDERS) hints[p][slot] = f.hints[p];
  });
  // Feature ids in table order: context tokens, then reason tokens, then patterns.
  const tables = [tokens, reason, patterns];
  const featureCount = tokens.flat.length + reason.flat.length + patterns.flat.length;
  const featStart = new Int32Array(featureCount);
  const featLen = new Int32Array(featureCount);
  const featFrequent = new Uint8Array(featureCount);
  let total = 0;
  for (const t of tables) for (const flat of t.flat) total += flat.length / 2;
  if (n > MAX_ENTRY_ID || featureCount > MAX_ENTRY_ID)
    throw new RangeError(`injection index limited to ${MAX_ENTRY_ID} candidates and features`);
  const postings: Pool = { entries: new Int32Array(Math.max(16, total)), used: total };
  const frequentAt = Math.max(64, Math.ceil(n / 64));
  const byKey = tables.map(() => new Map<string, number>());
  let fid = 0;
  let at = 0;
  tables.forEach((table, t) => {
    for (const [key, local] of table.ids) {
      const flat = table.flat[local]!;
      const len = flat.length / 2;
      featStart[fid] = at;
      featLen[fid] = len;
      featFrequent[fid] = t !== 1 && len >= frequentAt ? 1 : 0;
      for (let i = 0; i < len; i++)
        postings.entries[at++] = packEntry(flat[2 * i]!, flat[2 * i + 1]!);
      byKey[t]!.set(key, fid++);
    }
  });
  const [tokenFeature, reasonFeature, patternFeature] = byKey as [
    Map<string, number>,
    Map<string, number>,
    Map<string, number>,
  ];

  const frequent: number[] = [];
  const staticScore = new Int32Array(n);
  const counts = new Int32Array(n + 1);
  for (let f = 0; f < featureCount; f++) {
    if (featFrequent[f] !== 1) continue;
    frequent.push(f);
    for (let i = featStart[f]!, end = i + featLen[f]!; i < end; i++) {
      const e = postings.entries[i]!;
      staticScore[entryId(e)]! += entryPoints(e);
      counts[entryId(e) + 1]!++;
    }
  }
  for (let i = 0; i < n; i++) counts[i + 1]! += counts[i]!;
  const freq: Pool = { entries: new Int32Array(Math.max(16, counts[n]!)), used: counts[n]! };
  const next = counts.slice(0, n);
  for (const f of frequent) {
    for (let i = featStart[f]!, end = i + featLen[f]!; i < end; i++) {
      const e = postings.entries[i]!;
      freq.entries[next[entryId(e)]!++] = packEntry(f, entryPoints(e));
    }
  }
  const tieOrder = Int32Array.from(
    Array.from({ length: n }, (_, i) => i).sort((a, b) =>
      tieCompare(
        candidates[a]!.installCount,
        candidates[a]!.name,
        candidates[b]!.installCount,
        candidates[b]!.name,
      ),
    ),
  );
  const tieRank = new Int32Array(n);
  for (let rank = 0; rank < n; rank++) tieRank[tieOrder[rank]!] = rank;
  // In code-unit order, so that patterns the substring table files under the same first
  // characters get neighbouring ids, and their records share cache lines.
  const patternTexts = [...patternFeature.keys()].sort();
  const main = new SubstringTable(patternTexts.length);
  for (const p of patternTexts) main.add(p);
  const state: CoreState = {
    shared: {
      tokens: new TokenTable(tokenFeature),
      reason: reasonFeature,
      patterns: patternFeature,
      main,
      mainPatterns: patternTexts,
      mainFeature: Int32Array.from(patternTexts, (p) => patternFeature.get(p)!),
      extra: new SubstringTable(),
      extraFeature: [],
      scratch: newScratch(n),
    },
    featureCount,
    featStart,
    featLen,
    featFrequent,
    postings,
    livePostings: total,
    frequent: Int32Array.from(frequent),
    slotCount: n,
    free: [],
    slotIds: candidates.map((c) => c.id),
    slotName: candidates.map((c) => c.name),
    slotInstall: Int32Array.from(candidates, (c) => c.installCount),
    staticScore,
    tieRank,
    tieOrder,
    hints,
    freqStart: counts.slice(0, n),
    freqEnd: counts.slice(1, n + 1),
    freq,
    extraCount: 0,
  };
  markHead(state);
  return state;
}
