/**
 * The injection index of one registry snapshot (docs/scoring.md#how-the-index-computes-it). Scoring
 * is a sum of per-feature points: context tokens (+2 per name token, +1 per description token),
 * patterns found in the context (+6 verbatim name, +3 per tag, by one pass of a substring table
 * over the text, plus a second table for patterns added since the index was built), reason tokens
 * (+2 per name or tag token) and a provider hint. Each feature has a posting list.
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
 * indexed. Results equal `scoreAutoSkill` (scoring.ts) exactly; unit tests check that on random
 * data, and that an index updated change by change answers as one built from scratch.
 *
 * A snapshot derived from the previous one by a few changes (a registry write) gets its index
 * derived from the previous index (docs/scoring.md#keeping-the-index-current): only the changed
 * skills are removed from and added to the scoring core, and the tool resolver is derived too.
 */

import type { LayeredMap } from "../registry/layered-map.js";
import {
  cachedToolResolver,
  rememberToolResolver,
  type SkillSource,
  type SourceChange,
  type ToolResolver,
  toolResolverFor,
} from "../registry/tool-resolver.js";
import type { Skill } from "../types.js";
import { type Bm25Part, bm25PartFor, slotsOf } from "./bm25-part.js";
import type { InjectionIndexCache } from "./index-cache.js";
import { ScoringCore } from "./injection-core.js";
import { fingerprintKey, fingerprintOf } from "./injection-fingerprint.js";
import { deriveCore } from "./injection-update.js";
import type { Bm25Core } from "./rankers/bm25-core.js";
import { bm25Key, deriveBm25Key } from "./rankers/bm25-fingerprint.js";
import { scoreSkill } from "./rankers/bm25-score.js";
import type { Bm25Query } from "./rankers/bm25-state.js";
import type { ScoringContext } from "./scoring.js";

/** A scored auto candidate. */
export interface ScoredSkill {
  skill: Skill;
  score: number;
}

/** True for a potential winner that competes by score (mode `auto`, callable by the model). */
const isCandidate = (s: Skill) => s.mode === "auto" && s.policy !== "manual";
/** True for a potential winner that is always injected (mode `on`, callable by the model). */
const isOn = (s: Skill) => s.mode === "on" && s.policy !== "manual";

/** The resolver and candidates of a snapshot, before its scoring core is chosen. */
export interface IndexPlan {
  resolver: ToolResolver;
  candidates: Skill[];
  onGlobal: Skill[];
  onOwn: Map<string, Skill[]>;
  /** Fingerprint key of the candidates (see injection-core.ts). */
  key: string;
  /** Fingerprint key of the candidates for the `bm25` ranker (rankers/bm25-fingerprint.ts). */
  bm25Key: string;
}

interface Parts {
  resolver: ToolResolver;
  core: ScoringCore;
  slotSkill: (Skill | undefined)[];
  slotOf: LayeredMap<string, number>;
  onGlobal: readonly Skill[];
  onOwn: ReadonlyMap<string, readonly Skill[]>;
  bm25: Bm25Part;
}

/** Scoring index of one snapshot, over its tool resolver. */
export class InjectionIndex {
  readonly resolver: ToolResolver;
  readonly core: ScoringCore;
  /** The candidate in each core slot. */
  private readonly slotSkill: (Skill | undefined)[];
  /** Candidate skill id → core slot. */
  private readonly slotOf: LayeredMap<string, number>;
  private readonly onGlobal: readonly Skill[];
  private readonly onOwn: ReadonlyMap<string, readonly Skill[]>;
  private readonly bm25: Bm25Part;

  private constructor(p: Parts) {
    this.bm25 = p.bm25;
    this.resolver = p.resolver;
    this.core = p.core;
    this.slotSkill = p.slotSkill;
    this.slotOf = p.slotOf;
    this.onGlobal = p.onGlobal;
    this.onOwn = p.onOwn;
  }

