/**
 * The `bm25` score of one skill, written out from the formulas (docs/scoring.md#the-bm25-ranker):
 * for a skill that may not be one of a core's candidates (an `include`d version), and as the
 * reference the index's fast path is tested against.
 */
import type { Skill } from "../../types.js";
import type { Bm25Core } from "./bm25-core.js";
import { FIELD_COUNT, fieldTerms } from "./bm25-fields.js";
import { type Bm25Query, countTerms, MAX_TF, quantised, TF_BITS } from "./bm25-state.js";

/**
 * The score `skill` would get from `core` for `query` (no gate), for a skill that may not be one
 * of the core's candidates (e.g. an `include`d version): its own field lengths against the
 * core's averages and idf. Equals the score {@link Bm25Core.top} gives a candidate.
 */
export function scoreSkill(core: Bm25Core, query: Bm25Query, skill: Skill): number {
  const { state, params } = core;
  const { counts, lens } = countTerms(skill);
  const n = quantised(Math.max(state.n, 1));
  const norm: number[] = [];
  for (let f = 0; f < FIELD_COUNT; f++) {
    const avg = state.n > 0 && state.totals[f]! > 0 ? quantised(state.totals[f]! / state.n) : 1;
    const b = params.b[f]!;
    norm.push(params.weights[f]! / (1 - b + (b * lens[f]!) / avg));
  }
  const idfOf = (term: string) => {
    const id = state.dict.get(term);
    const df =
      id === undefined || id >= state.post.length ? 0 : (state.post[id]?.slots.length ?? 0);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  // A term's weight is that of its first occurrence in the query, as in Bm25Core.top.
  const inQuery = new Map<string, number>();
  query.terms.forEach((t, i) => {
    if (!inQuery.has(t)) inQuery.set(t, query.weights ? query.weights[i]! : 1);
  });
  let score = 0;
  // In the skill's own term order, as the index scores from a slot's forward list.
  for (const [term, v] of counts) {
    const qw = inQuery.get(term);
    if (qw === undefined) continue;
    let tf = 0;
    for (let f = 0; f < FIELD_COUNT; f++) tf += ((v >>> (f * TF_BITS)) & MAX_TF) * norm[f]!;
    score += (qw * idfOf(term) * tf) / (params.k1 + tf);
  }
  const names = new Set(fieldTerms(skill)[0]);
  let total = 0;
  let got = 0;
  for (const t of names) {
    const w = idfOf(t);
    total += w;
    const qw = inQuery.get(t);
    if (qw !== undefined) got += w * Math.min(1, qw);
  }
  if (total > 0 && params.coverage > 0) score += (params.coverage * got) / total;
  return score;
}
