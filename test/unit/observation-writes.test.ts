/**
 * The gateway's observation writes leave the request path (docs/proxy.md#cost): token usage is
 * summed per key and day and routing observations are gathered, then written once per window, on
 * a real embedded libSQL database. What waits is counted by budget checks, written by `settled()`,
 * and keeps its observation time.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../../workers/src/app.js";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import { parseConfig } from "../../workers/src/config.js";
import type { Db } from "../../workers/src/db/client.js";
import { DrizzleTokenUsageStore } from "../../workers/src/db/repositories/token-usage.js";
import { DrizzleRoutingHistoryRepository } from "../../workers/src/db/repositories/upstream-calls.js";
import { AppError } from "../../workers/src/errors.js";
import { RoutingService } from "../../workers/src/services/routing.js";
import { TokenUsageService } from "../../workers/src/services/usage.js";
import { WriteBuffer } from "../../workers/src/services/write-buffer.js";
import { MGMT_TOKEN, openDb, tempDir } from "../support/app.js";

type Client = Awaited<ReturnType<typeof openDb>>["client"];

describe("observation writes", () => {
  let cleanup: () => void;
  let client: Client;
  let db: Db;
  let now: number;
  const clock = () => now;

  beforeEach(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    ({ client, db } = await openDb(`file:${tmp.dir}/observe.db`));
    now = Date.parse("2026-03-04T12:00:00Z");
  });

  afterEach(() => {
    client.close();
    cleanup();
  });

  const usageRows = async () =>
    (
      await client.execute(
        "select api_key_id, day, input_tokens, output_tokens, requests, rounds, owned_calls from api_key_token_usage order by api_key_id",
      )
    ).rows.map((r) => ({ ...r }));

  it("sums a window's usage per key and day into one row write, and counts it before the write", async () => {
    const usage = new TokenUsageService(new DrizzleTokenUsageStore(db), clock, undefined, 60_000);
    await usage.setBudget("k1", 100);
    usage.record("k1", "openai-chat", { prompt_tokens: 40, completion_tokens: 5 }, 2, 1);
    usage.record("k1", "openai-chat", { prompt_tokens: 50, completion_tokens: 5 }, 1, 0);
    usage.record("k2", "anthropic", { input_tokens: 7, output_tokens: 3 }, 1, 0);
    // Nothing written yet (the window is a minute), but the budget check counts what waits.
    expect(await usageRows()).toEqual([]);
    expect(usage.busy).toBe(true);
    const refused = await usage.checkBudget("k1").then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("token_budget_exceeded");
    await usage.checkBudget("k2");

    await usage.settled();
    expect(usage.busy).toBe(false);
    expect(await usageRows()).toEqual([
      {
        api_key_id: "k1",
        day: "2026-03-04",
        input_tokens: 90,
        output_tokens: 10,
        requests: 2,
        rounds: 3,
        owned_calls: 1,
      },
      {
        api_key_id: "k2",
        day: "2026-03-04",
        input_tokens: 7,
        output_tokens: 3,
        requests: 1,
        rounds: 1,
        owned_calls: 0,
      },
    ]);
    // A later window adds to the same row.
    usage.record("k2", "anthropic", { input_tokens: 1, output_tokens: 1 }, 1, 0);
    const view = await usage.view("k2", 1);
    expect(view.today).toMatchObject({ inputTokens: 8, outputTokens: 4, requests: 2 });
  });

  it("writes usage by itself when the window ends", async () => {
    const usage = new TokenUsageService(new DrizzleTokenUsageStore(db), clock, undefined, 20);
    usage.record("k1", "openai-chat", { prompt_tokens: 3, completion_tokens: 4 }, 1, 0);
    await expect.poll(usageRows, { timeout: 5_000 }).toHaveLength(1);
    expect(usage.busy).toBe(false);
  });

  it("keeps each routing observation's own time and writes the window's at once", async () => {
    await client.execute({
      sql: "insert into api_keys (id, name, key_hash, prefix, created_at) values ('k1', 'k1', 'h1', 'sk_', ?)",
      args: [now],
    });
    const history = new DrizzleRoutingHistoryRepository(db, clock);
    const routing = new RoutingService(history, clock, 60_000);
    routing.recordLater("k1", {
      provider: "openai",
      model: "m1",
      status: "success",
      latencyMs: 10,
    });
    now += 500;
    routing.recordLater("k1", {
      provider: "openai",
      model: "m2",
      status: "success",
      latencyMs: 20,
    });
    routing.recordLater(null, {
      provider: "anthropic",
      model: "m3",
      status: "success",
      latencyMs: 5,
    });
    const count = async () =>
      Number((await client.execute("select count(*) as n from upstream_calls")).rows[0]!.n);
    expect(await count()).toBe(0);
    now += 5_000;
    await routing.settled();
    expect(await count()).toBe(3);
    const calls = await history.recent("k1", 60_000);
    expect(calls.map((c) => [c.model, c.createdAt])).toEqual([
      ["m1", Date.parse("2026-03-04T12:00:00Z")],
      ["m2", Date.parse("2026-03-04T12:00:00.500Z")],
    ]);
    // A recommendation reads what waits too.
    routing.recordLater("k1", { provider: "openai", model: "m4", status: "success", latencyMs: 1 });
    const rec = await routing.recommend("k1", "anything", 1);
    expect(rec.callsConsidered).toBe(3);
    expect(rec.candidates.map((c) => c.model).sort()).toEqual(["m1", "m2", "m4"]);
  });

  it("waits a second on Node only: elsewhere (the Worker) usage is written at the end of the turn", async () => {
    const services = (runtime?: "node" | "workerd") =>
      createApp({
        db,
        cache: new MemoryCache(),
        config: parseConfig({ MGMT_TOKEN }),
        runtime,
      }).services;
    const worker = services("workerd");
    const node = services("node");
    node.tokenUsage.record(
      "k-node",
      "openai-chat",
      { prompt_tokens: 1, completion_tokens: 1 },
      1,
      0,
    );
    worker.tokenUsage.record(
      "k-worker",
      "openai-chat",
      { prompt_tokens: 2, completion_tokens: 2 },
      1,
      0,
    );
    // Well within the Node window of a second.
    await expect.poll(usageRows, { timeout: 500 }).toHaveLength(1);
    expect((await usageRows())[0]).toMatchObject({ api_key_id: "k-worker", input_tokens: 2 });
    expect(node.tokenUsage.busy).toBe(true);
    await node.tokenUsage.settled();
    expect(await usageRows()).toHaveLength(2);
  });

  it("writes a full buffer at once, and a failed write is reported and dropped", async () => {
    const written: [string, number][][] = [];
    const errors: number[] = [];
    let fail = false;
    const buffer = new WriteBuffer<number>({
      windowMs: 60_000,
      maxEntries: 3,
      merge: (a, b) => a + b,
      write: async (entries) => {
        if (fail) throw new Error("database gone");
        written.push([...entries]);
      },
      onError: (_err, dropped) => errors.push(dropped),
    });
    buffer.add("a", 1);
    buffer.add("a", 2);
    buffer.add("b", 1);
    expect(buffer.buffered("a")).toBe(3);
    expect(written).toEqual([]);
    buffer.add("c", 5);
    await buffer.settled();
    expect(written).toEqual([
      [
        ["a", 3],
        ["b", 1],
        ["c", 5],
      ],
    ]);
    fail = true;
    buffer.add("d", 1);
    await buffer.settled();
    expect(errors).toEqual([1]);
    expect(buffer.busy).toBe(false);
    expect(buffer.buffered("d")).toBeUndefined();
  });

  it("writes a window in chunks, the first on a later turn, and counts a chunk as buffered until it is written", async () => {
    const turns: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const buffer = new WriteBuffer<number>({
      windowMs: 60_000,
      maxEntries: 100,
      chunkEntries: 2,
      merge: (a, b) => a + b,
      write: async (entries) => {
        turns.push(entries.map(([k]) => k).join(","));
        // The first chunk's write stays open until the test releases it.
        if (turns.length === 1) await gate;
      },
      onError: () => {},
    });
    for (const k of ["a", "b", "c", "d", "e"]) buffer.add(k, 1);
    const settled = buffer.settled();
    // Not on the caller's turn: nothing is written until the event loop turns.
    expect(turns).toEqual([]);
    buffer.add("a", 10);
    // "a" is in the chunk being written and in the buffer again: both count.
    expect(buffer.buffered("a")).toBe(11);
    await new Promise((r) => setImmediate(r));
    expect(turns).toEqual(["a,b"]);
    expect(buffer.buffered("a")).toBe(11);
    release();
    await settled;
    expect(turns).toEqual(["a,b", "c,d", "e"]);
    // Written: only what was added later still waits.
    expect(buffer.buffered("a")).toBe(10);
    expect(buffer.buffered("c")).toBeUndefined();
    await buffer.settled();
    expect(turns).toEqual(["a,b", "c,d", "e", "a"]);
    expect(buffer.buffered("a")).toBeUndefined();
  });

  it("lets a request run between the chunks of a large routing window on the embedded database", async () => {
    const history = new DrizzleRoutingHistoryRepository(db, clock);
    const routing = new RoutingService(history, clock, 60_000);
    for (let i = 0; i < 35; i++)
      routing.recordLater(null, {
        provider: "openai",
        model: `m${i}`,
        status: "success",
        latencyMs: i,
      });
    const count = async () =>
      Number((await client.execute("select count(*) as n from upstream_calls")).rows[0]!.n);
    const settled = routing.settled();
    // Between chunks, other work of the event loop runs: it sees a partly written window.
    const seen: number[] = [];
    const probe = async () => {
      while (seen.at(-1) !== 35) {
        seen.push(await count());
        await new Promise((r) => setImmediate(r));
      }
    };
    await Promise.all([settled, probe()]);
    expect(seen.some((n) => n > 0 && n < 35)).toBe(true);
    expect(await count()).toBe(35);
  });

  it("records a long list of calls whole, in multi-row inserts, each row with its own values", async () => {
    const history = new DrizzleRoutingHistoryRepository(db, clock);
    const calls = Array.from({ length: 37 }, (_, i) => ({
      provider: i % 2 === 0 ? "openai" : "anthropic",
      model: `m${i}`,
      status: (i % 5 === 0 ? "error" : "success") as "error" | "success",
      errorClass: i % 5 === 0 ? ("timeout" as const) : undefined,
      latencyMs: i + 0.4,
      task: i === 36 ? "last" : undefined,
      at: now + i,
    }));
    const ids = await history.record(null, calls);
    expect(new Set(ids).size).toBe(37);
    const rows = (
      await client.execute(
        "select id, provider, model, status, error_class, latency_ms, task, created_at from upstream_calls order by created_at",
      )
    ).rows.map((r) => ({ ...r }));
    expect(rows).toHaveLength(37);
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows[36]).toEqual({
      id: ids[36],
      provider: "openai",
      model: "m36",
      status: "success",
      error_class: null,
      latency_ms: 36,
      task: "last",
      created_at: now + 36,
    });
    expect(rows[35]).toMatchObject({
      provider: "anthropic",
      model: "m35",
      status: "error",
      error_class: "timeout",
    });
  });
});
