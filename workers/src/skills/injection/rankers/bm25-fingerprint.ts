/**
 * Fingerprint of the `bm25` ranker's candidate set: an order-independent sum of two 32-bit hashes
 * (FNV-1a, two offsets) of what the ranker reads from each candidate — id, name, description,
 * tags, install count and input schema. A reload with unchanged candidates finds its core by this
 * key, and a cold instance matches a serialised core to its candidates. Memoised per skill object.
 */
import type { Skill } from "../../types.js";
import { hashTexts } from "../injection-fingerprint.js";

const memo = new WeakMap<Skill, [number, number]>();

function skillHash(s: Skill): [number, number] {
  let h = memo.get(s);
  if (h) return h;
  h = hashTexts([
    s.id,
    s.name,
    s.description ?? "",
    ...s.tags,
    String(s.installCount),
    JSON.stringify(s.schema?.input ?? null),
  ]);
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
