/**
 * The learned weights of one scope (workers/src/skills/learning/learned-model.ts;
 * docs/scoring.md#learning-from-traffic): a call adds 1 to each feature, weights halve every
 * half-life, a skill keeps at most its bound of features (the lightest are forgotten), a feature
 * that led to many skills scores little, and rows rebuild the same model.
 */
import { describe, expect, it } from "vitest";
import { queryTermWeight } from "../../workers/src/skills/injection/rankers/bm25-query.js";
import { analyse } from "../../workers/src/skills/injection/rankers/text-analysis.js";
import { featureHash, featureWeight } from "../../workers/src/skills/learning/features.js";
import { CALLS_FEATURE, LearnedModel } from "../../workers/src/skills/learning/learned-model.js";

const DAY = 86_400_000;
const params = { halfLifeMs: DAY, maxFeaturesPerSkill: 3 };

const scores = (m: LearnedModel, features: number[], now: number) => {
  const out = new Map<string, number>();
  m.addScores(features, 100, now, out);
  return out;
};

describe("learned model", () => {
  it("adds 1 per call and halves every half-life", () => {
    const m = new LearnedModel(params);
    m.record("s1", [7], 0);
    const { upserts } = m.record("s1", [7], DAY);
    expect(upserts.find((u) => u.feature === 7)!.weight).toBeCloseTo(1.5, 12);
    expect(upserts.find((u) => u.feature === CALLS_FEATURE)!.weight).toBeCloseTo(1.5, 12);
    expect(m.callsOf("s1", 3 * DAY)).toBeCloseTo(1.5 / 4, 12);
    const fresh = scores(m, [7], DAY).get("s1")!;
    expect(scores(m, [7], 11 * DAY).get("s1")! / fresh).toBeCloseTo(
      (1.5 / 1024 / (1 + 1.5 / 1024)) * ((1 + 1.5) / 1.5),
      9,
    );
  });

  it("weighs a feature of an everyday spoken word as the bm25 ranker weighs the word", () => {
    const help = featureHash(analyse("help")[0]!);
    const weather = featureHash(analyse("weather")[0]!);
    expect(featureWeight(help)).toBe(queryTermWeight(analyse("help")[0]!));
    expect(featureWeight(help)).toBeLessThan(1);
    expect(featureWeight(weather)).toBe(1);
    const m = new LearnedModel(params);
    m.record("s1", [help], 0);
    m.record("s2", [weather], 0);
    const ratio = scores(m, [help], 0).get("s1")! / scores(m, [weather], 0).get("s2")!;
    expect(ratio).toBeCloseTo(featureWeight(help), 12);
  });

  it("keeps at most the bound of features per skill, forgetting the lightest", () => {
    const m = new LearnedModel(params);
    m.record("s1", [1, 2, 3], 0);
    m.record("s1", [1, 2], 0);
    const { evicted, upserts } = m.record("s1", [4], 0);
    expect(evicted).toEqual([3]);
    expect(upserts.map((u) => u.feature).sort()).toEqual([CALLS_FEATURE, 4]);
    expect(scores(m, [3], 0).size).toBe(0);
    expect(scores(m, [4], 0).has("s1")).toBe(true);
  });

  it("a feature that led to many skills counts less than one that led to one", () => {
    const m = new LearnedModel({ halfLifeMs: DAY, maxFeaturesPerSkill: 10 });
    for (const s of ["a", "b", "c", "d"]) m.record(s, [1], 0);
    m.record("a", [2], 0);
    const got = scores(m, [1, 2], 0);
    expect(got.get("a")!).toBeGreaterThan(got.get("b")! * 2);
    expect(got.get("b")).toBeCloseTo(got.get("c")!, 12);
  });

  it("rows rebuild the same scores, and forget drops a skill", () => {
    const m = new LearnedModel(params);
    const rows = [...m.record("s1", [1, 2], 0).upserts, ...m.record("s2", [2], 0).upserts];
    const again = LearnedModel.fromRows(rows, params, 0);
    expect([...scores(again, [1, 2], 0)]).toEqual([...scores(m, [1, 2], 0)]);
    again.forget("s1");
    expect([...scores(again, [1, 2], 0).keys()]).toEqual(["s2"]);
  });
});
