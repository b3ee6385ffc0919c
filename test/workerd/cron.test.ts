/**
 * The Worker's cron trigger (`scheduled` in workers/src/runtime/worker/index.ts, its work in
 * workers/src/runtime/worker/worker-app.ts): executions left `running` past their timeout plus a minute are
 * finished as `error` ("interrupted"); fresh ones and approvals still within their TTL are left
 * alone. Rows are written straight into the database over HTTP, as a crashed isolate would have
 * left them.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CRON_STALE_GRACE_MS } from "../../workers/src/runtime/worker/worker-app.js";
import { captureConsole } from "../support/console-capture.js";
import { call, directDb, installBody } from "./support.js";

describe("scheduled handler", () => {
  it("finishes a stale running execution as interrupted and leaves fresh rows alone", async () => {
    const installed = await call("POST", "/api/skills/install", {
      body: installBody("cron-echo", { timeoutMs: 1_000 }),
    });
    expect(installed.status).toBe(201);
    const skillId: string = installed.body.skill.id;
    const db = directDb();
    const now = Date.now();
    const insert = (
      id: string,
      status: string,
      approval: string,
      updatedAt: number,
      timeoutMs: number | null,
    ) =>
      db.execute({
        sql: `insert into skill_executions
                (id, skill_id, skill_name, version, status, approval, input, attempts, timeout_ms, created_at, updated_at, started_at)
              values (?, ?, 'cron-echo', '1.0.0', ?, ?, '{"text":"x"}', 1, ?, ?, ?, ?)`,
        args: [id, skillId, status, approval, timeoutMs, updatedAt, updatedAt, updatedAt],
      });
    const stale = crypto.randomUUID();
    const staleDefaultTimeout = crypto.randomUUID();
    const fresh = crypto.randomUUID();
    const awaitingApproval = crypto.randomUUID();
    await insert(stale, "running", "none", now - 1_000 - CRON_STALE_GRACE_MS - 5_000, 1_000);
    await insert(staleDefaultTimeout, "pending", "none", now - 10 * 60_000, null);
    await insert(fresh, "running", "none", now - 1_000, 1_000);
    await insert(awaitingApproval, "pending", "required", now - 10 * 60_000, null);

    const output = captureConsole();
    try {
      await exports.default.scheduled({ cron: "* * * * *", scheduledTime: now });
    } finally {
      output.restore();
    }
    expect(output.lines.some((l) => /cron: [1-9]\d* interrupted/.test(l))).toBe(true);

    const byId = async (id: string) =>
      (await call("GET", `/api/skills/executions/${id}`)).body.execution;
    const finished = await byId(stale);
    expect(finished.status).toBe("error");
    expect(finished.errorMessage).toMatch(/^interrupted/);
    expect(finished.durationMs).toBeGreaterThanOrEqual(CRON_STALE_GRACE_MS);
    expect((await byId(staleDefaultTimeout)).status).toBe("error");
    expect((await byId(fresh)).status).toBe("running");
    expect((await byId(awaitingApproval)).status).toBe("pending");

    const rows = await db.execute({
      sql: "select error_code, finished_at from skill_executions where id = ?",
      args: [stale],
    });
    expect(rows.rows[0]!.error_code).toBe("interrupted");
    expect(Number(rows.rows[0]!.finished_at)).toBeGreaterThanOrEqual(now);
  });

  it("deletes finished executions older than EXECUTION_RETENTION_DAYS, never running ones", async () => {
    const installed = await call("POST", "/api/skills/install", {
      body: installBody("cron-retention", { timeoutMs: 1_000 }),
    });
    expect(installed.status).toBe(201);
    const skillId: string = installed.body.skill.id;
    const db = directDb();
    const now = Date.now();
    const insert = (id: string, status: string, createdAt: number) =>
      db.execute({
        sql: `insert into skill_executions
                (id, skill_id, skill_name, version, status, approval, input, attempts, timeout_ms, created_at, updated_at)
              values (?, ?, 'cron-retention', '1.0.0', ?, 'none', '{}', 1, 1000, ?, ?)`,
        args: [id, skillId, status, createdAt, now],
      });
    const old = crypto.randomUUID();
    const young = crypto.randomUUID();
    const oldPending = crypto.randomUUID();
    await insert(old, "success", now - 31 * 86_400_000);
    await insert(young, "success", now - 29 * 86_400_000);
    await insert(oldPending, "pending", now - 31 * 86_400_000);

    await exports.default.scheduled({ cron: "* * * * *", scheduledTime: now });

    const left = await db.execute({
      sql: "select id from skill_executions where skill_id = ?",
      args: [skillId],
    });
    expect(left.rows.map((r) => String(r.id)).sort()).toEqual([young, oldPending].sort());
  });
});
