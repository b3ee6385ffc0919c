/**
 * An immutable in-memory view of every skill in the registry (all owners), indexed for the hot
 * paths: lookup by id, by name, visibility per API key, version resolution (docs/registry.md).
 * A new snapshot (with a new `generation`) is built after every load; indexes built on top of a
 * snapshot (e.g. the injection index) are keyed by its generation.
 */
import semver from "semver";
import type { Skill } from "../types.js";
import { resolveVersion } from "./versions.js";

let nextGeneration = 1;
const NO_SKILLS: readonly Skill[] = [];

/** Immutable registry view. */
export class RegistrySnapshot {
  /** Increases with every snapshot built in this process. */
  readonly generation: number;
  readonly skills: readonly Skill[];
  private readonly byId = new Map<string, Skill>();
  /** name → skills of every owner, highest version first. */
  private readonly byName = new Map<string, Skill[]>();
  private sorted: Skill[] | null = null;

  /** @param skills every skill row of the registry, any order. */
  constructor(skills: readonly Skill[]) {
    this.generation = nextGeneration++;
    this.skills = skills;
    for (const skill of skills) {
      this.byId.set(skill.id, skill);
      const list = this.byName.get(skill.name);
      if (list) list.push(skill);
      else this.byName.set(skill.name, [skill]);
    }
    for (const list of this.byName.values()) {
      list.sort((a, b) => semver.rcompare(a.version, b.version) || ownerRank(a) - ownerRank(b));
    }
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
