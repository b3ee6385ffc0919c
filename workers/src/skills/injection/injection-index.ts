/**
 * The injection index of one registry snapshot (docs/scoring.md#how-the-index-computes-it). Scoring
 * is a sum of per-feature points: context tokens (+2 per name token, +1 per description token),
 * patterns found in the context (+6 verbatim name, +3 per tag, by one Aho-Corasick pass), reason
 * tokens (+2 per name or tag token) and a provider hint. Each feature has a posting list.
 *
 * Short ("rare") postings are added per request. Long ("frequent") ones — words such as "the"
 * that occur in most descriptions — would make every request touch every skill, so they are
 * folded into a static per-skill score `S` (all frequent features present) with a static order
 * by `S + hint`. When a request holds most of the frequent features ("static mode"), a skill's
 * score is `S + hint + gain − loss`, where `loss` (points of its absent frequent features) is
 * computed only for skills whose bound `S + hint + gain` can still enter the top five, and the
 * best skills untouched by rare features are read off the static order until no later one can
 * beat the current fifth (a threshold scan, as in Fagin's threshold algorithm). Otherwise the
 * postings of the present frequent features are added like rare ones. Only a name's competing
 * version can win (docs/registry.md#visibility-and-shadowing), so only potential winners are
 * indexed. Results equal `scoreAutoSkill` (scoring.ts) exactly; a unit test checks that on random
 * data.
 */

import { type SkillSource, type ToolResolver, toolResolverFor } from "../registry/tool-resolver.js";
import type { Skill } from "../types.js";
import { type ScoringCore, scoringCoreFor } from "./injection-core.js";
import type { ScoringContext } from "./scoring.js";

/** A scored auto candidate. */
export interface ScoredSkill {
  skill: Skill;
  score: number;
}

/** Scoring index of one snapshot, over its tool resolver. */
export class InjectionIndex {
  readonly resolver: ToolResolver;
  /** Potential winners with mode `auto` and a policy the model may trigger. */
  private readonly candidates: Skill[] = [];
  private readonly onGlobal: Skill[] = [];
  private readonly onOwn = new Map<string, Skill[]>();
  private readonly core: ScoringCore;

  constructor(resolver: ToolResolver) {
    this.resolver = resolver;
    for (const s of resolver.potentialWinners()) {
      if (s.policy === "manual") continue;
      if (s.mode === "auto") this.candidates.push(s);
      else if (s.mode === "on" && s.apiKeyId === null) this.onGlobal.push(s);
      else if (s.mode === "on" && s.apiKeyId !== null)
        this.onOwn.set(s.apiKeyId, [...(this.onOwn.get(s.apiKeyId) ?? []), s]);
    }
    this.core = scoringCoreFor(this.candidates);
  }

  /** The `on` skills that compete for the caller (their names' winning versions). */
  onSkills(apiKeyId: string | null): Skill[] {
    const out = this.onGlobal.filter((s) => this.resolver.isWinner(s, apiKeyId));
    if (apiKeyId !== null)
      for (const s of this.onOwn.get(apiKeyId) ?? [])
        if (this.resolver.isWinner(s, apiKeyId)) out.push(s);
    return out;
  }

  /**
   * The best `k` auto skills competing for the caller with score >= AUTO_MIN_SCORE and passing
   * `keep`, ordered by score desc, installCount desc, name asc (docs/scoring.md#selection). `keep`
   * and the winner check run only for skills that would enter the top `k`.
   */
  topAuto(
    ctx: ScoringContext,
    apiKeyId: string | null,
    keep: (skill: Skill) => boolean,
    k: number,
  ): ScoredSkill[] {
    const { candidates, resolver } = this;
    const accept = (id: number) =>
      resolver.isWinner(candidates[id]!, apiKeyId) && keep(candidates[id]!);
    return this.core
      .top(ctx, k, accept)
      .map(({ id, score }) => ({ skill: candidates[id]!, score }));
  }
}

const indexes = new WeakMap<ToolResolver, InjectionIndex>();

/**
 * The index of a snapshot, built on first use and kept as long as the snapshot's resolver is
 * cached ({@link toolResolverFor}: the last few generations). Its scoring core is shared with
 * earlier snapshots whose candidates are unchanged.
 */
export function getInjectionIndex(source: SkillSource): InjectionIndex {
  const resolver = toolResolverFor(source);
  let index = indexes.get(resolver);
  if (!index) {
    index = new InjectionIndex(resolver);
    indexes.set(resolver, index);
  }
  return index;
}
