/**
 * The per-instance budget read of token budgets (docs/limits.md#token-budgets): two services over
 * one real embedded libSQL database stand for two instances. A budget set on one applies there at
 * once and on the other once its read is older than BUDGET_CACHE_TTL_MS.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DrizzleTokenUsageStore } from "../../workers/src/db/repositories/token-usage.js";
import { AppError } from "../../workers/src/errors.js";
import { BUDGET_CACHE_TTL_MS, TokenUsageService } from "../../workers/src/services/usage.js";
import { openDb, tempDir } from "../support/app.js";

describe("token budget reads per instance", () => {
  let cleanup: () => void;
  let close: () => void;
  let now: number;
  let a: TokenUsageService;
  let b: TokenUsageService;
  let store: DrizzleTokenUsageStore;
  let clock: () => number;

  beforeEach(async () => {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    const { client, db } = await openDb(`file:${tmp.dir}/budget.db`);
    close = () => client.close();
    now = Date.parse("2026-03-04T12:00:00Z");
    clock = () => now;
    store = new DrizzleTokenUsageStore(db);
    a = new TokenUsageService(store, clock);
    b = new TokenUsageService(new DrizzleTokenUsageStore(db), clock);
  });

  afterEach(() => {
    close();
    cleanup();
  });

  const refused = async (s: TokenUsageService, key: string) =>
    s.checkBudget(key).then(
      () => false,
      (err: unknown) => {
        if (err instanceof AppError && err.code === "token_budget_exceeded") return true;
        throw err;
      },
    );

  it("applies at once where it was set, and elsewhere once the read is stale", async () => {
    const key = "key-1";
    a.record(key, "openai-chat", { prompt_tokens: 60, completion_tokens: 40 }, 1, 0);
    await a.settled();
    // Both instances read "no budget".
    expect(await refused(a, key)).toBe(false);
    expect(await refused(b, key)).toBe(false);

    await a.setBudget(key, 100);
    expect(await refused(a, key)).toBe(true);
    now += BUDGET_CACHE_TTL_MS - 1;
    expect(await refused(b, key)).toBe(false);
    now += 1;
    expect(await refused(b, key)).toBe(true);

    // Removing it is the same: at once on `a`, after the TTL on `b` (which read it just now).
    await a.setBudget(key, null);
    expect(await refused(a, key)).toBe(false);
    expect(await refused(b, key)).toBe(true);
    now += BUDGET_CACHE_TTL_MS;
    expect(await refused(b, key)).toBe(false);
  });

  it("keeps budgets of different keys apart", async () => {
    for (const key of ["k1", "k2"]) {
      a.record(key, "openai-chat", { prompt_tokens: 10, completion_tokens: 0 }, 1, 0);
    }
    await a.settled();
    await a.setBudget("k1", 5);
    expect(await refused(a, "k1")).toBe(true);
    expect(await refused(a, "k2")).toBe(false);
  });

  it("does not keep a budget read that a write on the same instance overtook", async () => {
    const key = "k-race";
    a.record(key, "openai-chat", { prompt_tokens: 50, completion_tokens: 0 }, 1, 0);
    await a.settled();
    // The read of the budget waits until the write below has ended (a slow database).
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = new TokenUsageService(
      {
        add: (...args) => store.add(...args),
        days: (...args) => store.days(...args),
        setBudget: (...args) => store.setBudget(...args),
        budget: async (id) => {
          const read = await store.budget(id);
          await gate;
          return read;
        },
      },
      clock,
    );
    const pending = refused(slow, key);
    await slow.setBudget(key, 10);
    release();
    // The read began before the budget existed: this request passes...
    expect(await pending).toBe(false);
    // ...but the next one reads the budget instead of a kept "none".
    expect(await refused(slow, key)).toBe(true);
  });
});
