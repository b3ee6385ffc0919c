/**
 * Selection benchmark (docs/scoring.md#measured): how often AUTO selection injects the right
 * tools, for every ranker side by side, through the real injection path (`injectSkills` on a
 * registry snapshot, an OpenAI Chat request whose user message is the question).
 *
 * A selection set is a JSON file `{ functions: [{ name, description, tags?, parameters? }],
 * cases: [{ category?, query, tools: [names] }] }`: every function becomes a global `auto` skill,
 * every case a request. Reported per set and ranker:
 * - recall@1 and recall@5 over one-tool cases (the right tool first / among the injected);
 * - both-of-two: both tools of a two-tool case injected; all-of-n for every multi-tool case;
 * - off-topic: tools injected on average for a question that needs none (the set's cases with
 *   `tools: []`, and the general questions of {@link OFF_TOPIC});
 * - injection time per request at that registry size, warm and with the CPU caches disturbed by a
 *   64 MB sweep before each request (cold), medians.
 *
 * - the `skill_search` path (selection-search.ts): a scripted model that calls the right tools
 *   when they are offered, otherwise `skill_search` with the user's text: the share of cases
 *   whose tools are all offered within two model rounds, through the tools service's inject and
 *   intercept.
 *
 * Then the learning curve of each set (selection-learning.ts): up to 1,000 of its questions
 * replayed as traffic through the real inject and intercept endpoints, the others measured
 * before and after.
 *
 * Sets are given by path: `npm run bench -- selection path/to/set.json …`; without a path the
 * product-style set that ships in `bench/selection-sets/` is measured. Run alone:
 * `npx tsx bench/selection.ts [paths…]`.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../workers/src/formats/types.js";
import { getInjectionIndex } from "../workers/src/skills/injection/index-cache.js";
import { injectSkills } from "../workers/src/skills/injection/injection.js";
import { RANKER_NAMES, type RankerName } from "../workers/src/skills/injection/rankers/index.js";
import type { SkillSource } from "../workers/src/skills/registry/tool-resolver.js";
import type { JsonSchema, Skill } from "../workers/src/skills/types.js";
import { learningCurve } from "./selection-learning.js";
import { benchToolsService, measureSearch } from "./selection-search.js";
import { fmt, median, row, sweepCaches } from "./stats.js";

/** One function of a selection set. */
interface SetFunction {
  name: string;
  description?: string;
  tags?: string[];
  parameters?: JsonSchema;
}

/** One question of a selection set and the tools it needs. */
interface SetCase {
  category?: string;
  query: string;
  tools: string[];
}

/** A selection set file. */
interface SelectionSet {
  functions: SetFunction[];
  cases: SetCase[];
}

/** General questions that need no tool, asked of every set. */
export const OFF_TOPIC = [
  "What's the capital of France?",
  "Tell me a joke about cats.",
  "How are you doing today?",
  "Write a haiku about autumn leaves.",
  "Explain the difference between a virus and a bacterium.",
  "What is 17 times 23?",
  "Who wrote Pride and Prejudice?",
  "Can you summarise the plot of Hamlet in two sentences?",
  "What do you think about pineapple on pizza?",
  "hi",
  "Thanks, that was helpful!",
  "Give me three tips for better sleep.",
  "Why is the sky blue?",
  "Help me write a birthday message for my sister.",
  "Rewrite this sentence so it sounds more formal: we can't make it on Friday.",
];

/** Figures of one ranker on one set. */
export interface SelectionFigures {
  ranker: RankerName;
  recall1: number;
  recall5: number;
  bothOfTwo: number;
  allOfMulti: number;
  offTopicTools: number;
  warmMs: number;
  coldMs: number;
}

/** The skills of a set: one global auto skill per function. */
export function setSkills(set: SelectionSet): Skill[] {
  return set.functions.map((f, i) => ({
    id: `sel-${i}`,
    name: f.name,
    version: "1.0.0",
    description: f.description ?? "",
    schema: { input: f.parameters ?? { type: "object", properties: {} } },
    handlerCode: "noop",
    handler: null,
    instructions: null,
    enabled: true,
    mode: "auto",
    policy: "auto",
    sourceProvider: "local",
    sourceRef: null,
    tags: f.tags ?? [],
    installCount: 0,
    timeoutMs: null,
    autoUpgrade: null,
    apiKeyId: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  }));
}

const chat = (text: string): JsonObject => ({
  model: "gpt-4.1",
  messages: [{ role: "user", content: text }],
});

