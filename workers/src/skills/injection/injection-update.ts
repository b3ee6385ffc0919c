/**
 * Incremental updates of the injection index's scoring core (docs/scoring.md#keeping-the-index-current):
 * a new version of a {@link ScoringCore} with some candidates removed and others added, without
 * rebuilding it. The new version copies the per-slot arrays and the posting lists it changes; it
 * shares the growing lookup tables (tokens, reason tokens, patterns, frequent-feature pool) with
 * the versions before it, which ignore what they do not know, and appends the new posting lists to
 * the pools it shares with them (compacting them into new pools once more than half of a pool is
 * garbage). New patterns go to a second substring table
 * beside the one of the full build. Which features are frequent stays as built: a
 * new feature is rare, whatever its length (scores do not depend on it, only speed).
 *
 * Only the newest version of a core family may be derived from (two versions derived from the same
 * one would give the same new feature ids different meanings); {@link deriveCore} answers
 * undefined otherwise, and the caller builds a new core.
 */
import type { RequestProvider } from "../../formats/types.js";
import { compact, grown, mergeInto, reserve } from "./injection-arrays.js";
import { ScoringCore } from "./injection-core.js";
import {
  type CoreState,
  candidateFeatures,
  entryId,
  isHead,
  MAX_ENTRY_ID,
  markHead,
  PROVIDERS,
  packEntry,
  type ScorableCandidate,
  tieCompare,
} from "./injection-features.js";
import { candidateHash, type Fingerprint } from "./injection-fingerprint.js";

/** Candidates leaving (by slot) and entering a core. */
export interface CoreChange {
  removed: readonly { slot: number; candidate: ScorableCandidate }[];
  added: readonly ScorableCandidate[];
}

/**
 * The version of `core` after `change`. @returns the new core and the slot of each added
 * candidate, or undefined when `core` is not the newest version of its family.
 */
