/**
 * The hashed features of a request that selection learns from (docs/scoring.md#learning-from-traffic):
 * the terms of the latest part of the context text (its last {@link LATEST_CHARS} characters, the
 * latest message in practice) and of the inject call's background reason, analysed as the `bm25`
 * ranker analyses text (stemmed, stop-words dropped), each hashed to 32 bits with FNV-1a. Only
 * these numbers are ever stored or cached, never the text.
 */
import { weightedTerms } from "../injection/rankers/bm25-query.js";
import { forEachTerm } from "../injection/rankers/text-analysis.js";

/** Characters read from the end of the context text. */
export const LATEST_CHARS = 1_000;
/** Unique features kept per request. */
export const MAX_REQUEST_FEATURES = 64;

/** FNV-1a over the UTF-16 code units of `text`, as an unsigned 32-bit integer. */
export function featureHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The features of a request: unique hashed terms of the last {@link LATEST_CHARS} characters of
 * `contextText` and of `reason`, at most {@link MAX_REQUEST_FEATURES}, in text order.
 */
export function learningFeatures(contextText: string, reason?: string | null): number[] {
  let tail = contextText;
  if (tail.length > LATEST_CHARS) {
    tail = tail.slice(tail.length - LATEST_CHARS);
    // Drop a word cut in two at the start.
    const space = tail.search(/\s/);
    if (space > 0 && space < 40) tail = tail.slice(space + 1);
  }
  const seen = new Set<number>();
  const add = (term: string) => {
    if (seen.size < MAX_REQUEST_FEATURES) seen.add(featureHash(term));
  };
  forEachTerm(tail, add);
  if (reason) forEachTerm(reason.slice(0, LATEST_CHARS), add);
  return [...seen];
}

const FEATURE_WEIGHTS: ReadonlyMap<number, number> = new Map(
  [...weightedTerms()].map(([term, w]) => [featureHash(term), w]),
);

/**
 * The weight of a feature in a learned score: the `bm25` ranker's weight of the term it hashes
 * (docs/scoring.md#the-bm25-ranker: everyday spoken words weigh 0.5 to 1), 1 for other terms.
 */
export function featureWeight(feature: number): number {
  return FEATURE_WEIGHTS.get(feature) ?? 1;
}

/** True when `value` is a list of feature hashes (unsigned 32-bit integers), as a cache holds. */
export function isFeatureList(value: unknown): value is number[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_REQUEST_FEATURES &&
    value.every((v) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff)
  );
}
