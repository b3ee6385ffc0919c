/**
 * Aho-Corasick multi-pattern matcher (Aho & Corasick 1975): finds which of many patterns occur
 * as substrings of a text in one pass over the text, independent of the number of patterns.
 * Used by injection for SPEC §3's verbatim-name and tag-substring rules. Matching is exact on
 * UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 * Goto edges live in an open-addressing hash of typed arrays; the shallowest states (a prefix of
 * the breadth-first order, where a scan spends most of its time) also get dense rows of the full
 * automaton (failure links folded in), so most steps cost one array read.
 */

/** Entries of the dense transition table (states × alphabet), about 256 KB of int32. */
const DENSE_BUDGET = 65_536;

/** An immutable matcher over a fixed pattern list (pattern ids are list positions). */
export class AhoCorasick {
  /** UTF-16 code unit → symbol index, -1 when no pattern uses the code unit. */
  private readonly symbols = new Int32Array(65536).fill(-1);
  private readonly alphabet: number;
  /** Root transitions, dense by symbol (0 = stay at the root). */
  private readonly rootNext: Int32Array;
  /** Open-addressing slots, `[key, next]` pairs side by side (one cache line per probe). */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly fail: Int32Array;
  /** Nearest state on the failure chain that ends a pattern (-1: none). */
  private readonly dict: Int32Array;
  /** Pattern ids ending at each state. */
  private readonly outputs: (number[] | undefined)[];
  /** Dense row of a state (-1: none) and the rows, `rowOf[s] * alphabet + symbol` → next state. */
  private readonly rowOf: Int32Array;
  private readonly dense: Int32Array;
  /** First state to report from when the scan is at a state: itself or its dictionary link. */
  private readonly report: Int32Array;
  private readonly seenState: Uint32Array;
  private query = 0;

  /** @param patterns non-empty strings; empty ones never match. */
  constructor(patterns: readonly string[]) {
    let alphabet = 0;
    let total = 0;
    for (const p of patterns) {
      total += p.length;
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i);
        if (this.symbols[c] === -1) this.symbols[c] = alphabet++;
      }
    }
    this.alphabet = Math.max(alphabet, 1);
    this.rootNext = new Int32Array(this.alphabet);
    let size = 16;
    while (size < total * 2 + 16) size *= 2;
    this.slots = new Int32Array(size * 2).fill(-1);
    this.mask = size - 1;
    const outputs: (number[] | undefined)[] = [undefined];
    const children: number[][] = [[]];
    patterns.forEach((p, id) => {
      if (p.length === 0) return;
      let state = 0;
      for (let i = 0; i < p.length; i++) {
        const sym = this.symbols[p.charCodeAt(i)]!;
        let next = this.step(state, sym);
        if (next < 0) {
          next = outputs.length;
          outputs.push(undefined);
          children.push([]);
          this.link(state, sym, next);
          children[state]!.push(sym);
        }
        state = next;
      }
      const ends = outputs[state];
      if (ends) ends.push(id);
      else outputs[state] = [id];
    });
    const n = outputs.length;
    this.outputs = outputs;
    this.fail = new Int32Array(n);
    this.dict = new Int32Array(n).fill(-1);
    this.seenState = new Uint32Array(n);
    // Breadth-first: failure links of a state's children from the state's own failure link.
    const queue: number[] = [0];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (const sym of children[state]!) {
        const child = this.step(state, sym);
        let target = 0;
        if (state !== 0) {
          let f = this.fail[state]!;
          for (;;) {
            const t = this.step(f, sym);
            if (t >= 0) {
              target = t;
              break;
            }
            if (f === 0) break;
            f = this.fail[f]!;
          }
        }
        this.fail[child] = target;
        this.dict[child] = outputs[target] ? target : this.dict[target]!;
        queue.push(child);
      }
    }
    this.report = Int32Array.from(outputs, (o, st) => (o ? st : this.dict[st]!));
    // Dense rows for a breadth-first prefix of the states: a state's failure target is shallower,
    // so its row is already complete when the state's own row is filled.
    const A = this.alphabet;
    const rows = Math.min(n, Math.max(1, Math.floor(DENSE_BUDGET / A)));
    this.rowOf = new Int32Array(n).fill(-1);
    this.dense = new Int32Array(rows * A);
    for (let r = 0; r < rows; r++) {
      const st = queue[r]!;
      this.rowOf[st] = r;
      const failRow = st === 0 ? -1 : this.rowOf[this.fail[st]!]!;
      for (let sym = 0; sym < A; sym++) {
        const g = this.step(st, sym);
        this.dense[r * A + sym] = g >= 0 ? g : failRow < 0 ? 0 : this.dense[failRow * A + sym]!;
      }
    }
  }

  /** Next state of `state` on `sym`, or -1 when there is no edge (the root answers 0 then). */
  private step(state: number, sym: number): number {
    if (state === 0) {
      const r = this.rootNext[sym]!;
      return r === 0 ? -1 : r;
    }
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
    if (state === 0) {
      this.rootNext[sym] = next;
      return;
    }
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
    const { symbols, fail, dict, outputs, seenState, rowOf, dense, report, alphabet } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const sym = symbols[text.charCodeAt(i)]!;
      if (sym < 0) {
        state = 0;
        continue;
      }
      const row = rowOf[state]!;
      if (row >= 0) state = dense[row * alphabet + sym]!;
      else {
        let next = this.step(state, sym);
        while (next < 0) {
          state = fail[state]!;
          const r = rowOf[state]!;
          if (r >= 0) {
            next = dense[r * alphabet + sym]!;
            break;
          }
          next = this.step(state, sym);
        }
        state = next;
      }
      for (let t = report[state]!; t > 0 && seenState[t] !== q; t = dict[t]!) {
        seenState[t] = q;
        for (const id of outputs[t]!) visit(id);
      }
    }
  }
}
