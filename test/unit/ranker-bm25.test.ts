/**
 * The `bm25` ranker (docs/scoring.md#the-bm25-ranker): text analysis, scores against a plain
 * reference implementation of the formulas on random registries, incremental updates equal to a
 * build from scratch, serialised cores equal to the cores they came from, and the gate.
 */
import { describe, expect, it } from "vitest";
import { Bm25Core } from "../../workers/src/skills/injection/rankers/bm25-core.js";
import { FIELD_COUNT, fieldTerms } from "../../workers/src/skills/injection/rankers/bm25-fields.js";
import {
  bm25Query,
  queryTermWeight,
  SPOKEN_MIN_WEIGHT,
} from "../../workers/src/skills/injection/rankers/bm25-query.js";
import { scoreSkill } from "../../workers/src/skills/injection/rankers/bm25-score.js";
import { decodeBm25, encodeBm25 } from "../../workers/src/skills/injection/rankers/bm25-serial.js";
import {
  BM25_PARAMS,
  type Bm25Query,
} from "../../workers/src/skills/injection/rankers/bm25-state.js";
import { analyse } from "../../workers/src/skills/injection/rankers/text-analysis.js";
import type { Skill } from "../../workers/src/skills/types.js";
import { forRandom, type Rand } from "../support/random.js";
import { skill } from "./injection-fixtures.js";

const WORDS = (
  "weather forecast city rain search web issue github ticket create update delete invoice " +
  "payment refund order ship track email send draft calendar event meeting translate text " +
  "stock price quote file upload download the and for with map route traffic"
).split(" ");

function randomSkill(rand: Rand, i: number): Skill {
  const w = () => WORDS[rand(WORDS.length)]!;
  const props: Record<string, unknown> = {};
  for (let p = 0; p < rand(4); p++)
    props[`${w()}_${w()}`] = { type: "string", description: `${w()} ${w()}` };
  return skill({
    id: `r-${i}`,
    name: `${w()}${w()[0]!.toUpperCase()}${w().slice(1)}${i}`,
    description: Array.from({ length: 2 + rand(12) }, w).join(" "),
    tags: Array.from({ length: rand(3) }, w),
    mode: "auto",
    installCount: rand(5),
    schema: { input: { type: "object", properties: props } },
  });
}

/** The formulas of docs/scoring.md#the-bm25-ranker, written out plainly over `candidates`. */
function reference(
  candidates: readonly Skill[],
  query: Bm25Query,
): { id: string; score: number }[] {
  const { weights, b, k1, coverage, gate } = BM25_PARAMS;
  const n = candidates.length;
  const fields = candidates.map((s) => fieldTerms(s));
  // N and the mean lengths are rounded to a sixteenth of an octave.
  const q16 = (x: number) => 2 ** (Math.round(Math.log2(x) * 16) / 16);
  const avg = Array.from({ length: FIELD_COUNT }, (_, f) => {
    const total = fields.reduce((a, t) => a + t[f]!.length, 0);
    return total > 0 ? q16(total / n) : 1;
  });
  const nq = q16(n);
  const df = new Map<string, number>();
  for (const t of fields)
    for (const term of new Set(t.flat())) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = (term: string) => {
    const d = df.get(term) ?? 0;
    return Math.log(1 + (nq - d + 0.5) / (d + 0.5));
  };
  // Each unique term with the weight of its first occurrence (1 without weights).
  const q = new Map<string, number>();
  query.terms.forEach((t, i) => {
    if (!q.has(t)) q.set(t, query.weights ? query.weights[i]! : 1);
  });
  const out: { id: string; score: number; s: Skill }[] = [];
  candidates.forEach((s, i) => {
    let score = 0;
    let matched = false;
    for (const [term, weight] of q) {
      let tf = 0;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const c = Math.min(63, fields[i]![f]!.filter((x) => x === term).length);
        tf += (weights[f]! * c) / (1 - b[f]! + (b[f]! * fields[i]![f]!.length) / avg[f]!);
      }
      if (tf > 0) {
        matched = true;
        score += (weight * idf(term) * tf) / (k1 + tf);
      }
    }
    if (!matched) return;
    const names = new Set(fields[i]![0]);
    let total = 0;
    let got = 0;
    for (const t of names) {
      total += idf(t);
      if (q.has(t)) got += idf(t) * Math.min(1, q.get(t)!);
    }
    if (total > 0) score += (coverage * got) / total;
    if (score >= gate * Math.log(1 + (nq - 0.5) / 1.5)) out.push({ id: s.id, score, s });
  });
  out.sort(
    (x, y) =>
      y.score - x.score ||
      y.s.installCount - x.s.installCount ||
      (x.s.name < y.s.name ? -1 : x.s.name > y.s.name ? 1 : 0),
  );
  return out.map(({ id, score }) => ({ id, score }));
}

