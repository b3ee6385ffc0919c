/**
 * A2A tasks as stored (docs/a2a.md#tasks). A task belongs to the key that created
 * it (`null` = the management token); a key reads and writes only its own, the management token
 * reads every task. A task that reached a terminal state (`completed`, `failed`, `canceled`,
 * `rejected`) is never changed to another state again: a cancel recorded by one instance wins over
 * a late completion written by another.
 */

/** Task states of the A2A protocol, as stored (lowercase, hyphenated). */
export type AgentTaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "auth-required"
  | "completed"
  | "failed"
  | "canceled"
  | "rejected"
  | "unspecified";

/** States after which a task never changes. */
export const TERMINAL_TASK_STATES: readonly AgentTaskState[] = [
  "completed",
  "failed",
  "canceled",
  "rejected",
];

/** Who asks: a key, or the management token (`all: true` reads every task). */
export type TaskOwner = { apiKeyId: string } | { apiKeyId: null; all: boolean };

/** One stored task. */
export interface StoredTask {
  id: string;
  contextId: string;
  state: AgentTaskState;
  /** The protocol's task object (JSON). */
  task: unknown;
  apiKeyId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Filters and page of {@link AgentTaskRepository.list}. */
export interface TaskListQuery {
  contextId?: string;
  state?: AgentTaskState;
  /** Only tasks updated at or after this time (ms since the epoch). */
  updatedSince?: number;
  limit: number;
  offset: number;
}

/** Reads and writes A2A tasks; implemented over `a2a_tasks` in `db/repositories/a2a-tasks.ts`. */
export interface AgentTaskRepository {
  /**
   * Creates or updates a task of `owner`. An existing task of another owner is left alone, and so
   * is a task already in a terminal state that would change state.
   * @returns true when the row was written.
   */
  save(
    owner: TaskOwner,
    task: { id: string; contextId: string; state: AgentTaskState; task: unknown },
  ): Promise<boolean>;
  /** The task `id` if `owner` may see it. */
  get(owner: TaskOwner, id: string): Promise<StoredTask | undefined>;
  /** Tasks of `owner`, most recently updated first, and how many match in all. */
  list(owner: TaskOwner, query: TaskListQuery): Promise<{ tasks: StoredTask[]; total: number }>;
}
