/**
 * Finds which known tokens occur in a text without building token strings: it walks the token runs
 * of docs/scoring.md#tokens (`[a-z0-9]` runs of 3+ characters of a lowercased text), hashes each
 * run while reading it, and looks the hash up in an open-addressing table of the known tokens,
 * comparing characters to rule out collisions. Same tokens as `tokenize`.
 *
 * Each slot holds the hash, the value and the first eight characters packed into two int32 (one
 * byte per character, zero-padded) side by side, so that a lookup of a token of up to eight
 * characters reads one cache line of the table and nothing else; only longer tokens compare the
 * rest of their text. With cold CPU caches this is what a lookup costs (docs/scoring.md).
 *
 * The table only grows ({@link TokenTable.add}); a token keeps its value. A reader that knows only
 * the values it had when it started can keep using a table that grew since (it ignores values it
 * does not know).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of `token`, as the scan computes it. */
function hashToken(token: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), FNV_PRIME);
  return h;
}

/** Int32 entries per slot: hash, value (-1: empty, bit 30: longer than 8 chars), chars 0-3, 4-7. */
const STRIDE = 4;
/**
 * Set in a slot's value when its token is not fully held by the slot (longer than {@link INLINE}
 * characters, or a character outside 1..255): a match then also compares the token's text.
 */
const LONG = 1 << 30;
/** Characters stored in the slot itself. */
const INLINE = 8;
/** Int32 entries of the table (64 KB) above which lookups are batched (see `collect`). */
const BATCH_CELLS = 16_384;

/** The first eight characters of `token` packed as the scan packs them: [chars 0-3, chars 4-7]. */
function packToken(token: string): [number, number] {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < Math.min(token.length, INLINE); i++) {
    const c = token.charCodeAt(i) & 0xff;
    if (i < 4) lo |= c << (i * 8);
    else hi |= c << ((i - 4) * 8);
  }
  return [lo, hi];
}

/** Per run of the text being collected: hash, first 8 characters (2 int32), start, length. */
let runs = new Int32Array(5 * 1024);
/** Sink of reads made only to bring table slots into the cache. */
const touched = { value: 0 };

/** A growable table of tokens, each with a value (e.g. a feature id). */
export class TokenTable {
  /** Per slot: hash, value, packed first characters (see {@link STRIDE}): one cache line. */
  private cells: Int32Array;
  private texts: string[];
  private mask: number;
  private count = 0;

  /**
   * @param tokens token → value (values >= 0); tokens are lowercase `[a-z0-9]` strings.
   * @param capacity number of tokens to make room for (more grow the table).
   */
  constructor(tokens: ReadonlyMap<string, number> = new Map(), capacity = tokens.size) {
    let size = 16;
    while (size < Math.max(tokens.size, capacity) * 2) size *= 2;
    this.mask = size - 1;
    this.cells = TokenTable.emptyCells(size);
    this.texts = new Array<string>(size).fill("");
    for (const [token, value] of tokens) this.add(token, value);
  }

  private static emptyCells(size: number): Int32Array {
    const cells = new Int32Array(size * STRIDE);
    for (let i = 1; i < cells.length; i += STRIDE) cells[i] = -1;
    return cells;
  }

  /** Number of tokens. */
  get size(): number {
    return this.count;
  }

  /** The value of `token`, or undefined. */
  get(token: string): number | undefined {
    const h = hashToken(token);
    const { cells, mask } = this;
    for (let slot = h & mask; cells[slot * STRIDE + 1] !== -1; slot = (slot + 1) & mask) {
      if (cells[slot * STRIDE] === h && this.texts[slot] === token)
        return cells[slot * STRIDE + 1]! & ~LONG;
    }
    return undefined;
  }

  /**
   * Adds `token` with `value` (>= 0).
   * @throws Error when `token` is already in the table (a token keeps its value).
   */
  add(token: string, value: number): void {
    if ((this.count + 1) * 2 > this.texts.length) this.grow();
    const h = hashToken(token);
    const { cells, mask } = this;
    let slot = h & mask;
    for (; cells[slot * STRIDE + 1] !== -1; slot = (slot + 1) & mask) {
      if (cells[slot * STRIDE] === h && this.texts[slot] === token)
        throw new Error(`token "${token}" is already in the table`);
    }
    if (value < 0 || value >= LONG) throw new RangeError(`token value ${value} is out of range`);
    const [lo, hi] = packToken(token);
    cells[slot * STRIDE] = h;
    // Characters outside one byte are not packed exactly: such tokens compare their text.
    let inline = token.length <= INLINE;
    for (let i = 0; inline && i < token.length; i++) {
      const c = token.charCodeAt(i);
      inline = c > 0 && c < 256;
    }
    cells[slot * STRIDE + 1] = inline ? value : value | LONG;
    cells[slot * STRIDE + 2] = lo;
    cells[slot * STRIDE + 3] = hi;
    this.texts[slot] = token;
    this.count++;
  }