  /**
   * The first half of a build from scratch: the resolver and the candidates of `source`, and the
   * fingerprint key a scoring core for them must have.
   */
  static plan(source: SkillSource): IndexPlan {
    const resolver = toolResolverFor(source);
    const candidates: Skill[] = [];
    const onGlobal: Skill[] = [];
    const onOwn = new Map<string, Skill[]>();
    for (const s of resolver.potentialWinners()) {
      if (isCandidate(s)) candidates.push(s);
      else if (isOn(s) && s.apiKeyId === null) onGlobal.push(s);
      else if (isOn(s) && s.apiKeyId !== null)
        onOwn.set(s.apiKeyId, [...(onOwn.get(s.apiKeyId) ?? []), s]);
    }
    const key = fingerprintKey(fingerprintOf(candidates));
    return { resolver, candidates, onGlobal, onOwn, key, bm25Key: bm25Key(candidates) };
  }

  /**
   * Finishes a build: the scoring core is taken from `given` (e.g. one loaded from the KV-style
   * cache) or `cache` when its fingerprint and slot ids match the candidates; otherwise it is
   * built. The cores used are kept in `cache`.
   */
  static fromPlan(
    plan: IndexPlan,
    cache?: InjectionIndexCache,
    given?: ScoringCore,
    givenBm25?: Bm25Core,
  ): InjectionIndex {
    const { resolver, candidates, onGlobal, onOwn, key } = plan;
    const bm25 = bm25PartFor(candidates, plan.bm25Key, cache, givenBm25);
    const byId = new Map(candidates.map((s) => [s.id, s]));
    for (const core of [given, cache?.core(key)]) {
      if (!core || core.key !== key) continue;
      const slotSkill = core.state.slotIds.map((id) => (id === null ? undefined : byId.get(id)));
      if (slotSkill.filter((s) => s !== undefined).length !== candidates.length) continue;
      cache?.rememberCore(core);
      return new InjectionIndex({
        resolver,
        core,
        slotSkill,
        slotOf: slotsOf(slotSkill),
        onGlobal,
        onOwn,
        bm25,
      });
    }
    const core = ScoringCore.build(candidates);
    cache?.rememberCore(core);
    return new InjectionIndex({
      resolver,
      core,
      slotSkill: candidates.slice(),
      slotOf: slotsOf(candidates),
      onGlobal,
      onOwn,
      bm25,
    });
  }

  /** Builds the index of `source` from scratch ({@link plan}, then {@link fromPlan}). */
  static build(
    source: SkillSource,
    cache?: InjectionIndexCache,
    given?: ScoringCore,
    givenBm25?: Bm25Core,
  ): InjectionIndex {
    return InjectionIndex.fromPlan(InjectionIndex.plan(source), cache, given, givenBm25);
  }

  /** The `bm25` ranker's scoring core. */
  get bm25Core(): Bm25Core {
    return this.bm25.core;
  }

  /**
   * The index of `source`, derived from this one (the index of `source.change.from`); the new
   * cores are kept in `cache`.
   * @returns undefined when the scoring core cannot be derived (it was derived from already).
   */
  derive(
    source: SkillSource & { change: SourceChange },
    cache?: InjectionIndexCache,
  ): InjectionIndex | undefined {
    const resolver =
      cachedToolResolver(source) ?? rememberToolResolver(this.resolver.derive(source));
    const { upserted, replaced } = source.change;
    const gone: Skill[] = [];
    const come: Skill[] = [];
    const seen = new Set<string>();
    for (const s of [...replaced, ...upserted]) {
      for (const owner of [null, s.apiKeyId]) {
        const pair = `${owner}\n${s.name}`;
        if (seen.has(pair)) continue;
        seen.add(pair);
        const was = this.resolver.winnersFor(s.name, owner);
        const now = resolver.winnersFor(s.name, owner);
        if (was === now) continue;
        if (was) gone.push(was);
        if (now) come.push(now);
      }
    }
    const removed = gone
      .filter(isCandidate)
      .map((s) => ({ slot: this.slotOf.get(s.id)!, candidate: s }));
    const added = come.filter(isCandidate);
    const derived = deriveCore(this.core, { removed, added });
    if (!derived) return undefined;
    const slotSkill = this.slotSkill.slice();
    const moves: [string, number | undefined][] = [];
    for (const r of removed) {
      slotSkill[r.slot] = undefined;
      moves.push([r.candidate.id, undefined]);
    }
    added.forEach((s, i) => {
      slotSkill[derived.slots[i]!] = s;
      moves.push([s.id, derived.slots[i]!]);
    });
    const slotOf = this.slotOf.with(moves);
    const goneOn = new Set(gone.filter(isOn));
    const comeOn = come.filter(isOn);
    const onGlobal = this.onGlobal.filter((s) => !goneOn.has(s));
    const onOwn = new Map(this.onOwn);
    for (const s of goneOn) {
      if (s.apiKeyId === null) continue;
      const left = (onOwn.get(s.apiKeyId) ?? []).filter((x) => x !== s);
      if (left.length) onOwn.set(s.apiKeyId, left);
      else onOwn.delete(s.apiKeyId);
    }
    for (const s of comeOn) {
      if (s.apiKeyId === null) onGlobal.push(s);
      else onOwn.set(s.apiKeyId, [...(onOwn.get(s.apiKeyId) ?? []), s]);
    }
    cache?.rememberCore(derived.core);
    const bm25 = this.deriveBm25(gone.filter(isCandidate), added, cache);
    return new InjectionIndex({
      resolver,
      core: derived.core,
      slotSkill,
      slotOf,
      onGlobal,
      onOwn,
      bm25,
    });
  }

