/**
 * The injection index of one registry snapshot (issue 4 performance target): instead of scoring
 * every skill per request, it keeps
 * - an inverted token index (token → candidates with +2 per name token, +1 per description token),
 * - a reason index (token → candidates with +2 per name token, +2 per tag token),
 * - one Aho-Corasick matcher over lowercased names (+6) and tags (+3),
 * - per-provider hint points,
 * so a request costs one pass over its context plus the postings it touches. Only a name's
 * competing version can win (SPEC §2/§3), so only potential winners are indexed. Results equal
 * `scoreAutoSkill` (scoring.ts) exactly; a unit test checks that on random data.
 * Indexes are cached per snapshot (generation and skills array), the last few kept.
 */
import type { RequestProvider } from "../providers/types.js";
import { AhoCorasick } from "./aho-corasick.js";
import {
  AUTO_MIN_SCORE,
  nameTokens,
  normaliseTags,
  providerHintPoints,
  type ScoringContext,
  tokenize,
} from "./scoring.js";
import { SkillLookup, type SkillSource } from "./skill-lookup.js";
import type { Skill } from "./types.js";

interface Postings {
  ids: Int32Array;
  points: Int8Array;
}

class PostingsBuilder {
  private readonly lists = new Map<string, number[]>();
  add(key: string, id: number, points: number): void {
    const list = this.lists.get(key);
    if (list) list.push(id, points);
    else this.lists.set(key, [id, points]);
  }
  build(): Map<string, Postings> {
    const out = new Map<string, Postings>();
    for (const [key, flat] of this.lists) {
      const ids = new Int32Array(flat.length / 2);
      const points = new Int8Array(flat.length / 2);
      for (let i = 0; i < ids.length; i++) {
        ids[i] = flat[2 * i]!;
        points[i] = flat[2 * i + 1]!;
      }
      out.set(key, { ids, points });
    }
    return out;
  }
}

/** A scored auto candidate. */
export interface ScoredSkill {
  skill: Skill;
  score: number;
}

const PROVIDERS: readonly RequestProvider[] = ["openai", "anthropic", "google"];

/** Scoring index plus lookups of one snapshot. */
export class InjectionIndex {
  readonly lookup: SkillLookup;
  /** Potential winners with mode `auto` and a policy the model may trigger. */
  private readonly candidates: Skill[] = [];
  private readonly tokens: Map<string, Postings>;
  private readonly reason: Map<string, Postings>;
  private readonly patterns: Postings[];
  private readonly matcher: AhoCorasick;
  private readonly hints: Record<RequestProvider, Int8Array>;
  /** Potential winners with mode `on` (global, and per owning key). */
  private readonly onGlobal: Skill[] = [];
  private readonly onOwn = new Map<string, Skill[]>();
  private readonly scores: Int32Array;
  private readonly stamp: Uint32Array;
  private query = 0;

