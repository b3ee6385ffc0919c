/**
 * The data of a `bm25` scoring core (docs/scoring.md#the-bm25-ranker) and the pure steps that
 * make it: the model's parameters, a candidate set's postings, forward lists and field lengths
 * ({@link Bm25State}), built from scratch ({@link buildState}) or derived from the previous
 * state by a change of candidates ({@link deriveState}), which copies only the posting lists of
 * the changed skills' terms. The scoring itself is bm25-core.ts; a state is also what
 * bm25-serial.ts stores.
 */
import type { Skill } from "../../types.js";
import { FIELD_COUNT, fieldTerms } from "./bm25-fields.js";

/** Tunable constants of the model; the defaults were chosen by measurement (docs/scoring.md). */
export interface Bm25Params {
  /** Weight of each field, in FIELDS order (name, description, tags, params, paramText). */
  weights: readonly number[];
  /** Length normalisation of each field, in FIELDS order (0 = none, 1 = full). */
  b: readonly number[];
  /** Term-frequency saturation. */
  k1: number;
  /** Points of a skill whose name terms all occur in the request. */
  coverage: number;
  /** Share of a one-skill term's idf that a candidate's score must reach. */
  gate: number;
}

/** The product's parameters (docs/scoring.md#the-bm25-ranker). */
export const BM25_PARAMS: Bm25Params = {
  weights: [3, 2, 2, 1, 0.5],
  b: [0.5, 0.75, 0.5, 0.5, 0.75],
  k1: 1.2,
  coverage: 1,
  gate: 0.45,
};

/** Largest count of a term in one field that is told apart (6 bits per field). */
export const MAX_TF = 63;
/** Bits per field in a packed count. */
export const TF_BITS = 6;

/** The postings of one term: parallel arrays of slots and packed per-field counts. */
export interface Posting {
  readonly slots: Int32Array;
  readonly tfs: Int32Array;
}

/** Everything a core is made of (shared with its serialised form, bm25-serial.ts). */
export interface Bm25State {
  /** Fingerprint of the candidates (bm25-fingerprint.ts). */
  key: string;
  /** Term → id; shared, append-only, between a core and the cores derived from it. */
  dict: Map<string, number>;
  /** Id → term; shared like `dict`. */
  terms: string[];
  /** Postings by term id (undefined: no candidate of this core has the term). */
  post: (Posting | undefined)[];
  slotIds: (string | null)[];
  slotName: string[];
  slotInstalls: number[];
  /** Unique name-term ids of each slot. */
  nameTerms: (Int32Array | undefined)[];
  /** Each slot's term ids (its forward list), in the order the skill's fields give them. */
  fwdTerms: (Int32Array | undefined)[];
  /** The packed per-field counts of `fwdTerms`, entry by entry. */
  fwdTfs: (Int32Array | undefined)[];
  /** Field lengths, `slot * FIELD_COUNT + field`. */
  lens: Int32Array;
  /** Free slots. */
  free: number[];
  /** Candidates in the core. */
  n: number;
  /** Sum of each field's length over the candidates. */
  totals: number[];
}

/** A scored slot. */
export interface Bm25Hit {
  id: number;
  score: number;
}

/** A change of a core's candidates: slots leaving, skills entering. */
export interface Bm25Change {
  removed: readonly { slot: number; candidate: Skill }[];
  added: readonly Skill[];
}

/** The empty term list. */
export const EMPTY = new Int32Array(0);

/** Steps per octave of the rounded collection statistics. */
const STAT_STEPS = 16;

/**
 * `x` (> 0) rounded to the nearest power of 2^(1/16): within 2.2 % of it, and the same value for
 * every x in a band about 4.4 % wide. Used for N and the mean field lengths (see the module docs).
 */
export function quantised(x: number): number {
  return 2 ** (Math.round(Math.log2(x) * STAT_STEPS) / STAT_STEPS);
}

/** A skill's counts per term: term → packed per-field counts; and its field lengths. */
export function countTerms(skill: Skill): { counts: Map<string, number>; lens: number[] } {
  const fields = fieldTerms(skill);
  const counts = new Map<string, number>();
  const lens: number[] = [];
  for (let f = 0; f < FIELD_COUNT; f++) {
    const list = fields[f]!;
    lens.push(list.length);
    const shift = f * TF_BITS;
    for (const t of list) {
      const packed = counts.get(t) ?? 0;
      const c = (packed >>> shift) & MAX_TF;
      if (c < MAX_TF) counts.set(t, packed + (1 << shift));
    }
  }
  return { counts, lens };
}

/** The id of `term` in `state`'s dictionary, added when new. */
function termId(state: Bm25State, term: string): number {
  let id = state.dict.get(term);
  if (id === undefined) {
    id = state.terms.length;
    state.terms.push(term);
    state.dict.set(term, id);
  }
  return id;
}

/** A scored request against one core (see {@link Bm25Core.top}). */
export interface Bm25Query {
  /** The request's unique terms, in order of first occurrence. */
  readonly terms: readonly string[];
  /** Weight of each term (parallel to `terms`; absent: every term weighs 1). */
  readonly weights?: readonly number[];
}

