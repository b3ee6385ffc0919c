import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startRetentionTimer } from "../../workers/src/retention/retention-timer.js";
import { startTestApp, type TestApp } from "../support/app.js";

const DAY = 86_400_000;

describe("execution retention", () => {
  let t: TestApp;
  let skillId: string;
  let keyId: string;
  let key: string;
  beforeEach(async () => {
    t = await startTestApp();
    const created = await t.api.createKey("retention");
    keyId = created.id;
    key = created.key;
    const installed = await t.api.post("/api/skills/install", {
      name: "echo",
      version: "1.0.0",
      description: "echo",
      schema: { input: { type: "object", properties: { v: { type: "string" } } } },
      handlerCode: "echo-handler",
    });
    skillId = installed.body.skill.id;
  });
  afterEach(() => t.close());

  /** The statement inserting one execution row as a finished or live execution leaves it. */
  function row(
    id: string,
    status: string,
    createdAt: number,
    opts: { apiKeyId?: string | null; skillName?: string; version?: string } = {},
  ) {
    return {
      sql: `insert into skill_executions
              (id, skill_id, skill_name, version, api_key_id, status, approval, input, attempts, created_at, updated_at)
            values (?, ?, ?, ?, ?, ?, 'none', '{}', 1, ?, ?)`,
      args: [
        id,
        skillId,
        opts.skillName ?? "echo",
        opts.version ?? "1.0.0",
        opts.apiKeyId ?? null,
        status,
        createdAt,
        createdAt,
      ],
    };
  }

  async function insert(...args: Parameters<typeof row>) {
    await t.client.execute(row(...args));
  }

  async function ids(): Promise<Set<string>> {
    const rows = await t.client.execute("select id from skill_executions");
    return new Set(rows.rows.map((r) => String(r.id)));
  }

  it("deletes exactly the finished rows older than the cut-off, concurrently with new executions", async () => {
    const now = Date.now();
    const expectedGone = new Set<string>();
    const expectedKept = new Set<string>();
    const statuses = ["success", "error", "timeout", "pending", "running"];
    const statements = [];
    for (let i = 0; i < 700; i++) {
      const status = statuses[i % statuses.length]!;
      const old = i % 2 === 0;
      const id = `row-${i}`;
      statements.push(row(id, status, old ? now - 31 * DAY - i : now - 29 * DAY + i));
      if (old && status !== "pending" && status !== "running") expectedGone.add(id);
      else expectedKept.add(id);
    }
    await t.client.batch(statements, "write");
    const client = t.api.as(key);
    const runs = Array.from({ length: 12 }, (_, i) =>
      client.post("/api/skills/executions", { skillName: "echo", input: { v: `n${i}` } }),
    );
    const [outcome, ...answers] = await Promise.all([
      t.services.executions.applyRetention(30, now, {
        batchSize: 50,
        pause: () => new Promise((r) => setImmediate(r)),
      }),
      ...runs,
    ]);
    expect(outcome).toEqual({ deleted: expectedGone.size, more: false });
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.execution.status).toBe("success");
    }
    const left = await ids();
    for (const id of expectedGone) expect(left.has(id), id).toBe(false);
    for (const id of expectedKept) expect(left.has(id), id).toBe(true);
    for (const a of answers) expect(left.has(a.body.execution.id)).toBe(true);
    expect(left.size).toBe(expectedKept.size + answers.length);
  });

  it("retention 0 keeps everything; maxBatches leaves the rest for the next pass", async () => {
    const now = Date.now();
    for (let i = 0; i < 25; i++) await insert(`old-${i}`, "success", now - 400 * DAY - i);
    expect(await t.services.executions.applyRetention(0, now)).toEqual({ deleted: 0, more: false });
    expect((await ids()).size).toBe(25);
    const first = await t.services.executions.deleteFinished(
      { before: now - DAY },
      { batchSize: 10, maxBatches: 2 },
    );
    expect(first).toEqual({ deleted: 20, more: true });
    // Oldest first: the five youngest remain.
    expect([...(await ids())].sort()).toEqual(["old-0", "old-1", "old-2", "old-3", "old-4"]);
  });

  it("the Node timer runs a pass on demand with the configured retention", async () => {
    const now = Date.now();
    await insert("ancient", "error", now - 8 * DAY);
    await insert("recent", "error", now - 6 * DAY);
    await insert("stuck", "running", now - 8 * DAY);
    const timer = startRetentionTimer(
      (days, at, opts) => t.services.executions.applyRetention(days, at, opts),
      7,
      () => undefined,
      () => now,
    );
    try {
      expect(await timer.runNow()).toEqual({ deleted: 1, more: false });
    } finally {
      await timer.stop();
    }
    expect([...(await ids())].sort()).toEqual(["recent", "stuck"]);
  });

  it("DELETE /api/skills/executions filters by time range, skill and key, answering the count", async () => {
    const now = Date.now();
    await insert("k-old", "success", now - 10 * DAY, { apiKeyId: keyId });
    await insert("k-new", "success", now - DAY, { apiKeyId: keyId });
    await insert("k-running", "running", now - 10 * DAY, { apiKeyId: keyId });
    await insert("g-old", "error", now - 10 * DAY);
    await insert("other-skill", "success", now - 10 * DAY, { skillName: "other" });
    await insert("echo-v2", "success", now - 10 * DAY, { version: "2.0.0" });

    const before = new Date(now - 5 * DAY).toISOString();
    const byKey = await t.api.delete(
      `/api/skills/executions?before=${encodeURIComponent(before)}&apiKeyId=${keyId}`,
    );
    expect(byKey.status).toBe(200);
    expect(byKey.body).toEqual({ deleted: 1 });
    expect((await ids()).has("k-old")).toBe(false);

    const bySkill = await t.api.delete("/api/skills/executions?skill=echo%402.0.0");
    expect(bySkill.body).toEqual({ deleted: 1 });
    const byRange = await t.api.delete(
      `/api/skills/executions?after=${encodeURIComponent(new Date(now - 11 * DAY).toISOString())}&before=${encodeURIComponent(before)}&skill=echo`,
    );
    expect(byRange.body).toEqual({ deleted: 1 });
    expect([...(await ids())].sort()).toEqual(["k-new", "k-running", "other-skill"]);
  });

  it("refuses a delete without filters (400), from an API key (403) and a bad time (400), deleting nothing", async () => {
    const now = Date.now();
    await insert("a", "success", now - 100 * DAY);
    const none = await t.api.delete("/api/skills/executions");
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe("invalid_input");
    const bad = await t.api.delete("/api/skills/executions?before=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe("before");
    const asKey = await t.api
      .as(key)
      .delete(`/api/skills/executions?before=${encodeURIComponent(new Date(now).toISOString())}`);
    expect(asKey.status).toBe(403);
    expect(asKey.body.error.code).toBe("management_required");
    expect((await ids()).has("a")).toBe(true);
  });
});