  /** Every token with its value. */
  entries(): [string, number][] {
    const out: [string, number][] = [];
    for (let slot = 0; slot < this.texts.length; slot++)
      if (this.cells[slot * STRIDE + 1] !== -1)
        out.push([this.texts[slot]!, this.cells[slot * STRIDE + 1]! & ~LONG]);
    return out;
  }

  private grow(): void {
    const old = this.entries();
    const size = this.texts.length * 2;
    this.mask = size - 1;
    this.cells = TokenTable.emptyCells(size);
    this.texts = new Array<string>(size).fill("");
    this.count = 0;
    for (const [token, value] of old) this.add(token, value);
  }

  /**
   * Calls `visit(value)` for every occurrence of a known token in `lower` (an already lowercased
   * text); a token that occurs several times is visited several times.
   */
  scan(lower: string, visit: (value: number) => void): void {
    const out = new Int32Array(TokenTable.room(lower));
    const n = this.collect(lower, out, 0);
    for (let i = 0; i < n; i++) visit(out[i]!);
  }

  /** Entries `collect` may write for a text of this length: one per 4 code units, rounded up. */
  static room(lower: string): number {
    return (lower.length >> 2) + 1;
  }

  /**
   * Writes the value of every occurrence of a known token in `lower` (an already lowercased text)
   * to `out` from index `at` on, in text order, and @returns the index after the last one. `out`
   * needs {@link TokenTable.room} entries past `at`.
   */
  collect(lower: string, out: Int32Array, at: number): number {
    // A table larger than a few cache lines' worth: the runs are listed first (pass 1) and the
    // first table slot of each read in a loop of its own (pass 2), so that their misses overlap
    // (docs/scoring.md, "Injection with cold CPU caches"), then looked up (pass 3). A small table
    // is looked up run by run.
    const batch = this.cells.length > BATCH_CELLS;
    if (batch && runs.length < 5 * TokenTable.room(lower))
      runs = new Int32Array(5 * TokenTable.room(lower));
    const r = runs;
    let nr = 0;
    let n = at;
    let start = -1;
    let h = FNV_OFFSET;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 0;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        if (start < 0) {
          start = i;
          h = FNV_OFFSET;
          lo = 0;
          hi = 0;
        }
        h = Math.imul(h ^ c, FNV_PRIME);
        const pos = i - start;
        if (pos < 4) lo |= c << (pos * 8);
        else if (pos < INLINE) hi |= c << ((pos - 4) * 8);
        continue;
      }
      if (start >= 0 && i - start >= 3) {
        if (batch) {
          r[nr] = h;
          r[nr + 1] = lo;
          r[nr + 2] = hi;
          r[nr + 3] = start;
          r[nr + 4] = i - start;
          nr += 5;
        } else {
          const value = this.lookup(lower, h, lo, hi, start, i - start);
          if (value >= 0) out[n++] = value;
        }
      }
      start = -1;
    }
    if (!batch) return n;
    const { cells, mask } = this;
    let touch = 0;
    for (let j = 0; j < nr; j += 5) touch |= cells[(r[j]! & mask) * STRIDE + 1]!;
    touched.value = touch;
    for (let j = 0; j < nr; j += 5) {
      const value = this.lookup(lower, r[j]!, r[j + 1]!, r[j + 2]!, r[j + 3]!, r[j + 4]!);
      if (value >= 0) out[n++] = value;
    }
    return n;
  }

  /**
   * The value of the run `lower[start .. start+len)` (hash `hash`, first eight characters packed in
   * `lo`, `hi`), or -1 when it is not a known token.
   */
  private lookup(
    lower: string,
    hash: number,
    lo: number,
    hi: number,
    start: number,
    len: number,
  ): number {
    const { cells, texts, mask } = this;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const cell = slot * STRIDE;
      const value = cells[cell + 1]!;
      if (value === -1) return -1;
      if (cells[cell] !== hash || cells[cell + 2] !== lo || cells[cell + 3] !== hi) continue;
      if ((value & LONG) === 0) {
        // A stored token of <= 8 one-byte chars equal to the run's first 8: equal iff the run is
        // as short (zero padding holds the length).
        if (len > INLINE) continue;
      } else if (texts[slot]!.length !== len || !lower.startsWith(texts[slot]!, start)) continue;
      return value & ~LONG;
    }
  }
}
