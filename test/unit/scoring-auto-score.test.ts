import { describe, expect, it } from "vitest";
import {
  AUTO_MAX_SKILLS,
  AUTO_MIN_SCORE,
  buildScoringContext,
  nameTokens,
  scoreAutoSkill,
  scoreBreakdown,
  tokenize,
} from "../../workers/src/skills/injection/scoring.js";

const ctx = (
  text: string,
  provider: "openai" | "anthropic" | "google" = "openai",
  backgroundReason?: string,
) => buildScoringContext({ text, provider, backgroundReason });
const sk = (name: string, description = "", tags: string[] = []) => ({ name, description, tags });

describe("scoring tokens", () => {
  it("lowercases, keeps [a-z0-9] runs of 3+ characters and de-duplicates", () => {
    expect(tokenize("Find THE weather, the Weather in NYC; a b c4 x86!")).toEqual([
      "find",
      "the",
      "weather",
      "nyc",
      "x86",
    ]);
  });
  it("treats non-ASCII letters as separators", () => {
    expect(tokenize("café-über naïve")).toEqual(["caf", "ber"]);
  });
  it("splits names at camelCase boundaries and at . _ @ - /", () => {
    expect(nameTokens("issueSearch")).toEqual(["issue", "search"]);
    expect(nameTokens("HTTPServer.fetch_all@v2-new/old")).toEqual([
      "http",
      "server",
      "fetch",
      "all",
      "new",
      "old",
    ]);
  });
  it("fixes the limits at 3 and 5", () => {
    expect(AUTO_MIN_SCORE).toBe(3);
    expect(AUTO_MAX_SKILLS).toBe(5);
  });
});

describe("scoreAutoSkill, one test per row of the scoring table", () => {
  it("skill name verbatim in the context: +6 (case-insensitive), plus its name tokens", () => {
    const b = scoreBreakdown(sk("lookupWeather"), ctx("please call LOOKUPWEATHER now"));
    expect(b.verbatimName).toBe(6);
    expect(b.nameTokens).toBe(0); // "lookupweather" is one context token, not "lookup"/"weather"
    expect(b.total).toBe(6);
  });
  it("each name token matching a context token: +2", () => {
    const b = scoreBreakdown(sk("issueSearch"), ctx("search the issue tracker"));
    expect(b.nameTokens).toBe(4);
    expect(b.verbatimName).toBe(0);
    expect(b.total).toBe(4);
  });
  it("each tag that is a substring of the context: +3", () => {
    const b = scoreBreakdown(
      sk("zz", "", ["weather", "forecast", "Geo", "absent"]),
      ctx("Weather forecasts for geography"),
    );
    expect(b.tags).toBe(9);
    expect(b.total).toBe(9);
  });
  it("each description token matching a context token: +1", () => {
    const b = scoreBreakdown(
      sk("zz", "Returns the current temperature for a city"),
      ctx("what temperature is it in the city"),
    );
    expect(b.descriptionTokens).toBe(3); // the, temperature, city
    expect(b.total).toBe(3);
  });
  it("background reason matching a name token: +2 per token", () => {
    const b = scoreBreakdown(
      sk("issueSearch"),
      ctx("unrelated", "openai", "need to search an issue"),
    );
    expect(b.reasonNameTokens).toBe(4);
    expect(b.nameTokens).toBe(0);
    expect(b.total).toBe(4);
  });
  it("background reason matching a tag: +2 per token", () => {
    const b = scoreBreakdown(
      sk("zz", "", ["web-search", "news"]),
      ctx("unrelated", "openai", "search the web for news"),
    );
    expect(b.reasonTagTokens).toBe(6); // web, search, news
    expect(b.tags).toBe(0);
    expect(b.total).toBe(6);
  });
  it("provider hint matching the request's provider: +2", () => {
    expect(scoreBreakdown(sk("zz", "", ["claude"]), ctx("hello", "anthropic")).providerHint).toBe(
      2,
    );
    expect(scoreBreakdown(sk("zz", "", ["GPT"]), ctx("hello", "openai")).providerHint).toBe(2);
    expect(
      scoreBreakdown(sk("zz", "", ["gemini", "openai"]), ctx("hello", "google")).providerHint,
    ).toBe(2);
  });
  it("provider hint contradicting the request's provider: −2; no hint: 0", () => {
    expect(scoreAutoSkill(sk("zz", "", ["openai", "gpt"]), ctx("hello", "anthropic"))).toBe(-2);
    expect(scoreBreakdown(sk("zz", "", ["misc"]), ctx("hello", "google")).providerHint).toBe(0);
  });
  it("adds the rows up", () => {
    const s = sk("webSearch", "Search the web", ["search", "openai"]);
    const c = ctx("Use webSearch to search the web", "openai", "web lookup");
    // verbatim 6 + name tokens web, search 4 + tag "search" 3 + description search, the, web 3
    // + reason name token web 2 + reason tag tokens none + hint openai 2
    expect(scoreBreakdown(s, c)).toEqual({
      verbatimName: 6,
      nameTokens: 4,
      tags: 3,
      descriptionTokens: 3,
      reasonNameTokens: 2,
      reasonTagTokens: 0,
      providerHint: 2,
      total: 20,
    });
  });
});
