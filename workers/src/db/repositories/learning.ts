/**
 * The `skill_learning` table behind the {@link LearningStore} of selection learning
 * (docs/scoring.md#learning-from-traffic). Writes go through the {@link WriteBatcher} shared
 * with the execution rows, so a learned call joins the batch of the executions written in the
 * same turn instead of costing a round trip of its own.
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { LearnedRow, RecordedCall } from "../../skills/learning/learned-model.js";
import type { LearningStore } from "../../skills/learning/learning.js";
import type { Db } from "../client.js";
import { skillLearning } from "../schema.js";
import { statementOf, type WriteBatcher } from "../write-batcher.js";

/** Drizzle implementation of {@link LearningStore}, plus retention. */
export class DrizzleLearningRepository implements LearningStore {
  constructor(
    private readonly db: Db,
    private readonly writes: WriteBatcher,
  ) {}

  async load(scope: string): Promise<LearnedRow[]> {
    return this.db
      .select({
        skillId: skillLearning.skillId,
        feature: skillLearning.feature,
        weight: skillLearning.weight,
        updatedAt: skillLearning.updatedAt,
      })
      .from(skillLearning)
      .where(eq(skillLearning.scope, scope));
  }

  async write(scope: string, call: RecordedCall): Promise<void> {
    const runs: Promise<unknown>[] = [];
    if (call.upserts.length > 0) {
      const query = this.db
        .insert(skillLearning)
        .values(call.upserts.map((u) => ({ scope, ...u })))
        .onConflictDoUpdate({
          target: [skillLearning.scope, skillLearning.skillId, skillLearning.feature],
          set: { weight: sql`excluded.weight`, updatedAt: sql`excluded.updated_at` },
        });
      runs.push(this.writes.run(statementOf(query)));
    }
    if (call.evicted.length > 0) {
      const skillId = call.upserts[0]?.skillId;
      if (skillId !== undefined) {
        const query = this.db
          .delete(skillLearning)
          .where(
            and(
              eq(skillLearning.scope, scope),
              eq(skillLearning.skillId, skillId),
              inArray(skillLearning.feature, call.evicted),
            ),
          );
        runs.push(this.writes.run(statementOf(query)));
      }
    }
    await Promise.all(runs);
  }

  /**
   * Deletes up to `limit` rows last updated before `before` (ms since the epoch).
   * @returns how many went.
   */
  async deleteBefore(before: number, limit: number): Promise<number> {
    const rs = await this.db.run(
      sql`DELETE FROM ${skillLearning} WHERE rowid IN (SELECT rowid FROM ${skillLearning} WHERE ${lt(skillLearning.updatedAt, before)} LIMIT ${limit})`,
    );
    return rs.rowsAffected;
  }

  /** Rows of `scope` (all scopes when undefined), for the dashboard and tests. */
  async count(scope?: string): Promise<number> {
    const rows = await this.db
      .select({ n: sql<number>`count(*)` })
      .from(skillLearning)
      .where(scope === undefined ? undefined : eq(skillLearning.scope, scope));
    return Number(rows[0]?.n ?? 0);
  }
}
