/**
 * The substring table (workers/src/skills/injection/substring-table.ts) finds exactly the patterns
 * that `String.includes` finds, as patterns of every length are added between searches (and the
 * table grows), and a reader limited to the first patterns ignores later ones. Its bit-set
 * filters and in-record pattern copies keep only the low byte of each code unit, so the tests mix
 * in characters that share a low byte with others (`š` and `a`, `Ā` and NUL's byte).
 */
import { describe, expect, it } from "vitest";
import { SubstringTable } from "../../workers/src/skills/injection/substring-table.js";
import { forRandom } from "../support/random.js";

function found(table: SubstringTable, text: string, limit?: number): number[] {
  const ids = new Set<number>();
  table.search(text, (id) => ids.add(id), limit);
  return [...ids].sort((a, b) => a - b);
}

describe("SubstringTable", () => {
  it("finds exactly what includes finds while patterns of any length are added", () => {
    forRandom(3, (rand) => {
      const word = (alphabet: string, min: number, max: number) =>
        Array.from(
          { length: min + rand(max - min + 1) },
          () => alphabet[rand(alphabet.length)],
        ).join("");
      const table = new SubstringTable(4);
      const patterns: string[] = [];
      for (let round = 0; round < 40; round++) {
        for (let i = 0; i < 12; i++) {
          const p = word("ab-é", 1, 9);
          patterns.push(p);
          expect(table.add(p)).toBe(patterns.length - 1);
        }
        for (let t = 0; t < 5; t++) {
          const text = word("ab- é", 0, 150);
          const want = patterns
            .map((p, id) => (text.includes(p) ? id : -1))
            .filter((id) => id >= 0);
          expect(found(table, text)).toEqual(want);
        }
      }
      expect(table.size).toBe(patterns.length);
    });
  });

  it("finds exactly what includes finds with long patterns sharing their first eight characters", () => {
    forRandom(3, (rand) => {
      const word = (alphabet: string, min: number, max: number) =>
        Array.from(
          { length: min + rand(max - min + 1) },
          () => alphabet[rand(alphabet.length)],
        ).join("");
      const table = new SubstringTable();
      const patterns: string[] = [];
      const stems = ["abababab", "ašabab", "baĀa", "ab"];
      for (let round = 0; round < 30; round++) {
        for (let i = 0; i < 20; i++) {
          const p =
            rand(2) === 0 ? stems[rand(stems.length)]! + word("abš", 0, 6) : word("abšĀ", 1, 12);
          patterns.push(p);
          expect(table.add(p)).toBe(patterns.length - 1);
        }
        for (let t = 0; t < 8; t++) {
          const text = word("abšĀ ", 0, 200);
          const want = patterns
            .map((p, id) => (text.includes(p) ? id : -1))
            .filter((id) => id >= 0);
          expect(found(table, text)).toEqual(want);
          const limit = rand(patterns.length + 1);
          expect(found(table, text, limit)).toEqual(want.filter((id) => id < limit));
        }
      }
    });
  });

  it("ignores patterns at or past the limit and never matches an empty pattern", () => {
    const table = new SubstringTable();
    table.add("report");
    table.add("");
    table.add("weekly");
    expect(found(table, "the weekly report")).toEqual([0, 2]);
    expect(found(table, "the weekly report", 1)).toEqual([0]);
  });
});
