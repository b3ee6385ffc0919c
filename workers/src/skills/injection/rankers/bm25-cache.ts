/**
 * The last few `bm25` cores built or derived in this process, by fingerprint key, so that a
 * registry reload with unchanged candidates (new skill objects, same content) reuses its core.
 */
import type { Skill } from "../../types.js";
import { Bm25Core } from "./bm25-core.js";

const CACHE_SIZE = 4;
const cores: Bm25Core[] = [];

/** The cached core with fingerprint `key`, if any. */
export function cachedBm25(key: string): Bm25Core | undefined {
  return cores.find((c) => c.key === key);
}

/** Keeps `core` among the last few. */
export function rememberBm25(core: Bm25Core): void {
  const at = cores.indexOf(core);
  if (at >= 0) cores.splice(at, 1);
  cores.unshift(core);
  if (cores.length > CACHE_SIZE) cores.pop();
}

/** Builds the core of `candidates` and remembers it. */
export function freshBm25(candidates: readonly Skill[], key: string): Bm25Core {
  const core = Bm25Core.build(candidates, key);
  rememberBm25(core);
  return core;
}
