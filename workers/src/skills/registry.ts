/**
 * The skill registry (docs/registry.md, docs/architecture.md#the-registry-cache): one registry for
 * builtins, custom and catalog skills, keyed by `name@version` per owner. Reads come from an
 * in-memory {@link RegistrySnapshot} with a 60 s TTL, backed by the KV-style cache (so other
 * instances can share a load); a cold load is idempotent and concurrent loads are de-duplicated
 * (one in flight); every write invalidates both layers, so a write is visible at once on the
 * instance that made it and on every other instance within the TTL. After editing the database by
 * hand, call {@link invalidateCache} (management endpoint `POST /api/skills/cache/invalidate`) or
 * wait 60 s.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Cache } from "../cache/types.js";
import type { Db } from "../db/client.js";
import { type NewSkillRow, skills } from "../db/schema.js";
import { ConflictError, NotFoundError } from "../errors.js";
import type { BuiltinDefinition } from "./builtins/types.js";
import { skillFromRow } from "./mappers.js";
import { RegistrySnapshot } from "./snapshot.js";
import type { Skill } from "./types.js";

/** Registry cache TTL in seconds (docs/architecture.md#the-registry-cache). */
export const REGISTRY_CACHE_TTL_S = 60;
const CACHE_KEY = "registry:skills:v1";

/** Version every builtin is registered under. */
export const BUILTIN_VERSION = "1.0.0";

/** Options of {@link SkillRegistry}. */
export interface RegistryOptions {
  db: Db;
  cache: Cache;
  /** Builtin declarations, seeded as global skills before the first load. */
  builtins: readonly BuiltinDefinition[];
  clock?: () => number;
}

