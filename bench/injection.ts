/**
 * Injection and interception benchmark (issue 4 acceptance). Prints, for 10, 1,000 and 10,000
 * registered `auto` skills and a 2 KB context, the injection time per request (median, p99) and
 * the one-off index build; then the interception time for a response with 8 parallel calls to a
 * no-op handler: the pure interception work (executor double, no rows), and the same through the
 * real executor on embedded libSQL, whose difference is the execution-row writes. Run:
 * `npx tsx bench/injection.ts` (or `npm run bench`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";
import { applyMigrations } from "../workers/src/db/migrate-node.js";
import type { JsonObject } from "../workers/src/providers/types.js";
import { createServices } from "../workers/src/services.js";
import { injectSkills } from "../workers/src/skills/injection.js";
import { getInjectionIndex } from "../workers/src/skills/injection-index.js";
import {
  type InterceptionExecutor,
  interceptToolCalls,
} from "../workers/src/skills/interception.js";
import type { SkillSource } from "../workers/src/skills/skill-lookup.js";
import type { Execution, Skill } from "../workers/src/skills/types.js";
import { fmt, median, percentile, row, timeEach } from "./stats.js";

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

/** Deterministic pseudo-random integers in [0, n) (mulberry32). */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
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
      instructions: null,
      enabled: true,
      mode: "auto",
      policy: "auto",
      sourceProvider: "local",
      sourceRef: null,
      tags: Array.from({ length: rand(4) }, content),
      installCount: rand(1000),
      timeoutMs: null,
      apiKeyId: null,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    } satisfies Skill;
  });
}

/** A Chat Completions request whose user text is about 2 KB drawn from the text model. */
function contextRequest(model: TextModel, seed: number): JsonObject {
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

interface InjectionFigures {
  model: TextModel;
  skills: number;
  buildMs: number;
  medianMs: number;
  p99Ms: number;
  injected: number;
}

async function injectionAt(model: TextModel, n: number): Promise<InjectionFigures> {
  const snapshot: SkillSource = {
    generation: (model === "zipf" ? 900_000 : 800_000) + n,
    skills: syntheticSkills(n, model),
  };
  const t0 = performance.now();
  getInjectionIndex(snapshot);
  const buildMs = performance.now() - t0;
  const requests = Array.from({ length: 64 }, (_, i) => contextRequest(model, i + 1));
  let injected = 0;
  const run = (i: number) => {
    injected = injectSkills({
      format: "openai-chat",
      request: requests[i % requests.length]!,
      snapshot,
      apiKeyId: "bench-key",
    }).injected.length;
  };
  // Synchronous timing (no await between calls): each sample is one request.
  const samples: number[] = [];
  for (let i = 0; i < 6_000; i++) {
    const t = performance.now();
    run(i);
    if (i >= 1_000) samples.push(performance.now() - t);
  }
  return {
    model,
    skills: n,
    buildMs,
    medianMs: median(samples),
    p99Ms: percentile(samples, 99),
    injected,
  };
}

/** A Chat response with 8 parallel calls to `toolName`. */
function eightCalls(toolName: string): JsonObject {
  const tool_calls = Array.from({ length: 8 }, (_, i) => ({
    id: `call_${i}`,
    type: "function",
    function: { name: toolName, arguments: `{"query":"q${i}"}` },
  }));
  return {
    id: "chatcmpl-b",
    object: "chat.completion",
    created: 1,
    model: "gpt-4.1",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: { role: "assistant", content: null, tool_calls },
      },
    ],
  };
}