export function deriveCore(
  core: ScoringCore,
  change: CoreChange,
): { core: ScoringCore; slots: number[] } | undefined {
  const prev = core.state;
  const { shared } = prev;
  if (!isHead(prev)) return undefined;
  const free = [...prev.free];
  let slotCount = prev.slotCount;
  // Slots leaving the core, marked for the scans over postings and orders.
  const dropped = new Uint8Array(prev.slotCount);
  for (const r of change.removed) {
    dropped[r.slot] = 1;
    free.push(r.slot);
  }
  const nDropped = change.removed.length;
  const slots = change.added.map(() => (free.length > 0 ? free.pop()! : slotCount++));
  const n = slotCount;
  const staticScore = grown(prev.staticScore, n);
  const slotInstall = grown(prev.slotInstall, n);
  const freqStart = grown(prev.freqStart, n);
  const freqEnd = grown(prev.freqEnd, n);
  const hints = Object.fromEntries(PROVIDERS.map((p) => [p, grown(prev.hints[p], n)])) as Record<
    RequestProvider,
    Int8Array
  >;
  const slotIds = prev.slotIds.slice();
  const slotName = prev.slotName.slice();
  let featureCount = prev.featureCount;
  // Per feature: slots whose entries leave its posting list, and (slot, points) entries to add.
  const edits = new Map<number, { drop: number[]; add: number[] }>();
  const edit = (fid: number) => {
    let e = edits.get(fid);
    if (!e) {
      e = { drop: [], add: [] };
      edits.set(fid, e);
    }
    return e;
  };
  const newFeature = () => featureCount++;
  /** Per slot of a removed candidate: its entries, `fid` → points (in entry order). */
  const leaving = new Map<number, Map<number, number[]>>();
  const entries = (into: Map<number, number[]>, fid: number, points: number) => {
    const list = into.get(fid);
    if (list) list.push(points);
    else into.set(fid, [points]);
  };
  for (const { slot, candidate } of change.removed) {
    const f = candidateFeatures(candidate);
    const had = new Map<number, number[]>();
    for (const [t, pts] of f.tokens) entries(had, shared.tokens.get(t)!, pts);
    for (const [t, pts] of f.reason) entries(had, shared.reason.get(t)!, pts);
    for (const [p, pts] of f.patterns) entries(had, shared.patterns.get(p)!, pts);
    leaving.set(slot, had);
    staticScore[slot] = 0;
    freqStart[slot] = 0;
    freqEnd[slot] = 0;
    for (const p of PROVIDERS) hints[p][slot] = 0;
    slotIds[slot] = null;
    slotName[slot] = "";
    slotInstall[slot] = 0;
  }
  const own: number[][] = [];
  change.added.forEach((c, i) => {
    const slot = slots[i]!;
    const f = candidateFeatures(c);
    const mine: number[] = [];
    const has = new Map<number, number[]>();
    const use = (fid: number, points: number) => {
      entries(has, fid, points);
      mine.push(fid, points);
    };
    for (const [t, pts] of f.tokens) {
      let fid = shared.tokens.get(t);
      if (fid === undefined) {
        fid = newFeature();
        shared.tokens.add(t, fid);
      }
      use(fid, pts);
    }
    for (const [t, pts] of f.reason) {
      let fid = shared.reason.get(t);
      if (fid === undefined) {
        fid = newFeature();
        shared.reason.set(t, fid);
      }
      use(fid, pts);
    }
    for (const [p, pts] of f.patterns) {
      let fid = shared.patterns.get(p);
      if (fid === undefined) {
        fid = newFeature();
        shared.patterns.set(p, fid);
        shared.extraFeature[shared.extra.add(p)] = fid;
      }
      use(fid, pts);
    }
    // A slot taken over from a removed candidate keeps the entries both have alike (an edited
    // description leaves most of a skill's words, and the long lists of common words, untouched).
    const had = leaving.get(slot);
    for (const [fid, pts] of has) {
      const before = had?.get(fid);
      if (before && before.length === pts.length && before.every((v, k) => v === pts[k])) {
        had!.delete(fid);
        continue;
      }
      for (const v of pts) edit(fid).add.push(slot, v);
    }
    for (const p of PROVIDERS) hints[p][slot] = f.hints[p];
    slotIds[slot] = c.id;
    slotName[slot] = c.name;
    slotInstall[slot] = c.installCount;
    own.push(mine);
  });
  for (const [slot, had] of leaving) for (const fid of had.keys()) edit(fid).drop.push(slot);
  // New features start empty and rare; changed posting lists are appended to the pool.
  if (n > MAX_ENTRY_ID || featureCount > MAX_ENTRY_ID)
    throw new RangeError(`injection index limited to ${MAX_ENTRY_ID} candidates and features`);
  const featStart = grown(prev.featStart, featureCount);
  const featLen = grown(prev.featLen, featureCount);
  const featFrequent = grown(prev.featFrequent, featureCount);
  for (let fid = prev.featureCount; fid < featureCount; fid++) {
    featStart[fid] = 0;
    featLen[fid] = 0;
    featFrequent[fid] = 0;
  }
  let postings = prev.postings;
  let livePostings = prev.livePostings;
  for (const [fid, e] of edits) {
    const start = featStart[fid]!;
    const len = featLen[fid]!;
    reserve(postings, len + e.add.length / 2);
    const { entries } = postings;
    let o = postings.used;
    featStart[fid] = o;
    const single = e.drop.length === 1 ? e.drop[0]! : -1;
    const many = e.drop.length > 1 ? new Set(e.drop) : undefined;
    for (let i = start; i < start + len; i++) {
      const slot = entryId(entries[i]!);
      if (slot === single || many?.has(slot)) continue;
      entries[o++] = entries[i]!;
    }
    for (let i = 0; i < e.add.length; i += 2) entries[o++] = packEntry(e.add[i]!, e.add[i + 1]!);
    featLen[fid] = o - postings.used;
    livePostings += featLen[fid]! - len;
    postings.used = o;
  }
  if (postings.used > 2 * livePostings + 65_536)
    postings = compact(postings, featureCount, featStart, (i) => featLen[i]!);
  // Static scores and frequent-feature lists of the added slots, appended to their pool.
  let freq = prev.freq;
  own.forEach((mine, i) => {
    const slot = slots[i]!;
    let s = 0;
    reserve(freq, mine.length / 2);
    const start = freq.used;
    for (let j = 0; j < mine.length; j += 2) {
      if (featFrequent[mine[j]!] !== 1) continue;
      freq.entries[freq.used++] = packEntry(mine[j]!, mine[j + 1]!);
      s += mine[j + 1]!;
    }
    staticScore[slot] = s;
    freqStart[slot] = start;
    freqEnd[slot] = freq.used;
  });
  let liveFreq = 0;
  if (freq.used > 65_536) {
    for (let slot = 0; slot < n; slot++) liveFreq += freqEnd[slot]! - freqStart[slot]!;
    if (freq.used > 2 * liveFreq + 65_536)
      freq = compact(freq, n, freqStart, (i) => freqEnd[i]! - freqStart[i]!, freqEnd);
  }
  const tieBefore = (a: number, b: number) =>
    tieCompare(slotInstall[a]!, slotName[a]!, slotInstall[b]!, slotName[b]!) < 0;
  const tieOrder = mergeInto(
    prev.tieOrder,
    dropped,
    nDropped,
    [...slots].sort((a, b) => (tieBefore(a, b) ? -1 : 1)),
    tieBefore,
  );
  const tieRank = grown(prev.tieRank, n);
  for (let rank = 0; rank < tieOrder.length; rank++) tieRank[tieOrder[rank]!] = rank;
  const state: CoreState = {
    shared,
    featureCount,
    featStart,
    featLen,
    featFrequent,
    postings,
    livePostings,
    frequent: prev.frequent,
    slotCount,
    free,
    slotIds,
    slotName,
    slotInstall,
    staticScore,
    tieRank,
    tieOrder,
    hints,
    freqStart,
    freqEnd,
    freq,
    extraCount: shared.extra.size,
  };
  const next = new ScoringCore(state, shiftFingerprint(core.fingerprint, change));
  for (const p of PROVIDERS) {
    const was = core.builtStatics(p);
    if (!was) continue;
    const base = grown(was.base, n);
    for (const slot of slots) base[slot] = staticScore[slot]! + hints[p][slot]!;
    const before = (a: number, b: number) =>
      base[a]! > base[b]! || (base[a] === base[b] && tieRank[a]! < tieRank[b]!);
    const sorted = [...slots].sort((a, b) => (before(a, b) ? -1 : 1));
    next.setStatics(p, { base, order: mergeInto(was.order, dropped, nDropped, sorted, before) });
  }
  markHead(state);
  return { core: next, slots };
}

function shiftFingerprint(f: Fingerprint, change: CoreChange): Fingerprint {
  let { a, b, count } = f;
  for (const r of change.removed) {
    const [ha, hb] = candidateHash(r.candidate);
    a = (a - ha) >>> 0;
    b = (b - hb) >>> 0;
    count--;
  }
  for (const c of change.added) {
    const [ha, hb] = candidateHash(c);
    a = (a + ha) >>> 0;
    b = (b + hb) >>> 0;
    count++;
  }
  return { a, b, count };
}
