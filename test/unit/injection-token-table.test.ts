import { describe, expect, it } from "vitest";
import { tokenize } from "../../workers/src/skills/injection/scoring.js";
import { TokenTable } from "../../workers/src/skills/injection/token-table.js";

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
});
