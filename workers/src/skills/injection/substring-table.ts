/**
 * A dynamic multi-pattern substring matcher: finds which of many patterns occur in a text, for
 * the verbatim-name and tag-substring rules of docs/scoring.md. Patterns can be added at any time
 * in O(pattern length), unlike an Aho-Corasick automaton, whose failure links would have to be
 * rebuilt.
 *
 * Each pattern of `Q` (4) or more code units is filed under a hash of its first `Q` code units;
 * a search rolls that hash over every position of the text and compares the few patterns filed
 * under it (`startsWith` at that position). Shorter patterns are filed under a hash of their
 * whole text in the same table and probed only for the lengths that occur. Matching is exact on
 * UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 *
 * Sharing: the table only grows and a pattern keeps its id, so a reader that knows the first `n`
 * patterns can keep using a table that grew since (it passes `limit = n` to `search`).
 */

/** Gram length: patterns are filed under their first `Q` code units. */
const Q = 4;
const B = 0x01000193;
/** B^(Q-1), the weight of the code unit that leaves a rolling window of Q. */
const B_OUT = Math.imul(Math.imul(B, B), B);

/** The rolling hash of `s[from .. from+len)`. */
function hashOf(s: string, from: number, len: number): number {
  let h = 0;
  for (let i = 0; i < len; i++) h = Math.imul(h, B) + s.charCodeAt(from + i);
  return h | 0;
}

/** Append-only pattern table (pattern ids are insertion positions). */
export class SubstringTable {
  /** Chain head per slot (-1: empty), and the hash filed in that slot. */
  private heads: Int32Array;
  private slotHash: Int32Array;
  private mask: number;
  private used = 0;
  /** Per pattern: next pattern in its slot's chain (-1: end). */
  private next: Int32Array;
  private readonly texts: string[] = [];
  /** Bit `len` set when some pattern of length `len` < Q exists. */
  private shortLengths = 0;

  /** @param capacity expected number of patterns. */
  constructor(capacity = 16) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.mask = size - 1;
    this.heads = new Int32Array(size).fill(-1);
    this.slotHash = new Int32Array(size);
    this.next = new Int32Array(Math.max(16, capacity)).fill(-1);
  }

  /** Number of patterns added. */
  get size(): number {
    return this.texts.length;
  }

  /** The pattern with id `id`. */
  pattern(id: number): string | undefined {
    return this.texts[id];
  }

  /**
   * Adds `pattern` (non-empty) and @returns its id. Empty patterns get an id and never match.
   * Callers de-duplicate: the same text added twice gets two ids.
   */
  add(pattern: string): number {
    if (pattern.length > 0 && (this.used + 1) * 2 > this.heads.length) this.rehash();
    const id = this.texts.length;
    this.texts.push(pattern);
    if (id >= this.next.length) {
      const grown = new Int32Array(this.next.length * 2).fill(-1);
      grown.set(this.next);
      this.next = grown;
    }
    if (pattern.length === 0) return id;
    const len = Math.min(pattern.length, Q);
    if (len < Q) this.shortLengths |= 1 << len;
    const h = hashOf(pattern, 0, len);
    const slot = this.slotFor(h);
    if (this.heads[slot] === -1) {
      this.used++;
      this.slotHash[slot] = h;
    }
    this.next[id] = this.heads[slot]!;
    this.heads[slot] = id;
    return id;
  }

  /** The slot holding hash `h`, or the empty slot where it goes. */
  private slotFor(h: number): number {
    const { heads, slotHash, mask } = this;
    let slot = Math.imul(h, 0x9e3779b1) >>> 0;
    for (slot &= mask; heads[slot] !== -1 && slotHash[slot] !== h; slot = (slot + 1) & mask);
    return slot;
  }

  private rehash(): void {
    const size = this.heads.length * 2;
    this.heads = new Int32Array(size).fill(-1);
    this.slotHash = new Int32Array(size);
    this.mask = size - 1;
    this.used = 0;
    this.next.fill(-1);
    const texts = this.texts.splice(0);
    this.shortLengths = 0;
    for (const t of texts) this.add(t);
  }

  /**
   * Calls `visit(patternId)` for every occurrence of a pattern in `text` whose id is below
   * `limit` (default: all); a pattern that occurs several times is visited several times.
   */
  search(text: string, visit: (patternId: number) => void, limit = this.texts.length): void {
    const { heads, slotHash, mask, next, texts, shortLengths } = this;
    const n = text.length;
    let h = 0;
    for (let i = 0; i < n; i++) {
      // h = hash of text[i-Q+1 .. i]
      if (i >= Q) h = (h - Math.imul(text.charCodeAt(i - Q), B_OUT)) | 0;
      h = (Math.imul(h, B) + text.charCodeAt(i)) | 0;
      if (i >= Q - 1)
        this.probe(h, text, i - Q + 1, visit, limit, heads, slotHash, mask, next, texts);
      if (shortLengths !== 0) {
        for (let len = 1; len < Q; len++) {
          if ((shortLengths & (1 << len)) === 0 || i + 1 < len) continue;
          this.probe(
            hashOf(text, i + 1 - len, len),
            text,
            i + 1 - len,
            visit,
            limit,
            heads,
            slotHash,
            mask,
            next,
            texts,
          );
        }
      }
    }
  }

  private probe(
    h: number,
    text: string,
    at: number,
    visit: (patternId: number) => void,
    limit: number,
    heads: Int32Array,
    slotHash: Int32Array,
    mask: number,
    next: Int32Array,
    texts: string[],
  ): void {
    let slot = (Math.imul(h, 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      const head = heads[slot]!;
      if (head === -1) return;
      if (slotHash[slot] === h) {
        for (let id = head; id !== -1; id = next[id]!) {
          if (id < limit && text.startsWith(texts[id]!, at)) visit(id);
        }
        return;
      }
      slot = (slot + 1) & mask;
    }
  }
}
