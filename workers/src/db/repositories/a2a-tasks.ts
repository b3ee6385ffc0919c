/**
 * The `a2a_tasks` table behind {@link AgentTaskRepository} (drizzle over libSQL;
 * docs/a2a.md#tasks). A task that reached a terminal state is never changed to another state
 * again: a cancel recorded by one instance wins over a late completion written by another.
 */
import { and, count, desc, eq, isNull, type SQL, sql } from "drizzle-orm";
import {
  type AgentTaskRepository,
  type AgentTaskState,
  type StoredTask,
  type TaskListQuery,
  type TaskOwner,
  TERMINAL_TASK_STATES,
} from "../../agents/tasks.js";
import type { Db } from "../client.js";
import { a2aTasks } from "../schema.js";

function ownerFilter(owner: TaskOwner): SQL | undefined {
  if (owner.apiKeyId !== null) return eq(a2aTasks.apiKeyId, owner.apiKeyId);
  return owner.all ? undefined : isNull(a2aTasks.apiKeyId);
}

function fromRow(row: typeof a2aTasks.$inferSelect): StoredTask {
  return {
    id: row.id,
    contextId: row.contextId,
    state: row.state as AgentTaskState,
    task: JSON.parse(row.task),
    apiKeyId: row.apiKeyId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Drizzle implementation of {@link AgentTaskRepository}. */
export class DrizzleAgentTaskRepository implements AgentTaskRepository {
  constructor(
    private readonly db: Db,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Creates or updates a task of `owner`. An existing task of another owner is left alone, and so
   * is a task already in a terminal state that would change state.
   * @returns true when the row was written.
   */
  async save(
    owner: TaskOwner,
    task: { id: string; contextId: string; state: AgentTaskState; task: unknown },
  ): Promise<boolean> {
    const now = this.clock();
    const json = JSON.stringify(task.task);
    const terminal = TERMINAL_TASK_STATES.map((s) => `'${s}'`).join(",");
    // The management token (reading every task) may update any task; others only their own.
    const mine =
      owner.apiKeyId === null && owner.all
        ? sql`1`
        : sql`${a2aTasks.apiKeyId} IS ${owner.apiKeyId}`;
    const rows = await this.db
      .insert(a2aTasks)
      .values({
        id: task.id,
        apiKeyId: owner.apiKeyId,
        contextId: task.contextId,
        state: task.state,
        task: json,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: a2aTasks.id,
        set: { contextId: task.contextId, state: task.state, task: json, updatedAt: now },
        setWhere: sql`${mine} AND (${a2aTasks.state} NOT IN (${sql.raw(terminal)}) OR ${a2aTasks.state} = ${task.state})`,
      })
      .returning({ id: a2aTasks.id });
    return rows.length > 0;
  }

  /** The task `id` if `owner` may see it. */
  async get(owner: TaskOwner, id: string): Promise<StoredTask | undefined> {
    const rows = await this.db
      .select()
      .from(a2aTasks)
      .where(and(eq(a2aTasks.id, id), ownerFilter(owner)))
      .limit(1);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  /** Tasks of `owner`, most recently updated first, and how many match in all. */
  async list(
    owner: TaskOwner,
    query: TaskListQuery,
  ): Promise<{ tasks: StoredTask[]; total: number }> {
    const where = and(
      ownerFilter(owner),
      query.contextId ? eq(a2aTasks.contextId, query.contextId) : undefined,
      query.state ? eq(a2aTasks.state, query.state) : undefined,
      query.updatedSince === undefined
        ? undefined
        : sql`${a2aTasks.updatedAt} >= ${query.updatedSince}`,
    );
    const [rows, totals] = await Promise.all([
      this.db
        .select()
        .from(a2aTasks)
        .where(where)
        .orderBy(desc(a2aTasks.updatedAt), desc(a2aTasks.id))
        .limit(query.limit)
        .offset(query.offset),
      this.db.select({ n: count() }).from(a2aTasks).where(where),
    ]);
    return { tasks: rows.map(fromRow), total: totals[0]?.n ?? 0 };
  }
}
