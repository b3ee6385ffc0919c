import { describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";

describe("MemoryCache", () => {
  it("expires entries after their TTL", async () => {
    let now = 1_000;
    const cache = new MemoryCache(() => now);
    await cache.put("k", { a: 1 }, 60);
    expect(await cache.get("k")).toEqual({ a: 1 });
    now += 60_000;
    expect(await cache.get("k")).toBeUndefined();
  });
});

describe("MemoryCache capacity", () => {
  it("sweeps expired entries first, then the oldest, once full", async () => {
    let now = 0;
    const cache = new MemoryCache(() => now, 3);
    await cache.put("a", 1, 1);
    await cache.put("b", 2, 100);
    await cache.put("c", 3, 100);
    now = 2_000;
    await cache.put("d", 4, 100);
    expect(await cache.get("a")).toBeUndefined();
    expect(await cache.get("b")).toBe(2);
    await cache.put("e", 5, 100);
    expect(await cache.get("b")).toBeUndefined();
    expect(await cache.get("e")).toBe(5);
    await cache.delete("e");
    expect(await cache.get("e")).toBeUndefined();
  });
});
