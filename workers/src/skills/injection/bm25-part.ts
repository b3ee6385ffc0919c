/**
 * The `bm25` ranker's part of an injection index (injection-index.ts,
 * docs/scoring.md#the-bm25-ranker): its scoring core, reused from a cache or a derivation when
 * its candidates match, and the candidate in each of its slots.
 */
import { LayeredMap } from "../registry/layered-map.js";
import type { Skill } from "../types.js";
import type { InjectionIndexCache } from "./index-cache.js";
import { Bm25Core } from "./rankers/bm25-core.js";

/** The `bm25` ranker's core and the candidate in each of its slots. */
export interface Bm25Part {
  core: Bm25Core;
  slotSkill: (Skill | undefined)[];
  slotOf: LayeredMap<string, number>;
}

/**
 * The `bm25` part for `candidates`: `given` or a core of `cache` when its key and slots match,
 * else built (and kept in `cache`).
 */
export function bm25PartFor(
  candidates: readonly Skill[],
  key: string,
  cache: InjectionIndexCache | undefined,
  given?: Bm25Core,
): Bm25Part {
  const byId = new Map(candidates.map((s) => [s.id, s]));
  for (const core of [given, cache?.bm25(key)]) {
    if (!core || core.key !== key) continue;
    const slotSkill = core.state.slotIds.map((id) => (id === null ? undefined : byId.get(id)));
    if (slotSkill.filter((s) => s !== undefined).length !== candidates.length) continue;
    cache?.rememberBm25(core);
    return { core, slotSkill, slotOf: slotsOf(slotSkill) };
  }
  const core = Bm25Core.build(candidates, key);
  cache?.rememberBm25(core);
  return { core, slotSkill: candidates.slice(), slotOf: slotsOf(candidates) };
}

/** Candidate skill id → slot, for the candidates in `slotSkill` (free slots skipped). */
export function slotsOf(slotSkill: readonly (Skill | undefined)[]): LayeredMap<string, number> {
  const out = new Map<string, number>();
  slotSkill.forEach((s, slot) => {
    if (s) out.set(s.id, slot);
  });
  return LayeredMap.of(out);
}
