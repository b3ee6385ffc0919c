/**
 * The maps behind a tool resolver (docs/registry.md#visibility-and-shadowing) and the pure steps
 * that build and patch them: which copy of a name a caller sees, the winners of a name's
 * versions, and the lists a registry change touches, so a derived resolver patches only those.
 */
import type { Skill } from "../types.js";
import type { LayeredMap } from "./layered-map.js";
import { isActive, type SourceChange } from "./skill-source.js";
import type { RegistrySnapshot } from "./snapshot.js";

/** The first of `list` the caller sees: its own copy, else the global one. */
export function pickForCaller(
  list: readonly Skill[] | undefined,
  apiKeyId: string | null,
): Skill | undefined {
  if (!list) return undefined;
  let global: Skill | undefined;
  for (const s of list) {
    if (s.apiKeyId === null) global ??= s;
    else if (apiKeyId !== null && s.apiKeyId === apiKeyId) return s;
  }
  return global;
}

export const ownKey = (apiKeyId: string, name: string) => `${apiKeyId}\n${name}`;

/** The winners of one name's versions (highest first): the global one and each owner's. */
export function winnersOf(
  name: string,
  list: readonly Skill[],
): { global: Skill | undefined; own: [string, Skill | undefined][] } {
  let global: Skill | undefined;
  const own = new Map<string, Skill | undefined>();
  for (const s of list) {
    if (s.apiKeyId === null) {
      if (global === undefined && isActive(s)) global = s;
    } else if (own.get(ownKey(s.apiKeyId, name)) === undefined) {
      own.set(ownKey(s.apiKeyId, name), isActive(s) ? s : undefined);
    }
  }
  return { global, own: [...own] };
}

/** The lists of `map` at the keys `changed` touches, with `replaced` out and `upserted` in. */
export function patchLists(
  map: LayeredMap<string, readonly Skill[]>,
  key: (s: Skill) => string,
  change: SourceChange,
): LayeredMap<string, readonly Skill[]> {
  const gone = new Set(change.replaced);
  const lists = new Map<string, Skill[]>();
  for (const s of [...change.replaced, ...change.upserted]) {
    const k = key(s);
    if (!lists.has(k))
      lists.set(
        k,
        (map.get(k) ?? []).filter((x) => !gone.has(x)),
      );
  }
  for (const s of change.upserted) lists.get(key(s))!.push(s);
  return map.with(
    [...lists].map(([k, l]): [string, readonly Skill[] | undefined] => [
      k,
      l.length ? l : undefined,
    ]),
  );
}

/** The maps of a resolver that a derived resolver shares or patches. */
export interface ResolverMaps {
  snapshot: RegistrySnapshot;
  byHash: LayeredMap<string, readonly Skill[]> | null;
  globalWinner: LayeredMap<string, Skill>;
  ownBest: LayeredMap<string, Skill>;
  ownNames: LayeredMap<string, ReadonlySet<string>>;
}
