/**
 * A multi-pattern substring matcher: finds which of many patterns occur in a text, for the
 * verbatim-name and tag-substring rules of docs/scoring.md. Patterns can be added at any time in
 * O(pattern length) (an Aho-Corasick automaton would have to rebuild its failure links). Matching
 * is exact on UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 *
 * Each pattern is filed in a hash table under its key, computed from its first `min(length, K)`
 * code units (K = 8). A search looks at every position of the text, but most positions are ruled
 * out by bit-sets before the table is read (docs/scoring.md, "Injection with cold CPU caches"):
 *
 * - the **lead** bit-set holds the first `Q` (4) code units of each pattern of `Q` or more (their
 *   low bytes packed into an int32, which the search keeps as a window sliding over the text), and
 *   the whole text of each shorter pattern; a position whose window is not there starts no
 *   pattern of `Q` or more, and one whose last 1-3 code units are not there ends no shorter one;
 * - the **key** bit-set holds the key of each pattern of `Q` or more; at a position that passes
 *   the lead test, the keys of the text's next 4, 5, ... K code units are tested (only for the
 *   lengths some pattern has).
 *
 * A test reads one bit computed from the text alone, so the reads of different positions do not
 * wait on each other (an automaton's steps do), and most positions cost a shift, a multiplication
 * and one read of a small bit-set. Only a position that passes reads the table, whose 16-byte
 * record holds a pattern of up to eight one-byte code units itself; longer patterns compare their
 * string. Bits never cause a miss: a pattern sets the bits a search tests for it, and every
 * reported match is compared in full, so keeping only low bytes costs nothing but rare probes.
 *
 * Sharing: the table only grows and a pattern keeps its id, so a reader that knows the first `n`
 * patterns can keep using a table that grew since (it passes `limit = n` to `search`).
 */

/** Lead length: positions are first tested on their next `Q` code units. */
const Q = 4;
/** Key length: patterns are filed under their first `min(length, K)` code units. */
const K = 8;
const B = 0x01000193;
/** Multipliers that spread a key over the bit-sets and the table (Fibonacci hashing). */
const LEAD_MIX = 0x9e3779b1;
const KEY_MIX = 0x85ebca6b;
const SLOT_MIX = 0xc2b2ae35;
/** Bits of each bit-set per table slot (the table has at least two slots per key). */
const BITS_PER_SLOT = 16;
/** Fewest bits of a bit-set (8 KB): few patterns still rule out most positions. */
const MIN_BITS = 1 << 16;
/** Int32 entries per slot record. */
const REC = 4;
/**
 * Bits 24-27 of a slot record's head: the length of the slot's only pattern when that pattern is
 * held in the record itself (at most 8 code units, each 1..255), so that a probe compares it with
 * the text without reading the pattern's string; 0 otherwise.
 */
const INLINE_LEN = 24;
const HEAD = (1 << INLINE_LEN) - 1;

/**
 * The key of `s[from .. from+len)`: up to Q code units packed one byte each (the low byte of each,
 * as the search packs its window), further ones folded in by multiplication.
 */
function keyOf(s: string, from: number, len: number): number {
  let k = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(from + i) & 0xff;
    k = i < Q ? (k << 8) | c : (Math.imul(k, B) + c) | 0;
  }
  return k;
}

/** Append-only pattern table (pattern ids are insertion positions). */
export class SubstringTable {
  /**
   * Per slot, one 16-byte record at `4s`: [the key hash filed there, its chain head (-1: empty) |
   * {@link INLINE_LEN} << 24, the chain's only pattern's code units 0-3 and 4-7, one byte each].
   */
  private slots: Int32Array;
  private mask = 0;
  private used = 0;
  /** The two bit-sets (32 bits per entry) and the shift that turns a mixed hash into a bit. */
  private lead: Int32Array;
  private keys: Int32Array;
  private shift = 0;
  /** Per pattern: next pattern in its slot's chain (-1: end). */
  private next: Int32Array;
  private readonly texts: string[] = [];
  /** Bit `len` set when some pattern has length `len` < K; bit K when some has K or more. */
  private lengths = 0;

