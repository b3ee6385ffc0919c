/**
 * Hourly execution rollups (docs/dashboard.md#charts) on a real libSQL database: after real
 * executions (success, error, timeout, rejected and expired approvals, several skills and keys),
 * deletes (explicit, retention, a deleted skill), changes of ended rows and crash recovery, the
 * rollup table equals a recomputation from `skill_executions`, and the charts read from it. The
 * rollups are written by the code that writes the rows (no trigger): rows are inserted here
 * through that code too.
 */
import { inArray, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refreshRollupsWhere } from "../../workers/src/db/repositories/execution-rollups.js";
import { executionHourlyRollups, skillExecutions } from "../../workers/src/db/schema.js";
import { sqlStatement } from "../../workers/src/db/write-batcher.js";
import {
  BUCKET_COLUMNS,
  bucketOf,
  DURATION_BUCKETS,
  EDGES,
  PERCENTILE_RELATIVE_ERROR,
} from "../../workers/src/skills/execution/duration-histogram.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { insertExecutionRows, type TestExecutionRow } from "../support/execution-rows.js";

const HOUR = 3_600_000;
const ENDED = ["success", "error", "timeout"] as const;

interface Rollup {
  count: number;
  errorCount: number;
  durationSumMs: number;
  minMs: number;
  maxMs: number;
  buckets: number[];
}

/** The rollups as stored, by `hour|key|skill|status`. */
async function stored(t: TestApp): Promise<Record<string, Rollup>> {
  const rows = await t.deps.db.select().from(executionHourlyRollups);
  const out: Record<string, Rollup> = {};
  for (const r of rows) {
    const cells = r as unknown as Record<string, number>;
    out[`${r.hourStart}|${r.apiKeyId}|${r.skillName}|${r.status}`] = {
      count: r.count,
      errorCount: r.errorCount,
      durationSumMs: r.durationSumMs,
      minMs: r.minMs,
      maxMs: r.maxMs,
      buckets: BUCKET_COLUMNS.map((c) => cells[c]!),
    };
  }
  return out;
}

/** The rollups recomputed from the ended rows, bucketed by the TypeScript bucket bounds. */
async function recomputed(t: TestApp): Promise<Record<string, Rollup>> {
  const rows = await t.deps.db
    .select()
    .from(skillExecutions)
    .where(inArray(skillExecutions.status, [...ENDED]));
  const out: Record<string, Rollup> = {};
  for (const r of rows) {
    const key = `${Math.floor(r.createdAt / HOUR) * HOUR}|${r.apiKeyId ?? ""}|${r.skillName}|${r.status}`;
    const d = r.durationMs ?? 0;
    out[key] ??= {
      count: 0,
      errorCount: 0,
      durationSumMs: 0,
      minMs: d,
      maxMs: d,
      buckets: Array(DURATION_BUCKETS).fill(0),
    };
    const cell = out[key];
    cell.count++;
    cell.errorCount += r.status === "success" ? 0 : 1;
    cell.durationSumMs += d;
    cell.minMs = Math.min(cell.minMs, d);
    cell.maxMs = Math.max(cell.maxMs, d);
    cell.buckets[bucketOf(d)]!++;
  }
  return out;
}

async function expectConsistent(t: TestApp): Promise<void> {
  const want = await recomputed(t);
  expect(Object.keys(want).length).toBeGreaterThan(0);
  expect(await stored(t)).toEqual(want);
}

/** Inserts rows (the given columns, the others empty) through the execution write path. */
const insertRows = (t: TestApp, rows: TestExecutionRow[]) => insertExecutionRows(t.deps.db, rows);

const install = (t: TestApp, name: string, handlerCode: string, extra = {}) =>
  t.api.post("/api/skills/install", {
    name,
    version: "1.0.0",
    description: name,
    schema: { input: { type: "object" } },
    handlerCode,
    ...extra,
  });

/** Installs a global skill and returns it from the registry. */
async function installed(t: TestApp, name: string) {
  const res = await install(t, name, "echo-handler");
  expect(res.status).toBe(201);
  return (await t.services.registry.snapshot()).getById(res.body.skill.id)!;
}

