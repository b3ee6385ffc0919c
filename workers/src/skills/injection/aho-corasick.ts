/**
 * Aho-Corasick multi-pattern matcher (Aho & Corasick 1975): finds which of many patterns occur
 * as substrings of a text in one pass over the text, independent of the number of patterns.
 * Used by injection for the verbatim-name and tag-substring rules of docs/scoring.md. Matching is
 * exact on UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 *
 * The layout is chosen for few distinct cache lines per search (docs/scoring.md, "Injection with
 * cold CPU caches"): states are numbered depth-first, so a state's first child is the next state
 * and the chain of states spelling the tail of a pattern lies contiguously in memory. Each state
 * is one 16-byte record in a single Int32Array (first child's symbol, further edges, failure
 * link). Branching states near the root, and the other states while a budget lasts, also get a
 * dense row of the full automaton (failure links folded in); a position names such a row
 * directly, so that a step from it costs one array read. A transition's target carries a flag
 * bit when a pattern ends there or on its failure chain, so that a step to a state with nothing
 * to report reads nothing else; what reporting reads is one more 16-byte record per state.
 */

/** Entries of the dense transition table (rows × alphabet): 1 MB of int32 per matcher. */
const DENSE_BUDGET = 262_144;
/** Set on a transition target from which something is reported. */
const REPORTS = 1 << 30;
/**
 * Set on a position that is a dense row (the rest is the row number, else it is a state id, below
 * 2^29): a step from a dense row reads one entry and nothing else.
 */
const DENSE = 1 << 29;
const ID = DENSE - 1;
/** Int32 entries per state record. */
const REC = 4;
/** Record field 0: the first child's symbol (low 17 bits; {@link LEAF}: no child), flag bit 20. */
const SYM = 0x1ffff;
const LEAF = SYM;
const CHILD_REPORTS = 1 << 20;
/** Record field 0 flag: the first child has a dense row (its record's field 2 is `-1 - row`). */
const CHILD_DENSE = 1 << 21;

const NO_IDS: readonly number[] = [];

