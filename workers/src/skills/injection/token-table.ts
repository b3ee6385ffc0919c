/**
 * Finds which known tokens occur in a text without building token strings: it walks the token runs
 * of docs/scoring.md#tokens (`[a-z0-9]` runs of 3+ characters of a lowercased text), hashes each
 * run while reading it, and looks the hash up in an open-addressing table of the known tokens,
 * comparing characters to rule out collisions. Same tokens as `tokenize`.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** An immutable table of tokens, each with a value (e.g. a feature id). */
export class TokenTable {
  private readonly hashes: Int32Array;
  private readonly values: Int32Array;
  private readonly texts: string[];
  private readonly mask: number;

  /** @param tokens token → value (values >= 0); tokens are lowercase `[a-z0-9]` strings. */
  constructor(tokens: ReadonlyMap<string, number>) {
    let size = 16;
    while (size < tokens.size * 2) size *= 2;
    this.mask = size - 1;
    this.hashes = new Int32Array(size);
    this.values = new Int32Array(size).fill(-1);
    this.texts = new Array<string>(size).fill("");
    for (const [token, value] of tokens) {
      let h = FNV_OFFSET;
      for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), FNV_PRIME);
      let slot = h & this.mask;
      while (this.values[slot] !== -1) slot = (slot + 1) & this.mask;
      this.hashes[slot] = h;
      this.values[slot] = value;
      this.texts[slot] = token;
    }
  }

  /**
   * Calls `visit(value)` for every occurrence of a known token in `lower` (an already lowercased
   * text); a token that occurs several times is visited several times.
   */
  scan(lower: string, visit: (value: number) => void): void {
    const { hashes, values, texts, mask } = this;
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
        for (let slot = h & mask; values[slot] !== -1; slot = (slot + 1) & mask) {
          if (
            hashes[slot] === h &&
            texts[slot]!.length === i - start &&
            lower.startsWith(texts[slot]!, start)
          ) {
            visit(values[slot]!);
            break;
          }
        }
      }
      start = -1;
    }
  }
}
