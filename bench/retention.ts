/**
 * Retention benchmark (docs/execution.md#retention): deletes 100,000 finished executions from the
 * embedded libSQL database in batches while explicit executions keep running over real HTTP, and
 * prints the delete's duration beside execution latency with and without the delete going on.
 * Run: `npx tsx bench/retention.ts` (or `npm run bench -- retention`).
 */
import { skillExecutions } from "../workers/src/db/schema.js";
import { DEFAULT_DELETE_BATCH } from "../workers/src/retention/execution-retention.js";
import { BENCH_TOKEN, startBenchApi } from "./api.js";
import { fmt, median, percentile, row } from "./stats.js";

const DAY = 86_400_000;

/** Runs the retention benchmark. @returns the delete's duration and latency figures (ms). */
export async function runRetentionBench(count = 100_000): Promise<Record<string, number>> {
  const api = await startBenchApi();
  const skill = await api.post("/api/skills/install", {
    name: "echo",
    version: "1.0.0",
    schema: { input: { type: "object", properties: { v: { type: "string" } } } },
    handlerCode: "echo-handler",
  });
  const skillId: string = skill.skill.id;
  const old = Date.now() - 60 * DAY;
  const statuses = ["success", "error", "timeout"] as const;
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `old-${i}`,
    skillId,
    skillName: "echo",
    version: "1.0.0",
    status: statuses[i % 3]!,
    input: '{"v":"bench input of a typical size, a few dozen bytes"}',
    output: '{"v":"bench input of a typical size, a few dozen bytes"}',
    attempts: 1,
    durationMs: 3,
    createdAt: old + i,
    updatedAt: old + i,
    finishedAt: old + i,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await api.db.insert(skillExecutions).values(rows.slice(i, i + 500));

  const execute = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${api.url}/api/skills/executions`, {
      method: "POST",
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ skillName: "echo", input: { v: "x" } }),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`execution failed: ${res.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 100; i++) await execute();
  const idle: number[] = [];
  for (let i = 0; i < 300; i++) idle.push(await execute());

  const during: number[] = [];
  let done = false;
  const t0 = performance.now();
  const deletion = api.services.executions
    .deleteFinished(
      { before: Date.now() - 30 * DAY },
      { pause: () => new Promise((r) => setImmediate(r)) },
    )
    .finally(() => {
      done = true;
    });
  const load = (async () => {
    while (!done) during.push(await execute());
  })();
  const { deleted } = await deletion;
  const deleteMs = performance.now() - t0;
  await load;

  console.log(
    `\nRetention: delete ${count.toLocaleString("en")} finished executions (batches of ${DEFAULT_DELETE_BATCH}) on the embedded database while executions run`,
  );
  row("", "median", "p99", "max");
  row(
    `execution, no delete (${idle.length})`,
    fmt(median(idle)),
    fmt(percentile(idle, 99)),
    fmt(Math.max(...idle)),
  );
  row(
    `execution, during the delete (${during.length})`,
    fmt(median(during)),
    fmt(percentile(during, 99)),
    fmt(Math.max(...during)),
  );
  row(
    `delete of ${deleted.toLocaleString("en")} rows`,
    fmt(deleteMs),
    `${Math.round(deleted / (deleteMs / 1000)).toLocaleString("en")} rows/s`,
  );
  api.close();
  return {
    deleteMs,
    deleted,
    idleMedian: median(idle),
    duringMedian: median(during),
    duringP99: percentile(during, 99),
  };
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  runRetentionBench().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