  constructor(source: SkillSource) {
    this.lookup = new SkillLookup(source);
    const potential: Skill[] = [...this.lookup.globalWinner.values()];
    for (const own of this.lookup.ownBest.values()) potential.push(...own.values());
    for (const s of potential) {
      if (s.policy === "manual") continue;
      if (s.mode === "auto") this.candidates.push(s);
      else if (s.mode === "on") {
        if (s.apiKeyId === null) this.onGlobal.push(s);
        else {
          const list = this.onOwn.get(s.apiKeyId) ?? [];
          list.push(s);
          this.onOwn.set(s.apiKeyId, list);
        }
      }
    }
    const tokens = new PostingsBuilder();
    const reason = new PostingsBuilder();
    const patternIds = new Map<string, number>();
    const patternLists: number[][] = [];
    const addPattern = (text: string, id: number, points: number) => {
      let pid = patternIds.get(text);
      if (pid === undefined) {
        pid = patternLists.length;
        patternIds.set(text, pid);
        patternLists.push([]);
      }
      patternLists[pid]!.push(id, points);
    };
    this.hints = {
      openai: new Int8Array(this.candidates.length),
      anthropic: new Int8Array(this.candidates.length),
      google: new Int8Array(this.candidates.length),
    };
    this.candidates.forEach((s, id) => {
      const nTokens = nameTokens(s.name);
      const tags = normaliseTags(s.tags);
      const dTokens = new Set(tokenize(s.description));
      const nSet = new Set(nTokens);
      for (const t of new Set([...nTokens, ...dTokens]))
        tokens.add(t, id, (nSet.has(t) ? 2 : 0) + (dTokens.has(t) ? 1 : 0));
      const tagTokens = new Set(tokenize(tags.join(" ")));
      for (const t of new Set([...nTokens, ...tagTokens]))
        reason.add(t, id, (nSet.has(t) ? 2 : 0) + (tagTokens.has(t) ? 2 : 0));
      addPattern(s.name.toLowerCase(), id, 6);
      for (const tag of tags) addPattern(tag, id, 3);
      for (const p of PROVIDERS) this.hints[p][id] = providerHintPoints(tags, p);
    });
    this.tokens = tokens.build();
    this.reason = reason.build();
    this.patterns = patternLists.map((flat) => {
      const ids = new Int32Array(flat.length / 2);
      const points = new Int8Array(flat.length / 2);
      for (let i = 0; i < ids.length; i++) {
        ids[i] = flat[2 * i]!;
        points[i] = flat[2 * i + 1]!;
      }
      return { ids, points };
    });
    this.matcher = new AhoCorasick([...patternIds.keys()]);
    this.scores = new Int32Array(this.candidates.length);
    this.stamp = new Uint32Array(this.candidates.length);
  }

  /** The `on` skills that compete for the caller (their names' winning versions). */
  onSkills(apiKeyId: string | null): Skill[] {
    const out = this.onGlobal.filter((s) => this.lookup.isWinner(s, apiKeyId));
    if (apiKeyId !== null)
      for (const s of this.onOwn.get(apiKeyId) ?? [])
        if (this.lookup.isWinner(s, apiKeyId)) out.push(s);
    return out;
  }

  /**
   * Auto skills competing for the caller with score >= {@link AUTO_MIN_SCORE}, passing `keep`,
   * ordered by score desc, installCount desc, name asc (SPEC §3). Not re-entrant per index.
   */
  rankAuto(
    ctx: ScoringContext,
    apiKeyId: string | null,
    keep: (skill: Skill) => boolean,
  ): ScoredSkill[] {
    this.query = (this.query + 1) >>> 0;
    if (this.query === 0) {
      this.stamp.fill(0);
      this.query = 1;
    }
    const q = this.query;
    const { scores, stamp } = this;
    const touched: number[] = [];
    const add = (p: Postings) => {
      for (let i = 0; i < p.ids.length; i++) {
        const id = p.ids[i]!;
        if (stamp[id] !== q) {
          stamp[id] = q;
          scores[id] = 0;
          touched.push(id);
        }
        scores[id]! += p.points[i]!;
      }
    };
    this.matcher.search(ctx.text, (pid) => add(this.patterns[pid]!));
    for (const t of ctx.tokens) {
      const p = this.tokens.get(t);
      if (p) add(p);
    }
    for (const t of ctx.reasonTokens) {
      const p = this.reason.get(t);
      if (p) add(p);
    }
    const hints = this.hints[ctx.provider];
    const out: ScoredSkill[] = [];
    for (const id of touched) {
      const score = scores[id]! + hints[id]!;
      if (score < AUTO_MIN_SCORE) continue;
      const skill = this.candidates[id]!;
      if (!this.lookup.isWinner(skill, apiKeyId) || !keep(skill)) continue;
      out.push({ skill, score });
    }
    return out.sort(
      (a, b) =>
        b.score - a.score ||
        b.skill.installCount - a.skill.installCount ||
        (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0),
    );
  }
}

const CACHE_SIZE = 4;
const cache: InjectionIndex[] = [];

/**
 * The index of a snapshot, built on first use and cached by generation (and skills array, so two
 * snapshots that reuse a generation number never share an index). Keeps the last few.
 */
export function getInjectionIndex(source: SkillSource): InjectionIndex {
  const hit = cache.find(
    (ix) => ix.lookup.generation === source.generation && ix.lookup.skills === source.skills,
  );
  if (hit) return hit;
  const index = new InjectionIndex(source);
  cache.unshift(index);
  if (cache.length > CACHE_SIZE) cache.pop();
  return index;
}
