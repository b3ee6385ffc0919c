/**
 * The SDK's `TaskStore` over Skillgate's task storage (services/tasks.ts over db/repositories/a2a-tasks.ts): tasks are saved as
 * the protocol's JSON with their state, scoped to the calling key (docs/a2a.md#tasks). A key reads
 * only its own tasks; the management token reads every task.
 */
import { type ListTasksRequest, type ListTasksResponse, Task, taskStateToJSON } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { AgentTaskState, TaskOwner } from "../agents/tasks.js";
import type { AgentTasksService } from "../services/tasks.js";
import { principalOfContext } from "./user.js";

/** Default and largest page of `ListTasks`. */
export const DEFAULT_TASK_PAGE = 50;
export const MAX_TASK_PAGE = 100;

const STATES = new Set<string>([
  "submitted",
  "working",
  "input-required",
  "auth-required",
  "completed",
  "failed",
  "canceled",
  "rejected",
]);

/** `TASK_STATE_INPUT_REQUIRED` → `input-required` (anything unknown → `unspecified`). */
export function stateName(
  state: Parameters<typeof taskStateToJSON>[0] | undefined,
): AgentTaskState {
  if (state === undefined) return "unspecified";
  const name = taskStateToJSON(state)
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");
  return STATES.has(name) ? (name as AgentTaskState) : "unspecified";
}

function ownerOf(ctx: ServerCallContext): TaskOwner {
  const principal = principalOfContext(ctx);
  return principal.kind === "key"
    ? { apiKeyId: principal.apiKeyId }
    : { apiKeyId: null, all: true };
}

/** Database-backed task store. */
export class DbTaskStore implements TaskStore {
  constructor(private readonly store: AgentTasksService) {}

  async save(task: Task, ctx: ServerCallContext): Promise<void> {
    await this.store.save(ownerOf(ctx), {
      id: task.id,
      contextId: task.contextId,
      state: stateName(task.status?.state),
      task: Task.toJSON(task),
    });
  }

  async load(taskId: string, ctx: ServerCallContext): Promise<Task | undefined> {
    const row = await this.store.get(ownerOf(ctx), taskId);
    return row ? Task.fromJSON(row.task) : undefined;
  }

  async list(params: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = Math.min(Math.max(params.pageSize ?? DEFAULT_TASK_PAGE, 1), MAX_TASK_PAGE);
    const offset = /^\d{1,9}$/.test(params.pageToken) ? Number(params.pageToken) : 0;
    const state = params.status ? stateName(params.status) : undefined;
    const since = params.statusTimestampAfter
      ? Date.parse(params.statusTimestampAfter)
      : Number.NaN;
    const { tasks, total } = await this.store.list(ownerOf(ctx), {
      contextId: params.contextId || undefined,
      state: state === "unspecified" ? undefined : state,
      updatedSince: Number.isFinite(since) ? since : undefined,
      limit: pageSize,
      offset,
    });
    const next = offset + tasks.length;
    return {
      tasks: tasks.map((t) => Task.fromJSON(t.task)),
      nextPageToken: next < total ? String(next) : "",
      pageSize,
      totalSize: total,
    };
  }
}
