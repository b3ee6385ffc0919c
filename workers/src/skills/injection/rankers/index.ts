/**
 * The rankers AUTO selection can use (docs/scoring.md): `bm25` (the default: BM25F over every
 * field a skill declares, rankers/bm25-core.ts) and `keyword` (the original points table,
 * scoring.ts, reproduced exactly by injection-core.ts). A ranker is chosen per request, else per
 * key, else by the `ranker` setting, else {@link DEFAULT_RANKER}.
 */

/** Names of the rankers, as the API, settings and `injected[].ranker` spell them. */
export const RANKER_NAMES = ["bm25", "keyword"] as const;
/** A ranker name. */
export type RankerName = (typeof RANKER_NAMES)[number];
/** The ranker used when neither the request, the key nor the settings choose one. */
export const DEFAULT_RANKER: RankerName = "bm25";

/** True when `value` names a ranker. */
export function isRankerName(value: unknown): value is RankerName {
  return typeof value === "string" && (RANKER_NAMES as readonly string[]).includes(value);
}

/**
 * The ranker for a request: the first of `request`, `key` and `setting` that is set, else the
 * default.
 */
export function chooseRanker(
  request?: RankerName | null,
  key?: RankerName | null,
  setting?: RankerName | null,
): RankerName {
  return request ?? key ?? setting ?? DEFAULT_RANKER;
}
