import { describe, expect, it } from "vitest";
import {
  emittedToolName,
  parseToolName,
  refHash,
  TOOL_NAME_PATTERN,
} from "../../workers/src/skills/injection/tool-names.js";
import { forRandom } from "../support/random.js";

const REGISTRY_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
const long64 = `a${"b".repeat(62)}z`;

describe("emitted tool names", () => {
  it("uses the readable direct form when it fits", () => {
    expect(emittedToolName({ name: "lookupWeather", version: "1.0.0" })).toBe(
      "lookupWeather_v1_0_0",
    );
    expect(parseToolName("lookupWeather_v1_0_0")).toEqual({
      kind: "ref",
      name: "lookupWeather",
      version: "1.0.0",
    });
  });
  it("keeps builtin names bare", () => {
    expect(
      emittedToolName({ name: "web_search", version: "1.0.0", sourceProvider: "builtin" }),
    ).toBe("web_search");
    expect(parseToolName("web_search")).toEqual({ kind: "bare", name: "web_search" });
  });
  it("uses the hash form for names starting with a digit and for 64-character names", () => {
    const digit = emittedToolName({ name: "5h1w", version: "1.2.3" });
    expect(digit).toBe(`_5h1w_h${refHash("5h1w", "1.2.3")}`);
    expect(parseToolName(digit)).toEqual({ kind: "hash", hash: refHash("5h1w", "1.2.3") });
    const long = emittedToolName({ name: long64, version: "10.20.30" });
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(TOOL_NAME_PATTERN);
    expect(parseToolName(long)).toEqual({ kind: "hash", hash: refHash(long64, "10.20.30") });
  });
  it("parses name@version", () => {
    expect(parseToolName("lookupWeather@2.0.1")).toEqual({
      kind: "ref",
      name: "lookupWeather",
      version: "2.0.1",
    });
    expect(parseToolName("5h1w@1.0.0")).toEqual({ kind: "ref", name: "5h1w", version: "1.0.0" });
  });
  it("round-trips a name that itself looks like an emitted name", () => {
    const emitted = emittedToolName({ name: "fmt_v1_0_0", version: "2.0.0" });
    expect(emitted).toBe("fmt_v1_0_0_v2_0_0");
    expect(parseToolName(emitted)).toEqual({ kind: "ref", name: "fmt_v1_0_0", version: "2.0.0" });
  });
  it("gives distinct versions distinct names", () => {
    expect(emittedToolName({ name: "lookupWeather", version: "1.0.0" })).not.toBe(
      emittedToolName({ name: "lookupWeather", version: "2.0.0" }),
    );
    expect(refHash(long64, "1.0.0")).not.toBe(refHash(long64, "1.0.1"));
  });
  it("matches the provider pattern and maps back for every registry name shape", () => {
    const alphabet = "abcXYZ019_-";
    forRandom(3, (rand) => {
      for (let i = 0; i < 2000; i++) {
        const len = 1 + rand(64);
        let name = "";
        for (let j = 0; j < len; j++)
          name += alphabet[rand(j === 0 ? alphabet.length - 1 : alphabet.length)];
        const version = `${rand(100)}.${rand(1000)}.${rand(10000)}`;
        expect(name).toMatch(REGISTRY_NAME);
        const emitted = emittedToolName({ name, version });
        expect(emitted).toMatch(TOOL_NAME_PATTERN);
        const parsed = parseToolName(emitted);
        if (parsed.kind === "ref") expect(parsed).toEqual({ kind: "ref", name, version });
        else expect(parsed).toEqual({ kind: "hash", hash: refHash(name, version) });
      }
    });
  });
});
