import { describe, expect, it } from "vitest";
import { getInjectionIndex } from "../../workers/src/skills/injection/index-cache.js";
import { buildScoringContext, scoreAutoSkill } from "../../workers/src/skills/injection/scoring.js";
import { forRandom } from "../support/random.js";
import { skill, snapshot } from "./injection-fixtures.js";

describe("the index reproduces scoreAutoSkill exactly", () => {
  it("on random registries and contexts", () => {
    const words = [
      "web",
      "search",
      "weather",
      "report",
      "code",
      "format",
      "issue",
      "claude",
      "gpt",
      "gemini",
      "data",
      "the",
      "map",
      "git",
    ];
    forRandom(3, (rand) => {
      const pick = (k: number) => Array.from({ length: k }, () => words[rand(words.length)]!);
      for (let round = 0; round < 30; round++) {
        const skills = Array.from({ length: 40 }, (_, i) => {
          const [a, b] = pick(2);
          return skill({
            name: `${a}${b![0]!.toUpperCase()}${b!.slice(1)}${i}`,
            mode: "auto",
            description: pick(6).join(" "),
            tags: pick(rand(3)),
            installCount: rand(3),
          });
        });
        const text = `${pick(12).join(" ")} ${skills[rand(40)]!.name}`;
        const provider = (["openai", "anthropic", "google"] as const)[rand(3)]!;
        const ctx = buildScoringContext({ text, provider, backgroundReason: pick(3).join(" ") });
        const expected = skills
          .map((s) => ({ skill: s, score: scoreAutoSkill(s, ctx) }))
          .filter((x) => x.score >= 3)
          .sort(
            (a, b) =>
              b.score - a.score ||
              b.skill.installCount - a.skill.installCount ||
              (a.skill.name < b.skill.name ? -1 : 1),
          );
        const got = getInjectionIndex(snapshot(skills)).topAuto(ctx, null, () => true, 1000);
        expect(got.map((g) => [g.skill.name, g.score])).toEqual(
          expected.map((e) => [e.skill.name, e.score]),
        );
      }
    });
  });
  it("with frequent words folded into static scores (static and active modes)", () => {
    const common = [
      "the",
      "and",
      "for",
      "with",
      "data",
      "file",
      "search",
      "openai",
      "claude",
      "gemini",
    ];
    const rare = Array.from({ length: 60 }, (_, i) => `word${i}x`);
    forRandom(3, (rand) => {
      const draw = () => (rand(2) === 0 ? common[rand(common.length)]! : rare[rand(rare.length)]!);
      const skills = Array.from({ length: 400 }, (_, i) =>
        skill({
          name: `${rare[rand(rare.length)]}Tool${i}`,
          mode: "auto",
          description: Array.from({ length: 12 }, draw).join(" "),
          tags: Array.from({ length: rand(3) }, draw),
          installCount: rand(4),
        }),
      );
      const index = getInjectionIndex(snapshot(skills));
      for (let round = 0; round < 40; round++) {
        // Long contexts hold all common words (static mode), medium ones most (static mode with
        // lazily subtracted losses), short ones few (active mode).
        const words = Array.from({ length: [80, 24, 6][round % 3]! }, draw);
        if (round % 5 === 0) words.push(skills[rand(skills.length)]!.name);
        const provider = (["openai", "anthropic", "google"] as const)[rand(3)]!;
        const ctx = buildScoringContext({
          text: words.join(" "),
          provider,
          backgroundReason: round % 3 === 0 ? draw() : null,
        });
        const expected = skills
          .map((s) => ({
            name: s.name,
            score: scoreAutoSkill(s, ctx),
            installCount: s.installCount,
          }))
          .filter((x) => x.score >= 3)
          .sort(
            (a, b) =>
              b.score - a.score || b.installCount - a.installCount || (a.name < b.name ? -1 : 1),
          );
        for (const k of [5, 50]) {
          const got = index.topAuto(ctx, null, () => true, k);
          expect(got.map((g) => [g.skill.name, g.score])).toEqual(
            expected.slice(0, k).map((e) => [e.name, e.score]),
          );
        }
      }
    });
  });
  it("reuses scoring across reloads of unchanged skills, with the reloaded skill objects", () => {
    const make = () => [
      skill({ id: "r1", name: "alphaReport", mode: "auto", tags: ["report"], installCount: 1 }),
      skill({ id: "r2", name: "betaReport", mode: "auto", tags: ["report"], installCount: 2 }),
    ];
    const ctx = buildScoringContext({ text: "the weekly report", provider: "openai" });
    const first = getInjectionIndex(snapshot(make())).topAuto(ctx, null, () => true, 5);
    const reloaded = make();
    const second = getInjectionIndex(snapshot(reloaded)).topAuto(ctx, null, () => true, 5);
    expect(second.map((r) => r.skill.name)).toEqual(first.map((r) => r.skill.name));
    expect(second[0]!.skill).toBe(reloaded[1]);
    const changed = make();
    changed[0]!.installCount = 10;
    const third = getInjectionIndex(snapshot(changed)).topAuto(ctx, null, () => true, 5);
    expect(third.map((r) => r.skill.name)).toEqual(["alphaReport", "betaReport"]);
  });
});
