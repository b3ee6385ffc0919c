/**
 * The query of the `bm25` ranker for one request (docs/scoring.md#the-bm25-ranker): the unique
 * terms of the request's context text and of the inject call's background reason. At most
 * {@link MAX_QUERY_CHARS} characters of context are read — the first 8,000 (system prompt and
 * opening) and the last ones (the latest messages) — and at most {@link MAX_QUERY_TERMS} unique
 * terms are kept, so a huge conversation costs bounded time.
 */
import type { Bm25Query } from "./bm25-core.js";
import { forEachTerm } from "./text-analysis.js";

/** Characters of context text the ranker reads. */
export const MAX_QUERY_CHARS = 64_000;
/** Characters read from the start of a longer context; the rest come from its end. */
const HEAD_CHARS = 8_000;
/** Unique terms kept. */
export const MAX_QUERY_TERMS = 2_000;

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
  return { terms: [...seen] };
}