/** Puts `skill` in `slot` of `state`, calling `posting` with each of its terms' ids and counts. */
function addSlot(
  state: Bm25State,
  slot: number,
  skill: Skill,
  posting: (id: number, packed: number) => void,
): void {
  const { counts, lens } = countTerms(skill);
  const fwdTerms = new Int32Array(counts.size);
  const fwdTfs = new Int32Array(counts.size);
  let j = 0;
  for (const [term, packed] of counts) {
    const id = termId(state, term);
    posting(id, packed);
    fwdTerms[j] = id;
    fwdTfs[j++] = packed;
  }
  state.fwdTerms[slot] = fwdTerms;
  state.fwdTfs[slot] = fwdTfs;
  for (let f = 0; f < FIELD_COUNT; f++) {
    state.lens[slot * FIELD_COUNT + f] = lens[f]!;
    state.totals[f]! += lens[f]!;
  }
  state.slotIds[slot] = skill.id;
  state.slotName[slot] = skill.name;
  state.slotInstalls[slot] = skill.installCount;
  const names = new Set<number>();
  for (const t of fieldTerms(skill)[0]!) names.add(state.dict.get(t)!);
  state.nameTerms[slot] = names.size ? Int32Array.from(names) : EMPTY;
  state.n++;
}

/** The state of a core over `candidates` (slot i = candidates[i]). @param key their fingerprint. */
export function buildState(candidates: readonly Skill[], key: string): Bm25State {
  const state: Bm25State = {
    key,
    dict: new Map(),
    terms: [],
    post: [],
    slotIds: [],
    slotName: [],
    slotInstalls: [],
    nameTerms: [],
    fwdTerms: [],
    fwdTfs: [],
    lens: new Int32Array(candidates.length * FIELD_COUNT),
    free: [],
    n: 0,
    totals: new Array(FIELD_COUNT).fill(0),
  };
  const lists: { slots: number[]; tfs: number[] }[] = [];
  candidates.forEach((skill, slot) => {
    addSlot(state, slot, skill, (id, packed) => {
      let l = lists[id];
      if (!l) {
        l = { slots: [], tfs: [] };
        lists[id] = l;
      }
      l.slots.push(slot);
      l.tfs.push(packed);
    });
  });
  state.post = lists.map((l) => ({
    slots: Int32Array.from(l.slots),
    tfs: Int32Array.from(l.tfs),
  }));
  return state;
}

/** The state after `change` and what changed (see {@link deriveState}). */
export interface DerivedState {
  state: Bm25State;
  /** The slot of each added skill, in order. */
  slots: number[];
  /** Slots whose skill changed (removed or added). */
  changedSlots: Set<number>;
  /** Term ids whose posting lists changed. */
  changedTerms: Set<number>;
}

/**
 * The state after `change` of `prev`, sharing its term dictionary (append-only: new terms are
 * added to it) and every untouched posting list; nothing else of `prev` changes.
 * @param key the fingerprint of the new candidate set.
 */
export function deriveState(prev: Bm25State, change: Bm25Change, key: string): DerivedState {
  const free = [...prev.free];
  const removedSlots = new Set(change.removed.map((r) => r.slot));
  for (const slot of removedSlots) free.push(slot);
  let slotCount = prev.slotIds.length;
  const slots = change.added.map(() => (free.length > 0 ? free.pop()! : slotCount++));
  const lens = new Int32Array(slotCount * FIELD_COUNT);
  lens.set(prev.lens);
  const state: Bm25State = {
    key,
    dict: prev.dict,
    terms: prev.terms,
    post: prev.post.slice(),
    slotIds: prev.slotIds.slice(),
    slotName: prev.slotName.slice(),
    slotInstalls: prev.slotInstalls.slice(),
    nameTerms: prev.nameTerms.slice(),
    fwdTerms: prev.fwdTerms.slice(),
    fwdTfs: prev.fwdTfs.slice(),
    lens,
    free,
    n: prev.n,
    totals: prev.totals.slice(),
  };
  // Terms whose posting lists change: the old list without the removed slots, plus additions.
  const edits = new Map<number, { slots: number[]; tfs: number[] }>();
  for (const { slot } of change.removed) {
    for (const id of prev.fwdTerms[slot] ?? EMPTY) {
      if (!edits.has(id)) edits.set(id, { slots: [], tfs: [] });
    }
    for (let f = 0; f < FIELD_COUNT; f++) {
      state.totals[f]! -= lens[slot * FIELD_COUNT + f]!;
      lens[slot * FIELD_COUNT + f] = 0;
    }
    state.slotIds[slot] = null;
    state.slotName[slot] = "";
    state.slotInstalls[slot] = 0;
    state.nameTerms[slot] = undefined;
    state.fwdTerms[slot] = undefined;
    state.fwdTfs[slot] = undefined;
    state.n--;
  }
  const additions = new Map<number, { slots: number[]; tfs: number[] }>();
  change.added.forEach((skill, i) => {
    addSlot(state, slots[i]!, skill, (id, packed) => {
      let l = additions.get(id);
      if (!l) {
        l = { slots: [], tfs: [] };
        additions.set(id, l);
      }
      l.slots.push(slots[i]!);
      l.tfs.push(packed);
    });
  });
  for (const id of additions.keys()) if (!edits.has(id)) edits.set(id, { slots: [], tfs: [] });
  for (const [id, out] of edits) {
    const old = state.post[id];
    if (old) {
      for (let j = 0; j < old.slots.length; j++) {
        if (removedSlots.has(old.slots[j]!)) continue;
        out.slots.push(old.slots[j]!);
        out.tfs.push(old.tfs[j]!);
      }
    }
    const add = additions.get(id);
    if (add) {
      out.slots.push(...add.slots);
      out.tfs.push(...add.tfs);
    }
    state.post[id] = out.slots.length
      ? { slots: Int32Array.from(out.slots), tfs: Int32Array.from(out.tfs) }
      : undefined;
  }
  for (let id = state.post.length; id < state.terms.length; id++) state.post[id] = undefined;
  return {
    state,
    slots,
    changedSlots: new Set([...removedSlots, ...slots]),
    changedTerms: new Set(edits.keys()),
  };
}