async function interception(): Promise<Record<string, number>> {
  // Pure interception work: an executor double that returns at once and writes nothing.
  const skills = syntheticSkills(1_000, "zipf");
  const target = skills[0]!;
  const pureSnapshot: SkillSource = { generation: 950_000, skills };
  const done = (s: Skill, input: unknown): Execution => ({
    id: "ex",
    skillId: s.id,
    skillName: s.name,
    version: s.version,
    apiKeyId: null,
    sessionId: null,
    status: "success",
    approval: "none",
    input,
    output: {},
    errorMessage: null,
    errorCode: null,
    durationMs: 0,
    attempts: 1,
    createdAt: "",
    updatedAt: "",
  });
  const double: InterceptionExecutor = {
    execute: async (s, input) => done(s, input),
    requestApproval: async (s, input) => done(s, input),
  };
  const response = eightCalls("placeholder");
  const pureResponse = eightCalls(`${target.name}_v1_0_0`);
  const pure = await timeEach(3_000, () =>
    interceptToolCalls({
      format: "openai-chat",
      response: pureResponse,
      snapshot: pureSnapshot,
      apiKeyId: null,
      executor: double,
    }),
  );

  // Through the real executor on embedded libSQL: each call writes its execution row lifecycle.
  const dir = mkdtempSync(join(tmpdir(), "skillgate-bench-intercept-"));
  const client = createClient({ url: `file:${join(dir, "bench.db")}` });
  try {
    const db = createDb(client);
    await applyMigrations(db);
    const services = createServices(
      { db, cache: new MemoryCache(), config: parseConfig({}) },
      { builtins: [] },
    );
    services.executor.registerHandler("noop", async () => ({ ok: true }));
    await services.skills.install({
      name: "noopSkill",
      version: "1.0.0",
      description: "No-op",
      schema: { input: { query: "string" } },
      handlerCode: "noop",
      apiKeyId: null,
    } as Parameters<typeof services.skills.install>[0]);
    const snapshot = await services.registry.snapshot();
    const realResponse = JSON.parse(
      JSON.stringify(response).replaceAll("placeholder", "noopSkill_v1_0_0"),
    ) as JsonObject;
    const real = await timeEach(200, () =>
      interceptToolCalls({
        format: "openai-chat",
        response: realResponse,
        snapshot,
        apiKeyId: null,
        executor: services.executor,
      }),
    );
    const check = await interceptToolCalls({
      format: "openai-chat",
      response: realResponse,
      snapshot,
      apiKeyId: null,
      executor: services.executor,
    });
    if (check.toolResults.length !== 8 || check.toolResults.some((r) => r.status !== "success")) {
      throw new Error(
        `bench interception did not run 8 successful calls: ${JSON.stringify(check.toolResults[0])}`,
      );
    }
    return {
      pureMedian: median(pure),
      pureP99: percentile(pure, 99),
      realMedian: median(real),
      realP99: percentile(real, 99),
    };
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the injection / interception benchmark and prints its table. @returns the figures (ms). */
export async function runInjectionBench(): Promise<{
  injection: InjectionFigures[];
  interception: Record<string, number>;
}> {
  const injection: InjectionFigures[] = [];
  for (const model of ["zipf", "uniform"] as const) {
    const rows: InjectionFigures[] = [];
    for (const n of [10, 1_000, 10_000]) rows.push(await injectionAt(model, n));
    injection.push(...rows);
    console.log(
      `\nInjection per request (openai-chat, 2 KB context, all skills auto; ${model} text model)`,
    );
    row("registered skills", "median", "p99", "index build", "injected");
    for (const f of rows)
      row(`${f.skills}`, fmt(f.medianMs), fmt(f.p99Ms), fmt(f.buildMs), `${f.injected}`);
    const ratio = rows[2]!.medianMs / rows[1]!.medianMs;
    row("target: ≤ 0.2 ms at 1,000; 10,000 within 2× of 1,000", `ratio ${ratio.toFixed(2)}×`);
  }
  const ic = await interception();
  console.log("\nInterception, 8 parallel calls to a no-op handler (openai-chat)");
  row("", "median", "p99");
  row("interception only (no rows; target ≤ 0.5 ms)", fmt(ic.pureMedian!), fmt(ic.pureP99!));
  row("with execution rows (embedded libSQL)", fmt(ic.realMedian!), fmt(ic.realP99!));
  row("→ execution-row writes (difference)", fmt(ic.realMedian! - ic.pureMedian!));
  return { injection, interception: ic };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runInjectionBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