const topIds = (core: Bm25Core, query: Bm25Query, k = 5) =>
  core.top(query, k, () => true).map((h) => ({ id: core.state.slotIds[h.id], score: h.score }));

const randomQuery = (rand: Rand) =>
  bm25Query(Array.from({ length: 3 + rand(20) }, () => WORDS[rand(WORDS.length)]!).join(" "));

/** A random query whose terms carry random weights in (0, 1] (repeats keep the first). */
const randomWeightedQuery = (rand: Rand): Bm25Query => {
  const terms = randomQuery(rand).terms;
  const all = [...terms, ...terms.slice(0, rand(3))];
  return { terms: all, weights: all.map(() => (1 + rand(100)) / 100) };
};

describe("text analysis", () => {
  it("splits identifiers, drops stop-words, stems, and keeps camelCase words whole too", () => {
    expect(analyse("issueSearch the Searching of GitHub issues")).toEqual([
      "issuesearch",
      "issu",
      "search",
      "search",
      "github",
      "git",
      "hub",
      "issu",
    ]);
    expect(analyse("fetch_current-weather.v2 x")).toEqual(["fetch", "current", "weather", "v2"]);
  });

  it("turns runs of Han and kana into bigrams and keeps other scripts' words", () => {
    expect(analyse("東京の天気")).toEqual(["東京", "京の", "の天", "天気"]);
    expect(analyse("Погода в Москве")).toEqual(["погода", "москве"]);
  });
});

