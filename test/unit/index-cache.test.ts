/**
 * The injection index caches belong to one registry (docs/scoring.md#keeping-the-index-current):
 * an index store owns its cache, its snapshots carry it, and two registries in one process keep
 * their indexes and cores apart — one registry's traffic never evicts the other's.
 */
import { describe, expect, it } from "vitest";
import { MemoryCache } from "../../workers/src/cache/memory-cache.js";
import {
  getInjectionIndex,
  InjectionIndexCache,
} from "../../workers/src/skills/injection/index-cache.js";
import { InjectionIndexStore } from "../../workers/src/skills/injection/injection-store.js";
import type { SkillSource } from "../../workers/src/skills/registry/skill-source.js";
import { skill } from "./injection-fixtures.js";

let generation = 8_800_000;
const source = (cache: InjectionIndexCache, n: number): SkillSource => ({
  generation: generation++,
  skills: [
    skill({ name: `weather${n}`, description: "Weather forecast of a city", mode: "auto" }),
    skill({ name: `stocks${n}`, description: "Stock quotes by ticker", mode: "auto" }),
  ],
  indexCache: cache,
});

describe("injection index caches per registry", () => {
  it("keeps each registry's indexes in its own store's cache", async () => {
    const a = new InjectionIndexStore(new MemoryCache());
    const b = new InjectionIndexStore(new MemoryCache());
    const mine = source(a.cache, 0);
    await a.prepare(mine);
    const index = getInjectionIndex(mine);
    expect(a.cache.index(mine)).toBe(index);
    expect(b.cache.index(mine)).toBeUndefined();
    // Many snapshots of the other registry do not evict this one's index.
    for (let i = 1; i <= 10; i++) getInjectionIndex(source(b.cache, i));
    expect(a.cache.index(mine)).toBe(index);
    expect(getInjectionIndex(mine)).toBe(index);
  });

  it("reuses a core within one registry's cache, never across caches", () => {
    const shared = new InjectionIndexCache();
    const first = source(shared, 1);
    const reload = {
      ...first,
      generation: generation++,
      skills: first.skills.map((s) => ({ ...s })),
    };
    expect(getInjectionIndex(reload).core).toBe(getInjectionIndex(first).core);
    const elsewhere = {
      ...reload,
      generation: generation++,
      indexCache: new InjectionIndexCache(),
    };
    expect(getInjectionIndex(elsewhere).core).not.toBe(getInjectionIndex(first).core);
  });

  it("keeps the last few indexes of a cache, most recent first", () => {
    const cache = new InjectionIndexCache(2);
    const [s1, s2, s3] = [source(cache, 1), source(cache, 2), source(cache, 3)];
    const i1 = getInjectionIndex(s1);
    getInjectionIndex(s2);
    getInjectionIndex(s3);
    expect(cache.index(s1)).toBeUndefined();
    expect(cache.index(s3)).toBeDefined();
    expect(getInjectionIndex(s1)).not.toBe(i1);
  });

  it("builds a source without a cache once and keeps the index with the source", () => {
    const bare: SkillSource = {
      generation: generation++,
      skills: source(new InjectionIndexCache(), 9).skills,
    };
    expect(getInjectionIndex(bare)).toBe(getInjectionIndex(bare));
  });
});
