/**
 * Fingerprint of the `bm25` ranker's candidate set: an order-independent sum of two 32-bit hashes
 * (FNV-1a, two offsets) of what the ranker reads from each candidate — id, name, description,
 * tags, install count and input schema. A reload with unchanged candidates finds its core by this
 * key, and a cold instance matches a serialised core to its candidates. Memoised per skill object.
 */
import type { Skill } from "../../types.js";

const memo = new WeakMap<Skill, [number, number]>();

function skillHash(s: Skill): [number, number] {
  let h = memo.get(s);
  if (h) return h;
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      a = Math.imul(a ^ ch, 0x01000193);
      b = Math.imul(b ^ ch, 0x0100019b);
    }
    a = Math.imul(a ^ 0x1f, 0x01000193);
    b = Math.imul(b ^ 0x1f, 0x0100019b);
  };
  mix(s.id);
  mix(s.name);
  mix(s.description ?? "");
  for (const t of s.tags) mix(t);
  mix(String(s.installCount));
  mix(JSON.stringify(s.schema?.input ?? null));
  h = [a >>> 0, b >>> 0];
  memo.set(s, h);
  return h;
}

/** The fingerprint key of a candidate set (`count.a.b`, base 36). */
export function bm25Key(candidates: readonly Skill[]): string {
  let a = 0;
  let b = 0;
  for (const c of candidates) {
    const [ha, hb] = skillHash(c);
    a = (a + ha) >>> 0;
    b = (b + hb) >>> 0;
  }
  return `bm25.${candidates.length}.${a.toString(36)}.${b.toString(36)}`;
}

/**
 * The key of the candidate set `key` stood for, with `removed` taken out and `added` put in.
 * @throws Error when `key` is not a key made by {@link bm25Key}.
 */
export function deriveBm25Key(
  key: string,
  removed: readonly Skill[],
  added: readonly Skill[],
): string {
  const m = /^bm25\.(\d+)\.([0-9a-z]+)\.([0-9a-z]+)$/.exec(key);
  if (!m) throw new Error(`not a bm25 fingerprint key: ${key}`);
  let count = Number(m[1]);
  let a = Number.parseInt(m[2]!, 36);
  let b = Number.parseInt(m[3]!, 36);
  for (const s of removed) {
    const [ha, hb] = skillHash(s);
    a = (a - ha) >>> 0;
    b = (b - hb) >>> 0;
    count--;
  }
  for (const s of added) {
    const [ha, hb] = skillHash(s);
    a = (a + ha) >>> 0;
    b = (b + hb) >>> 0;
    count++;
  }
  return `bm25.${count}.${a.toString(36)}.${b.toString(36)}`;
}
