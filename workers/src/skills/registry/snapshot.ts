/**
 * An immutable in-memory view of every skill in the registry (all owners), indexed for the hot
 * paths: lookup by id, by name, visibility per API key, version resolution (docs/registry.md).
 * A new snapshot (with a new `generation`) is built after every load, or derived from the current
 * one after a write ({@link RegistrySnapshot.apply}) or a reload that found a few changes
 * ({@link RegistrySnapshot.reload}); a derived snapshot records its change, so that indexes built
 * on top of it (the injection index) are updated rather than rebuilt
 * (docs/scoring.md#keeping-the-index-current).
 */
import semver from "semver";
import type { InjectionIndexCache } from "../injection/index-cache.js";
import type { Skill } from "../types.js";
import { LayeredMap } from "./layered-map.js";
import type { SkillSource, SourceChange } from "./tool-resolver.js";
import { resolveVersion } from "./versions.js";

let nextGeneration = 1;
const NO_SKILLS: readonly Skill[] = [];

/** Highest version first; within a version, a key's own skill before the global one. */
const byVersion = (a: Skill, b: Skill) =>
  semver.rcompare(a.version, b.version) || ownerRank(a) - ownerRank(b);

/** Immutable registry view. */
export class RegistrySnapshot implements SkillSource {
  /** Increases with every snapshot built in this process. */
  readonly generation: number;
  readonly skills: readonly Skill[];
  /** Set on a snapshot derived from another by a few changes. */
  readonly change?: SourceChange;
  /** The registry's injection index cache; derived snapshots keep it. */
  readonly indexCache?: InjectionIndexCache;
  private readonly byId: LayeredMap<string, Skill>;
  /** name → skills of every owner, highest version first. */
  private readonly byName: LayeredMap<string, readonly Skill[]>;
  private sorted: Skill[] | null = null;

  /**
   * @param skills every skill row of the registry, any order.
   * @param indexCache where the injection indexes of this snapshot and its derived ones are kept.
   */
  constructor(
    skills: readonly Skill[],
    indexCache?: InjectionIndexCache,
    derived?: {
      byId: LayeredMap<string, Skill>;
      byName: LayeredMap<string, readonly Skill[]>;
      change: SourceChange;
    },
  ) {
    this.generation = nextGeneration++;
    this.skills = skills;
    this.indexCache = indexCache;
    if (derived) {
      this.byId = derived.byId;
      this.byName = derived.byName;
      this.change = derived.change;
      return;
    }
    const byId = new Map<string, Skill>();
    const byName = new Map<string, Skill[]>();
    for (const skill of skills) {
      byId.set(skill.id, skill);
      const list = byName.get(skill.name);
      if (list) list.push(skill);
      else byName.set(skill.name, [skill]);
    }
    for (const list of byName.values()) list.sort(byVersion);
    this.byId = LayeredMap.of(byId);
    this.byName = LayeredMap.of<string, readonly Skill[]>(byName);
  }

  /**
   * The snapshot after a write: `upserted` skills added (or replacing the skill with the same id)
   * and `removedIds` gone. Costs O(registry) for the skills array and O(changes) for the rest.
   * @returns a new snapshot recording the change; this one is unchanged.
   */
  apply(upserted: readonly Skill[], removedIds: readonly string[]): RegistrySnapshot {
    const incoming = new Map(upserted.map((s) => [s.id, s]));
    const removed = new Set(removedIds.filter((id) => !incoming.has(id)));
    const replaced: Skill[] = [];
    for (const id of [...incoming.keys(), ...removed]) {
      const old = this.byId.get(id);
      if (old) replaced.push(old);
    }
    // Positions found by identity (a pointer scan), not by a lookup per skill.
    const skills = this.skills.slice();
    const drop: number[] = [];
    for (const old of replaced) {
      const at = skills.indexOf(old);
      if (at < 0) continue;
      const next = incoming.get(old.id);
      if (next) {
        skills[at] = next;
        incoming.delete(old.id);
      } else drop.push(at);
    }
    for (const at of drop.sort((a, b) => b - a)) skills.splice(at, 1);
    skills.push(...incoming.values());
    const gone = new Set(replaced);
    const lists = new Map<string, Skill[]>();
    for (const s of [...replaced, ...upserted]) {
      if (!lists.has(s.name))
        lists.set(
          s.name,
          (this.byName.get(s.name) ?? []).filter((x) => !gone.has(x)),
        );
    }
    for (const s of upserted) lists.get(s.name)!.push(s);
    const byName = this.byName.with(
      [...lists].map(([name, list]): [string, readonly Skill[] | undefined] => [
        name,
        list.length ? list.sort(byVersion) : undefined,
      ]),
    );
    const byId = this.byId.with([
      ...upserted.map((s): [string, Skill] => [s.id, s]),
      ...[...removed].map((id): [string, undefined] => [id, undefined]),
    ]);
    return new RegistrySnapshot(skills, this.indexCache, {
      byId,
      byName,
      change: { from: { generation: this.generation, skills: this.skills }, upserted, replaced },
    });
  }

