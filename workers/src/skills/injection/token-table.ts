/**
 * Finds which known tokens occur in a text without building token strings: it walks the token runs
 * of docs/scoring.md#tokens (`[a-z0-9]` runs of 3+ characters of a lowercased text), hashes each
 * run while reading it, and looks the hash up in an open-addressing table of the known tokens,
 * comparing characters to rule out collisions. Same tokens as `tokenize`.
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

/** A growable table of tokens, each with a value (e.g. a feature id). */
export class TokenTable {
  /** Per slot: the token's hash and its value (-1: empty), side by side (one cache line). */
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
    const cells = new Int32Array(size * 2);
    for (let i = 1; i < cells.length; i += 2) cells[i] = -1;
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
    for (let slot = h & mask; cells[slot * 2 + 1] !== -1; slot = (slot + 1) & mask) {
      if (cells[slot * 2] === h && this.texts[slot] === token) return cells[slot * 2 + 1];
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
    for (; cells[slot * 2 + 1] !== -1; slot = (slot + 1) & mask) {
      if (cells[slot * 2] === h && this.texts[slot] === token)
        throw new Error(`token "${token}" is already in the table`);
    }
    cells[slot * 2] = h;
    cells[slot * 2 + 1] = value;
    this.texts[slot] = token;
    this.count++;
  }

  /** Every token with its value. */
  entries(): [string, number][] {
    const out: [string, number][] = [];
    for (let slot = 0; slot < this.texts.length; slot++)
      if (this.cells[slot * 2 + 1] !== -1) out.push([this.texts[slot]!, this.cells[slot * 2 + 1]!]);
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
    const { cells, texts, mask } = this;
    let start = -1;
    let h = FNV_OFFSET;
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 0;
      if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
        if (start < 0) {
          start = i;
          h = FNV_OFFSET;
        }
        h = Math.imul(h ^ c, FNV_PRIME);
        continue;
      }
      if (start >= 0 && i - start >= 3) {
        for (let slot = h & mask; cells[slot * 2 + 1] !== -1; slot = (slot + 1) & mask) {
          if (
            cells[slot * 2] === h &&
            texts[slot]!.length === i - start &&
            lower.startsWith(texts[slot]!, start)
          ) {
            visit(cells[slot * 2 + 1]!);
            break;
          }
        }
      }
      start = -1;
    }
  }
}
