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
});
