/**
 * Learning from traffic (docs/scoring.md#learning-from-traffic): when a model calls a skill that
 * was injected (or found by `skill_search`), the hashed features of the request that led to it
 * are recorded for the caller's key; the `bm25` ranker then adds what was learned to the skill's
 * score, so the next similar request offers it directly.
 *
 * Scopes: each key learns for itself (scope `key:<id>`). What a key learns about a global skill
 * is also recorded in the shared scope `*` only when the operator allows it (`shareGlobal`);
 * a key's ranking reads its own scope, plus `*` for global skills when sharing is on, so one
 * key's traffic never changes another key's picks otherwise. Management acting globally (no key)
 * learns into `*`.
 *
 * An inject is linked to the later calls of its answer through the cache: inject stores its
 * features under the id it returns (`selectionId`) and under the request's `sessionId`, for
 * {@link LINK_TTL_S} seconds, and intercept finds them by either. Models are loaded per scope
 * from the store and reloaded after `reloadMs`; a call updates this instance's model at once
 * and writes its rows through the store (batched with the execution rows).
 */
import type { Cache } from "../../cache/types.js";
import { isFeatureList } from "./features.js";
import {
  LearnedModel,
  type LearnedRow,
  type LearningParams,
  type RecordedCall,
} from "./learned-model.js";

/** How a called skill reached the model. */
export type LearningSource = "injected" | "searched";

/** The shared scope of global skills. */
export const GLOBAL_SCOPE = "*";
/** Seconds an inject's link (its features and picks) stays in the cache. */
export const LINK_TTL_S = 600;

/** Where learned rows live (the `skill_learning` table). */
export interface LearningStore {
  /** Every row of `scope`. */
  load(scope: string): Promise<LearnedRow[]>;
  /** Writes one recorded call of `scope` (upserts, and deletes of evicted features). */
  write(scope: string, call: RecordedCall): Promise<void>;
  /** Deletes up to `limit` rows last updated before `before` (ms). @returns how many went. */
  deleteBefore(before: number, limit: number): Promise<number>;
}

/** A store that keeps nothing: for a tools service built without learning (benchmarks, tests). */
export const NO_LEARNING_STORE: LearningStore = {
  load: async () => [],
  write: async () => {},
  deleteBefore: async () => 0,
};

/** Rows deleted per statement by retention. */
export const RETENTION_BATCH = 500;

/** What an inject left for the calls that follow it. */
export interface SelectionLink {
  /** The request's hashed features. */
  features: number[];
  /** Ids of the AUTO skills it injected. */
  injected: string[];
  /** Ids of the skills `skill_search` found for it since. */
  searched: string[];
}

/** The skill a call ran: its id and owner (null = global). */
export interface LearnedSkill {
  id: string;
  apiKeyId: string | null;
}

/** Options of {@link SelectionLearning}. */
export interface SelectionLearningOptions {
  store: LearningStore;
  cache: Cache;
  params: LearningParams;
  /** The off switch: false → nothing is recorded, linked or read. */
  enabled: boolean;
  /** Whether keys' calls of global skills teach every key (scope `*`). */
  shareGlobal: boolean;
  clock: () => number;
  /** ms after which a scope's model is reloaded from the store (default 60 000). */
  reloadMs?: number;
}

interface Loaded {
  model: LearnedModel;
  at: number;
}

/** The scope a key learns in. */
export function scopeOf(apiKeyId: string | null): string {
  return apiKeyId === null ? GLOBAL_SCOPE : `key:${apiKeyId}`;
}

function isIdList(v: unknown): v is string[] {
  return Array.isArray(v) && v.length <= 400 && v.every((s) => typeof s === "string");
}

/** Records calls and answers learned scores, per scope. */
export class SelectionLearning {
  private readonly models = new Map<string, Promise<Loaded>>();
  private readonly reloadMs: number;

  constructor(private readonly opts: SelectionLearningOptions) {
    this.reloadMs = opts.reloadMs ?? 60_000;
  }

  /** Whether learning is on. */
  get enabled(): boolean {
    return this.opts.enabled;
  }

  private model(scope: string): Promise<LearnedModel> {
    const now = this.opts.clock();
    let entry = this.models.get(scope);
    if (entry) {
      const current = entry;
      return current.then((l) => {
        if (now - l.at < this.reloadMs) return l.model;
        if (this.models.get(scope) === current) this.models.delete(scope);
        return this.model(scope);
      });
    }
    entry = this.opts.store.load(scope).then((rows) => ({
      model: LearnedModel.fromRows(rows, this.opts.params, this.opts.clock()),
      at: now,
    }));
    entry.catch(() => {
      if (this.models.get(scope) === entry) this.models.delete(scope);
    });
    this.models.set(scope, entry);
    return entry.then((l) => l.model);
  }

