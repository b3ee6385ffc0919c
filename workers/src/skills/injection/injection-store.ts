/**
 * Keeps the injection index of the registry's snapshots ready (docs/scoring.md#keeping-the-index-current):
 * - a snapshot derived from one whose index is in memory (after a write or a reload) gets its
 *   index derived at once, so the first request after a write does not pay for it;
 * - with a cache shared between instances (Workers KV), the scoring cores of both rankers are
 *   stored serialised (injection-serial.ts, rankers/bm25-serial.ts) after they are built or updated, and an instance without an index (a cold
 *   Worker isolate) loads it from there instead of building it; a stored core whose candidates
 *   differ from the snapshot's (another instance's newer write) is ignored and replaced.
 * With a cache private to the process, nothing is stored and an index is built on first use.
 */
import type { Cache } from "../../cache/types.js";
import type { SkillSource, SourceChange } from "../registry/tool-resolver.js";
import { InjectionIndexCache } from "./index-cache.js";
import { InjectionIndex } from "./injection-index.js";
import { decodeCore, encodeCore } from "./injection-serial.js";
import type { Bm25Core } from "./rankers/bm25-core.js";
import { decodeBm25, encodeBm25 } from "./rankers/bm25-serial.js";

/** Key of the serialised scoring core in the shared cache (one entry, the latest). */
export const INDEX_CACHE_KEY = "injection:core:v2";
/** Key of the serialised `bm25` ranker core in the shared cache (one entry, the latest). */
export const BM25_CACHE_KEY = "injection:bm25:v1";
/** How long a stored core lives without being refreshed, in seconds. */
export const INDEX_CACHE_TTL_S = 86_400;

/** What {@link InjectionIndexStore} did, for tests, benchmarks and health output. */
export interface IndexStoreStats {
  /** Indexes derived from the previous snapshot's. */
  derived: number;
  /** Indexes whose scoring core was loaded from the shared cache. */
  loaded: number;
  /** Indexes built from scratch. */
  built: number;
  /** Cores written to the shared cache. */
  stored: number;
}

/** Prepares injection indexes for new registry snapshots. */
export class InjectionIndexStore {
  readonly stats: IndexStoreStats = { derived: 0, loaded: 0, built: 0, stored: 0 };
  /** The indexes and cores of this store's registry; its snapshots carry it. */
  readonly cache = new InjectionIndexCache();

  constructor(private readonly shared: Cache) {}

  /**
   * Prepares the index of `snapshot` (see the module docs). A derived index is stored only when
   * this instance's write made the snapshot (other instances reach the same index by reloading).
   * Never throws for a cache failure or an unreadable stored core: the index is then built.
   */
  async prepare(snapshot: SkillSource, cause: "write" | "load" = "load"): Promise<void> {
    const cache = snapshot.indexCache ?? this.cache;
    if (cache.index(snapshot)) return;
    const change = snapshot.change;
    const parent = change && cache.index(change.from);
    if (parent) {
      const index =
        parent.derive(snapshot as SkillSource & { change: SourceChange }, cache) ??
        InjectionIndex.build(snapshot, cache);
      cache.rememberIndex(index);
      this.stats.derived++;
      if (cause === "write") await this.store(index);
      return;
    }
    if (!this.shared.shared) return;
    const plan = InjectionIndex.plan(snapshot);
    const [bytes, bm25Bytes] = await Promise.all([
      this.shared.getBytes(INDEX_CACHE_KEY).catch(() => undefined),
      this.shared.getBytes(BM25_CACHE_KEY).catch(() => undefined),
    ]);
    let core: ReturnType<typeof decodeCore> | undefined;
    if (bytes) {
      try {
        core = decodeCore(bytes);
      } catch {
        core = undefined;
      }
    }
    let bm25: Bm25Core | undefined;
    if (bm25Bytes) {
      try {
        bm25 = decodeBm25(bm25Bytes);
      } catch {
        bm25 = undefined;
      }
    }
    const index = InjectionIndex.fromPlan(
      plan,
      cache,
      core?.key === plan.key ? core : undefined,
      bm25?.key === plan.bm25Key ? bm25 : undefined,
    );
    cache.rememberIndex(index);
    if (core && index.core === core && bm25 && index.bm25Core === bm25) {
      this.stats.loaded++;
      return;
    }
    this.stats.built++;
    await this.store(index);
  }

  private async store(index: InjectionIndex): Promise<void> {
    if (!this.shared.shared) return;
    try {
      await Promise.all([
        this.shared.putBytes(INDEX_CACHE_KEY, encodeCore(index.core), INDEX_CACHE_TTL_S),
        this.shared.putBytes(BM25_CACHE_KEY, encodeBm25(index.bm25Core), INDEX_CACHE_TTL_S),
      ]);
      this.stats.stored++;
    } catch {
      // The next cold instance builds its own index.
    }
  }
}
