/**
 * Injection and interception benchmark (docs/scoring.md#how-the-index-computes-it). Prints, for 10, 1,000 and 10,000
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
import type { JsonObject } from "../workers/src/formats/types.js";
import { createServices } from "../workers/src/services/index.js";
import { injectSkills } from "../workers/src/skills/injection/injection.js";
import { getInjectionIndex } from "../workers/src/skills/injection/injection-index.js";
import {
  type InterceptionExecutor,
  interceptToolCalls,
} from "../workers/src/skills/interception/interception.js";
import type { SkillSource } from "../workers/src/skills/registry/tool-resolver.js";
import type { Execution, Skill } from "../workers/src/skills/types.js";
import { contextRequest, syntheticSkills, type TextModel } from "./injection-data.js";
import { fmt, median, percentile, row, timeEach } from "./stats.js";

interface InjectionFigures {
  model: TextModel;
  skills: number;
  buildMs: number;
  /** Index for a reloaded snapshot of unchanged skills (new objects, same content). */
  reloadMs: number;
  medianMs: number;
  p99Ms: number;
  injected: number;
}

/** One registry size of one text model, prepared for timing. */
interface Setup {
  figures: InjectionFigures;
  run: (i: number) => number;
  samples: number[];
}

function prepare(model: TextModel, n: number): Setup {
  const snapshot: SkillSource = {
    generation: (model === "zipf" ? 900_000 : 800_000) + n,
    skills: syntheticSkills(n, model),
  };
  const t0 = performance.now();
  getInjectionIndex(snapshot);
  const buildMs = performance.now() - t0;
  const reloaded: SkillSource = {
    generation: snapshot.generation + 50_000,
    skills: snapshot.skills.map((s) => ({ ...s })),
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
    }).injected.length;
  const figures = { model, skills: n, buildMs, reloadMs, medianMs: 0, p99Ms: 0, injected: 0 };
  return { figures, run, samples: [] };
}

/**
 * Times the sizes of one model in interleaved rounds (1,000 requests per size per round), so
 * that load changes on the machine hit all sizes alike. Timing is synchronous: each sample is
 * one request.
 */
function injectionFor(model: TextModel, sizes: readonly number[], rounds = 8): InjectionFigures[] {
  const setups = sizes.map((n) => prepare(model, n));
  for (const s of setups) for (let i = 0; i < 1_000; i++) s.run(i); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const s of setups) {
      for (let i = 0; i < 1_000; i++) {
        const t = performance.now();
        s.figures.injected = s.run(r * 1_000 + i);
        s.samples.push(performance.now() - t);
      }
    }
  }
  return setups.map((s) => ({
    ...s.figures,
    medianMs: median(s.samples),
    p99Ms: percentile(s.samples, 99),
  }));
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
    inputTruncated: false,
    outputTruncated: false,
    output: {},
    errorMessage: null,
    errorCode: null,
    durationMs: 0,
    attempts: 1,
    attemptLog: [],
    notifications: [],
    codeSha256: null,
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
    const rows = injectionFor(model, [10, 1_000, 10_000]);
    injection.push(...rows);
    console.log(
      `\nInjection per request (openai-chat, 2 KB context, all skills auto; ${model} text model)`,
    );
    row("registered skills", "median", "p99", "index build", "reload (same)", "injected");
    for (const f of rows) {
      row(
        `${f.skills}`,
        fmt(f.medianMs),
        fmt(f.p99Ms),
        fmt(f.buildMs),
        fmt(f.reloadMs),
        `${f.injected}`,
      );
    }
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
