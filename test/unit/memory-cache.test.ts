import { describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";

describe("MemoryCache", () => {
  it("expires entries after their TTL", async () => {
    let now = 1_000;
    const cache = new MemoryCache(() => now);
    await cache.put("k", { a: 1 }, 60);
    expect(await cache.get("k")).toEqual({ a: 1 });
    now += 59_999;
    expect(await cache.get("k")).toEqual({ a: 1 });
    now += 1;
    expect(await cache.get("k")).toBeUndefined();
  });

  it("stores bytes and any value as given, and deletes", async () => {
    const cache = new MemoryCache();
    const bytes = new Uint8Array([1, 2, 3]);
    await cache.putBytes("b", bytes, 60);
    expect(await cache.getBytes("b")).toBe(bytes);
    await cache.put("n", null, 60);
    expect(await cache.get("n")).toBeNull();
    expect(await cache.getBytes("n")).toBeUndefined();
    await cache.delete("b");
    expect(await cache.getBytes("b")).toBeUndefined();
  });
});

describe("MemoryCache capacity", () => {
  it("drops the least recently used entry once full; a read counts as a use", async () => {
    const cache = new MemoryCache(Date.now, 3);
    await cache.put("a", 1, 100);
    await cache.put("b", 2, 100);
    await cache.put("c", 3, 100);
    expect(await cache.get("a")).toBe(1); // a is now the most recently used
    await cache.put("d", 4, 100);
    expect(await cache.get("b")).toBeUndefined();
    expect(await cache.get("a")).toBe(1);
    expect(await cache.get("c")).toBe(3);
    expect(await cache.get("d")).toBe(4);
    expect(cache.size).toBe(3);
  });

  it("drops expired entries before a live one, however long ago the live one was used", async () => {
    let now = 0;
    const cache = new MemoryCache(() => now, 3);
    await cache.put("turn", "kept for 100 s", 100);
    await cache.put("short1", 1, 1);
    await cache.put("short2", 2, 1);
    now = 5_000;
    await cache.put("new", 3, 100);
    expect(await cache.get("turn")).toBe("kept for 100 s");
    expect(await cache.get("new")).toBe(3);
    expect(cache.size).toBe(2);
  });

  it("keeps a hot entry through a flood of one-off writes", async () => {
    const cache = new MemoryCache(Date.now, 100);
    await cache.put("hot", "key row", 600);
    for (let i = 0; i < 10_000; i++) {
      await cache.put(`once:${i}`, i, 600);
      if (i % 50 === 0) expect(await cache.get("hot")).toBe("key row");
    }
    expect(cache.size).toBe(100);
    expect(await cache.get("once:9999")).toBe(9999);
    expect(await cache.get("once:0")).toBeUndefined();
  });
});
