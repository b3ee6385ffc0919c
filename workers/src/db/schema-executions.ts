/**
 * The execution tables (docs/execution.md): one row per execution, and the hourly rollups the
 * dashboard's charts read (docs/dashboard.md). Exported through `schema.ts`, from which drizzle-kit
 * generates the migrations. Timestamps are integer milliseconds since the epoch.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { skills } from "./schema.js";

/** Executions (docs/execution.md), one row per execution; retries are counted in `attempts`. */
export const skillExecutions = sqliteTable(
  "skill_executions",
  {
    id: text("id").primaryKey(),
    skillId: text("skill_id")
      .notNull()
      .references(() => skills.id, { onDelete: "cascade" }),
    /** Denormalised `name` and `version` so history reads need no join. */
    skillName: text("skill_name").notNull(),
    version: text("version").notNull(),
    apiKeyId: text("api_key_id"),
    sessionId: text("session_id"),
    /** `x-request-id` of the client request that created the row (docs/api.md#request-ids). */
    requestId: text("request_id"),
    status: text("status", { enum: ["pending", "running", "success", "error", "timeout"] })
      .notNull()
      .default("pending"),
    approval: text("approval", {
      enum: ["none", "required", "approved", "rejected", "expired"],
    })
      .notNull()
      .default("none"),
    /** JSON, at most `SKILLS_MAX_STORED_INPUT_BYTES` bytes (see `inputTruncated`). */
    input: text("input").notNull(),
    /** JSON, null until the execution produced output; capped as `input` is. */
    output: text("output"),
    /** `input` holds only a prefix of the input's JSON text (as a JSON string): it was over the cap. */
    inputTruncated: integer("input_truncated", { mode: "boolean" }).notNull().default(false),
    /** `output` holds only a prefix of the output's JSON text (as a JSON string): it was over the cap. */
    outputTruncated: integer("output_truncated", { mode: "boolean" }).notNull().default(false),
    errorMessage: text("error_message"),
    errorCode: text("error_code"),
    durationMs: integer("duration_ms"),
    attempts: integer("attempts").notNull().default(0),
    /** The time budget the execution ran with (ms), for crash recovery of stale rows. */
    timeoutMs: integer("timeout_ms"),
    /** SHA-256 (hex) of the program a code skill ran; null for other handlers. */
    codeSha256: text("code_sha256"),
    /** JSON array of attempt records (docs/execution.md#auto-upgrade); null before the end. */
    attemptLog: text("attempt_log"),
    /** JSON array of approval-notification deliveries (docs/approval-notifications.md). */
    notificationLog: text("notification_log"),
    /** Origin of the sandbox host of the last sandbox attempt (docs/execution.md#sandbox-runs). */
    sandboxHost: text("sandbox_host"),
    /** That attempt's wait on the host for a slot and a container (ms). */
    sandboxQueueMs: integer("sandbox_queue_ms"),
    /** That attempt's program time, handover to exit (ms). */
    sandboxProgramMs: integer("sandbox_program_ms"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    index("skill_executions_api_key_name_idx").on(t.apiKeyId, t.skillName),
    index("skill_executions_skill_status_created_idx").on(t.skillId, t.status, t.createdAt),
    /** One key's executions newest first (ties by id), as the execution list pages them. */
    index("skill_executions_api_key_created_id_idx").on(t.apiKeyId, t.createdAt, t.id),
    /** One key's executions of one status newest first (a key's pending approvals, its errors). */
    index("skill_executions_api_key_status_created_idx").on(
      t.apiKeyId,
      t.status,
      t.createdAt,
      t.id,
    ),
    index("skill_executions_status_approval_idx").on(t.status, t.approval),
    /** The latest change of any execution (freshness stamp of the cached chart aggregates). */
    index("skill_executions_updated_idx").on(t.updatedAt),
    index("skill_executions_created_idx").on(t.createdAt, t.id),
    index("skill_executions_status_created_idx").on(t.status, t.createdAt, t.id),
    /** One skill's executions newest first (status, duration and key ride along). */
    index("skill_executions_skill_created_idx").on(
      t.skillName,
      t.createdAt,
      t.id,
      t.status,
      t.durationMs,
      t.apiKeyId,
    ),
    /**
     * The rows of one hourly rollup (skill, status, key, hour) ordered by duration: the rollup
     * triggers read the least and greatest duration left after a delete from it in one seek each
     * (migration `execution_rollup_group_index`); the expressions must stay as the triggers write
     * them for SQLite to use it.
     */
    index("skill_executions_rollup_group_idx").on(
      t.skillName,
      t.status,
      sql`coalesce(${t.apiKeyId}, '')`,
      sql`${t.createdAt} / 3600000`,
      sql`coalesce(${t.durationMs}, 0)`,
    ),
    check(
      "skill_executions_status_check",
      sql`${t.status} IN ('pending','running','success','error','timeout')`,
    ),
    check(
      "skill_executions_approval_check",
      sql`${t.approval} IN ('none','required','approved','rejected','expired')`,
    ),
  ],
);

/**
 * Hourly rollups of ended executions for the dashboard charts (docs/dashboard.md#charts): one row
 * per hour (of `created_at`), skill name, key (`''` for the management token) and terminal
 * status, with the count, the errors among them, the sum, least and greatest of durations and a log-scale duration
 * histogram in `b00`..`b31` (bucket bounds in skills/execution/duration-histogram.ts). Triggers on
 * `skill_executions` (migration `execution_hourly_rollups`) keep them equal to the rows in the
 * same statement as every insert, end, change and delete (a migration that rebuilds
 * `skill_executions` must create them again); the cron prunes hours older than 48 h.
 */
export const executionHourlyRollups = sqliteTable(
  "execution_hourly_rollups",
  {
    /** Start of the hour, ms since epoch. */
    hourStart: integer("hour_start").notNull(),
    /** The key's id, `''` for executions of the management token. */
    apiKeyId: text("api_key_id").notNull(),
    skillName: text("skill_name").notNull(),
    status: text("status", { enum: ["success", "error", "timeout"] }).notNull(),
    count: integer("count").notNull().default(0),
    /** Executions of this row that ended in error or timeout. */
    errorCount: integer("error_count").notNull().default(0),
    /** Sum of `duration_ms` (null as 0), ms. */
    durationSumMs: integer("duration_sum_ms").notNull().default(0),
    /** Smallest and largest `duration_ms` (null as 0) of the row's executions, ms. */
    minMs: integer("min_ms").notNull(),
    maxMs: integer("max_ms").notNull(),
    b00: integer("b00").notNull().default(0),
    b01: integer("b01").notNull().default(0),
    b02: integer("b02").notNull().default(0),
    b03: integer("b03").notNull().default(0),
    b04: integer("b04").notNull().default(0),
    b05: integer("b05").notNull().default(0),
    b06: integer("b06").notNull().default(0),
    b07: integer("b07").notNull().default(0),
    b08: integer("b08").notNull().default(0),
    b09: integer("b09").notNull().default(0),
    b10: integer("b10").notNull().default(0),
    b11: integer("b11").notNull().default(0),
    b12: integer("b12").notNull().default(0),
    b13: integer("b13").notNull().default(0),
    b14: integer("b14").notNull().default(0),
    b15: integer("b15").notNull().default(0),
    b16: integer("b16").notNull().default(0),
    b17: integer("b17").notNull().default(0),
    b18: integer("b18").notNull().default(0),
    b19: integer("b19").notNull().default(0),
    b20: integer("b20").notNull().default(0),
    b21: integer("b21").notNull().default(0),
    b22: integer("b22").notNull().default(0),
    b23: integer("b23").notNull().default(0),
    b24: integer("b24").notNull().default(0),
    b25: integer("b25").notNull().default(0),
    b26: integer("b26").notNull().default(0),
    b27: integer("b27").notNull().default(0),
    b28: integer("b28").notNull().default(0),
    b29: integer("b29").notNull().default(0),
    b30: integer("b30").notNull().default(0),
    b31: integer("b31").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.hourStart, t.apiKeyId, t.skillName, t.status] }),
    /** Covers the executions per hour by status and the skill ranking of a window (all keys). */
    index("execution_hourly_rollups_hour_status_idx").on(
      t.hourStart,
      t.status,
      t.skillName,
      t.count,
      t.errorCount,
    ),
    /** The same for one key's rollups. */
    index("execution_hourly_rollups_key_hour_idx").on(
      t.apiKeyId,
      t.hourStart,
      t.status,
      t.skillName,
      t.count,
      t.errorCount,
    ),
  ],
);

export type ExecutionRow = typeof skillExecutions.$inferSelect;
export type ExecutionRollupRow = typeof executionHourlyRollups.$inferSelect;
