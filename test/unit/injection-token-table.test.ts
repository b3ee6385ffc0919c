import { describe, expect, it } from "vitest";
import { tokenize } from "../../workers/src/skills/injection/scoring.js";
import { TokenTable } from "../../workers/src/skills/injection/token-table.js";
import { forRandom } from "../support/random.js";

describe("TokenTable", () => {
  it("finds the known tokens of a text exactly as tokenize does", () => {
    const known = ["weather", "paris", "the", "x86", "report2024", "rome"];
    const table = new TokenTable(new Map(known.map((t, i) => [t, i])));
    const text = "What's the WEATHER in Paris, Rome and Paris-Nord? x86_64 report2024; rom ro the";
    const seen: string[] = [];
    table.scan(text.toLowerCase(), (i) => seen.push(known[i]!));
    const expected = tokenize(text).filter((t) => known.includes(t));
    expect([...new Set(seen)].sort()).toEqual(expected.sort());
    expect(seen.filter((t) => t === "paris")).toHaveLength(2);
  });
  it("never matches a prefix, a longer run or a hash collision candidate", () => {
    const table = new TokenTable(new Map([["abc", 0]]));
    const seen: number[] = [];
    table.scan("ab abcd xabc abc_ abc", (i) => seen.push(i));
    expect(seen).toEqual([0, 0]);
  });
  it("grows as tokens are added, keeps their values and refuses a token twice", () => {
    const table = new TokenTable();
    const tokens = Array.from({ length: 500 }, (_, i) => `tok${i}x`);
    for (const [i, t] of tokens.entries()) table.add(t, i * 2);
    expect(table.size).toBe(500);
    expect(tokens.every((t, i) => table.get(t) === i * 2)).toBe(true);
    expect(table.get("tok500x")).toBeUndefined();
    expect(() => table.add("tok7x", 1)).toThrow(/already/);
    const seen: number[] = [];
    table.scan("tok3x tok499x tok500x", (v) => seen.push(v));
    expect(seen).toEqual([6, 998]);
  });
  it("tells apart tokens around the eight characters held in a slot, on random text", () => {
    // Tokens sharing prefixes, 3 to 12 characters: slot-held ones (<= 8) and longer ones.
    const stems = ["abcdefghijkl", "abcdefgxyzzz", "report202412", "x1y2z3w4v5u6"];
    const known = stems.flatMap((s) => [3, 4, 7, 8, 9, 12].map((n) => s.slice(0, n)));
    const unique = [...new Set(known)];
    const table = new TokenTable(new Map(unique.map((t, i) => [t, i])));
    forRandom(3, (rand) => {
      for (let round = 0; round < 200; round++) {
        const words = Array.from({ length: 12 }, () => {
          const s = stems[rand(stems.length)]!;
          return s.slice(0, 1 + rand(s.length)) + (rand(4) === 0 ? "q" : "");
        });
        const text = words.join(rand(2) === 0 ? " " : "-");
        const seen = new Set<string>();
        table.scan(text, (i) => seen.add(unique[i]!));
        const expected = tokenize(text).filter((t) => unique.includes(t));
        expect([...seen].sort()).toEqual(expected.sort());
      }
    });
  });
  it("compares the text of a token with characters outside one byte", () => {
    // "\u0161" & 0xff is "a": packed alone it would look like "abc".
    const table = new TokenTable(
      new Map([
        ["\u0161bc", 0],
        ["abd", 1],
      ]),
    );
    const seen: number[] = [];
    table.scan("abc abd", (i) => seen.push(i));
    expect(seen).toEqual([1]);
    expect(table.get("\u0161bc")).toBe(0);
  });
  it("finds the same tokens through collect in text order, in a table large enough to batch", () => {
    // 6,000 tokens: a table of more than 64 KB, looked up in batches (token-table.ts).
    const known = Array.from({ length: 6000 }, (_, i) => `w${i.toString(36)}z`);
    const table = new TokenTable(new Map(known.map((t, i) => [t, i])));
    forRandom(3, (rand) => {
      for (let round = 0; round < 50; round++) {
        const words = Array.from({ length: 40 }, () =>
          rand(3) === 0 ? `w${rand(9000).toString(36)}z` : `w${rand(9000).toString(36)}`,
        );
        const text = words.join(rand(2) === 0 ? " " : ", ");
        const out = new Int32Array(3 + TokenTable.room(text));
        const end = table.collect(text, out, 3);
        const expected = text
          .split(/[^a-z0-9]+/)
          .filter((t) => t.length >= 3 && known.includes(t))
          .map((t) => known.indexOf(t));
        expect([...out.subarray(3, end)]).toEqual(expected);
      }
    });
  });
});
