/**
 * Row ↔ domain mapping for skills and executions. Timestamps: integer ms in storage, ISO-8601
 * strings in the domain and the API; JSON columns hold text.
 */
import type { SkillRecord } from "../../skills/registry/skill-repository.js";
import type {
  AttemptRecord,
  Execution,
  HandlerSpec,
  NotificationDelivery,
  Skill,
  SkillSchema,
} from "../../skills/types.js";
import type { ExecutionRow, NewSkillRow, SkillRow } from "../schema.js";

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** ms since the epoch → ISO-8601 string. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Maps a `skills` row to a {@link Skill}. */
export function skillFromRow(row: SkillRow): Skill {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    description: row.description,
    schema: parseJson<SkillSchema>(row.schema, { input: { type: "object", properties: {} } }),
    handlerCode: row.handlerCode,
    handler: parseJson<HandlerSpec | null>(row.handler, null),
    instructions: row.instructions,
    enabled: row.enabled,
    mode: row.mode,
    policy: row.policy,
    sourceProvider: row.sourceProvider,
    sourceRef: row.sourceRef,
    tags: parseJson<string[]>(row.tags, []),
    installCount: row.installCount,
    timeoutMs: row.timeoutMs,
    autoUpgrade: row.autoUpgrade,
    apiKeyId: row.apiKeyId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Maps a `skill_executions` row to an {@link Execution}. */
export function executionFromRow(row: ExecutionRow): Execution {
  return {
    id: row.id,
    skillId: row.skillId,
    skillName: row.skillName,
    version: row.version,
    apiKeyId: row.apiKeyId,
    sessionId: row.sessionId,
    requestId: row.requestId,
    status: row.status,
    approval: row.approval,
    input: parseJson<unknown>(row.input, null),
    output: parseJson<unknown>(row.output, null),
    inputTruncated: row.inputTruncated,
    outputTruncated: row.outputTruncated,
    errorMessage: row.errorMessage,
    errorCode: row.errorCode,
    durationMs: row.durationMs,
    attempts: row.attempts,
    attemptLog: parseJson<AttemptRecord[]>(row.attemptLog, []),
    notifications: parseJson<NotificationDelivery[]>(row.notificationLog, []),
    codeSha256: row.codeSha256,
    sandbox:
      row.sandboxHost === null && row.sandboxQueueMs === null && row.sandboxProgramMs === null
        ? null
        : {
            host: row.sandboxHost,
            queueWaitMs: row.sandboxQueueMs,
            programMs: row.sandboxProgramMs,
          },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Maps a {@link SkillRecord} to a `skills` row (JSON fields as text). */
export function skillToRow(record: SkillRecord): NewSkillRow {
  return {
    ...record,
    schema: JSON.stringify(record.schema),
    tags: JSON.stringify(record.tags),
    handler: record.handler === null ? null : JSON.stringify(record.handler),
  };
}
