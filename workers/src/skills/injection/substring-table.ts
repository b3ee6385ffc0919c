/**
 * A multi-pattern substring matcher: finds which of many patterns occur in a text, for the
 * verbatim-name and tag-substring rules of docs/scoring.md. Patterns can be added at any time in
 * O(pattern length) (an Aho-Corasick automaton would have to rebuild its failure links). Matching
 * is exact on UTF-16 code units, like `String.prototype.includes`; callers lowercase both sides.
 *
 * The search slides a window of the last `Q` (4) code units over the text, kept as one int32 (the
 * low byte of each code unit, packed). A pattern of `Q` or more code units is filed in a hash table
 * under its first `Q`, packed the same way; a shorter one under its whole text. A small **lead**
 * bit-set holds these keys, so most positions cost a shift, a multiplication and one bit read
 * (docs/scoring.md, "Injection with cold CPU caches"): a position whose window (or, when short
 * patterns exist, whose last 1-3 code units) is not in the bit-set starts (ends) no pattern. The
 * bit reads of different positions depend on the text alone, so they do not wait on each other as
 * an automaton's steps do. A position that passes reads the table and the 16-byte records of the
 * patterns filed there, which hold each pattern's length and first eight low bytes; only a pattern
 * longer than that, or with code units above 255, compares its string, and only when its first
 * eight match. Keeping low bytes costs nothing but rare probes: every match is compared in full.
 *
 * Sharing: the table only grows and a pattern keeps its id, so a reader that knows the first `n`
 * patterns can keep using a table that grew since (it passes `limit = n` to `search`).
 */

/** Window length: patterns of `Q` or more code units are filed under their first `Q`. */
const Q = 4;
/** Multipliers that spread a key over the bit-set and the table (Fibonacci hashing). */
const LEAD_MIX = 0x9e3779b1;
const SLOT_MIX = 0xc2b2ae35;
/** Bits of the lead bit-set per table slot (the table has at least two slots per key). */
const BITS_PER_SLOT = 16;
/** Fewest bits of the lead bit-set (1 KB): a few patterns still rule out most positions. */
const MIN_BITS = 1 << 13;
/**
 * Int32 entries per pattern record: [next in chain (-1: end), length | EXACT, then the low bytes
 * of code units 4-7 and 8-11 for a pattern of Q or more (its key holds those of 0-3), or of its
 * code units 0-2 for a shorter one].
 */
const PAT = 4;
/** Code units of a pattern of Q or more that its key and record hold (one low byte each). */
const INLINE = 12;
/** Set in a record's length when the record holds the whole pattern (no string compare needed). */
const EXACT = 1 << 30;
const LENGTH = EXACT - 1;
/** Per count `m` (0-4) of bytes in use: the mask of those bytes in a packed int32. */
const BYTES = Int32Array.from([0, 0xff, 0xffff, 0xffffff, -1]);

/** The low bytes of `s[from .. from+4)` (as far as `s` goes), the first lowest. */
function packed(s: string, from: number): number {
  let v = 0;
  for (let i = 0; i < 4 && from + i < s.length; i++)
    v |= (s.charCodeAt(from + i) & 0xff) << (i * 8);
  return v;
}

/** The key of a pattern: its first min(length, Q) code units' low bytes, packed (first highest). */
function keyOf(pattern: string): number {
  let k = 0;
  for (let i = 0; i < Math.min(pattern.length, Q); i++)
    k = (k << 8) | (pattern.charCodeAt(i) & 0xff);
  return k;
}

/** Sink of the ordered read of a lead bit-set (kept so that the read is not optimised away). */
const streamed = { value: 0 };

/** Scratch of {@link SubstringTable.search} (searches do not nest). */
let passed = new Int32Array(4096);

