import { describe, expect, it } from "vitest";
import { AhoCorasick } from "../../workers/src/skills/injection/aho-corasick.js";

/** Deterministic pseudo-random integers in [0, n). */
function rng(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((s / 2 ** 31) * n);
  };
}

function found(ac: AhoCorasick, text: string): number[] {
  const ids = new Set<number>();
  ac.search(text, (id) => ids.add(id));
  return [...ids].sort((a, b) => a - b);
}

describe("Aho-Corasick matcher", () => {
  it("finds exactly the patterns that String.includes finds (small alphabet, deep failure chains)", () => {
    const rand = rng(3);
    const word = (alphabet: string, min: number, max: number) =>
      Array.from({ length: min + rand(max - min + 1) }, () => alphabet[rand(alphabet.length)]).join(
        "",
      );
    for (let round = 0; round < 20; round++) {
      const patterns = Array.from({ length: 60 }, () => word("ab-", 1, 7));
      const ac = new AhoCorasick(patterns);
      for (let t = 0; t < 10; t++) {
        const text = word("ab- c", 0, 120);
        const expected = patterns.flatMap((p, id) => (text.includes(p) ? [id] : []));
        expect(found(ac, text)).toEqual(expected);
      }
    }
  });

  it("stays exact past the dense rows (thousands of patterns, record-only states)", () => {
    const rand = rng(11);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const word = (min: number, max: number) =>
      Array.from({ length: min + rand(max - min + 1) }, () => letters[rand(26)]).join("");
    const patterns = Array.from({ length: 4000 }, () => word(3, 12));
    const ac = new AhoCorasick(patterns);
    for (let t = 0; t < 20; t++) {
      const text = Array.from({ length: 50 }, () =>
        rand(3) === 0 ? patterns[rand(patterns.length)] : word(2, 9),
      ).join(" ");
      const expected = patterns.flatMap((p, id) => (text.includes(p) ? [id] : []));
      expect(found(ac, text)).toEqual(expected);
    }
  });

  it("reports each pattern once per search, duplicates included, and ignores empty patterns", () => {
    const ac = new AhoCorasick(["he", "she", "hers", "he", ""]);
    const seen: number[] = [];
    ac.search("ushers and she", (id) => seen.push(id));
    expect(seen.sort()).toEqual([0, 1, 2, 3]);
    expect(found(ac, "xyz")).toEqual([]);
  });
  it("stays exact when branching states outnumber the dense rows (wide alphabet)", () => {
    const rand = rng(5);
    // 3,000 distinct code units in one pattern leave room for only ~87 dense rows, so most
    // branching states are walked through their records and further edges.
    const wide = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join("");
    const letters = "abcdef";
    const word = (min: number, max: number) =>
      Array.from({ length: min + rand(max - min + 1) }, () => letters[rand(6)]).join("");
    const patterns = [wide, ...Array.from({ length: 3000 }, () => word(2, 9))];
    const ac = new AhoCorasick(patterns);
    for (let t = 0; t < 30; t++) {
      const text = Array.from({ length: 40 }, () => word(1, 12)).join(rand(2) === 0 ? " " : "");
      const expected = patterns.flatMap((p, id) => (text.includes(p) ? [id] : []));
      expect(found(ac, text)).toEqual(expected);
    }
    expect(found(ac, `x${wide}y`)).toEqual([0]);
  });
});
