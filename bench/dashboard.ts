/**
 * `npm run bench -- dashboard`: dashboard pages over real HTTP with 1,000 skills and 100,000
 * executions (spread over 7 days, 10 API keys) in an embedded libSQL file. Prints p50 / p95 per
 * page for management and for one key against the 50 ms p50 target, the chart pages warm (cached)
 * and on a cache miss (after a new execution), and the query plans of the list and chart queries
 * (each must search an index, never scan the table).
 */
import { eq, sql } from "drizzle-orm";
import { addRowsWhere } from "../workers/src/db/repositories/execution-rollups.js";
import { ExecutionWrites } from "../workers/src/db/repositories/execution-writes.js";
import { apiKeys, skillExecutions, skills } from "../workers/src/db/schema.js";
import { BENCH_TOKEN, startBenchApi } from "./api.js";
import { fmt, median, percentile, row, timeEach } from "./stats.js";

const SKILLS = 1_000;
const EXECUTIONS = 100_000;
const KEYS = 10;
const TARGET_P50_MS = 50;
const STATUSES = ["success", "success", "success", "success", "error", "timeout"] as const;

/** Runs the dashboard benchmark. @returns p50 ms per page. */
export async function runDashboardBench(): Promise<Record<string, number>> {
  const api = await startBenchApi();
  const { db, services } = api;
  const now = Date.now();
  const keyRows = Array.from({ length: KEYS }, (_, i) => ({
    id: `key-${i}`,
    name: `bench-key-${i}`,
    keyHash: `hash-${i}`,
    prefix: `sg_bench${i}`,
    createdAt: now,
  }));
  await db.insert(apiKeys).values(keyRows);
  const skillRows = Array.from({ length: SKILLS }, (_, i) => ({
    id: `skill-${i}`,
    name: `skill-${String(i).padStart(4, "0")}`,
    version: "1.0.0",
    description: `Benchmark skill ${i}`,
    schema: JSON.stringify({ input: { type: "object" } }),
    handlerCode: "echo-handler",
    tags: JSON.stringify(["bench"]),
    createdAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < skillRows.length; i += 200) {
    await db.insert(skills).values(skillRows.slice(i, i + 200));
  }
  const week = 7 * 24 * 3_600_000;
  for (let i = 0; i < EXECUTIONS; i += 500) {
    const batch = Array.from({ length: Math.min(500, EXECUTIONS - i) }, (_, j) => {
      const n = i + j;
      const created = now - Math.floor((n * 7919) % week);
      return {
        id: `exec-${n}`,
        skillId: `skill-${n % 50}`,
        skillName: `skill-${String(n % 50).padStart(4, "0")}`,
        version: "1.0.0",
        apiKeyId: n % 11 === 0 ? null : `key-${n % KEYS}`,
        sessionId: `s-${n % 300}`,
        status: STATUSES[n % STATUSES.length]!,
        input: JSON.stringify({ n }),
        output: JSON.stringify({ n }),
        durationMs: 5 + ((n * 31) % 400),
        attempts: 1,
        createdAt: created,
        updatedAt: created,
      };
    });
    await db.insert(skillExecutions).values(batch);
  }
  await services.registry.invalidateCache();

  const signIn = async (token: string) => {
    const res = await fetch(`${api.url}/dashboard/login`, {
      method: "POST",
      headers: { origin: api.url, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
      redirect: "manual",
    });
    const cookie = res.headers.get("set-cookie")?.split(";")[0];
    if (res.status !== 303 || !cookie) throw new Error(`sign-in failed: ${res.status}`);
    return cookie;
  };
  const mgmt = await signIn(BENCH_TOKEN);
  const created = await services.keys.create("bench-reader", null);
  await db
    .update(skillExecutions)
    .set({ apiKeyId: created.apiKey.id })
    .where(eq(skillExecutions.apiKeyId, "key-3"));
  // The rows were written by plain inserts, which write no rollup: add them all at once.
  await db.run(
    addRowsWhere(
      sql`${skillExecutions.status} IN ('success', 'error', 'timeout')`,
      sql`${skillExecutions.status}`,
      sql`${skillExecutions.durationMs}`,
    ),
  );
  const keyCookie = await signIn(created.key);

  const pages: [string, string, string][] = [
    ["overview (charts)", "/dashboard", mgmt],
    ["skills", "/dashboard/skills", mgmt],
    ["skills search", "/dashboard/skills?q=skill-09&mode=on", mgmt],
    ["skill detail", "/dashboard/skills/skill-7", mgmt],
    ["executions", "/dashboard/executions", mgmt],
    ["executions page 40", "/dashboard/executions?page=40", mgmt],
    ["executions status=error", "/dashboard/executions?status=error", mgmt],
    ["executions by skill", "/dashboard/executions?skill=skill-0003", mgmt],
    ["execution detail", "/dashboard/executions/exec-12345", mgmt],
    ["settings", "/dashboard/settings", mgmt],
    ["key: overview", "/dashboard", keyCookie],
    ["key: executions", "/dashboard/executions", keyCookie],
  ];
  const get = async (path: string, cookie: string) => {
    const res = await fetch(api.url + path, { headers: { cookie } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  };
  for (const [, path, cookie] of pages) for (let i = 0; i < 5; i++) await get(path, cookie);

  console.log(
    `\nDashboard pages (${SKILLS} skills, ${EXECUTIONS} executions; target p50 ≤ ${TARGET_P50_MS} ms)`,
  );
  row("page", "p50", "p95", "verdict");
  const out: Record<string, number> = {};
  for (const [label, path, cookie] of pages) {
    const samples = await timeEach(30, () => get(path, cookie));
    const p50 = median(samples);
    out[label] = p50;
    row(label, fmt(p50), fmt(percentile(samples, 95)), p50 <= TARGET_P50_MS ? "ok" : "SLOW");
  }

  // The charts are cached per change stamp: every new execution misses the cache, so in a busy
  // gateway the miss is the common case. Each sample below adds an ended execution (with its
  // rollup, through the execution writes) before the page (not timed), so the page recomputes the
  // charts.
  let added = 0;
  const writes = new ExecutionWrites(db);
  const addExecution = async (apiKeyId: string | null) => {
    const at = Date.now();
    const n = added++;
    await writes.insert({
      requestId: null,
      id: `miss-${n}`,
      skillId: `skill-${n % 50}`,
      skillName: `skill-${String(n % 50).padStart(4, "0")}`,
      version: "1.0.0",
      apiKeyId,
      sessionId: "s-miss",
      status: STATUSES[n % STATUSES.length]!,
      approval: "none",
      input: "{}",
      output: null,
      inputTruncated: false,
      outputTruncated: false,
      errorMessage: null,
      errorCode: null,
      durationMs: 5 + ((n * 31) % 400),
      attempts: 1,
      attemptLog: null,
      notificationLog: null,
      timeoutMs: null,
      codeSha256: null,
      sandboxHost: null,
      sandboxQueueMs: null,
      sandboxProgramMs: null,
      createdAt: at,
      updatedAt: at,
      startedAt: null,
      finishedAt: at,
    });
  };
  console.log("\nChart pages, warm (cached) and on a cache miss (right after a new execution)");
  row("page", "p50", "p95", "verdict");
  const chartPages: [string, string, string | null][] = [
    ["overview (charts)", mgmt, null],
    ["key: overview", keyCookie, created.apiKey.id],
  ];
  for (const [label, cookie, owner] of chartPages) {
    const warm = await timeEach(30, () => get("/dashboard", cookie));
    row(`${label}, warm`, fmt(median(warm)), fmt(percentile(warm, 95)), "(info)");
    const miss: number[] = [];
    for (let i = 0; i < 30; i++) {
      await addExecution(owner);
      const t0 = performance.now();
      await get("/dashboard", cookie);
      miss.push(performance.now() - t0);
    }
    const p50 = median(miss);
    out[`${label}, cache miss`] = p50;
    row(
      `${label}, cache miss`,
      fmt(p50),
      fmt(percentile(miss, 95)),
      p50 <= TARGET_P50_MS ? "ok" : "SLOW",
    );
  }

  console.log("\nQuery plans (each list / chart query must search an index):");
  const plans: [string, string][] = [
    ["list, all", "SELECT * FROM skill_executions ORDER BY created_at DESC, id DESC LIMIT 25"],
    [
      "list, one key",
      "SELECT * FROM skill_executions WHERE api_key_id = 'key-1' ORDER BY created_at DESC, id DESC LIMIT 25",
    ],
    [
      "list, status",
      "SELECT * FROM skill_executions WHERE status = 'error' ORDER BY created_at DESC, id DESC LIMIT 25",
    ],
    [
      "hourly rollups",
      `SELECT hour_start, status, sum(count) FROM execution_hourly_rollups WHERE hour_start >= ${now - 86_400_000} GROUP BY hour_start, status`,
    ],
    [
      "key's rollups",
      `SELECT skill_name, sum(count) AS n FROM execution_hourly_rollups WHERE hour_start >= ${now - 86_400_000} AND api_key_id = 'key-1' GROUP BY skill_name ORDER BY n DESC LIMIT 20`,
    ],
    [
      "skill histograms",
      `SELECT skill_name, sum(b00) FROM execution_hourly_rollups WHERE hour_start >= ${now - 86_400_000} AND skill_name IN ('skill-0001', 'skill-0002') GROUP BY skill_name`,
    ],
    [
      "live per hour",
      `SELECT created_at / 3600000 AS h, status, count(*) FROM skill_executions WHERE status IN ('pending', 'running') AND created_at >= ${now - 86_400_000} GROUP BY h, status`,
    ],
    [
      "key's pending",
      "SELECT * FROM skill_executions WHERE api_key_id = 'key-1' AND status = 'pending' AND approval = 'required' ORDER BY created_at DESC, id DESC LIMIT 5",
    ],
    ["change stamp", "SELECT max(updated_at) FROM skill_executions"],
  ];
  for (const [label, q] of plans) {
    const rows = await db.all<{ detail: string }>(sql.raw(`EXPLAIN QUERY PLAN ${q}`));
    const detail = rows.map((r) => String(r.detail)).join("; ");
    console.log(`  ${label.padEnd(16)} ${detail}`);
  }
  api.close();
  return out;
}