/** Runs every case of `set` through injection with `ranker`. */
export function measure(
  set: SelectionSet,
  snapshot: SkillSource,
  ranker: RankerName,
): SelectionFigures {
  const pick = (text: string) =>
    injectSkills({ format: "openai-chat", request: chat(text), snapshot, apiKeyId: null, ranker })
      .injected.filter((t) => t.mode === "auto")
      .map((t) => t.name);
  let ones = 0;
  let top1 = 0;
  let top5 = 0;
  let twos = 0;
  let both = 0;
  let multis = 0;
  let all = 0;
  let offCount = 0;
  let offTools = 0;
  for (const c of set.cases) {
    const got = pick(c.query);
    if (c.tools.length === 0) {
      offCount++;
      offTools += got.length;
    } else if (c.tools.length === 1) {
      ones++;
      if (got[0] === c.tools[0]) top1++;
      if (got.includes(c.tools[0]!)) top5++;
    } else {
      multis++;
      const hit = c.tools.every((t) => got.includes(t));
      if (hit) all++;
      if (c.tools.length === 2) {
        twos++;
        if (hit) both++;
      }
    }
  }
  for (const q of OFF_TOPIC) {
    offCount++;
    offTools += pick(q).length;
  }
  const texts = set.cases.map((c) => c.query);
  const warm: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < 400; i++) {
    const t0 = performance.now();
    pick(texts[i % texts.length]!);
    warm.push(performance.now() - t0);
  }
  for (let i = 0; i < 40; i++) {
    sweepCaches();
    const t0 = performance.now();
    pick(texts[(i * 7) % texts.length]!);
    cold.push(performance.now() - t0);
  }
  const pct = (a: number, b: number) => (b ? a / b : Number.NaN);
  return {
    ranker,
    recall1: pct(top1, ones),
    recall5: pct(top5, ones),
    bothOfTwo: pct(both, twos),
    allOfMulti: pct(all, multis),
    offTopicTools: offTools / offCount,
    warmMs: median(warm),
    coldMs: median(cold),
  };
}

const pctText = (x: number) => (Number.isNaN(x) ? "—" : `${(100 * x).toFixed(1)} %`);

/** Measures every ranker on each set and prints the figures side by side. */
export async function runSelectionBench(paths: readonly string[] = []): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url));
  const sets = paths.length ? paths : [join(here, "selection-sets", "product-tools.json")];
  for (const [n, path] of sets.entries()) {
    const set = JSON.parse(readFileSync(path, "utf8")) as SelectionSet;
    const snapshot: SkillSource = { generation: 700_000 + n, skills: setSkills(set) };
    getInjectionIndex(snapshot);
    const ones = set.cases.filter((c) => c.tools.length === 1).length;
    const twos = set.cases.filter((c) => c.tools.length === 2).length;
    const offs = set.cases.filter((c) => c.tools.length === 0).length + OFF_TOPIC.length;
    console.log(
      `\nSelection: ${basename(path)} — ${set.functions.length} skills, ${ones} one-tool, ${twos} two-tool, ${offs} off-topic questions`,
    );
    row("ranker", "recall@1", "recall@5", "both of 2", "all of n", "off-topic", "warm", "cold");
    for (const ranker of RANKER_NAMES) {
      const f = measure(set, snapshot, ranker);
      row(
        ranker,
        pctText(f.recall1),
        pctText(f.recall5),
        pctText(f.bothOfTwo),
        pctText(f.allOfMulti),
        `${f.offTopicTools.toFixed(2)} tools`,
        fmt(f.warmMs),
        fmt(f.coldMs),
      );
    }
    const tools = benchToolsService(snapshot);
    const { resolver } = getInjectionIndex(snapshot);
    const byName = new Map(snapshot.skills.map((s) => [s.name, resolver.toolName(s)]));
    console.log("  skill_search path: share found within two model rounds");
    row(
      "inject ranker",
      "1 tool: rd 1",
      "1 tool: ≤ 2",
      "all of n: rd 1",
      "all of n: ≤ 2",
      "searched",
    );
    for (const ranker of RANKER_NAMES) {
      const f = await measureSearch(
        tools,
        set.cases,
        ranker,
        (name) => byName.get(name) ?? name,
        `set${n}`,
      );
      row(
        ranker,
        pctText(f.oneRound1),
        pctText(f.oneRound2),
        pctText(f.multiRound1),
        pctText(f.multiRound2),
        pctText(f.searched),
      );
    }
    const curve = await learningCurve(set, OFF_TOPIC);
    console.log(
      `Learning (bm25): ${curve.traffic} questions replayed as traffic through inject + intercept (${curve.searched} needed a search), measured on the other ${curve.heldOut}`,
    );
    row("", "offered directly", "with skill_search", "recall@1", "off-topic");
    for (const [label, f] of [
      ["before", curve.before],
      ["after", curve.after],
    ] as const) {
      row(
        label,
        pctText(f.offered),
        pctText(f.withSearch),
        pctText(f.recall1),
        `${f.offTopicTools.toFixed(2)} tools`,
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runSelectionBench(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
