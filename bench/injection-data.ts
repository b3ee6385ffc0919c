/**
 * Synthetic registries and contexts for the injection benchmark: text models (Zipf over 20,000
 * words, or a uniform 3,000-word vocabulary), `auto` skills with camelCase names, 15-word
 * descriptions and 0-3 tags, and ~2 KB Chat Completions contexts. Deterministic per seed.
 */
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { JsonObject } from "../workers/src/formats/types.js";
import type { Skill } from "../workers/src/skills/types.js";

const COMMON = [
  "the",
  "and",
  "for",
  "with",
  "that",
  "this",
  "from",
  "you",
  "are",
  "can",
  "use",
  "data",
  "file",
  "when",
  "your",
];

/** Deterministic pseudo-random integers in [0, n) (xoroshiro128+ of the `pure-rand` package). */
function rng(seed: number) {
  const g = xoroshiro128plus(seed);
  return (n: number) => uniformInt(g, 0, n - 1);
}

/** Text models of the benchmark: how words of descriptions and contexts are drawn. */
export type TextModel = "zipf" | "uniform";

/** `size` distinct pseudo-words of 3-9 letters, common English words first. */
function vocabulary(size: number): string[] {
  const rand = rng(99);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const words = new Set<string>(COMMON);
  while (words.size < size) {
    let w = "";
    for (let i = 0, len = 3 + rand(7); i < len; i++) w += letters[rand(26)];
    words.add(w);
  }
  return [...words];
}

/**
 * A word sampler. `zipf`: 20,000 words with Zipf(1) frequencies (rank r has weight 1/r), the
 * usual model of natural-language text. `uniform`: 3,000 equally likely words, 30-40% of draws
 * being common English words: an adversarial model in which every content word of a context
 * occurs in many descriptions.
 */
function sampler(model: TextModel, seed: number, commonShare: number) {
  const rand = rng(seed);
  if (model === "uniform") {
    const vocab = vocabulary(3_000);
    return {
      vocab,
      word: () =>
        rand(100) < commonShare ? COMMON[rand(COMMON.length)]! : vocab[rand(vocab.length)]!,
    };
  }
  const vocab = vocabulary(20_000);
  const cdf = new Float64Array(vocab.length);
  let acc = 0;
  for (let r = 0; r < vocab.length; r++) cdf[r] = acc += 1 / (r + 1);
  return {
    vocab,
    word: () => {
      const x = (rand(1 << 30) / (1 << 30)) * acc;
      let lo = 0;
      let hi = cdf.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cdf[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      return vocab[lo]!;
    },
  };
}

/** `n` global auto skills with camelCase names, 15-word descriptions and 0-3 tags. */
export function syntheticSkills(n: number, model: TextModel = "zipf", seed = 1): Skill[] {
  const rand = rng(seed);
  const { vocab, word } = sampler(model, seed + 7, 30);
  // Names and tags are content words (not among the most common 200).
  const content = () => vocab[200 + rand(vocab.length - 200)]!;
  return Array.from({ length: n }, (_, i) => {
    const a = content();
    const b = content();
    return {
      id: `bench-${i}`,
      name: `${a}${b[0]!.toUpperCase()}${b.slice(1)}${i}`,
      version: "1.0.0",
      description: Array.from({ length: 15 }, word).join(" "),
      schema: {
        input: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      },
      handlerCode: "noop",
      handler: null,
      instructions: null,
      enabled: true,
      mode: "auto",
      policy: "auto",
      sourceProvider: "local",
      sourceRef: null,
      tags: Array.from({ length: rand(4) }, content),
      installCount: rand(1000),
      timeoutMs: null,
      autoUpgrade: null,
      apiKeyId: null,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    } satisfies Skill;
  });
}

/** A Chat Completions request whose user text is about 2 KB drawn from the text model. */
export function contextRequest(model: TextModel, seed: number): JsonObject {
  const { word } = sampler(model, 1_000 + seed, 40);
  const words: string[] = [];
  let len = 0;
  while (len < 2048) {
    const w = word();
    words.push(w);
    len += w.length + 1;
  }
  return {
    model: "gpt-4.1",
    messages: [
      { role: "system", content: "You are helpful." },
      { role: "user", content: words.join(" ") },
    ],
  };
}
