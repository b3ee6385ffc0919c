/**
 * Aho-Corasick multi-pattern matcher (Aho & Corasick 1975): finds which of many patterns occur
 * as substrings of a text in one pass over the text, independent of the number of patterns.
 * Used by injection for the verbatim-name and tag-substring rules of docs/scoring.md. Matching is
 * exact on UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 *
 * States are numbered breadth-first, so the shallow states where a scan spends most of its time
 * are the low ids: they get dense rows of the full automaton (failure links folded in) and a
 * step costs one array read. Deeper goto edges live in an open-addressing hash of typed arrays.
 * A transition's target carries a flag bit when a pattern ends there or on its failure chain, so
 * that a step to a state with nothing to report reads nothing else.
 */

/** Entries of the dense transition table (states × alphabet): 1 MB of int32 per matcher. */
const DENSE_BUDGET = 262_144;
/** Set on a transition target from which something is reported (states stay below 2^30). */
const REPORTS = 1 << 30;
const STATE = REPORTS - 1;

/** An immutable matcher over a fixed pattern list (pattern ids are list positions). */
export class AhoCorasick {
  /** UTF-16 code unit → symbol index, -1 when no pattern uses the code unit. */
  private readonly symbols = new Int32Array(65536).fill(-1);
  private readonly alphabet: number;
  /** States `0 .. denseStates-1` have dense rows: `dense[state * alphabet + symbol]` → next state. */
  private readonly denseStates: number;
  private readonly dense: Int32Array;
  /** Goto edges of the other states: `[key, next]` slot pairs, key `state * alphabet + symbol`. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly fail: Int32Array;
  /** Nearest state on the failure chain that ends a pattern (-1: none). */
  private readonly dict: Int32Array;
  /** First state to report from at a state: itself when it ends a pattern, else its `dict`. */
  private readonly report: Int32Array;
  /** Pattern ids ending at each state. */
  private readonly outputs: (number[] | undefined)[];
  private readonly seenState: Uint32Array;
  private query = 0;