describe("hourly execution rollups", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp({ services: { retryBackoffMs: 5 } });
    const ex = t.services.executor;
    ex.registerHandler("rollup-sleep", async (_input, ctx) => {
      await new Promise((r) => setTimeout(r, 2_000));
      return ctx.signal.aborted ? "late" : "slept";
    });
    ex.registerHandler("rollup-throw", async () => {
      throw new Error("rollup handler failed");
    });
  });
  afterEach(() => t.close());

  it("equal the rows after real executions, approvals, deletes and recovery", async () => {
    const alice = await t.api.createKey("rollup-alice");
    const bob = await t.api.createKey("rollup-bob");
    const echo = await installed(t, "roll-echo");
    expect((await install(t, "roll-fail", "rollup-throw")).status).toBe(201);
    const slow = await install(t, "roll-slow", "rollup-sleep", { timeoutMs: 100 });
    expect(slow.status).toBe(201);
    const gated = await install(t, "roll-gated", "echo-handler", { policy: "hybrid" });
    expect(gated.status).toBe(201);

    const run = (client: typeof t.api, skillName: string, input: unknown = {}) =>
      client.post("/api/skills/executions", { skillName, input });
    for (const client of [t.api, t.api.as(alice.key), t.api.as(bob.key)]) {
      for (let i = 0; i < 3; i++) expect((await run(client, "roll-echo", { i })).status).toBe(200);
      expect((await run(client, "roll-fail")).body.execution.status).toBe("error");
    }
    expect((await run(t.api.as(alice.key), "roll-slow")).body.execution.status).toBe("timeout");

    // Approvals: one approved (runs), one rejected, one expired; all end.
    const snapshot = await t.services.registry.snapshot();
    const gatedSkill = snapshot.getById(gated.body.skill.id)!;
    const ctx = { apiKeyId: alice.id, sessionId: "s" };
    const ask = () => t.services.executor.requestApproval(gatedSkill, { v: 1 }, ctx);
    const [approve, reject, expire] = [await ask(), await ask(), await ask()];
    expect(
      (await t.api.post(`/api/skills/executions/${approve.id}/approve`)).body.execution.status,
    ).toBe("success");
    const rejected = await t.api.post(`/api/skills/executions/${reject.id}/reject`, {
      reason: "no",
    });
    expect(rejected.body.execution).toMatchObject({ status: "error", approval: "rejected" });
    await t.services.executor.store.expireApprovals(-60_000);
    expect((await t.services.executor.store.get(expire.id))?.approval).toBe("expired");
    await expectConsistent(t);

    // Durations on each side of every bucket bound, one hour back, all owned by bob.
    const earlier = Math.floor(Date.now() / HOUR) * HOUR - HOUR + 10;
    const durations = [null, 0, ...EDGES.flatMap((e) => [e - 1, e, e + 1]), 400_000];
    await insertRows(
      t,
      durations.map((ms, i) => ({
        id: `edge-${i}`,
        skillId: echo.id,
        skillName: echo.name,
        version: echo.version,
        apiKeyId: bob.id,
        status: ENDED[i % 3]!,
        input: "{}",
        durationMs: ms,
        attempts: 1,
        createdAt: earlier + i,
        updatedAt: earlier + i,
      })),
    );
    await expectConsistent(t);

    // Ending an ended row again moves its contribution (another status and duration); edge-95
    // held the greatest duration of its rollup.
    for (const id of ["edge-3", "edge-4", "edge-40", "edge-95"]) {
      await t.services.executor.store.finish(id, {
        status: "success",
        durationMs: 77,
        attempts: 2,
      });
    }
    await expectConsistent(t);

    // Explicit delete of one key's executions, then of one skill's.
    const delKey = await t.api.request("DELETE", `/api/skills/executions?apiKeyId=${bob.id}`);
    expect(delKey.status).toBe(200);
    expect(delKey.body.deleted).toBeGreaterThan(durations.length / 2);
    await expectConsistent(t);
    const delSkill = await t.api.request("DELETE", "/api/skills/executions?skill=roll-fail");
    expect(delSkill.body.deleted).toBe(2);
    await expectConsistent(t);

    // Deleting a skill deletes its executions (cascade) and their rollups.
    const dropped = await t.api.request("DELETE", `/api/skills/${slow.body.skill.id}`);
    expect(dropped.status).toBeLessThan(300);
    expect(
      (await t.deps.db.select().from(skillExecutions)).some((r) => r.skillName === "roll-slow"),
    ).toBe(false);
    await expectConsistent(t);

    // The charts read the rollups: a key sees its own executions only.
    const mine = await t.services.operator.charts(
      { kind: "key", apiKeyId: alice.id, name: "rollup-alice", scopes: ["read"] },
      Date.now(),
    );
    const finished = Object.fromEntries(mine.perSkill.map((s) => [s.skillName, s.finished]));
    expect(finished).toEqual({ "roll-echo": 3, "roll-gated": 3, "roll-fail": undefined });
  });

  it("follow retention and leave pruned hours out", async () => {
    const skill = await installed(t, "roll-old");
    const now = Date.now();
    const ages = [72, 50, 30, 26.5, 2, 0].map((h) => now - h * HOUR);
    await insertRows(
      t,
      ages.flatMap((at, i) =>
        [5, 50, 500].map((ms, j) => ({
          id: `old-${i}-${j}`,
          skillId: skill.id,
          skillName: skill.name,
          version: skill.version,
          apiKeyId: null,
          status: j === 2 ? ("timeout" as const) : ("success" as const),
          input: "{}",
          durationMs: ms,
          attempts: 1,
          createdAt: at,
          updatedAt: at,
        })),
      ),
    );
    // One hour straddles the cut-off (30 min into it): its shortest run goes, two stay.
    const cutoff = Math.floor((now - 24 * HOUR) / HOUR) * HOUR + 30 * 60_000;
    await insertRows(
      t,
      [
        [cutoff - 60_000, 1],
        [cutoff + 60_000, 900],
        [cutoff + 120_000, 20],
      ].map(([at, ms], i) => ({
        id: `straddle-${i}`,
        skillId: skill.id,
        skillName: skill.name,
        version: skill.version,
        apiKeyId: null,
        status: "success" as const,
        input: "{}",
        durationMs: ms!,
        attempts: 1,
        createdAt: at!,
        updatedAt: at!,
      })),
    );
    await expectConsistent(t);
    // Retention of one day deletes the rows created more than 24 h ago.
    const outcome = await t.services.executions.applyRetention(1, cutoff + 24 * HOUR);
    expect(outcome.deleted).toBe(13);
    await expectConsistent(t);
    // Two recent hours × success / timeout, and the straddling hour (20 .. 900 ms).
    expect(Object.keys(await stored(t))).toHaveLength(5);
    const straddling = (await stored(t))[`${cutoff - 30 * 60_000}||roll-old|success`];
    expect(straddling).toMatchObject({ count: 2, minMs: 20, maxMs: 900 });

    // Pruning deletes rollup hours older than 48 h only (here: none are left older than that).
    await t.deps.db.insert(executionHourlyRollups).values({
      hourStart: Math.floor((now - 49 * HOUR) / HOUR) * HOUR,
      apiKeyId: "",
      skillName: "roll-old",
      status: "success",
      count: 1,
      minMs: 1,
      maxMs: 1,
      b01: 1,
    });
    expect(await t.services.executions.pruneRollups(now)).toBe(1);
    await expectConsistent(t);
  });

  it("count executions a restart ended as interrupted", async () => {
    const skill = await installed(t, "roll-crash");
    const store = t.services.executor.store;
    const ctx = { apiKeyId: null, sessionId: null };
    await store.create(skill, {}, ctx, { timeoutMs: 1000, running: true });
    await store.create(skill, {}, ctx, { timeoutMs: 1000 });
    const ok = await store.create(skill, {}, ctx, { timeoutMs: 1000, running: true });
    await store.finish(ok.id, { status: "success", durationMs: 3, attempts: 1 });
    const before = await t.services.operator.charts({ kind: "management" }, Date.now());
    expect(before.hourly[23]!.counts).toMatchObject({ running: 1, pending: 1, success: 1 });

    expect(await t.services.executions.recoverInterrupted()).toBe(2);
    await expectConsistent(t);
    const after = await t.services.operator.charts({ kind: "management" }, Date.now());
    expect(after.hourly[23]!.counts).toMatchObject({
      running: 0,
      pending: 0,
      success: 1,
      error: 2,
    });
    expect(after.perSkill).toEqual([
      expect.objectContaining({ skillName: "roll-crash", finished: 3, errorRate: 2 / 3 }),
    ]);
  });

  it("are filled for existing rows by the migration's backfill", async () => {
    // The backfill statement of the migration, run again over rows inserted by plain SQL (which
    // writes no rollup).
    const skill = await installed(t, "roll-backfill");
    const now = Date.now();
    await t.deps.db.insert(skillExecutions).values(
      [1, 3, 60, 900, 130_000].map((ms, i) => ({
        id: `bf-${i}`,
        skillId: skill.id,
        skillName: skill.name,
        version: skill.version,
        apiKeyId: null,
        status: i === 3 ? ("error" as const) : ("success" as const),
        input: "{}",
        durationMs: ms,
        attempts: 1,
        createdAt: now - i * 7 * HOUR,
        updatedAt: now,
      })),
    );
    expect(await stored(t)).toEqual({});
    const { readFileSync, readdirSync } = await import("node:fs");
    const { MIGRATIONS_FOLDER } = await import("../../workers/src/runtime/node/migrate.js");
    const file = readdirSync(MIGRATIONS_FOLDER).find((f) =>
      f.endsWith("execution_hourly_rollups.sql"),
    )!;
    const backfill = readFileSync(`${MIGRATIONS_FOLDER}/${file}`, "utf8")
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .find((s) => s.includes("INSERT INTO execution_hourly_rollups") && s.includes("GROUP BY"))!;
    await t.client.execute(backfill.replace(/^--.*\n/gm, ""));
    // Rows of the last 48 hours only (the 5th is 28 h old: kept; none is older).
    await expectConsistent(t);
    const charts = await t.services.operator.charts({ kind: "management" }, now);
    const stat = charts.perSkill.find((s) => s.skillName === "roll-backfill")!;
    expect(stat.finished).toBe(4); // 28 h ago is outside the 24 h window
    expect(stat.errorRate).toBe(0.25);
    expect(Math.abs(stat.medianMs - 3)).toBeLessThanOrEqual(PERCENTILE_RELATIVE_ERROR * 3 + 0.5);
  });
  it("are kept by the code, not by triggers", async () => {
    const triggers = await t.client.execute(
      "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'skill_executions'",
    );
    expect(triggers.rows).toEqual([]);
  });

  it("read the least and greatest duration of a rollup through its index, not a scan", async () => {
    // The refresh after a delete reads min and max of each touched rollup with one seek each of
    // the rollup group index: a scan of the hour made a delete of a busy hour's rows quadratic.
    const [, refresh] = refreshRollupsWhere(sql`skill_name = ${"x"}`);
    const stmt = sqlStatement(refresh);
    const plan = await t.client.execute({ sql: `EXPLAIN QUERY PLAN ${stmt.sql}`, args: stmt.args });
    const details = plan.rows.map((r) => String(r.detail));
    const reads = details.filter(
      (d) => /skill_executions|\bE\b|AS e\b/i.test(d) && !/ROLLUPS/i.test(d),
    );
    expect(reads.length).toBeGreaterThanOrEqual(2);
    // All four parts of the rollup's key, so that min and max are the first and last entry.
    for (const d of reads) {
      expect(d).toMatch(
        /skill_executions_rollup_group_idx \(skill_name=\? AND status=\? AND <expr>=\? AND <expr>=\?\)/,
      );
    }
    expect(details.join("; ")).not.toMatch(/SCAN e\b|SCAN skill_executions/);
  });
});
