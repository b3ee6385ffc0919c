/**
 * What an execution costs in writes (docs/execution.md#what-an-execution-costs): a `running` row
 * written before the handler starts, one terminal write, and concurrent executions sharing
 * batches; a batch with a failing statement fails that statement alone.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DrizzleExecutionRepository } from "../../workers/src/db/repositories/executions.js";
import { apiKeys, settings } from "../../workers/src/db/schema.js";
import { statementOf, WriteBatcher } from "../../workers/src/db/write-batcher.js";
import { emittedToolName } from "../../workers/src/skills/injection/tool-names.js";
import { interceptToolCalls } from "../../workers/src/skills/interception/interception.js";
import { startTestApp, type TestApp } from "../support/app.js";

describe("execution rows", () => {
  let t: TestApp;
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  beforeAll(async () => {
    t = await startTestApp();
    t.services.executor.registerHandler("gate-handler", async (input) => {
      entered();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return input;
    });
    t.services.executor.registerHandler("fast-handler", async (input) => ({ got: input }));
  });
  afterAll(() => t.close());
  const writes = () => (t.services.executor.store as DrizzleExecutionRepository).writes.stats;

  const install = async (name: string, handlerCode: string) => {
    const res = await t.api.post("/api/skills/install", {
      name,
      version: "1.0.0",
      description: name,
      schema: { input: { type: "object", properties: { i: { type: "integer" } } } },
      handlerCode,
    });
    expect(res.status).toBe(201);
    return res.body.skill as { id: string; name: string; version: string };
  };

  it("the row is running in the database while the handler runs, then ends in one more write", async () => {
    await install("gated-run", "gate-handler");
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const before = { ...writes() };
    const pending = t.api.post("/api/skills/executions", {
      skillName: "gated-run",
      input: { i: 1 },
    });
    await inHandler;
    const during = await t.client.execute(
      "select status, started_at, attempts from skill_executions where skill_name = 'gated-run'",
    );
    expect(during.rows.map((r) => r.status)).toEqual(["running"]);
    expect(Number(during.rows[0]!.started_at)).toBeGreaterThan(0);
    release();
    const res = await pending;
    expect(res.body.execution).toMatchObject({ status: "success", output: { i: 1 }, attempts: 1 });
    const after = writes();
    // Two transactions: the running row; the end with the upsert of its rollup.
    expect(after.batches - before.batches).toBe(2);
    expect(after.statements - before.statements).toBe(3);
  });

  it("eight concurrent calls of one interception share two batches: their inserts, then their ends", async () => {
    const skill = await install("fast-eight", "fast-handler");
    const snapshot = await t.services.registry.snapshot();
    const toolName = emittedToolName(snapshot.getById(skill.id)!);
    const tool_calls = Array.from({ length: 8 }, (_, i) => ({
      id: `call_${i}`,
      type: "function",
      function: { name: toolName, arguments: JSON.stringify({ i }) },
    }));
    const before = { ...writes() };
    const result = await interceptToolCalls({
      format: "openai-chat",
      response: {
        id: "chatcmpl-1",
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
      },
      snapshot,
      apiKeyId: null,
      executor: t.services.executor,
    });
    expect(result.toolResults.map((r) => [r.status, r.output])).toEqual(
      Array.from({ length: 8 }, (_, i) => ["success", { got: { i } }]),
    );
    const after = writes();
    // Eight inserts; eight ends, each with the upsert of its hourly rollup.
    expect(after.statements - before.statements).toBe(24);
    expect(after.batches - before.batches).toBe(2);
    const rollups = await t.client.execute(
      "select status, count, error_count from execution_hourly_rollups where skill_name = ?",
      [skill.name],
    );
    expect(rollups.rows.map((r) => [r.status, r.count, r.error_count])).toEqual([
      ["success", 8, 0],
    ]);
    const rows = await t.client.execute(
      "select status, started_at, finished_at from skill_executions where skill_id = ?",
      [skill.id],
    );
    expect(rows.rows).toHaveLength(8);
    expect(rows.rows.every((r) => r.status === "success" && r.started_at && r.finished_at)).toBe(
      true,
    );
  });

  it("a batch whose statement breaks a constraint fails that statement alone", async () => {
    const db = t.deps.db;
    const batcher = new WriteBatcher(db.$client);
    const now = Date.now();
    const results = await Promise.allSettled([
      batcher.run(
        statementOf(db.insert(settings).values({ key: "batch-a", value: "1", updatedAt: now })),
      ),
      batcher.run(
        statementOf(
          db.insert(apiKeys).values({
            id: "batch-dup",
            name: "one",
            keyHash: "hash-batch-dup",
            prefix: "sk",
            createdAt: now,
          }),
        ),
      ),
      batcher.run(
        statementOf(
          db.insert(apiKeys).values({
            id: "batch-dup",
            name: "two",
            keyHash: "hash-batch-dup-2",
            prefix: "sk",
            createdAt: now,
          }),
        ),
      ),
      batcher.run(
        statementOf(db.insert(settings).values({ key: "batch-b", value: "2", updatedAt: now })),
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(batcher.stats).toMatchObject({ batches: 1, statements: 4, retriedBatches: 1 });
    const keys = await db.select().from(apiKeys).where(eq(apiKeys.id, "batch-dup"));
    expect(keys.map((k) => k.name)).toEqual(["one"]);
    const rows = await t.client.execute(
      "select key from settings where key in ('batch-a', 'batch-b') order by key",
    );
    expect(rows.rows.map((r) => r.key)).toEqual(["batch-a", "batch-b"]);
  });

  it("the statements of one write commit together or not at all, also when the batch is retried", async () => {
    const db = t.deps.db;
    const batcher = new WriteBatcher(db.$client);
    const now = Date.now();
    const setting = (key: string) =>
      statementOf(db.insert(settings).values({ key, value: "1", updatedAt: now }));
    const results = await Promise.allSettled([
      batcher.runAll([setting("group-a1"), setting("group-a2")]),
      // Its second statement breaks the primary key: its first must not stay.
      batcher.runAll([setting("group-b1"), setting("group-a1")]),
      batcher.run(setting("group-c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(batcher.stats).toMatchObject({ batches: 1, statements: 5, retriedBatches: 1 });
    const rows = await t.client.execute(
      "select key from settings where key like 'group-%' order by key",
    );
    expect(rows.rows.map((r) => r.key)).toEqual(["group-a1", "group-a2", "group-c"]);
  });

  /**
   * A batcher over the real client whose batches are reported to `onBatch` (with their size),
   * declaring `protocol`; and `n` setting inserts queued on it in one turn.
   */
  const observedBurst = (
    protocol: string,
    prefix: string,
    n: number,
    onBatch: (size: number) => void,
  ) => {
    const db = t.deps.db;
    const client = db.$client;
    const batcher = new WriteBatcher({
      protocol,
      execute: (stmt) => client.execute(stmt),
      batch: (stmts, mode) => {
        onBatch(stmts.length);
        return client.batch(stmts, mode);
      },
    });
    const now = Date.now();
    const writes = Array.from({ length: n }, (_, i) =>
      batcher.run(
        statementOf(
          db.insert(settings).values({ key: `${prefix}-${i}`, value: String(i), updatedAt: now }),
        ),
      ),
    );
    const count = async () =>
      Number(
        (await client.execute(`select count(*) as n from settings where key like '${prefix}-%'`))
          .rows[0]!.n,
      );
    return { writes: Promise.all(writes), count };
  };

  it("on the embedded database a burst is written in batches of at most 32 statements, a turn of the event loop apart", async () => {
    // The real client, its batches observed: their sizes and what else ran between them.
    const events: string[] = [];
    const burst = observedBurst(t.deps.db.$client.protocol, "burst", 100, (size) =>
      events.push(`batch ${size}`),
    );
    // Another task of the event loop, queued once per turn while the burst is written.
    let other = true;
    const probe = () => {
      events.push("other");
      if (other) setImmediate(probe);
    };
    setImmediate(probe);
    await burst.writes;
    other = false;
    const batches = events.filter((e) => e.startsWith("batch"));
    expect(batches).toEqual(["batch 32", "batch 32", "batch 32", "batch 4"]);
    // Between two batches the other task ran at least once.
    const at = events.flatMap((e, i) => (e.startsWith("batch") ? [i] : []));
    for (let i = 1; i < at.length; i++)
      expect(events.slice(at[i - 1]! + 1, at[i]!)).toContain("other");
    expect(await burst.count()).toBe(100);
  });

  it("against a libSQL server a burst goes out at once, in batches of up to 256 statements", async () => {
    const sizes: number[] = [];
    // The real database behind a client that says it is a server's (over HTTP, batches do not
    // hold the event loop, so they are not paced).
    const burst = observedBurst("http", "remote", 300, (size) => sizes.push(size));
    // Both batches were handed to the client in the same turn.
    await new Promise((r) => setImmediate(r));
    expect(sizes).toEqual([256, 44]);
    await burst.writes;
    expect(await burst.count()).toBe(300);
  });
});