describe("bm25 core", () => {
  it("scores as the reference formulas on random registries", () => {
    forRandom(20, (rand) => {
      const candidates = Array.from({ length: 5 + rand(60) }, (_, i) => randomSkill(rand, i));
      const core = Bm25Core.build(candidates, "k");
      for (let r = 0; r < 10; r++) {
        const query = randomQuery(rand);
        const want = reference(candidates, query).slice(0, 5);
        const got = topIds(core, query);
        expect(got.map((g) => g.id)).toEqual(want.map((w) => w.id));
        for (const [i, g] of got.entries()) expect(g.score).toBeCloseTo(want[i]!.score, 9);
      }
    });
  });

  it("scores weighted query terms as the reference formulas, in the index and for a single skill", () => {
    forRandom(20, (rand) => {
      const candidates = Array.from({ length: 5 + rand(60) }, (_, i) => randomSkill(rand, i));
      const core = Bm25Core.build(candidates, "k");
      for (let r = 0; r < 10; r++) {
        const query = randomWeightedQuery(rand);
        const want = reference(candidates, query).slice(0, 5);
        const got = topIds(core, query);
        expect(got.map((g) => g.id)).toEqual(want.map((w) => w.id));
        for (const [i, g] of got.entries()) {
          expect(g.score).toBeCloseTo(want[i]!.score, 9);
          const s = candidates.find((c) => c.id === g.id)!;
          expect(scoreSkill(core, query, s)).toBeCloseTo(g.score, 9);
        }
      }
    });
  });

  it("finds the same skills as the reference when most postings are pruned (large registry, long questions)", () => {
    forRandom(4, (rand) => {
      const candidates = Array.from({ length: 400 }, (_, i) => randomSkill(rand, i));
      const core = Bm25Core.build(candidates, "k");
      for (let r = 0; r < 5; r++) {
        const query = bm25Query(
          Array.from({ length: 40 + rand(80) }, () => WORDS[rand(WORDS.length)]!).join(" "),
        );
        for (const k of [1, 5, 12]) {
          const want = reference(candidates, query).slice(0, k);
          const got = topIds(core, query, k);
          expect(got.map((g) => g.id)).toEqual(want.map((w) => w.id));
          for (const [i, g] of got.entries()) expect(g.score).toBeCloseTo(want[i]!.score, 9);
        }
      }
    });
  });

  it("scores a single skill as top() does", () => {
    forRandom(3, (rand) => {
      const candidates = Array.from({ length: 40 }, (_, i) => randomSkill(rand, i));
      const core = Bm25Core.build(candidates, "k");
      const query = bm25Query("weather forecast for the city and the rain");
      for (const hit of core.top(query, 5, () => true)) {
        expect(scoreSkill(core, query, candidates[hit.id]!)).toBe(hit.score);
      }
    });
  });

  it("a core updated change by change answers exactly as one built from scratch", () => {
    forRandom(8, (rand) => {
      let next = 0;
      let live = Array.from({ length: 20 }, () => randomSkill(rand, next++));
      let core = Bm25Core.build(live, "k");
      let slotOf = new Map(live.map((s, i) => [s.id, i]));
      for (let step = 0; step < 25; step++) {
        const removed = live.filter(() => rand(6) === 0).slice(0, 3);
        const added = Array.from({ length: rand(3) }, () => randomSkill(rand, next++));
        const derived = core.derive(
          { removed: removed.map((s) => ({ slot: slotOf.get(s.id)!, candidate: s })), added },
          "k",
        );
        expect(derived).toBeDefined();
        core = derived!.core;
        slotOf = new Map(slotOf);
        for (const s of removed) slotOf.delete(s.id);
        for (const [i, s] of added.entries()) slotOf.set(s.id, derived!.slots[i]!);
        live = [...live.filter((s) => !removed.includes(s)), ...added];
        const fresh = Bm25Core.build(live, "k");
        for (let r = 0; r < 4; r++) {
          const query = randomQuery(rand);
          expect(topIds(core, query, 8)).toEqual(topIds(fresh, query, 8));
        }
      }
    });
  });

  it("a large core updated one skill at a time, caches warm, answers exactly as one built from scratch", () => {
    // Hundreds of skills and one-for-one replacements keep N and the rounded mean lengths, so the
    // derived cores reuse the normalisers, idf values and contributions of the terms not changed.
    forRandom(3, (rand) => {
      let next = 0;
      let live = Array.from({ length: 300 }, () => randomSkill(rand, next++));
      let core = Bm25Core.build(live, "k");
      let slotOf = new Map(live.map((s, i) => [s.id, i]));
      const queries = Array.from({ length: 6 }, () => randomQuery(rand));
      for (const q of queries) core.top(q, 5, () => true);
      for (let step = 0; step < 30; step++) {
        const gone = live[rand(live.length)]!;
        const added = randomSkill(rand, next++);
        const derived = core.derive(
          { removed: [{ slot: slotOf.get(gone.id)!, candidate: gone }], added: [added] },
          "k",
        )!;
        core = derived.core;
        slotOf = new Map(slotOf);
        slotOf.delete(gone.id);
        slotOf.set(added.id, derived.slots[0]!);
        live = [...live.filter((s) => s !== gone), added];
        const fresh = Bm25Core.build(live, "k");
        for (const q of [...queries, randomQuery(rand)]) {
          expect(topIds(core, q, 8)).toEqual(topIds(fresh, q, 8));
        }
      }
    });
  });

  it("refuses a second derivation from the same core", () => {
    forRandom(3, (rand) => {
      const core = Bm25Core.build([randomSkill(rand, 0)], "k");
      expect(core.derive({ removed: [], added: [randomSkill(rand, 1)] }, "k")).toBeDefined();
      expect(core.derive({ removed: [], added: [randomSkill(rand, 2)] }, "k")).toBeUndefined();
    });
  });

  it("a serialised core answers as the core it came from, and can be derived from", () => {
    forRandom(3, (rand) => {
      const live = Array.from({ length: 50 }, (_, i) => randomSkill(rand, i));
      const core = Bm25Core.build(live, "key-1");
      const loaded = decodeBm25(encodeBm25(core));
      expect(loaded.key).toBe("key-1");
      for (let r = 0; r < 20; r++) {
        const query = randomQuery(rand);
        expect(topIds(loaded, query, 10)).toEqual(topIds(core, query, 10));
      }
      const extra = randomSkill(rand, 99);
      const a = loaded.derive(
        { removed: [{ slot: 0, candidate: live[0]! }], added: [extra] },
        "k2",
      );
      const fresh = Bm25Core.build([...live.slice(1), extra], "k2");
      const query = bm25Query(`${extra.description} ${live[0]!.description}`);
      expect(topIds(a!.core, query, 10)).toEqual(topIds(fresh, query, 10));
      expect(() => decodeBm25(new Uint8Array([1, 2, 3]))).toThrow();
    });
  });

  it("an unrelated question reaches no skill past the gate; a relevant one ranks its skill first", () => {
    const skills = [
      skill({
        id: "w",
        name: "getWeather",
        description: "Current weather and forecast for a city",
        mode: "auto",
      }),
      skill({
        id: "e",
        name: "send_email",
        description: "Send an email to a contact",
        mode: "auto",
      }),
      skill({
        id: "c",
        name: "calendar.create_event",
        description: "Create a calendar event",
        mode: "auto",
      }),
      skill({
        id: "s",
        name: "stockQuote",
        description: "Real-time stock price quote",
        mode: "auto",
      }),
    ];
    const core = Bm25Core.build(skills, "k");
    expect(core.top(bm25Query("Write a haiku about autumn leaves."), 5, () => true)).toEqual([]);
    const hits = core.top(
      bm25Query("Will it rain in Paris tomorrow? What's the forecast?"),
      5,
      () => true,
    );
    expect(hits.map((h) => skills[h.id]!.id)).toEqual(["w"]);
  });
});

