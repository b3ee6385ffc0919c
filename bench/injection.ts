/**
 * Injection benchmark (docs/scoring.md#how-the-index-computes-it). For 10, 1,000 and 10,000
 * registered `auto` skills and ~2 KB contexts, in two text models and with each ranker, prints
 * the injection time per
 * request with warm CPU caches (median, p99) and with the caches disturbed before each request by
 * a sweep over a buffer larger than the last-level cache (median; as in a busy gateway, where
 * other work runs between requests), beside the floor (parsing and serialising the same request),
 * and the one-off index build; then the index upkeep figures of bench/index-updates.ts (a write
 * derived vs. rebuilt, a cold instance loading vs. building, memory held by the index). Run:
 * `npx tsx bench/injection.ts` (or `npm run bench -- injection`).
 */
import {
  getInjectionIndex,
  InjectionIndexCache,
} from "../workers/src/skills/injection/index-cache.js";
import { injectSkills } from "../workers/src/skills/injection/injection.js";
import { RANKER_NAMES, type RankerName } from "../workers/src/skills/injection/rankers/index.js";
import type { SkillSource } from "../workers/src/skills/registry/tool-resolver.js";
import { runIndexBench } from "./index-updates.js";
import { contextRequest, syntheticSkills, type TextModel } from "./injection-data.js";
import { fmt, median, percentile, row, sweepCaches } from "./stats.js";

interface InjectionFigures {
  model: TextModel;
  ranker: RankerName;
  skills: number;
  buildMs: number;
  /** Index for a reloaded snapshot of unchanged skills (new objects, same content). */
  reloadMs: number;
  warmMedianMs: number;
  warmP99Ms: number;
  coldMedianMs: number;
  injected: number;
}

/** One registry size of one text model, prepared for timing. */
interface Setup {
  figures: InjectionFigures;
  run: (i: number) => number;
  warm: number[];
  cold: number[];
}

function prepare(model: TextModel, n: number, ranker: RankerName): Setup {
  // One registry's index cache (as its index store owns it): the reload reuses the cores.
  const indexCache = new InjectionIndexCache();
  const snapshot: SkillSource = {
    generation: (model === "zipf" ? 900_000 : 800_000) + n,
    skills: syntheticSkills(n, model),
    indexCache,
  };
  const t0 = performance.now();
  getInjectionIndex(snapshot);
  const buildMs = performance.now() - t0;
  const reloaded: SkillSource = {
    generation: snapshot.generation + 50_000,
    skills: snapshot.skills.map((s) => ({ ...s })),
    indexCache,
  };
  const t1 = performance.now();
  getInjectionIndex(reloaded);
  const reloadMs = performance.now() - t1;
  const requests = Array.from({ length: 64 }, (_, i) => contextRequest(model, i + 1));
  const run = (i: number) =>
    injectSkills({
      format: "openai-chat",
      request: requests[i % requests.length]!,
      snapshot: reloaded,
      apiKeyId: "bench-key",
      ranker,
    }).injected.length;
  const figures: InjectionFigures = {
    model,
    ranker,
    skills: n,
    buildMs,
    reloadMs,
    warmMedianMs: 0,
    warmP99Ms: 0,
    coldMedianMs: 0,
    injected: 0,
  };
  return { figures, run, warm: [], cold: [] };
}

/**
 * Times the sizes of one model in interleaved rounds (1,000 warm requests and 40 cold ones per
 * size per round), so that load changes on the machine hit all sizes alike. Each sample is one
 * request, timed synchronously.
 */
function injectionFor(model: TextModel, sizes: readonly number[], rounds = 6): InjectionFigures[] {
  const setups = sizes.flatMap((n) => RANKER_NAMES.map((ranker) => prepare(model, n, ranker)));
  for (const s of setups) for (let i = 0; i < 1_000; i++) s.run(i); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const s of setups) {
      for (let i = 0; i < 1_000; i++) {
        const t = performance.now();
        s.figures.injected = s.run(r * 1_000 + i);
        s.warm.push(performance.now() - t);
      }
      for (let i = 0; i < 40; i++) {
        sweepCaches();
        const t = performance.now();
        s.run(r * 40 + i);
        s.cold.push(performance.now() - t);
      }
    }
  }
  return setups.map((s) => ({
    ...s.figures,
    warmMedianMs: median(s.warm),
    warmP99Ms: percentile(s.warm, 99),
    coldMedianMs: median(s.cold),
  }));
}

/** The floor: parsing and serialising a request of the same size, warm and cold. */
function floor(): { warm: number; cold: number } {
  const texts = Array.from({ length: 64 }, (_, i) => JSON.stringify(contextRequest("zipf", i + 1)));
  const once = (i: number) => JSON.stringify(JSON.parse(texts[i % texts.length]!)).length;
  const warm: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < 5_000; i++) {
    const t = performance.now();
    once(i);
    warm.push(performance.now() - t);
  }
  for (let i = 0; i < 100; i++) {
    sweepCaches();
    const t = performance.now();
    once(i);
    cold.push(performance.now() - t);
  }
  return { warm: median(warm), cold: median(cold) };
}

/** Runs the injection benchmark and prints its tables. @returns the figures (ms). */
export async function runInjectionBench(): Promise<{ injection: InjectionFigures[] }> {
  const injection: InjectionFigures[] = [];
  const base = floor();
  for (const model of ["zipf", "uniform"] as const) {
    const rows = injectionFor(model, [10, 1_000, 10_000]);
    injection.push(...rows);
    console.log(
      `\nInjection per request (openai-chat, 2 KB context, all skills auto; ${model} text model)`,
    );
    row(
      "registered skills, ranker",
      "warm median",
      "warm p99",
      "cold median",
      "index build",
      "injected",
    );
    for (const f of rows) {
      row(
        `${f.skills}, ${f.ranker}`,
        fmt(f.warmMedianMs),
        fmt(f.warmP99Ms),
        fmt(f.coldMedianMs),
        fmt(f.buildMs),
        `${f.injected}`,
      );
    }
    row("floor: parse + serialise the request", fmt(base.warm), "", fmt(base.cold));
    row(
      "same skills, new objects: index for 10 / 1,000 / 10,000",
      ...rows.filter((f) => f.ranker === RANKER_NAMES[0]).map((f) => fmt(f.reloadMs)),
    );
    row("targets (keyword)", "cold ≤ 0.2 ms at 1,000", "cold ≤ 0.4 ms at 10,000");
    row("targets (bm25)", "warm ≤ 0.5 ms at 10,000", "cold ≤ 1 ms at 10,000");
  }
  await runIndexBench();
  return { injection };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runInjectionBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
