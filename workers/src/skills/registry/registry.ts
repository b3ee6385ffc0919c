/**
 * The skill registry (docs/registry.md, docs/architecture.md#the-registry-cache): one registry for
 * builtins, custom and catalog skills, keyed by `name@version` per owner. Reads come from an
 * in-memory {@link RegistrySnapshot} with a 60 s TTL, backed by the KV-style cache (so other
 * instances can share a load); a cold load is idempotent and concurrent loads are de-duplicated
 * (one in flight). A write drops the shared layer and applies its change to this instance's
 * snapshot at once (a derived snapshot: no reload, and the injection index and tool resolver are
 * updated rather than rebuilt; docs/scoring.md#keeping-the-index-current), so it is visible at once
 * on the instance that made it and on every other instance within the TTL. A reload compares the
 * loaded rows with the snapshot it replaces and derives the new one from the rows that differ.
 * After editing the database by hand, call {@link invalidateCache} (management endpoint
 * `POST /api/skills/cache/invalidate`) or wait 60 s.
 */

import type { Cache } from "../../cache/types.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import type { BuiltinDefinition } from "../builtins/types.js";
import type { InjectionIndexCache } from "../injection/index-cache.js";
import type { Skill } from "../types.js";
import type { SkillPatch, SkillRecord, SkillRepository } from "./skill-repository.js";
import { RegistrySnapshot } from "./snapshot.js";

/** Registry cache TTL in seconds (docs/architecture.md#the-registry-cache). */
export const REGISTRY_CACHE_TTL_S = 60;
const CACHE_KEY = "registry:skills:v1";

/** Version every builtin is registered under. */
export const BUILTIN_VERSION = "1.0.0";

/** Options of {@link SkillRegistry}. */
export interface RegistryOptions {
  /** Where skills are stored. */
  repository: SkillRepository;
  /** The KV-style cache shared between instances. */
  cache: Cache;
  /** Builtin declarations, seeded as global skills before the first load. */
  builtins: readonly BuiltinDefinition[];
  clock?: () => number;
  /**
   * Called with every new current snapshot before it is served, e.g. to prepare its injection
   * index; `cause` says whether this instance's write made it or a load did. Errors are ignored.
   */
  onSnapshot?: (snapshot: RegistrySnapshot, cause: "write" | "load") => Promise<void> | void;
  /** Where the injection indexes of this registry's snapshots are kept (its index store's). */
  indexCache?: InjectionIndexCache;
}

/** Registry service: cached reads, writes applied to the snapshot in memory. */
export class SkillRegistry {
  private readonly repository: SkillRepository;
  private readonly cache: Cache;
  private readonly clock: () => number;
  private readonly builtins: readonly BuiltinDefinition[];
  private readonly builtinNames: Set<string>;
  private readonly onSnapshot: RegistryOptions["onSnapshot"];
  private readonly indexCache: InjectionIndexCache | undefined;
  /** The last snapshot served, which the next load compares its rows with. */
  private last: RegistrySnapshot | null = null;
  private current: { snapshot: RegistrySnapshot; expiresAt: number } | null = null;
  private inFlight: Promise<RegistrySnapshot> | null = null;
  private seeded: Promise<void> | null = null;
  /** Bumped on every invalidation, so a load that started before a write is not kept. */
  private epoch = 0;
  /**
   * Set by an invalidation: the next load reads the database, not the shared cache, so an older
   * snapshot another instance stores there after this instance's write cannot hide the write.
   */
  private bypassShared = false;

  constructor(opts: RegistryOptions) {
    this.repository = opts.repository;
    this.cache = opts.cache;
    this.clock = opts.clock ?? Date.now;
    this.builtins = opts.builtins;
    this.onSnapshot = opts.onSnapshot;
    this.indexCache = opts.indexCache;
    this.builtinNames = new Set(opts.builtins.flatMap((b) => [b.name, ...(b.aliases ?? [])]));
  }

  /** True when `name` is a builtin name or alias (reserved: installs with it answer 409). */
  isReservedName(name: string): boolean {
    return this.builtinNames.has(name);
  }

  /**
   * The current snapshot; loads it when cold or expired (awaits the load: a cold cache never
   * answers empty). Concurrent callers share one load.
   */
  async snapshot(): Promise<RegistrySnapshot> {
    const cur = this.current;
    if (cur && cur.expiresAt > this.clock()) return cur.snapshot;
    return this.load();
  }

  /** Drops the memory and KV layers; the next read loads from the database. */
  async invalidateCache(): Promise<void> {
    this.epoch++;
    this.current = null;
    this.inFlight = null;
    this.bypassShared = true;
    await this.cache.delete(CACHE_KEY);
  }

  private load(): Promise<RegistrySnapshot> {
    if (this.inFlight) return this.inFlight;
    const epoch = this.epoch;
    const p = (async () => {
      await this.ensureBuiltins();
      let rows = this.bypassShared ? undefined : await this.cache.get<Skill[]>(CACHE_KEY);
      if (!rows) {
        rows = await this.repository.all();
        if (epoch === this.epoch) {
          this.bypassShared = false;
          await this.cache.put(CACHE_KEY, rows, REGISTRY_CACHE_TTL_S);
        }
      }
      const snapshot = this.last
        ? this.last.reload(rows)
        : new RegistrySnapshot(rows, this.indexCache);
      if (epoch === this.epoch) {
        if (snapshot !== this.last) await this.announce(snapshot, "load");
        this.last = snapshot;
        this.current = { snapshot, expiresAt: this.clock() + REGISTRY_CACHE_TTL_S * 1000 };
      }
      return snapshot;
    })();
    this.inFlight = p;
    p.then(
      () => {
        if (this.inFlight === p) this.inFlight = null;
      },
      () => {
        if (this.inFlight === p) this.inFlight = null;
      },
    );
    return p;
  }

