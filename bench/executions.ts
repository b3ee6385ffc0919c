/**
 * Execution benchmark (docs/execution.md#what-an-execution-costs), each figure beside its
 * reference measured in the same run:
 * - interception of a response with 8 parallel calls to a no-op handler: interception alone (an
 *   executor double that writes nothing) vs. with execution rows on the embedded database (each
 *   end with the upsert of its hourly rollup), and with rows written one write per transaction
 *   (no shared batches);
 * - 200 concurrent executions of an echo skill through REST over HTTP vs. 200 concurrent POSTs to
 *   a bare Hono route served the same way;
 * - round trips to a libSQL server (the test Hrana server, counted by it) per execution and per
 *   interception.
 * Run: `npx tsx bench/executions.ts` (or `npm run bench -- executions`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { startHranaServer } from "../test/workerd/hrana-server.js";
import { MemoryCache } from "../workers/src/cache/memory-cache.js";
import { parseConfig } from "../workers/src/config.js";
import { createDb } from "../workers/src/db/client.js";
import { DrizzleExecutionRepository } from "../workers/src/db/repositories/executions.js";
import { WriteBatcher } from "../workers/src/db/write-batcher.js";
import type { JsonObject } from "../workers/src/formats/types.js";
import { openEmbeddedDatabase } from "../workers/src/runtime/node/embedded-db.js";
import { applyMigrations } from "../workers/src/runtime/node/migrate.js";
import { createServices } from "../workers/src/services/index.js";
import { Executor } from "../workers/src/skills/execution/executor.js";
import { emittedToolName } from "../workers/src/skills/injection/tool-names.js";
import {
  type InterceptionExecutor,
  interceptToolCalls,
} from "../workers/src/skills/interception/interception.js";
import type { Execution, Skill } from "../workers/src/skills/types.js";
import { BENCH_TOKEN, startBenchApi } from "./api.js";
import { fmt, interleave, median, percentile, row } from "./stats.js";

/** A Chat response with `n` parallel calls to `toolName`. */
export function parallelCalls(toolName: string, n = 8): JsonObject {
  const tool_calls = Array.from({ length: n }, (_, i) => ({
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

const NOOP_INSTALL = {
  name: "noopSkill",
  version: "1.0.0",
  description: "No-op",
  schema: { input: { query: "string" } },
  handlerCode: "noop",
  apiKeyId: null,
};

async function interception(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-bench-exec-"));
  const url = `file:${join(dir, "bench.db")}`;
  const client = await openEmbeddedDatabase(url);
  try {
    const db = createDb(client);
    await applyMigrations(db);
    const services = createServices(
      { db, cache: new MemoryCache(), config: parseConfig({}) },
      { builtins: [] },
    );
    services.executor.registerHandler("noop", async () => ({ ok: true }));
    await services.skills.install(NOOP_INSTALL as Parameters<typeof services.skills.install>[0]);
    const snapshot = await services.registry.snapshot();
    const skill = snapshot.resolve("noopSkill", null, null)!;
    const response = parallelCalls(emittedToolName(skill));

    const unbatchedStore = new DrizzleExecutionRepository(
      db,
      Date.now,
      undefined,
      new WriteBatcher(db.$client, { maxBatch: 1 }),
    );
    const unbatched = new Executor({ store: unbatchedStore, isSkillsEnabled: async () => true });
    unbatched.registerHandler("noop", async () => ({ ok: true }));
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
    const run = (executor: InterceptionExecutor) => async () => {
      const r = await interceptToolCalls({
        format: "openai-chat",
        response,
        snapshot,
        apiKeyId: null,
        executor,
      });
      if (r.toolResults.length !== 8 || r.toolResults.some((x) => x.status !== "success"))
        throw new Error(`interception did not run 8 calls: ${JSON.stringify(r.toolResults[0])}`);
    };
    for (let i = 0; i < 20; i++) {
      await run(double)();
      await run(services.executor)();
      await run(unbatched)();
    }
    const stats = (services.executor.store as DrizzleExecutionRepository).writes.stats;
    const before = { ...stats };
    const samples = await interleave(
      {
        pure: run(double),
        rows: run(services.executor),
        unbatched: run(unbatched),
      },
      10,
      30,
    );
    const n = samples.rows!.length;
    return {
      pureMedian: median(samples.pure!),
      pureP99: percentile(samples.pure!, 99),
      rowsMedian: median(samples.rows!),
      rowsP99: percentile(samples.rows!, 99),
      unbatchedMedian: median(samples.unbatched!),
      unbatchedP99: percentile(samples.unbatched!, 99),
      statementsPerInterception: (stats.statements - before.statements) / n,
      batchesPerInterception: (stats.batches - before.batches) / n,
    };
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function restConcurrency(n = 200, rounds = 9): Promise<Record<string, number>> {
  const api = await startBenchApi();
  const bare = new Hono();
  bare.post("/bare", async (c) => {
    const body = await c.req.json();
    return c.json({ execution: { id: crypto.randomUUID(), status: "success", output: body } });
  });
  const ref = serve({ fetch: bare.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((r) => ref.once("listening", () => r()));
  const refUrl = `http://127.0.0.1:${(ref.address() as AddressInfo).port}`;
  try {
    await api.post("/api/skills/install", {
      name: "bench-echo",
      version: "1.0.0",
      description: "Echo",
      schema: { input: { type: "object", properties: { text: { type: "string" } } } },
      handlerCode: "echo-handler",
    });
    const headers = { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" };
    const latencies: number[] = [];
    const burst = async (url: string, body: unknown, keep: boolean) => {
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: n }, async () => {
          const s = performance.now();
          const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
          const json = (await res.json()) as { execution?: { status?: string } };
          if (res.status !== 200 || json.execution?.status !== "success")
            throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
          if (keep) latencies.push(performance.now() - s);
        }),
      );
      return performance.now() - t0;
    };
    const exec = { skillName: "bench-echo", input: { text: "hello" } };
    const execUrl = `${api.url}/api/skills/executions`;
    await burst(execUrl, exec, false);
    await burst(`${refUrl}/bare`, exec, false);
    const stats = (api.services.executor.store as DrizzleExecutionRepository).writes.stats;
    const before = { ...stats };
    const rest: number[] = [];
    const bareWall: number[] = [];
    for (let r = 0; r < rounds; r++) {
      bareWall.push(await burst(`${refUrl}/bare`, exec, false));
      rest.push(await burst(execUrl, exec, true));
    }
    return {
      restWall: median(rest),
      bareWall: median(bareWall),
      latencyP50: median(latencies),
      latencyP99: percentile(latencies, 99),
      batchesPerBurst: (stats.batches - before.batches) / rounds,
      statementsPerBurst: (stats.statements - before.statements) / rounds,
    };
  } finally {
    api.close();
    ref.close();
  }
}

async function roundTrips(count = 20): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "skillgate-bench-hrana-"));
  const server = await startHranaServer({ path: join(dir, "registry.db") });
  const api = await startBenchApi({}, {}, server.url);
  try {
    const { skill } = await api.post("/api/skills/install", {
      name: "rt-echo",
      version: "1.0.0",
      description: "Echo",
      schema: { input: { type: "object", properties: { query: { type: "string" } } } },
      handlerCode: "echo-handler",
    });
    const response = parallelCalls(emittedToolName(skill as Skill));
    const execute = () =>
      api.post("/api/skills/executions", { skillName: "rt-echo", input: { query: "q" } });
    const intercept = () => api.post("/api/skills/intercept", { format: "openai-chat", response });
    await execute();
    await intercept();
    const measure = async (fn: () => Promise<unknown>) => {
      const start = server.stats.pipelines;
      const walls: number[] = [];
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        await fn();
        walls.push(performance.now() - t0);
      }
      return { trips: (server.stats.pipelines - start) / count, wall: median(walls) };
    };
    const e = await measure(execute);
    const i = await measure(intercept);
    return { perExecution: e.trips, execWall: e.wall, perInterception: i.trips, icWall: i.wall };
  } finally {
    api.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the execution benchmark and prints its tables. @returns the figures (ms and counts). */
export async function runExecutionsBench(): Promise<Record<string, number>> {
  const ic = await interception();
  console.log("\nInterception, 8 parallel calls to a no-op handler (openai-chat, medians)");
  row("", "median", "p99", "vs alone");
  row(
    "interception alone (executor double, no rows)",
    fmt(ic.pureMedian!),
    fmt(ic.pureP99!),
    "1.00×",
  );
  row(
    "with execution rows (embedded, shared batches)",
    fmt(ic.rowsMedian!),
    fmt(ic.rowsP99!),
    `${(ic.rowsMedian! / ic.pureMedian!).toFixed(1)}×`,
  );
  row(
    "with rows, one statement per transaction",
    fmt(ic.unbatchedMedian!),
    fmt(ic.unbatchedP99!),
    `${(ic.unbatchedMedian! / ic.pureMedian!).toFixed(1)}×`,
  );
  row(
    "writes per interception (statements, batches)",
    `${ic.statementsPerInterception!.toFixed(1)}`,
    `${ic.batchesPerInterception!.toFixed(1)}`,
  );
  row("target", "rows ≤ 5 ms");

  const rc = await restConcurrency();
  console.log(
    "\n200 concurrent executions of an echo skill through REST (HTTP, embedded database)",
  );
  row("", "wall (median)", "per second", "latency p50", "p99");
  row(
    "POST /api/skills/executions × 200",
    fmt(rc.restWall!),
    `${Math.round(200 / (rc.restWall! / 1000))}`,
    fmt(rc.latencyP50!),
    fmt(rc.latencyP99!),
  );
  row(
    "bare Hono POST route × 200 (same server)",
    fmt(rc.bareWall!),
    `${Math.round(200 / (rc.bareWall! / 1000))}`,
  );
  row(
    "writes per burst (statements, batches)",
    `${rc.statementsPerBurst!.toFixed(0)}`,
    `${rc.batchesPerBurst!.toFixed(1)}`,
  );
  row("target", "≤ 300 ms wall");

  const rt = await roundTrips();
  console.log("\nRound trips to a libSQL server (test Hrana server over HTTP, warm caches)");
  row("", "round trips", "wall (median)");
  row("one execution through REST", rt.perExecution!.toFixed(2), fmt(rt.execWall!));
  row("one interception of 8 calls through REST", rt.perInterception!.toFixed(2), fmt(rt.icWall!));
  row("target", "≤ 2 each");
  return { ...ic, ...rc, ...rt };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runExecutionsBench().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