describe("query term weights", () => {
  it("weighs the most frequent spoken words down and every other term at 1", () => {
    for (const w of ["help", "find", "need", "call", "time"]) {
      const [term] = analyse(w);
      expect(queryTermWeight(term!)).toBeLessThan(1);
      expect(queryTermWeight(term!)).toBeGreaterThanOrEqual(SPOKEN_MIN_WEIGHT);
    }
    for (const w of ["weather", "invoice", "kubernetes", "refund", "東京"]) {
      expect(queryTermWeight(analyse(w)[0]!)).toBe(1);
    }
    const q = bm25Query("please help me find the weather");
    expect(q.terms).toEqual(["pleas", "help", "find", "weather"]);
    expect(q.weights!.slice(0, 3).every((w) => w < 1)).toBe(true);
    expect(q.weights![3]).toBe(1);
  });

  it("lets no common spoken word select a tool by itself, while a topical word still does", () => {
    const skills = [
      skill({
        id: "h",
        name: "man_pages",
        description: "Help pages and manual entries of shell commands",
        mode: "auto",
      }),
      skill({ id: "w", name: "weather", description: "Current weather for a city", mode: "auto" }),
      ...Array.from({ length: 30 }, (_, i) =>
        skill({ id: `f${i}`, name: `filler${i}`, description: `Filler tool ${i}`, mode: "auto" }),
      ),
    ];
    const core = Bm25Core.build(skills, "k");
    const chatty = bm25Query("Could you help me write a birthday message for my sister?");
    expect(core.top(chatty, 5, () => true)).toEqual([]);
    // The same terms at full weight would select the help tool: the weights decide.
    expect(core.top({ terms: chatty.terms }, 5, () => true).map((h) => skills[h.id]!.id)).toEqual([
      "h",
    ]);
    const topical = core.top(bm25Query("What's the weather in Oslo?"), 5, () => true);
    expect(topical.map((h) => skills[h.id]!.id)).toEqual(["w"]);
  });

  it("is the table the spoken-words script derives from the word-frequency package", async () => {
    const { spokenWordsModule, SPOKEN_WORDS_MODULE } = await import(
      "../../scripts/spoken-words-table.js"
    );
    const { readFileSync } = await import("node:fs");
    const path = new URL(`../../${SPOKEN_WORDS_MODULE}`, import.meta.url);
    expect(readFileSync(path, "utf8")).toBe(spokenWordsModule());
  });
});