  /**
   * The snapshot for freshly loaded `rows`: this snapshot itself when nothing changed (same
   * skill objects), else one derived from it with the rows that differ. Unchanged rows keep this
   * snapshot's skill objects (so caches keyed by skill object stay warm).
   */
  reload(rows: readonly Skill[]): RegistrySnapshot {
    const upserted: Skill[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.id);
      const old = this.byId.get(row.id);
      if (!old || !sameSkill(old, row)) upserted.push(row);
    }
    const removedIds: string[] = [];
    for (const s of this.skills) if (!seen.has(s.id)) removedIds.push(s.id);
    if (upserted.length === 0 && removedIds.length === 0) return this;
    return this.apply(upserted, removedIds);
  }

  /** Every skill in listing order: name ascending, highest version first, global before owned (memoised). */
  listingOrder(): readonly Skill[] {
    if (!this.sorted) {
      this.sorted = [...this.skills].sort(
        (a, b) =>
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          semver.rcompare(a.version, b.version) ||
          (a.apiKeyId ?? "").localeCompare(b.apiKeyId ?? ""),
      );
    }
    return this.sorted;
  }

  /**
   * Every skill named `name`, any owner and mode, highest version first (at one version the
   * owned copies before the global one). Shared: do not mutate.
   */
  versionsOf(name: string): readonly Skill[] {
    return this.byName.get(name) ?? NO_SKILLS;
  }

  /** Every skill name in the registry. */
  names(): IterableIterator<string> {
    return this.byName.keys();
  }

  /** The skill with this id, whoever owns it. */
  getById(id: string): Skill | undefined {
    return this.byId.get(id);
  }

  /**
   * Versions of `name` visible to `apiKeyId` (global ones and the key's own; the key's own
   * shadows a global skill of the same `name@version`), highest first.
   * @param apiKeyId the caller's key; null = management acting globally (global skills only).
   */
  visibleVersions(name: string, apiKeyId: string | null): Skill[] {
    const all = this.byName.get(name);
    if (!all) return [];
    const out: Skill[] = [];
    let lastVersion: string | null = null;
    for (const skill of all) {
      if (skill.apiKeyId !== null && skill.apiKeyId !== apiKeyId) continue;
      // Sorted so that, within one version, the key's own skill comes before the global one.
      if (skill.version === lastVersion) continue;
      out.push(skill);
      lastVersion = skill.version;
    }
    return out;
  }

  /** True when `skill` is visible to `apiKeyId` and not shadowed by the key's own copy. */
  isVisible(skill: Skill, apiKeyId: string | null): boolean {
    if (skill.apiKeyId !== null) return skill.apiKeyId === apiKeyId;
    if (apiKeyId === null) return true;
    const own = this.byName
      .get(skill.name)
      ?.find((s) => s.apiKeyId === apiKeyId && s.version === skill.version);
    return own === undefined;
  }

  /**
   * Resolves `name` + constraint for a caller (docs/registry.md#versions): the highest visible
   * version that matches; no constraint = the highest visible version.
   */
  resolve(name: string, constraint: string | null, apiKeyId: string | null): Skill | undefined {
    const versions = this.visibleVersions(name, apiKeyId);
    if (versions.length === 0) return undefined;
    if (constraint === null) return versions[0];
    const version = resolveVersion(
      versions.map((s) => s.version),
      constraint,
    );
    return version === null ? undefined : versions.find((s) => s.version === version);
  }
}

/** Own skills sort before global ones of the same version. */
function ownerRank(skill: Skill): number {
  return skill.apiKeyId === null ? 1 : 0;
}

/** True when two skill values are equal field by field (JSON values compared deeply). */
export function sameSkill(a: Skill, b: Skill): boolean {
  return (
    a.id === b.id &&
    a.updatedAt === b.updatedAt &&
    a.name === b.name &&
    a.version === b.version &&
    a.description === b.description &&
    a.handlerCode === b.handlerCode &&
    jsonEqual(a.handler, b.handler) &&
    a.instructions === b.instructions &&
    a.enabled === b.enabled &&
    a.mode === b.mode &&
    a.policy === b.policy &&
    a.sourceProvider === b.sourceProvider &&
    a.sourceRef === b.sourceRef &&
    a.installCount === b.installCount &&
    a.timeoutMs === b.timeoutMs &&
    a.apiKeyId === b.apiKeyId &&
    a.createdAt === b.createdAt &&
    jsonEqual(a.tags, b.tags) &&
    jsonEqual(a.schema, b.schema)
  );
}

/** Deep equality of JSON values (objects compared key by key, in any order). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka)
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  return true;
}
