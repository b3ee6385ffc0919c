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
