/**
 * The `skills` table behind the registry's {@link SkillRepository} (drizzle over libSQL).
 */
import { and, eq, sql } from "drizzle-orm";
import type {
  SkillPatch,
  SkillRecord,
  SkillRepository,
} from "../../skills/registry/skill-repository.js";
import type { Skill, SkillOrigin } from "../../skills/types.js";
import type { Db } from "../client.js";
import { type NewSkillRow, skillExecutions, skills } from "../schema.js";
import { refreshRollupsWhere, subtractRowsWhere } from "./execution-rollups.js";
import { skillFromRow, skillToRow } from "./mappers.js";

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

/** Drizzle implementation of {@link SkillRepository}. */
export class DrizzleSkillRepository implements SkillRepository {
  constructor(private readonly db: Db) {}

  async all(): Promise<Skill[]> {
    return (await this.db.select().from(skills)).map(skillFromRow);
  }

  async get(id: string): Promise<Skill | undefined> {
    const [row] = await this.db.select().from(skills).where(eq(skills.id, id)).limit(1);
    return row ? skillFromRow(row) : undefined;
  }

  async insert(record: SkillRecord): Promise<Skill | undefined> {
    try {
      const [stored] = await this.db.insert(skills).values(skillToRow(record)).returning();
      return skillFromRow(stored!);
    } catch (err) {
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  async update(id: string, patch: SkillPatch): Promise<Skill | undefined> {
    const set: Partial<NewSkillRow> = {};
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      (set as Record<string, unknown>)[key] =
        key === "schema" || key === "tags" ? JSON.stringify(value) : value;
    }
    const [row] = await this.db.update(skills).set(set).where(eq(skills.id, id)).returning();
    return row ? skillFromRow(row) : undefined;
  }

  /**
   * Deletes a skill; its executions go with it (foreign-key cascade), and what they contributed to
   * the hourly rollups goes in the same transaction (execution-rollups.ts).
   */
  async delete(id: string): Promise<boolean> {
    const [skill] = await this.db
      .select({ name: skills.name })
      .from(skills)
      .where(eq(skills.id, id));
    if (!skill) return false;
    const [, deleted] = await this.db.batch([
      this.db.run(subtractRowsWhere(eq(skillExecutions.skillId, id))),
      this.db.delete(skills).where(eq(skills.id, id)).returning({ id: skills.id }),
      ...refreshRollupsWhere(sql`skill_name = ${skill.name}`).map((q) => this.db.run(q)),
    ]);
    return deleted.length > 0;
  }

  async handlerSecret(id: string): Promise<string | null> {
    const [row] = await this.db
      .select({ secret: skills.handlerSecret })
      .from(skills)
      .where(eq(skills.id, id))
      .limit(1);
    return row?.secret ?? null;
  }

  async incrementInstallCount(id: string): Promise<Skill | undefined> {
    const [row] = await this.db
      .update(skills)
      .set({ installCount: sql`${skills.installCount} + 1` })
      .where(eq(skills.id, id))
      .returning();
    return row ? skillFromRow(row) : undefined;
  }

  async idsFromSource(origin: SkillOrigin, sourceRef: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: skills.id })
      .from(skills)
      .where(and(eq(skills.sourceProvider, origin), eq(skills.sourceRef, sourceRef)));
    return rows.map((r) => r.id);
  }

  async upsertBuiltins(records: readonly SkillRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db
      .insert(skills)
      .values(records.map(skillToRow))
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
}
