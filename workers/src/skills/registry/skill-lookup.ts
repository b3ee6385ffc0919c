/**
 * Per-snapshot lookups over every skill of the registry (all owners): which skill a
 * `name@version` or an emitted hash name means for a caller, which builtin a name or alias
 * means, and which version of a name competes for injection
 * (docs/registry.md#visibility-and-shadowing, docs/tool-names.md).
 * Built once per registry snapshot generation (see injection-index.ts for the cache).
 */
import { emittedToolName, refHash } from "../injection/tool-names.js";
import type { Skill } from "../types.js";
import { resolveVersion } from "./versions.js";

/** The registry view lookups are built from: every skill row, and the snapshot generation. */
export interface SkillSource {
  readonly generation: number;
  readonly skills: readonly Skill[];
}

/** Numeric comparison of two `MAJOR.MINOR.PATCH` versions. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < 3; i++) {
    const d = Number(pa[i] ?? 0) - Number(pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Active = may be injected or executed at all: `enabled` and mode not `off` (docs/policies.md). */
export function isActive(skill: Skill): boolean {
  return skill.enabled && skill.mode !== "off";
}

/** True for a builtin skill (global, `sourceProvider: "builtin"`). */
export function isBuiltin(skill: Skill): boolean {
  return skill.sourceProvider === "builtin" && skill.apiKeyId === null;
}

function pickForCaller(
  list: readonly Skill[] | undefined,
  apiKeyId: string | null,
): Skill | undefined {
  if (!list) return undefined;
  let global: Skill | undefined;
  for (const s of list) {
    if (s.apiKeyId === null) global ??= s;
    else if (apiKeyId !== null && s.apiKeyId === apiKeyId) return s;
  }
  return global;
}

/** Resolution maps of one snapshot. */
export class SkillLookup {
  readonly generation: number;
  readonly skills: readonly Skill[];
  private readonly byRef = new Map<string, Skill[]>();
  /** Built on the first hash-form lookup (most requests never need it). */
  private byHash: Map<string, Skill[]> | null = null;
  /** name → every skill of that name, any owner; built on the first version listing. */
  private byName: Map<string, Skill[]> | null = null;
  private readonly builtins = new Map<string, Skill>();
  /** Emitted tool name of every skill, by skill id. */
  private readonly toolNames = new Map<string, string>();
  /** name → highest active global version. */
  readonly globalWinner = new Map<string, Skill>();
  /** apiKeyId → name → highest active version the key owns. */
  readonly ownBest = new Map<string, Map<string, Skill>>();

  constructor(source: SkillSource) {
    this.generation = source.generation;
    this.skills = source.skills;
    for (const s of source.skills) {
      const ref = `${s.name}@${s.version}`;
      push(this.byRef, ref, s);
      if (isBuiltin(s)) {
        const cur = this.builtins.get(s.name);
        if (!cur || compareVersions(s.version, cur.version) > 0) this.builtins.set(s.name, s);
      }
      if (!isActive(s)) continue;
      if (s.apiKeyId === null) {
        const cur = this.globalWinner.get(s.name);
        if (!cur || compareVersions(s.version, cur.version) > 0) this.globalWinner.set(s.name, s);
      } else {
        let own = this.ownBest.get(s.apiKeyId);
        if (!own) {
          own = new Map();
          this.ownBest.set(s.apiKeyId, own);
        }
        const cur = own.get(s.name);
        if (!cur || compareVersions(s.version, cur.version) > 0) own.set(s.name, s);
      }
    }
  }

  /** The emitted tool name of `skill` (memoised per snapshot). */
  toolName(skill: Skill): string {
    let name = this.toolNames.get(skill.id);
    if (name === undefined) {
      name = emittedToolName(skill);
      this.toolNames.set(skill.id, name);
    }
    return name;
  }

  /** `name@version` as the caller sees it: the key's own skill shadows a global one. Any mode. */
  resolveRef(name: string, version: string, apiKeyId: string | null): Skill | undefined {
    return pickForCaller(this.byRef.get(`${name}@${version}`), apiKeyId);
  }

  /** The skill whose hash-form tool name carries `hash`, as the caller sees it. */
  resolveHash(hash: string, apiKeyId: string | null): Skill | undefined {
    if (!this.byHash) {
      this.byHash = new Map();
      for (const s of this.skills) push(this.byHash, refHash(s.name, s.version), s);
    }
    return pickForCaller(this.byHash.get(hash), apiKeyId);
  }

  /**
   * Versions of `name` the caller sees, any mode, highest first: global ones and the key's own
   * (the key's own shadows a global skill of the same `name@version`). Empty when `name` is
   * not registered for the caller.
   */
  visibleVersions(name: string, apiKeyId: string | null): Skill[] {
    if (!this.byName) {
      this.byName = new Map();
      for (const s of this.skills) push(this.byName, s.name, s);
    }
    const byVersion = new Map<string, Skill>();
    for (const s of this.byName.get(name) ?? []) {
      if (s.apiKeyId !== null && s.apiKeyId !== apiKeyId) continue;
      const cur = byVersion.get(s.version);
      if (!cur || (cur.apiKeyId === null && s.apiKeyId !== null)) byVersion.set(s.version, s);
    }
    return [...byVersion.values()].sort((a, b) => compareVersions(b.version, a.version));
  }

  /**
   * The highest version of `name` visible to the caller that satisfies `constraint` (versions.ts
   * syntax: `^1.0.0`, `>=1.1.0`, `latest`, ...), any mode; undefined when none does.
   */
  resolveConstraint(name: string, constraint: string, apiKeyId: string | null): Skill | undefined {
    const versions = this.visibleVersions(name, apiKeyId);
    const version = resolveVersion(
      versions.map((s) => s.version),
      constraint,
    );
    return version === null ? undefined : versions.find((s) => s.version === version);
  }

  /** The builtin named `name` (highest version), any mode. */
  builtin(name: string): Skill | undefined {
    return this.builtins.get(name);
  }

  /**
   * The version of `name` that competes for injection for a caller: the highest active version
   * visible to it, the key's own winning ties (docs/registry.md#visibility-and-shadowing).
   */
  winner(name: string, apiKeyId: string | null): Skill | undefined {
    const own = apiKeyId === null ? undefined : this.ownBest.get(apiKeyId)?.get(name);
    const global = this.globalWinner.get(name);
    if (own && (!global || compareVersions(own.version, global.version) >= 0)) return own;
    return global;
  }

  /** True when `skill` is the competing version of its name for the caller. */
  isWinner(skill: Skill, apiKeyId: string | null): boolean {
    if (skill.apiKeyId !== null && skill.apiKeyId !== apiKeyId) return false;
    return this.winner(skill.name, apiKeyId) === skill;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
