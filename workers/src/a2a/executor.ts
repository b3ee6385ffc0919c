/**
 * The A2A agent executor (docs/a2a.md#tasks): turns a message into a task and runs the A2A skill
 * it names. Lifecycle, published on the SDK's event bus (stored by the task store):
 * `submitted` → `working` → `completed` (an artifact with the skill's data and text) | `failed`
 * (the error) | `canceled`; a message that names no known skill is `rejected` with the list of
 * skills. The skill is named by the message metadata `skill`, or a data part's `skill` field.
 */
import { type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { hasScope } from "../auth/scopes.js";
import { AppError } from "../errors.js";
import type { FrontDoorServices } from "../services/index.js";
import { logPrefix } from "../telemetry/request-context.js";
import type { A2ASkillInput, A2ASkillRegistry } from "./skills.js";
import { principalOfContext } from "./user.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  mediaType: "text/plain",
  filename: "",
  metadata: {},
});

const dataPart = (data: Record<string, unknown>): Part => ({
  content: { $case: "data", value: data },
  mediaType: "application/json",
  filename: "",
  metadata: {},
});

/** The skill id a message names, and the skill's input. */
export function readMessage(message: Message): { skill: string | undefined; input: A2ASkillInput } {
  const texts: string[] = [];
  const data: Record<string, unknown> = {};
  let skill =
    isRecord(message.metadata) && typeof message.metadata.skill === "string"
      ? message.metadata.skill
      : undefined;
  for (const part of message.parts) {
    const c = part.content;
    if (c?.$case === "text") texts.push(c.value);
    else if (c?.$case === "data" && isRecord(c.value)) {
      for (const [k, v] of Object.entries(c.value)) {
        if (k === "skill") skill ??= typeof v === "string" ? v : undefined;
        else if (!(k in data)) data[k] = v;
      }
    }
  }
  return { skill, input: { text: texts.join("\n\n"), data } };
}

/** Runs A2A skills for the SDK's request handler. */
export class SkillgateAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, { controller: AbortController; contextId: string }>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly services: FrontDoorServices,
    private readonly skills: A2ASkillRegistry,
  ) {}

  /** Resolves when every execution started so far has ended (for `waitUntil` in a Worker). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  execute = (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const run = this.run(ctx, bus);
    this.pending.add(run);
    return run.finally(() => this.pending.delete(run));
  };

  private async run(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const agentMessage = (text: string): Message => ({
      messageId: crypto.randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(text)],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    });
    const status = (state: TaskState, text?: string) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage(text),
            timestamp: new Date().toISOString(),
          },
          metadata: {},
        }),
      );
    const task: Task = ctx.task ?? {
      id: taskId,
      contextId,
      status: {
        state: TaskState.TASK_STATE_SUBMITTED,
        message: undefined,
        timestamp: new Date().toISOString(),
      },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: {},
    };
    bus.publish(AgentEvent.task(task));

    const { skill: skillId, input } = readMessage(ctx.userMessage);
    const skill = skillId === undefined ? undefined : this.skills.get(skillId);
    if (!skill) {
      const known = this.skills
        .list()
        .map((s) => s.id)
        .join(", ");
      status(
        TaskState.TASK_STATE_REJECTED,
        skillId === undefined
          ? `Name a skill in the message metadata ("skill") or a data part. Skills: ${known}.`
          : `Unknown skill "${skillId}". Skills: ${known}.`,
      );
      return;
    }
    const caller = principalOfContext(ctx.context);
    if (skill.scope && !hasScope(caller, skill.scope)) {
      status(
        TaskState.TASK_STATE_REJECTED,
        `This API key lacks the scope "${skill.scope}" needed for the skill "${skill.id}".`,
      );
      return;
    }
    status(TaskState.TASK_STATE_WORKING);
    const controller = new AbortController();
    this.running.set(taskId, { controller, contextId });
    try {
      const principal = caller;
      const result = await skill.run(input, {
        services: this.services,
        apiKeyId: principal.kind === "key" ? principal.apiKeyId : null,
        taskId,
        contextId,
        signal: controller.signal,
      });
      if (controller.signal.aborted) return;
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: crypto.randomUUID(),
            name: skill.id,
            description: skill.name,
            parts: [...(result.data ? [dataPart(result.data)] : []), textPart(result.text)],
            metadata: {},
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: {},
        }),
      );
      status(TaskState.TASK_STATE_COMPLETED, result.text);
    } catch (err) {
      if (controller.signal.aborted) return;
      const message =
        err instanceof AppError ? err.message : "The skill failed with an internal error";
      if (!(err instanceof AppError))
        console.error(`${logPrefix()}A2A skill ${skill.id} failed:`, err);
      status(TaskState.TASK_STATE_FAILED, message);
    } finally {
      this.running.delete(taskId);
    }
  }

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.running.get(taskId);
    running?.controller.abort();
    const contextId = running?.contextId ?? "";
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: {},
      }),
    );
  };
}