  /** The `bm25` part after the candidates `gone` left and `come` entered. */
  private deriveBm25(
    gone: readonly Skill[],
    come: readonly Skill[],
    cache: InjectionIndexCache | undefined,
  ): Bm25Part {
    const prev = this.bm25;
    const key = deriveBm25Key(prev.core.key, gone, come);
    const removed = gone.map((s) => ({ slot: prev.slotOf.get(s.id)!, candidate: s }));
    const derived = prev.core.derive({ removed, added: come }, key);
    if (!derived) {
      const candidates = prev.slotSkill.filter(
        (s): s is Skill => s !== undefined && !gone.includes(s),
      );
      return bm25PartFor([...candidates, ...come], key, cache);
    }
    const slotSkill = prev.slotSkill.slice();
    const moves: [string, number | undefined][] = [];
    for (const r of removed) {
      slotSkill[r.slot] = undefined;
      moves.push([r.candidate.id, undefined]);
    }
    come.forEach((s, i) => {
      slotSkill[derived.slots[i]!] = s;
      moves.push([s.id, derived.slots[i]!]);
    });
    cache?.rememberBm25(derived.core);
    return { core: derived.core, slotSkill, slotOf: prev.slotOf.with(moves) };
  }

  /**
   * The best `k` auto skills competing for the caller by the `bm25` ranker, reaching its gate (or
   * `gateShare` of it) and passing `keep`, ordered by score desc, installCount desc, name asc
   * (docs/scoring.md#the-bm25-ranker).
   */
  topBm25(
    query: Bm25Query,
    apiKeyId: string | null,
    keep: (skill: Skill) => boolean,
    k: number,
    gateShare = 1,
  ): ScoredSkill[] {
    const { slotSkill } = this.bm25;
    const accept = (slot: number) => {
      const s = slotSkill[slot];
      return s !== undefined && this.resolver.isWinner(s, apiKeyId) && keep(s);
    };
    return this.bm25.core
      .top(query, k, accept, gateShare)
      .map(({ id, score }) => ({ skill: slotSkill[id]!, score }));
  }

  /** The AUTO candidate of the `bm25` ranker with id `skillId`, if it is one. */
  bm25Candidate(skillId: string): Skill | undefined {
    const slot = this.bm25.slotOf.get(skillId);
    return slot === undefined ? undefined : this.bm25.slotSkill[slot];
  }

  /** The `bm25` ranker's gate and its number of candidates (docs/scoring.md#the-bm25-ranker). */
  bm25Shape(): { gate: number; candidates: number } {
    return { gate: this.bm25.core.gate(), candidates: this.bm25.core.size };
  }

  /** The `bm25` score of any skill for `query` (no gate), e.g. an included version. */
  bm25Score(query: Bm25Query, skill: Skill): number {
    return scoreSkill(this.bm25.core, query, skill);
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
    const { slotSkill, resolver } = this;
    const accept = (slot: number) => {
      const s = slotSkill[slot];
      return s !== undefined && resolver.isWinner(s, apiKeyId) && keep(s);
    };
    return this.core.top(ctx, k, accept).map(({ id, score }) => ({ skill: slotSkill[id]!, score }));
  }
}
