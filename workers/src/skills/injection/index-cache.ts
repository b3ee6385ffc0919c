/**
 * The caches of the injection index (docs/scoring.md#keeping-the-index-current), one per registry:
 * the indexes of its last few snapshots, and the last few scoring cores of each ranker by
 * fingerprint key, so that a reload whose candidates are unchanged (new skill objects, same
 * content) reuses its cores. An {@link InjectionIndexStore} (injection-store.ts) owns one and its
 * registry's snapshots carry it; two registries in one process never share or evict each other's.
 */
import type { SkillSource, SourceChange } from "../registry/skill-source.js";
import type { ScoringCore } from "./injection-core.js";
import { InjectionIndex } from "./injection-index.js";
import type { Bm25Core } from "./rankers/bm25-core.js";

/** How many indexes, and cores of each ranker, a cache keeps by default. */
export const INDEX_CACHE_SIZE = 4;

/** Most-recently-used lists of indexes and cores (see the module docs). */
export class InjectionIndexCache {
  private readonly indexes: InjectionIndex[] = [];
  private readonly cores: ScoringCore[] = [];
  private readonly bm25Cores: Bm25Core[] = [];

  /** @param size entries kept per list (at least 1). */
  constructor(private readonly size = INDEX_CACHE_SIZE) {}

  /** The cached index of `source` (same generation and skills array), if any. */
  index(source: Pick<SkillSource, "generation" | "skills">): InjectionIndex | undefined {
    return this.indexes.find(
      (ix) => ix.resolver.generation === source.generation && ix.resolver.skills === source.skills,
    );
  }

  /** Keeps `index` first among the last few indexes. */
  rememberIndex(index: InjectionIndex): void {
    keepFirst(this.indexes, index, this.size);
  }

  /** The cached scoring core with fingerprint `key`, if any (it becomes the most recent). */
  core(key: string): ScoringCore | undefined {
    const hit = this.cores.find((c) => c.key === key);
    if (hit) keepFirst(this.cores, hit, this.size);
    return hit;
  }

  /** Keeps `core` first among the last few scoring cores. */
  rememberCore(core: ScoringCore): void {
    keepFirst(
      this.cores,
      core,
      this.size,
      this.cores.findIndex((c) => c.key === core.key),
    );
  }

  /** The cached `bm25` core with fingerprint `key`, if any. */
  bm25(key: string): Bm25Core | undefined {
    return this.bm25Cores.find((c) => c.key === key);
  }

  /** Keeps `core` first among the last few `bm25` cores. */
  rememberBm25(core: Bm25Core): void {
    keepFirst(this.bm25Cores, core, this.size);
  }
}

function keepFirst<T>(list: T[], item: T, size: number, at = list.indexOf(item)): void {
  if (at >= 0) list.splice(at, 1);
  list.unshift(item);
  if (list.length > size) list.pop();
}

/** Indexes of sources that carry no cache (built by hand, e.g. in tests), per source object. */
const uncached = new WeakMap<SkillSource, InjectionIndex>();

/**
 * The index of a snapshot, from the cache the snapshot carries (`source.indexCache`, its
 * registry's; by generation and skills array, so two snapshots that reuse a generation number
 * never share an index). A snapshot derived from a cached one gets a derived index; otherwise the
 * index is built, reusing a scoring core of the cache whose candidates are unchanged. A source
 * without a cache gets its index built once and kept with the source object.
 */
export function getInjectionIndex(source: SkillSource): InjectionIndex {
  const cache = source.indexCache;
  if (!cache) {
    const memo = uncached.get(source);
    if (memo) return memo;
    const built = InjectionIndex.build(source);
    uncached.set(source, built);
    return built;
  }
  const hit = cache.index(source);
  if (hit) return hit;
  let index: InjectionIndex | undefined;
  const change = source.change;
  if (change) {
    const parent = cache.index(change.from);
    index = parent?.derive(source as SkillSource & { change: SourceChange }, cache);
  }
  index ??= InjectionIndex.build(source, cache);
  cache.rememberIndex(index);
  return index;
}