  private async announce(snapshot: RegistrySnapshot, cause: "write" | "load"): Promise<void> {
    if (!this.onSnapshot) return;
    try {
      await this.onSnapshot(snapshot, cause);
    } catch {
      // Preparing derived data (an index) must not fail a read or a write.
    }
  }

  /**
   * After a write to the database: drops the shared layer and applies the change to the current
   * snapshot when it is fresh (else the next read loads).
   * @param upserted the skills written, as stored; @param removedIds the ids deleted.
   */
  private async applyWrite(upserted: Skill[], removedIds: string[]): Promise<void> {
    this.epoch++;
    this.inFlight = null;
    this.bypassShared = true;
    const cur = this.current;
    if (cur && cur.expiresAt > this.clock() && cur.snapshot === this.last) {
      const snapshot = cur.snapshot.apply(upserted, removedIds);
      this.current = { snapshot, expiresAt: cur.expiresAt };
      this.last = snapshot;
      await this.cache.delete(CACHE_KEY);
      await this.announce(snapshot, "write");
      return;
    }
    this.current = null;
    await this.cache.delete(CACHE_KEY);
  }

  /** Seeds (or refreshes the declared fields of) the builtin skills, once per instance. */
  private ensureBuiltins(): Promise<void> {
    if (!this.seeded) {
      this.seeded = this.seedBuiltins().catch((err) => {
        this.seeded = null;
        throw err;
      });
    }
    return this.seeded;
  }

  private async seedBuiltins(): Promise<void> {
    if (this.builtins.length === 0) return;
    const now = this.clock();
    const records: SkillRecord[] = this.builtins.map((b) => ({
      id: `builtin-${b.name}`,
      name: b.name,
      version: BUILTIN_VERSION,
      description: b.description,
      schema: { input: b.inputSchema, ...(b.outputSchema ? { output: b.outputSchema } : {}) },
      handlerCode: b.name,
      handler: null,
      handlerSecret: null,
      instructions: null,
      enabled: b.enabled ?? true,
      mode: b.enabled === false ? "off" : b.mode,
      policy: b.policy,
      sourceProvider: "builtin",
      sourceRef: null,
      tags: b.tags,
      installCount: 0,
      timeoutMs: null,
      autoUpgrade: null,
      apiKeyId: null,
      createdAt: now,
      updatedAt: now,
    }));
    // Declared fields follow the code; operator choices (enabled, mode, policy, timeout) persist.
    await this.repository.upsertBuiltins(records);
  }

  /**
   * Inserts a skill. @returns the stored skill.
   * @throws ConflictError `skill_exists` for a duplicate `name@version` of the same owner.
   */
  async insert(record: SkillRecord): Promise<Skill> {
    const stored = await this.repository.insert(record);
    if (!stored) {
      throw new ConflictError(
        `Skill ${record.name}@${record.version} is already installed for this owner`,
        "skill_exists",
      );
    }
    await this.applyWrite([stored], []);
    return stored;
  }

  /** Reads one skill straight from storage (bypasses the cache; used before writes). */
  getFresh(id: string): Promise<Skill | undefined> {
    return this.repository.get(id);
  }

  /**
   * The signing secret of an HTTP-handler skill, read from the database (never cached, never
   * part of a {@link Skill}); null when the skill has none or does not exist.
   */
  handlerSecret(id: string): Promise<string | null> {
    return this.repository.handlerSecret(id);
  }

  /**
   * Updates the given fields of a skill (and its `updatedAt`). @returns the updated skill.
   * @throws NotFoundError `skill_not_found` when the id does not exist.
   */
  async update(id: string, patch: SkillPatch): Promise<Skill> {
    const updated = await this.repository.update(id, { ...patch, updatedAt: this.clock() });
    if (!updated) throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    await this.applyWrite([updated], []);
    return updated;
  }

  /**
   * Unregisters a skill by id (its executions go with it, by the foreign key's cascade).
   * @throws NotFoundError `skill_not_found` when the id does not exist.
   */
  async remove(id: string): Promise<void> {
    if (!(await this.repository.delete(id)))
      throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    await this.applyWrite([], [id]);
  }

  /**
   * Counts one more install of a catalog item (docs/catalogs.md#install-count): every row
   * installed from `origin` + `sourceRef` except `skill` gains one; `skill` starts at the total.
   * @returns `skill` with its count.
   */
  async countCatalogInstall(skill: Skill): Promise<Skill> {
    if (skill.sourceRef === null) return skill;
    const ids = await this.repository.idsFromSource(skill.sourceProvider, skill.sourceRef);
    const others = ids.filter((id) => id !== skill.id);
    if (others.length === 0) return skill;
    const counted: Skill[] = [];
    for (const id of others) {
      const row = await this.repository.incrementInstallCount(id);
      if (row) counted.push(row);
    }
    await this.applyWrite(counted, []);
    return this.update(skill.id, { installCount: others.length + 1 });
  }
}
