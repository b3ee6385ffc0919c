/**
 * The in-process cache of scoring cores, by fingerprint key (injection-core.ts): a registry reload
 * whose candidates are unchanged reuses its core (docs/scoring.md#how-the-index-computes-it).
 */
import type { ScoringCore } from "./injection-core.js";

const CORE_CACHE_SIZE = 4;
const cores: ScoringCore[] = [];

/** A cached core with this fingerprint key (most recently used first), if any. */
export function cachedCore(key: string): ScoringCore | undefined {
  const at = cores.findIndex((c) => c.key === key);
  if (at < 0) return undefined;
  const [hit] = cores.splice(at, 1);
  cores.unshift(hit!);
  return hit;
}

/** Keeps `core` among the last few cores, by fingerprint. */
export function rememberCore(core: ScoringCore): void {
  const at = cores.findIndex((c) => c.key === core.key);
  if (at >= 0) cores.splice(at, 1);
  cores.unshift(core);
  if (cores.length > CORE_CACHE_SIZE) cores.pop();
}