  /** @param capacity expected number of patterns. */
  constructor(capacity = 16) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.slots = new Int32Array(0);
    this.lead = new Int32Array(0);
    this.keys = new Int32Array(0);
    this.resize(size);
    this.next = new Int32Array(Math.max(16, capacity)).fill(-1);
  }

  private resize(size: number): void {
    this.slots = new Int32Array(size * REC);
    for (let s = 1; s < this.slots.length; s += REC) this.slots[s] = -1;
    this.mask = size - 1;
    this.used = 0;
    const bits = Math.max(MIN_BITS, size * BITS_PER_SLOT);
    this.lead = new Int32Array(bits >>> 5);
    this.keys = new Int32Array(bits >>> 5);
    this.shift = 32 - Math.log2(bits);
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
    if (pattern.length > 0 && (this.used + 1) * 2 > this.mask + 1) this.rehash();
    const id = this.texts.length;
    this.texts.push(pattern);
    if (id >= this.next.length) {
      const grown = new Int32Array(this.next.length * 2).fill(-1);
      grown.set(this.next);
      this.next = grown;
    }
    if (pattern.length > 0) this.file(id, pattern);
    return id;
  }

  /** Files pattern `id` under its key and sets its bits. */
  private file(id: number, pattern: string): void {
    const len = Math.min(pattern.length, K);
    this.lengths |= 1 << len;
    const key = keyOf(pattern, 0, len);
    const { shift } = this;
    // Patterns shorter than Q are tested on the lead bit-set alone, with their key.
    const lb = Math.imul(len >= Q ? keyOf(pattern, 0, Q) : key, LEAD_MIX) >>> shift;
    this.lead[lb >>> 5]! |= 1 << (lb & 31);
    if (len >= Q) {
      const kb = Math.imul(key, KEY_MIX) >>> shift;
      this.keys[kb >>> 5]! |= 1 << (kb & 31);
    }
    if (id > HEAD) throw new RangeError("too many substring patterns");
    const { slots, mask } = this;
    let r = (Math.imul(key, SLOT_MIX) >>> 0) & mask;
    for (; slots[r * REC + 1] !== -1 && slots[r * REC] !== key; r = (r + 1) & mask);
    r *= REC;
    if (slots[r + 1] !== -1) {
      // A second pattern under this key: the record no longer holds one pattern's text.
      this.next[id] = slots[r + 1]! & HEAD;
      slots[r + 1] = id;
      return;
    }
    this.used++;
    this.next[id] = -1;
    slots[r] = key;
    let inline = pattern.length <= K;
    let lo = 0;
    let hi = 0;
    for (let i = 0; inline && i < pattern.length; i++) {
      const c = pattern.charCodeAt(i);
      inline = c > 0 && c < 256;
      if (i < 4) lo |= c << (i * 8);
      else hi |= c << ((i - 4) * 8);
    }
    slots[r + 1] = inline ? id | (pattern.length << INLINE_LEN) : id;
    slots[r + 2] = lo;
    slots[r + 3] = hi;
  }

  private rehash(): void {
    this.resize((this.mask + 1) * 2);
    this.next.fill(-1);
    this.lengths = 0;
    this.texts.forEach((t, id) => {
      if (t.length > 0) this.file(id, t);
    });
  }

  /**
   * Calls `visit(patternId)` for every occurrence of a pattern in `text` whose id is below
   * `limit` (default: all); a pattern that occurs several times is visited several times.
   */
  search(text: string, visit: (patternId: number) => void, limit = this.texts.length): void {
    const { lead, keys, shift, lengths } = this;
    if (lengths === 0) return;
    const short = lengths & ((1 << Q) - 2);
    const n = text.length;
    /** The low bytes of the last Q code units, the latest lowest: the key of a Q-unit window. */
    let w = 0;
    for (let j = 0; j < n; j++) {
      w = (w << 8) | (text.charCodeAt(j) & 0xff);
      if (short !== 0) {
        // Patterns shorter than Q ending at `j`: their key is their packed text.
        if ((short & 8) !== 0 && j >= 2) {
          const b = Math.imul(w & 0xffffff, LEAD_MIX) >>> shift;
          if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0)
            this.probe(w & 0xffffff, text, j - 2, visit, limit);
        }
        if ((short & 4) !== 0 && j >= 1) {
          const b = Math.imul(w & 0xffff, LEAD_MIX) >>> shift;
          if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0)
            this.probe(w & 0xffff, text, j - 1, visit, limit);
        }
        if ((short & 2) !== 0) {
          const b = Math.imul(w & 0xff, LEAD_MIX) >>> shift;
          if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0) this.probe(w & 0xff, text, j, visit, limit);
        }
      }
      if (j < Q - 1) continue;
      const lb = Math.imul(w, LEAD_MIX) >>> shift;
      if ((lead[lb >>> 5]! & (1 << (lb & 31))) === 0) continue;
      // Patterns of Q or more code units starting at `i`: keys of lengths Q .. K.
      const i = j + 1 - Q;
      let k = w;
      for (let len = Q; ; ) {
        if ((lengths & (1 << len)) !== 0) {
          const kb = Math.imul(k, KEY_MIX) >>> shift;
          if ((keys[kb >>> 5]! & (1 << (kb & 31))) !== 0) this.probe(k, text, i, visit, limit);
        }
        if (++len > K || i + len > n) break;
        k = (Math.imul(k, B) + (text.charCodeAt(i + len - 1) & 0xff)) | 0;
      }
    }
  }

  /** Visits the patterns filed under key `key` that occur at `text[at ..]`. */
  private probe(
    key: number,
    text: string,
    at: number,
    visit: (patternId: number) => void,
    limit: number,
  ): void {
    const { slots, mask } = this;
    for (let r = (Math.imul(key, SLOT_MIX) >>> 0) & mask; ; r = (r + 1) & mask) {
      const head = slots[r * REC + 1]!;
      if (head === -1) return;
      if (slots[r * REC] !== key) continue;
      const len = head >>> INLINE_LEN;
      if (len === 0) {
        const { next, texts } = this;
        for (let id = head & HEAD; id !== -1; id = next[id]!)
          if (id < limit && text.startsWith(texts[id]!, at)) visit(id);
        return;
      }
      const id = head & HEAD;
      if (id >= limit || at + len > text.length) return;
      const lo = slots[r * REC + 2]!;
      const hi = slots[r * REC + 3]!;
      for (let i = 0; i < len; i++) {
        const want = ((i < 4 ? lo >>> (i * 8) : hi >>> ((i - 4) * 8)) & 0xff) | 0;
        if (text.charCodeAt(at + i) !== want) return;
      }
      visit(id);
      return;
    }
  }
}