/** An immutable matcher over a fixed pattern list (pattern ids are list positions). */
export class AhoCorasick {
  /** UTF-16 code unit → symbol index, -1 when no pattern uses the code unit. */
  private readonly symbols = new Int32Array(65536).fill(-1);
  private readonly alphabet: number;
  /**
   * Per state `s`, at `s * REC`: [first child's symbol | CHILD_REPORTS | CHILD_DENSE (the child
   * is `s + 1`), start of its further edges in `edges`, their count or `-1 - row` for a dense
   * row, failure link (a position)].
   */
  private readonly node: Int32Array;
  /** Further goto edges, `[symbol, target position | REPORTS]` pairs, grouped by state. */
  private readonly edges: Int32Array;
  /** Dense rows: `dense[row * alphabet + symbol]` → next position | REPORTS (failures folded in). */
  private readonly dense: Int32Array;
  /** The state id of each dense row. */
  private readonly rowState: Int32Array;
  /**
   * What a reporting step reads, one 16-byte record per state `s` at `s * REC`: [the last search
   * that reported from `s`, the nearest state on the failure chain that ends a pattern (-1: none),
   * the pattern id when one pattern ends at `s` (else the start of its ids in `outIds`), the
   * number of patterns ending at `s`].
   */
  private readonly out: Int32Array;
  private readonly outIds: Int32Array;
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
    // 1. Trie with insertion ids: edges as [symbol, child] pairs per state, and a goto map.
    const kids: number[][] = [[]];
    const ends: (number[] | undefined)[] = [undefined];
    /** The trie child of insertion-id `state` on `sym`, or undefined (children are few). */
    const child = (state: number, sym: number): number | undefined => {
      const e = kids[state]!;
      for (let j = 0; j < e.length; j += 2) if (e[j] === sym) return e[j + 1]!;
      return undefined;
    };
    patterns.forEach((p, id) => {
      if (p.length === 0) return;
      let state = 0;
      for (let i = 0; i < p.length; i++) {
        const sym = this.symbols[p.charCodeAt(i)]!;
        let next = child(state, sym);
        if (next === undefined) {
          next = kids.length;
          kids.push([]);
          ends.push(undefined);
          kids[state]!.push(sym, next);
        }
        state = next;
      }
      const list = ends[state];
      if (list) list.push(id);
      else ends[state] = [id];
    });
    const n = kids.length;
    // 2. Failure and dictionary links, breadth-first (insertion ids).
    const bfs: number[] = [0];
    const fail = new Int32Array(n);
    const dict = new Int32Array(n).fill(-1);
    for (let h = 0; h < bfs.length; h++) {
      const s = bfs[h]!;
      const e = kids[s]!;
      for (let j = 0; j < e.length; j += 2) {
        const sym = e[j]!;
        const kid = e[j + 1]!;
        bfs.push(kid);
        let target = 0;
        if (s !== 0) {
          for (let f = fail[s]!; ; f = fail[f]!) {
            const t = child(f, sym);
            if (t !== undefined) {
              target = t;
              break;
            }
            if (f === 0) break;
          }
        }
        fail[kid] = target;
        dict[kid] = ends[target] ? target : dict[target]!;
      }
    }
    const reportsOld = (s: number) => ends[s] !== undefined || dict[s]! >= 0;
    // 3. Depth-first renumbering, children in symbol order: the first child of `s` is `s + 1`.
    const newId = new Int32Array(n);
    const dfs: number[] = [];
    const stack: number[] = [0];
    for (const e of kids) {
      if (e.length <= 2) continue;
      const pairs: [number, number][] = [];
      for (let j = 0; j < e.length; j += 2) pairs.push([e[j]!, e[j + 1]!]);
      pairs.sort((a, b) => a[0] - b[0]);
      e.length = 0;
      for (const [sym, child] of pairs) e.push(sym, child);
    }
    while (stack.length > 0) {
      const s = stack.pop()!;
      newId[s] = dfs.length;
      dfs.push(s);
      const e = kids[s]!;
      for (let j = e.length - 2; j >= 0; j -= 2) stack.push(e[j + 1]!);
    }
    // 4. Dense rows for the root and the branching states nearest to it (breadth-first), then
    // for the other states while the budget lasts.
    const rows = Math.max(1, Math.floor(DENSE_BUDGET / A));
    const rowOf = new Int32Array(n).fill(-1);
    let nRows = 0;
    for (const s of bfs) {
      if (nRows >= rows) break;
      if (s === 0 || kids[s]!.length >= 4) rowOf[s] = nRows++;
    }
    // Room left (small automata): the other states too, so that no step walks failure links.
    for (const s of bfs) {
      if (nRows >= rows) break;
      if (rowOf[s]! < 0) rowOf[s] = nRows++;
    }
    if (n >= DENSE) throw new RangeError("too many Aho-Corasick states");
    const rowOld = new Int32Array(nRows);
    for (let s = 0; s < n; s++) if (rowOf[s]! >= 0) rowOld[rowOf[s]!] = s;
    this.rowState = Int32Array.from(rowOld, (old) => newId[old]!);
    /** The position of insertion-id state `old`. */
    const at = (old: number) => (rowOf[old]! >= 0 ? DENSE | rowOf[old]! : newId[old]!);
    const flagged = (old: number) => at(old) | (reportsOld(old) ? REPORTS : 0);
    /** Insertion id of a position. */
    const oldOf = (pos: number) => ((pos & DENSE) !== 0 ? rowOld[pos & ID]! : dfs[pos & ID]!);
    this.dense = new Int32Array(nRows * A);
    const delta = (s: number, sym: number): number => {
      for (let f = s; ; f = fail[f]!) {
        if (rowOf[f]! >= 0 && f !== s) return oldOf(this.dense[rowOf[f]! * A + sym]!);
        const t = child(f, sym);
        if (t !== undefined) return t;
        if (f === 0) return 0;
      }
    };
    for (const s of bfs) {
      const row = rowOf[s]!;
      if (row < 0) continue;
      for (let sym = 0; sym < A; sym++) this.dense[row * A + sym] = flagged(delta(s, sym));
    }
    // 5. State records, further edges, reports (depth-first ids).
    this.node = new Int32Array(n * REC);
    let nEdges = 0;
    for (const e of kids) nEdges += Math.max(0, e.length - 2);
    this.edges = new Int32Array(Math.max(nEdges, 2));
    this.out = new Int32Array(n * REC);
    let nOut = 0;
    for (const list of ends) nOut += list && list.length > 1 ? list.length : 0;
    this.outIds = new Int32Array(nOut);
    let edge = 0;
    let out = 0;
    for (let s = 0; s < n; s++) {
      const old = dfs[s]!;
      const e = kids[old]!;
      const r = s * REC;
      this.node[r] =
        e.length === 0
          ? LEAF
          : e[0]! |
            (reportsOld(e[1]!) ? CHILD_REPORTS : 0) |
            (rowOf[e[1]!]! >= 0 ? CHILD_DENSE : 0);
      this.node[r + 1] = edge;
      for (let j = 2; j < e.length; j += 2) {
        this.edges[edge++] = e[j]!;
        this.edges[edge++] = flagged(e[j + 1]!);
      }
      this.node[r + 2] = rowOf[old]! >= 0 ? -1 - rowOf[old]! : (e.length - 2) / 2;
      if (e.length === 0) this.node[r + 2] = 0;
      this.node[r + 3] = at(fail[old]!);
      const list = ends[old] ?? NO_IDS;
      this.out[r + 1] = dict[old]! >= 0 ? newId[dict[old]!]! : -1;
      this.out[r + 2] = list.length === 1 ? list[0]! : out;
      this.out[r + 3] = list.length;
      if (list.length > 1) for (const id of list) this.outIds[out++] = id;
    }
  }

  /**
   * Calls `visit(patternId)` once for every pattern that occurs in `text` (in no set order).
   * Not re-entrant: one search at a time per matcher.
   */
  search(text: string, visit: (patternId: number) => void): void {
    this.query = (this.query + 1) | 0;
    if (this.query <= 0) {
      for (let i = 0; i < this.out.length; i += REC) this.out[i] = 0;
      this.query = 1;
    }
    const q = this.query;
    const { symbols, node, edges, dense, rowState, out, outIds, alphabet } = this;
    /** The current position: a dense row (DENSE | row) or a state id; the root is row 0. */
    let pos = DENSE;
    for (let i = 0; i < text.length; i++) {
      const sym = symbols[text.charCodeAt(i)]!;
      if (sym < 0) {
        pos = DENSE;
        continue;
      }
      let next: number;
      for (;;) {
        if ((pos & DENSE) !== 0) {
          next = dense[(pos & ID) * alphabet + sym]!;
          break;
        }
        const r = pos * REC;
        const first = node[r]!;
        if ((first & SYM) === sym) {
          next = (first & CHILD_DENSE) === 0 ? pos + 1 : DENSE | (-1 - node[(pos + 1) * REC + 2]!);
          if ((first & CHILD_REPORTS) !== 0) next |= REPORTS;
          break;
        }
        next = -1;
        for (let e = node[r + 1]!, end = e + node[r + 2]! * 2; e < end; e += 2) {
          if (edges[e] === sym) {
            next = edges[e + 1]!;
            break;
          }
        }
        if (next >= 0) break;
        pos = node[r + 3]!; // the root has a dense row, so this ends
      }
      pos = next & ~REPORTS;
      if ((next & REPORTS) === 0) continue;
      const state = (pos & DENSE) !== 0 ? rowState[pos & ID]! : pos;
      // From the state itself along its dictionary links; a state reported from in this search
      // had its whole chain reported then.
      for (let t = state; t >= 0 && out[t * REC] !== q; t = out[t * REC + 1]!) {
        const r = t * REC;
        out[r] = q;
        const count = out[r + 3]!;
        if (count === 1) visit(out[r + 2]!);
        else for (let o = out[r + 2]!, end = o + count; o < end; o++) visit(outIds[o]!);
      }
    }
  }
}