  /** The scopes a key's ranking reads. */
  private readScopes(apiKeyId: string | null): string[] {
    if (apiKeyId === null) return [GLOBAL_SCOPE];
    return this.opts.shareGlobal ? [scopeOf(apiKeyId), GLOBAL_SCOPE] : [scopeOf(apiKeyId)];
  }

  /**
   * The learned score of each skill for a request's `features` (skill id → score ≥ 0; skills
   * that learned none of them are absent). For `*`, only global skills count (`isGlobal`).
   * @param candidates the number of AUTO candidates (the idf's N).
   */
  async scores(
    apiKeyId: string | null,
    features: readonly number[],
    candidates: number,
    isGlobal: (skillId: string) => boolean,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!this.opts.enabled || features.length === 0) return out;
    const now = this.opts.clock();
    for (const scope of this.readScopes(apiKeyId)) {
      const model = await this.model(scope);
      if (model.skills === 0) continue;
      if (scope === GLOBAL_SCOPE && apiKeyId !== null) {
        const shared = new Map<string, number>();
        model.addScores(features, candidates, now, shared);
        for (const [id, v] of shared) if (isGlobal(id)) out.set(id, (out.get(id) ?? 0) + v);
      } else model.addScores(features, candidates, now, out);
    }
    return out;
  }

  /**
   * Records that a model called `skill` after a request with `features` — the one call every
   * door makes (interception, the proxy, MCP, `skill_search`). Nothing happens when learning is
   * off or there are no features. @param source how the skill reached the model (for the
   * caller's counters; both teach alike). @throws what the store throws for the write.
   */
  async learn(
    apiKeyId: string | null,
    skill: LearnedSkill,
    features: readonly number[],
    _source: LearningSource,
  ): Promise<void> {
    if (!this.opts.enabled || features.length === 0) return;
    const scopes = [scopeOf(apiKeyId)];
    if (apiKeyId !== null && skill.apiKeyId === null && this.opts.shareGlobal) {
      scopes.push(GLOBAL_SCOPE);
    }
    const writes: Promise<void>[] = [];
    for (const scope of scopes) {
      const model = await this.model(scope);
      writes.push(
        this.opts.store.write(scope, model.record(skill.id, features, this.opts.clock())),
      );
    }
    await Promise.all(writes);
  }

  private linkKey(apiKeyId: string | null, id: string): string {
    return `learn:link:${scopeOf(apiKeyId)}:${id}`;
  }

  /** Stores `link` under each of `ids` (a selection id, a session id) for {@link LINK_TTL_S}. */
  async link(apiKeyId: string | null, ids: readonly string[], link: SelectionLink): Promise<void> {
    if (!this.opts.enabled) return;
    const value = { f: link.features, i: link.injected, s: link.searched };
    await Promise.all(
      ids.map((id) => this.opts.cache.put(this.linkKey(apiKeyId, id), value, LINK_TTL_S)),
    );
  }

  /** The link stored under the first of `ids` that has one, if any. */
  async linked(
    apiKeyId: string | null,
    ids: readonly string[],
  ): Promise<SelectionLink | undefined> {
    if (!this.opts.enabled) return undefined;
    for (const id of ids) {
      const v = await this.opts.cache.get<{ f?: unknown; i?: unknown; s?: unknown }>(
        this.linkKey(apiKeyId, id),
      );
      if (v && isFeatureList(v.f) && isIdList(v.i) && isIdList(v.s)) {
        return { features: v.f, injected: v.i, searched: v.s };
      }
    }
    return undefined;
  }

  /**
   * Retention, as for executions (docs/scoring.md#learning-from-traffic): deletes what was last
   * learned more than `retentionDays` days before `now`; nothing when `retentionDays` is 0.
   * @param maxBatches most delete statements (the Worker's cron bounds its work). @returns rows deleted.
   */
  async applyRetention(retentionDays: number, now: number, maxBatches = 1_000): Promise<number> {
    if (retentionDays <= 0) return 0;
    const before = now - retentionDays * 86_400_000;
    let deleted = 0;
    for (let i = 0; i < maxBatches; i++) {
      const n = await this.opts.store.deleteBefore(before, RETENTION_BATCH);
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    if (deleted > 0) this.reset();
    return deleted;
  }

  /** Drops this instance's models, so the next read loads them from the store. */
  reset(): void {
    this.models.clear();
  }
}