  /** @param patterns non-empty strings; empty ones never match. */
  constructor(patterns: readonly string[]) {
    let alphabet = 0;
    for (const p of patterns) {
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i);
        if (this.symbols[c] === -1) this.symbols[c] = alphabet++;
      }
    }
    const A = Math.max(alphabet, 1);
    this.alphabet = A;
    // 1. Trie with insertion ids: edges as [symbol, child] pairs per state.
    const edges: number[][] = [[]];
    const ends: (number[] | undefined)[] = [undefined];
    patterns.forEach((p, id) => {
      if (p.length === 0) return;
      let state = 0;
      for (let i = 0; i < p.length; i++) {
        const sym = this.symbols[p.charCodeAt(i)]!;
        const e = edges[state]!;
        let next = -1;
        for (let j = 0; j < e.length; j += 2) if (e[j] === sym) next = e[j + 1]!;
        if (next < 0) {
          next = edges.length;
          edges.push([]);
          ends.push(undefined);
          e.push(sym, next);
        }
        state = next;
      }
      const list = ends[state];
      if (list) list.push(id);
      else ends[state] = [id];
    });
    // 2. Breadth-first renumbering.
    const n = edges.length;
    const order: number[] = [0];
    for (let h = 0; h < order.length; h++) {
      const e = edges[order[h]!]!;
      for (let j = 0; j < e.length; j += 2) order.push(e[j + 1]!);
    }
    const newId = new Int32Array(n);
    order.forEach((old, i) => {
      newId[old] = i;
    });
    let size = 16;
    while (size < n * 2) size *= 2;
    this.slots = new Int32Array(size * 2).fill(-1);
    this.mask = size - 1;
    this.outputs = order.map((old) => ends[old]);
    this.denseStates = Math.min(n, Math.max(1, Math.floor(DENSE_BUDGET / A)));
    this.dense = new Int32Array(this.denseStates * A);
    for (const old of order) {
      const e = edges[old]!;
      for (let j = 0; j < e.length; j += 2) this.link(newId[old]!, e[j]!, newId[e[j + 1]!]!);
    }
    // 3. Failure and dictionary links, dense rows (a failure target is shallower: already done).
    this.fail = new Int32Array(n);
    this.dict = new Int32Array(n).fill(-1);
    this.report = new Int32Array(n).fill(-1);
    for (let s = 0; s < n; s++) {
      const e = edges[order[s]!]!;
      for (let j = 0; j < e.length; j += 2) {
        const sym = e[j]!;
        const child = newId[e[j + 1]!]!;
        let target = 0;
        if (s !== 0) {
          for (let f = this.fail[s]!; ; f = this.fail[f]!) {
            const t = this.goto(f, sym);
            if (t >= 0) {
              target = t;
              break;
            }
            if (f === 0) break;
          }
        }
        this.fail[child] = target;
        this.dict[child] = this.outputs[target] ? target : this.dict[target]!;
      }
      this.report[s] = this.outputs[s] ? s : this.dict[s]!;
      if (s < this.denseStates) {
        for (let sym = 0; sym < A; sym++) {
          const g = this.goto(s, sym);
          this.dense[s * A + sym] = g >= 0 ? g : s === 0 ? 0 : this.dense[this.fail[s]! * A + sym]!;
        }
      }
    }
    this.seenState = new Uint32Array(n);
    // Flag the transition targets that report (only now are all `report` entries known).
    const flag = (v: number) => (v >= 0 && this.report[v]! > 0 ? v | REPORTS : v);
    for (let i = 0; i < this.dense.length; i++) this.dense[i] = flag(this.dense[i]!);
    for (let i = 1; i < this.slots.length; i += 2) this.slots[i] = flag(this.slots[i]!);
  }

  /**
   * The goto edge of `state` on `sym`, or -1 (the trie only, no failure links); once built, the
   * target carries the REPORTS flag.
   */
  private goto(state: number, sym: number): number {
    const key = state * this.alphabet + sym;
    const slots = this.slots;
    let slot = Math.imul(key, 0x9e3779b1) & this.mask;
    for (;;) {
      const k = slots[slot * 2]!;
      if (k === key) return slots[slot * 2 + 1]!;
      if (k === -1) return -1;
      slot = (slot + 1) & this.mask;
    }
  }

  private link(state: number, sym: number, next: number): void {
    const key = state * this.alphabet + sym;
    let slot = Math.imul(key, 0x9e3779b1) & this.mask;
    while (this.slots[slot * 2] !== -1) slot = (slot + 1) & this.mask;
    this.slots[slot * 2] = key;
    this.slots[slot * 2 + 1] = next;
  }

  /**
   * Calls `visit(patternId)` once for every pattern that occurs in `text` (in no set order).
   * Not re-entrant: one search at a time per matcher.
   */
  search(text: string, visit: (patternId: number) => void): void {
    this.query = (this.query + 1) >>> 0;
    if (this.query === 0) {
      this.seenState.fill(0);
      this.query = 1;
    }
    const q = this.query;
    const { symbols, fail, dict, outputs, seenState, dense, denseStates, report, alphabet } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const sym = symbols[text.charCodeAt(i)]!;
      if (sym < 0) {
        state = 0;
        continue;
      }
      let next: number;
      if (state < denseStates) next = dense[state * alphabet + sym]!;
      else {
        next = this.goto(state, sym);
        while (next < 0) {
          state = fail[state]!;
          if (state < denseStates) {
            next = dense[state * alphabet + sym]!;
            break;
          }
          next = this.goto(state, sym);
        }
      }
      state = next & STATE;
      if ((next & REPORTS) === 0) continue;
      for (let t = report[state]!; t > 0 && seenState[t] !== q; t = dict[t]!) {
        seenState[t] = q;
        for (const id of outputs[t]!) visit(id);
      }
    }
  }
}
