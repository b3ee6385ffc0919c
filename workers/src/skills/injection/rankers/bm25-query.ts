/**
 * The query of the `bm25` ranker for one request (docs/scoring.md#the-bm25-ranker): the unique
 * terms of the request's context text and of the inject call's background reason, each with a
 * weight. At most {@link MAX_QUERY_CHARS} characters of context are read — the first 8,000
 * (system prompt and opening) and the last ones (the latest messages) — and at most
 * {@link MAX_QUERY_TERMS} unique terms are kept, so a huge conversation costs bounded time.
 *
 * **Weights.** A registry's idf says how rare a term is among the skills, not how much it says
 * about a request: words of everyday speech (`help`, `find`, `call`, `need`, `time`) are rare in
 * tool descriptions, so one such word in a chatty question used to select a tool by itself. A
 * term among the most frequent words of spoken English (spoken-words.ts, SUBTLEX-US counts) weighs
 * `(ln(rank + 1) − ln 50) / (ln 1000 − ln 50)`,
 * at least {@link SPOKEN_MIN_WEIGHT}; every other term weighs 1.
 */
import type { Bm25Query } from "./bm25-state.js";
import { SPOKEN_WORD_RANKS } from "./spoken-words.js";
import { forEachTerm } from "./text-analysis.js";

/** Characters of context text the ranker reads. */
export const MAX_QUERY_CHARS = 64_000;
/** Characters read from the start of a longer context; the rest come from its end. */
const HEAD_CHARS = 8_000;
/** Unique terms kept. */
export const MAX_QUERY_TERMS = 2_000;

/** Spoken-frequency rank at and above which a term weighs 1. */
export const SPOKEN_FULL_AT = 1_000;
/** Spoken-frequency rank below which a term weighs {@link SPOKEN_MIN_WEIGHT}. */
export const SPOKEN_FULL_FROM = 50;
/** The least weight of a query term. */
export const SPOKEN_MIN_WEIGHT = 0.5;

const SPOKEN_WEIGHTS: ReadonlyMap<string, number> = (() => {
  const out = new Map<string, number>();
  const span = Math.log(SPOKEN_FULL_AT) - Math.log(SPOKEN_FULL_FROM);
  for (const entry of SPOKEN_WORD_RANKS.split(" ")) {
    const at = entry.lastIndexOf(":");
    const rank = Number(entry.slice(at + 1));
    const w = (Math.log(rank + 1) - Math.log(SPOKEN_FULL_FROM)) / span;
    if (w < 1) out.set(entry.slice(0, at), Math.max(SPOKEN_MIN_WEIGHT, w));
  }
  return out;
})();

/** The terms weighing less than 1, with their weights (see the module docs). */
export function weightedTerms(): IterableIterator<[string, number]> {
  return SPOKEN_WEIGHTS.entries();
}

/** The weight of query term `term` (see the module docs): in (0, 1]. */
export function queryTermWeight(term: string): number {
  return SPOKEN_WEIGHTS.get(term) ?? 1;
}

/** The query of a request: its context text and optional background reason. */
export function bm25Query(text: string, reason?: string | null): Bm25Query {
  const read =
    text.length <= MAX_QUERY_CHARS
      ? text
      : `${text.slice(0, HEAD_CHARS)}\n${text.slice(text.length - (MAX_QUERY_CHARS - HEAD_CHARS))}`;
  const seen = new Set<string>();
  const add = (t: string) => {
    if (seen.size < MAX_QUERY_TERMS) seen.add(t);
  };
  forEachTerm(read, add);
  if (reason) forEachTerm(reason.slice(0, HEAD_CHARS), add);
  const terms = [...seen];
  return { terms, weights: terms.map(queryTermWeight) };
}
