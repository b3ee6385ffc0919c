/**
 * Fingerprints of the injection index's candidate sets (docs/scoring.md#keeping-the-index-current):
 * two 32-bit hashes of what scoring reads from each candidate, summed over the candidates so that
 * the order of slots does not matter. A registry reload with unchanged candidates finds its
 * scoring core by this key, and a cold instance matches a serialised core to its candidates.
 */
import type { ScorableCandidate } from "./injection-features.js";

/** An order-independent fingerprint: sums of two per-candidate hashes, and the count. */
export interface Fingerprint {
  a: number;
  b: number;
  count: number;
}

/**
 * Two 32-bit hashes (FNV-1a with two offsets) of a sequence of texts, each text followed by a
 * separator so that `["ab", "c"]` and `["a", "bc"]` differ.
 */
export function hashTexts(texts: Iterable<string>): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      a = Math.imul(a ^ ch, 0x01000193);
      b = Math.imul(b ^ ch, 0x0100019b);
    }
    a = Math.imul(a ^ 0x1f, 0x01000193);
    b = Math.imul(b ^ 0x1f, 0x0100019b);
  }
  return [a >>> 0, b >>> 0];
}

/** The two 32-bit hashes (FNV-1a, two offsets) of what scoring reads from a candidate. */
export function candidateHash(c: ScorableCandidate): [number, number] {
  return hashTexts([c.id, c.name, c.description, ...c.tags, String(c.installCount)]);
}

/** The fingerprint of a candidate set. */
export function fingerprintOf(candidates: readonly ScorableCandidate[]): Fingerprint {
  let a = 0;
  let b = 0;
  for (const c of candidates) {
    const [ha, hb] = candidateHash(c);
    a = (a + ha) >>> 0;
    b = (b + hb) >>> 0;
  }
  return { a, b, count: candidates.length };
}

/** A fingerprint as a cache key. */
export function fingerprintKey(f: Fingerprint): string {
  return `${f.count}.${f.a.toString(36)}.${f.b.toString(36)}`;
}