/** Append-only pattern table (pattern ids are insertion positions). */
export class SubstringTable {
  /** Per slot `s`: `[2s]` the key filed there, `[2s + 1]` its chain's first pattern (-1: empty). */
  private slots = new Int32Array(0);
  private mask = 0;
  /** 32 − log2(slots): the high bits of a mixed key pick its slot. */
  private slotShift = 0;
  private used = 0;
  /** The lead bit-set (32 bits per entry) and the shift that turns a mixed key into a bit. */
  private lead = new Int32Array(0);
  private shift = 0;
  /** Pattern records, {@link PAT} entries per pattern id. */
  private pats: Int32Array;
  private readonly texts: string[] = [];
  /** Bit `len` set when some pattern has length `len` < Q; bit Q when some has Q or more. */
  private lengths = 0;

  /** @param capacity expected number of patterns. */
  constructor(capacity = 16) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.resize(size);
    this.pats = new Int32Array(Math.max(16, capacity) * PAT);
  }

  private resize(size: number): void {
    this.slots = new Int32Array(size * 2);
    for (let s = 1; s < this.slots.length; s += 2) this.slots[s] = -1;
    this.mask = size - 1;
    this.slotShift = 32 - Math.log2(size);
    this.used = 0;
    const bits = Math.max(MIN_BITS, size * BITS_PER_SLOT);
    this.lead = new Int32Array(bits >>> 5);
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
    if ((id + 1) * PAT > this.pats.length) {
      const grown = new Int32Array(this.pats.length * 2);
      grown.set(this.pats);
      this.pats = grown;
    }
    const r = id * PAT;
    let exact = pattern.length <= INLINE;
    for (let i = 0; exact && i < pattern.length; i++) {
      const c = pattern.charCodeAt(i);
      exact = c > 0 && c < 256;
    }
    const long = pattern.length >= Q;
    this.pats[r] = -1;
    this.pats[r + 1] = pattern.length | (exact ? EXACT : 0);
    this.pats[r + 2] = packed(pattern, long ? 4 : 0);
    this.pats[r + 3] = long ? packed(pattern, 8) : 0;
    if (pattern.length > 0) this.file(id, pattern);
    return id;
  }

  /** Files pattern `id` under its key and sets its bit. */
  private file(id: number, pattern: string): void {
    if (pattern.length > LENGTH) throw new RangeError("substring pattern too long");
    this.lengths |= 1 << Math.min(pattern.length, Q);
    const key = keyOf(pattern);
    const lb = Math.imul(key, LEAD_MIX) >>> this.shift;
    this.lead[lb >>> 5]! |= 1 << (lb & 31);
    const { slots, mask } = this;
    let s = Math.imul(key, SLOT_MIX) >>> this.slotShift;
    for (; slots[2 * s + 1] !== -1 && slots[2 * s] !== key; s = (s + 1) & mask);
    if (slots[2 * s + 1] === -1) {
      this.used++;
      slots[2 * s] = key;
    }
    this.pats[id * PAT] = slots[2 * s + 1]!;
    slots[2 * s + 1] = id;
  }

  private rehash(): void {
    this.resize((this.mask + 1) * 2);
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
    const { lead, shift, lengths } = this;
    if (lengths === 0) return;
    const short = lengths & ((1 << Q) - 2);
    const long = (lengths & (1 << Q)) !== 0;
    const n = text.length;
    // Positions that pass a bit test, as (key, start) pairs, probed after the scan.
    let found = passed;
    if (found.length < 2 * (short !== 0 ? 4 : 1) * n) {
      found = new Int32Array(2 * 4 * n);
      if (n <= 1 << 16) passed = found;
    }
    let nf = 0;
    // Read the bit-set in order first: its lines then come from memory as one stream instead of
    // as many scattered misses (docs/scoring.md, "Injection with cold CPU caches").
    let acc = 0;
    for (let i = 0; i < lead.length; i += 16) acc |= lead[i]!;
    streamed.value = acc;
    /** The low bytes of the last Q code units, the latest lowest. */
    let w = 0;
    for (let j = 0; j < n; j++) {
      w = (w << 8) | (text.charCodeAt(j) & 0xff);
      if (short !== 0) {
        // Patterns shorter than Q ending at `j`: their key is their packed text.
        if ((short & 8) !== 0 && j >= 2) {
          const b = Math.imul(w & 0xffffff, LEAD_MIX) >>> shift;
          if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0) {
            found[nf++] = w & 0xffffff;
            found[nf++] = ~(j - 2);
          }
        }
        if ((short & 4) !== 0 && j >= 1) {
          const b = Math.imul(w & 0xffff, LEAD_MIX) >>> shift;
          if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0) {
            found[nf++] = w & 0xffff;
            found[nf++] = ~(j - 1);
          }
        }
        if ((short & 2) !== 0) {
          const b = Math.imul(w & 0xff, LEAD_MIX) >>> shift;
          if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0) {
            found[nf++] = w & 0xff;
            found[nf++] = ~j;
          }
        }
      }
      if (!long || j < Q - 1) continue;
      const b = Math.imul(w, LEAD_MIX) >>> shift;
      if ((lead[b >>> 5]! & (1 << (b & 31))) !== 0) {
        found[nf++] = w;
        found[nf++] = j + 1 - Q;
      }
    }
    // The first table slot of each passing position and the first record of its chain, read in a
    // loop of their own so that the misses of different positions overlap; then the probes.
    const { slots, slotShift, pats } = this;
    for (let i = 0; i < nf; i += 2) {
      const id = slots[2 * (Math.imul(found[i]!, SLOT_MIX) >>> slotShift) + 1]!;
      acc |= id >= 0 ? pats[id * PAT + 1]! : 0;
    }
    streamed.value = acc;
    for (let i = 0; i < nf; i += 2) {
      const at = found[i + 1]!;
      if (at >= 0) this.probe(found[i]!, text, at, true, visit, limit);
      else this.probe(found[i]!, text, ~at, false, visit, limit);
    }
  }

  /**
   * Visits the patterns filed under `key` that occur at `text[at ..]`: those of Q code units or
   * more when `long` (their key is the text's at `at`), else the shorter ones. A key of each kind
   * may also hold patterns of the other (low bytes of 0), which its own probes find.
   */
  private probe(
    key: number,
    text: string,
    at: number,
    long: boolean,
    visit: (patternId: number) => void,
    limit: number,
  ): void {
    const { slots, mask, pats } = this;
    let s = Math.imul(key, SLOT_MIX) >>> this.slotShift;
    for (; slots[2 * s] !== key; s = (s + 1) & mask) if (slots[2 * s + 1] === -1) return;
    const room = text.length - at;
    // The text's code units as the records hold them (read on first use).
    let t1 = 0;
    let t2 = 0;
    let have = 0;
    for (let id = slots[2 * s + 1]!; id !== -1; id = pats[id * PAT]!) {
      const r = id * PAT;
      const len = pats[r + 1]! & LENGTH;
      if (id >= limit || len > room || len >= Q !== long) continue;
      if ((have & 1) === 0) {
        t1 = packed(text, long ? at + 4 : at);
        have |= 1;
      }
      if (long) {
        if (len > 8 && (have & 2) === 0) {
          t2 = packed(text, at + 8);
          have |= 2;
        }
        const m1 = len >= 8 ? 4 : len - 4;
        const m2 = len >= INLINE ? 4 : len > 8 ? len - 8 : 0;
        if ((t1 & BYTES[m1]!) !== pats[r + 2] || (t2 & BYTES[m2]!) !== pats[r + 3]) continue;
      } else if ((t1 & BYTES[len]!) !== pats[r + 2]) continue;
      if ((pats[r + 1]! & EXACT) !== 0) {
        // Equal low bytes: equal code units unless the text has wider ones there.
        let i = 0;
        while (i < len && text.charCodeAt(at + i) <= 0xff) i++;
        if (i === len) visit(id);
        continue;
      }
      // A longer or wider pattern whose first low bytes match: compare it all.
      const p = this.texts[id]!;
      let k = 0;
      while (k < len && text.charCodeAt(at + k) === p.charCodeAt(k)) k++;
      if (k === len) visit(id);
    }
  }
}