/** Registry service: cached reads, writes that invalidate. */
export class SkillRegistry {
  private readonly db: Db;
  private readonly cache: Cache;
  private readonly clock: () => number;
  private readonly builtins: readonly BuiltinDefinition[];
  private readonly builtinNames: Set<string>;
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
    this.db = opts.db;
    this.cache = opts.cache;
    this.clock = opts.clock ?? Date.now;
    this.builtins = opts.builtins;
    this.builtinNames = new Set(opts.builtins.flatMap((b) => [b.name, ...(b.aliases ?? [])]));
  }

  /** True when `name` is a builtin name or alias (reserved: installs with it answer 409). */
  isReservedName(name: string): boolean {
    return this.builtinNames.has(name);
  }

  /** Builtin declarations this registry seeds. */
  builtinDefinitions(): readonly BuiltinDefinition[] {
    return this.builtins;
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

  /** The snapshot if one is fresh in memory, without loading (hot paths). */
  peek(): RegistrySnapshot | undefined {
    const cur = this.current;
    return cur && cur.expiresAt > this.clock() ? cur.snapshot : undefined;
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
        rows = (await this.db.select().from(skills)).map(skillFromRow);
        if (epoch === this.epoch) {
          this.bypassShared = false;
          await this.cache.put(CACHE_KEY, rows, REGISTRY_CACHE_TTL_S);
        }
      }
      const snapshot = new RegistrySnapshot(rows);
      if (epoch === this.epoch) {
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
    const rows: NewSkillRow[] = this.builtins.map((b) => ({
      id: `builtin-${b.name}`,
      name: b.name,
      version: BUILTIN_VERSION,
      description: b.description,
      schema: JSON.stringify({
        input: b.inputSchema,
        ...(b.outputSchema ? { output: b.outputSchema } : {}),
      }),
      handlerCode: b.name,
      instructions: null,
      enabled: b.enabled ?? true,
      mode: b.enabled === false ? "off" : b.mode,
      policy: b.policy,
      sourceProvider: "builtin",
      sourceRef: null,
      tags: JSON.stringify(b.tags),
      installCount: 0,
      timeoutMs: null,
      apiKeyId: null,
      createdAt: now,
      updatedAt: now,
    }));
    // Declared fields follow the code; operator choices (enabled, mode, policy, timeout) persist.
    await this.db
      .insert(skills)
      .values(rows)
      .onConflictDoUpdate({
        target: skills.id,
        set: {
          description: sql`excluded.description`,
          schema: sql`excluded.schema`,
          tags: sql`excluded.tags`,
          handlerCode: sql`excluded.handler_code`,
        },
      });
  }

  /**
   * Inserts a skill row. @returns the stored skill.
   * @throws ConflictError `skill_exists` for a duplicate `name@version` of the same owner.
   */
  async insert(row: NewSkillRow): Promise<Skill> {
    try {
      const [stored] = await this.db.insert(skills).values(row).returning();
      await this.invalidateCache();
      return skillFromRow(stored!);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new ConflictError(
          `Skill ${row.name}@${row.version} is already installed for this owner`,
          "skill_exists",
        );
      }
      throw err;
    }
  }

  /** Reads one skill straight from the database (bypasses the cache; used before writes). */
  async getFresh(id: string): Promise<Skill | undefined> {
    const [row] = await this.db.select().from(skills).where(eq(skills.id, id)).limit(1);
    return row ? skillFromRow(row) : undefined;
  }

  /**
   * The signing secret of an HTTP-handler skill, read from the database (never cached, never
   * part of a {@link Skill}); null when the skill has none or does not exist.
   */
  async handlerSecret(id: string): Promise<string | null> {
    const [row] = await this.db
      .select({ secret: skills.handlerSecret })
      .from(skills)
      .where(eq(skills.id, id))
      .limit(1);
    return row?.secret ?? null;
  }

  /**
   * Updates the given columns of a skill. @returns the updated skill.
   * @throws NotFoundError when the id does not exist.
   */
  async update(id: string, patch: Partial<NewSkillRow>): Promise<Skill> {
    const [row] = await this.db
      .update(skills)
      .set({ ...patch, updatedAt: this.clock() })
      .where(eq(skills.id, id))
      .returning();
    if (!row) throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    await this.invalidateCache();
    return skillFromRow(row);
  }

  /**
   * Unregisters a skill by id (its executions go with it, by the foreign key's cascade).
   * @throws NotFoundError when the id does not exist.
   */
  async unregisterById(id: string): Promise<void> {
    const deleted = await this.db
      .delete(skills)
      .where(eq(skills.id, id))
      .returning({ id: skills.id });
    if (deleted.length === 0) throw new NotFoundError(`Skill ${id} not found`, "skill_not_found");
    await this.invalidateCache();
  }

  /**
   * Unregisters `name@version` of an owner (null = global).
   * @throws NotFoundError when absent.
   */
  async unregister(name: string, version: string, apiKeyId: string | null): Promise<void> {
    const owner = apiKeyId === null ? isNull(skills.apiKeyId) : eq(skills.apiKeyId, apiKeyId);
    const deleted = await this.db
      .delete(skills)
      .where(and(eq(skills.name, name), eq(skills.version, version), owner))
      .returning({ id: skills.id });
    if (deleted.length === 0)
      throw new NotFoundError(`Skill ${name}@${version} not found`, "skill_not_found");
    await this.invalidateCache();
  }

  /** Adds one to a skill's install count (catalog re-installs; docs/catalogs.md#install-count). */
  async incrementInstallCount(id: string): Promise<void> {
    await this.db
      .update(skills)
      .set({ installCount: sql`${skills.installCount} + 1` })
      .where(eq(skills.id, id));
    await this.invalidateCache();
  }

  /** Versions of `name` visible to `apiKeyId`, highest first (docs/registry.md#versions). */
  async getSkillVersions(name: string, apiKeyId: string | null): Promise<string[]> {
    return (await this.snapshot()).visibleVersions(name, apiKeyId).map((s) => s.version);
  }

  /** Highest visible version of `name` matching `constraint` (docs/registry.md), or null. */
  async resolveVersion(
    name: string,
    constraint: string,
    apiKeyId: string | null,
  ): Promise<string | null> {
    return (await this.snapshot()).resolve(name, constraint, apiKeyId)?.version ?? null;
  }
}

/** True for SQLite unique/primary-key constraint violations, through drizzle's wrapping. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const msg = String((e as { message?: unknown }).message ?? "");
    const code = String((e as { code?: unknown }).code ?? "");
    if (
      /UNIQUE constraint failed|SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)/.test(msg) ||
      code === "SQLITE_CONSTRAINT_UNIQUE"
    )
      return true;
    if (e === (e as { cause?: unknown }).cause) break;
  }
  return false;
}
