/**
 * The A2A tasks service (docs/a2a.md#tasks): stores the tasks of the A2A agent, each scoped to the
 * key that created it (`null` = the management token); a key reads and writes only its own, the
 * management token reads every task.
 */
import type {
  AgentTaskRepository,
  AgentTaskState,
  StoredTask,
  TaskListQuery,
  TaskOwner,
} from "../agents/tasks.js";

/** Saves, reads and lists A2A tasks for their owner. */
export class AgentTasksService {
  constructor(private readonly repository: AgentTaskRepository) {}

  /**
   * Creates or updates a task of `owner`; a task of another owner, or one already in a terminal
   * state that would change state, is left alone. @returns true when it was written.
   */
  save(
    owner: TaskOwner,
    task: { id: string; contextId: string; state: AgentTaskState; task: unknown },
  ): Promise<boolean> {
    return this.repository.save(owner, task);
  }

  /** The task `id` if `owner` may see it, else undefined. */
  get(owner: TaskOwner, id: string): Promise<StoredTask | undefined> {
    return this.repository.get(owner, id);
  }

  /** Tasks of `owner`, most recently updated first, and how many match in all. */
  list(owner: TaskOwner, query: TaskListQuery): Promise<{ tasks: StoredTask[]; total: number }> {
    return this.repository.list(owner, query);
  }
}
