/**
 * Aho-Corasick multi-pattern matcher (Aho & Corasick 1975): finds which of many patterns occur
 * as substrings of a text in one pass over the text, independent of the number of patterns.
 * Used by injection for SPEC §3's verbatim-name and tag-substring rules. Matching is exact on
 * UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 */

/** An immutable matcher over a fixed pattern list (pattern ids are list positions). */
export class AhoCorasick {
  /** Transition table: key `state * alphabet + symbol` → next state. */
  private readonly trans = new Map<number, number>();
  /** UTF-16 code unit → symbol index, -1 when no pattern uses the code unit. */
  private readonly symbols = new Int32Array(65536).fill(-1);
  private readonly alphabet: number;
  private readonly fail: Int32Array;
  /** Nearest state on the failure chain that ends a pattern (-1: none). */
  private readonly dict: Int32Array;
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
    this.alphabet = Math.max(alphabet, 1);
    const outputs: (number[] | undefined)[] = [undefined];
    const children: number[][] = [[]];
    patterns.forEach((p, id) => {
      if (p.length === 0) return;
      let state = 0;
      for (let i = 0; i < p.length; i++) {
        const key = state * this.alphabet + this.symbols[p.charCodeAt(i)]!;
        let next = this.trans.get(key);
        if (next === undefined) {
          next = outputs.length;
          outputs.push(undefined);
          children.push([]);
          this.trans.set(key, next);
          children[state]!.push(key);
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
      for (const key of children[state]!) {
        const sym = key - state * this.alphabet;
        const child = this.trans.get(key)!;
        let f = state === 0 ? -1 : this.fail[state]!;
        let target = 0;
        while (f >= 0) {
          const t = this.trans.get(f * this.alphabet + sym);
          if (t !== undefined) {
            target = t;
            break;
          }
          f = f === 0 ? -1 : this.fail[f]!;
        }
        this.fail[child] = target;
        this.dict[child] = outputs[target] ? target : this.dict[target]!;
        queue.push(child);
      }
    }
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
    const { trans, symbols, alphabet, fail, dict, outputs, seenState } = this;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const sym = symbols[text.charCodeAt(i)]!;
      if (sym < 0) {
        state = 0;
        continue;
      }
      let next = trans.get(state * alphabet + sym);
      while (next === undefined && state !== 0) {
        state = fail[state]!;
        next = trans.get(state * alphabet + sym);
      }
      state = next ?? 0;
      for (
        let t = outputs[state] ? state : dict[state]!;
        t > 0 && seenState[t] !== q;
        t = dict[t]!
      ) {
        seenState[t] = q;
        for (const id of outputs[t]!) visit(id);
      }
    }
  }
}
