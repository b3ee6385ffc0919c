/**
 * Chart aggregates (docs/dashboard.md#charts) on a real libSQL database: hourly buckets by status,
 * nearest-rank median / p95 durations, error rates, and the key scope.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCOPES } from "../../workers/src/auth/scopes.js";
import { skills } from "../../workers/src/db/schema.js";
import { PERCENTILE_RELATIVE_ERROR } from "../../workers/src/skills/execution/duration-histogram.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { insertExecutionRows } from "../support/execution-rows.js";

const HOUR = 3_600_000;
/** Matches a percentile estimate within the documented bound of the exact value `ms`. */
const near = (ms: number) => ({
  asymmetricMatch: (v: unknown) =>
    typeof v === "number" && Math.abs(v - ms) <= PERCENTILE_RELATIVE_ERROR * ms + 0.5,
  toString: () => `within ${PERCENTILE_RELATIVE_ERROR} of ${ms}`,
});
let t: TestApp;

beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

describe("execution chart aggregates", () => {
  it("buckets by hour and status, and computes percentiles and error rates per skill", async () => {
    const key = await t.api.createKey("stats");
    const now = Math.floor(Date.now() / HOUR) * HOUR + 30 * 60_000;
    await t.deps.db.insert(skills).values(
      ["alpha", "beta"].map((name) => ({
        id: `sk-${name}`,
        name,
        version: "1.0.0",
        description: "",
        schema: "{}",
        handlerCode: "echo-handler",
        tags: "[]",
        createdAt: now,
        updatedAt: now,
      })),
    );
    const rows = [];
    // alpha: durations 1..20 ms this hour, the last two errors; owned by the key.
    for (let d = 1; d <= 20; d++) {
      rows.push({
        name: "alpha",
        ms: d,
        status: d > 18 ? "error" : "success",
        at: now,
        key: key.id,
      });
    }
    // beta: 3 runs two hours ago (management), one timeout; one pending now; one run 30 h ago.
    rows.push({ name: "beta", ms: 100, status: "success", at: now - 2 * HOUR, key: null });
    rows.push({ name: "beta", ms: 300, status: "timeout", at: now - 2 * HOUR, key: null });
    rows.push({ name: "beta", ms: 200, status: "success", at: now - 2 * HOUR, key: null });
    rows.push({ name: "beta", ms: null, status: "pending", at: now, key: null });
    rows.push({ name: "beta", ms: 999, status: "success", at: now - 30 * HOUR, key: null });
    await insertExecutionRows(
      t.deps.db,
      rows.map((r, i) => ({
        id: `ex-${i}`,
        skillId: `sk-${r.name}`,
        skillName: r.name,
        version: "1.0.0",
        apiKeyId: r.key,
        status: r.status as "success",
        input: "{}",
        durationMs: r.ms,
        attempts: 1,
        createdAt: r.at,
        updatedAt: r.at,
      })),
    );

    const all = await t.services.operator.charts({ kind: "management" }, now);
    expect(all.hourly).toHaveLength(24);
    expect(all.hourly[23]!.counts).toMatchObject({ success: 18, error: 2, pending: 1 });
    expect(all.hourly[21]!.counts).toMatchObject({ success: 2, timeout: 1 });
    expect(all.hourly.reduce((n, b) => n + b.counts.success, 0)).toBe(20); // 30 h ago excluded
    // Percentiles come from log-scale buckets: within the documented bound of the exact
    // nearest-rank values (alpha: 10 and 19 ms; beta: 200 and 300 ms, the greatest exact).
    expect(all.perSkill).toEqual([
      { skillName: "alpha", finished: 20, medianMs: near(10), p95Ms: near(19), errorRate: 0.1 },
      { skillName: "beta", finished: 3, medianMs: near(200), p95Ms: 300, errorRate: 1 / 3 },
    ]);

    const mine = await t.services.operator.charts(
      { kind: "key", apiKeyId: key.id, name: "stats", scopes: SCOPES },
      now,
    );
    expect(mine.perSkill.map((s) => s.skillName)).toEqual(["alpha"]);
    expect(mine.hourly[21]!.counts.success).toBe(0);
  });

  it("serves cached aggregates until an execution is added or changes", async () => {
    const now = Math.floor(Date.now() / HOUR) * HOUR + 30 * 60_000;
    await t.deps.db.insert(skills).values({
      id: "sk-gamma",
      name: "gamma",
      version: "1.0.0",
      description: "",
      schema: "{}",
      handlerCode: "echo-handler",
      tags: "[]",
      createdAt: now,
      updatedAt: now,
    });
    const row = (id: string, updatedAt: number) => ({
      id,
      skillId: "sk-gamma",
      skillName: "gamma",
      version: "1.0.0",
      apiKeyId: null,
      status: "success" as const,
      input: "{}",
      durationMs: 7,
      attempts: 1,
      createdAt: now,
      updatedAt,
    });
    await insertExecutionRows(t.deps.db, [row("g-1", Date.now() - 10_000)]);
    const mgmt = { kind: "management" } as const;
    const first = await t.services.operator.charts(mgmt, now);
    expect(first.perSkill).toEqual([
      { skillName: "gamma", finished: 1, medianMs: 7, p95Ms: 7, errorRate: 0 },
    ]);

    // A new execution moves the change stamp: the next read recomputes.
    await insertExecutionRows(t.deps.db, [row("g-2", Date.now() - 5_000)]);
    const second = await t.services.operator.charts(mgmt, now);
    expect(second.perSkill[0]!.finished).toBe(2);
    expect(second.hourly[23]!.counts.success).toBe(2);

    // A status change (the execution ended again) moves it too.
    await t.services.executor.store.finish("g-2", { status: "error", durationMs: 7, attempts: 1 });
    const third = await t.services.operator.charts(mgmt, now);
    expect(third.perSkill[0]!.errorRate).toBe(0.5);
    expect(third.hourly[23]!.counts).toMatchObject({ success: 1, error: 1 });
  });
});
