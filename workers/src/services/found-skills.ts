/**
 * The skills `skill_search` found in one session (docs/scoring.md#skill-search), kept in the
 * KV-style cache per caller key and `sessionId` so that the next inject of the session offers
 * them. Bounded: at most {@link FOUND_SKILLS_MAX} skills per session (the latest searches win),
 * kept {@link FOUND_SKILLS_TTL_S} seconds after the last search. The session id is stored only as
 * a SHA-256 hash in the cache key; an entry holds skill references and the query's analysed
 * terms (stemmed words, never the query text).
 *
 * Two searches of one session racing on two instances may keep only one of their results (the
 * cache has no compare-and-set); the model can search again.
 */
import { sha256Hex } from "../auth/crypto.js";
import type { Cache } from "../cache/types.js";

/** Most skills remembered per key and session. */
export const FOUND_SKILLS_MAX = 20;
/** Seconds a session's found skills are kept after its last search. */
export const FOUND_SKILLS_TTL_S = 3_600;
/** Most query terms kept per found skill (for the learning signal). */
export const FOUND_TERMS_MAX = 16;

/** One found skill: `name@version` and the terms of the query that found it. */
export interface FoundEntry {
  skill: string;
  terms: readonly string[];
}

function isEntry(value: unknown): value is FoundEntry {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.skill === "string" &&
    Array.isArray(v.terms) &&
    v.terms.every((t) => typeof t === "string")
  );
}

/** Reads and adds the found skills of a key's session. */
export class FoundSkillsStore {
  constructor(private readonly cache: Cache) {}

  private async keyOf(apiKeyId: string | null, sessionId: string): Promise<string> {
    return `skill-search:v1:${apiKeyId ?? "-"}:${await sha256Hex(sessionId)}`;
  }

  /** The session's found skills, latest first ([] when none or expired). */
  async get(apiKeyId: string | null, sessionId: string): Promise<FoundEntry[]> {
    const value = await this.cache.get<unknown>(await this.keyOf(apiKeyId, sessionId));
    return Array.isArray(value) ? value.filter(isEntry).slice(0, FOUND_SKILLS_MAX) : [];
  }

  /**
   * Puts `found` in front of the session's list (a skill found again moves to the front), keeps
   * the first {@link FOUND_SKILLS_MAX} and restarts the TTL. Nothing is written for an empty list.
   */
  async add(apiKeyId: string | null, sessionId: string, found: readonly FoundEntry[]) {
    if (found.length === 0) return;
    const key = await this.keyOf(apiKeyId, sessionId);
    const before = await this.get(apiKeyId, sessionId);
    const fresh = new Set(found.map((f) => f.skill));
    const next = [
      ...found.map((f) => ({ skill: f.skill, terms: f.terms.slice(0, FOUND_TERMS_MAX) })),
      ...before.filter((f) => !fresh.has(f.skill)),
    ].slice(0, FOUND_SKILLS_MAX);
    await this.cache.put(key, next, FOUND_SKILLS_TTL_S);
  }
}
