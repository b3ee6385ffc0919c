/**
 * Registry storage, as drizzle-orm SQLite tables for libSQL/Turso. Migrations in
 * `migrations/` are generated from this file by drizzle-kit (`npm run db:generate`).
 * Timestamps are integer milliseconds since the epoch; JSON columns hold text. The execution
 * tables live in `schema-executions.ts` and are exported from here too, so drizzle-kit and every
 * reader see one schema.
 */
import { sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/** API keys (docs/api.md). Only the SHA-256 hash of a key is stored, never the key. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    /** First characters of the key, for operators to recognise it (not secret enough to use). */
    prefix: text("prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    expiresAt: integer("expires_at"),
    revokedAt: integer("revoked_at"),
    /** JSON array of scope names (docs/api.md#scopes); keys created before scopes hold all. */
    scopes: text("scopes")
      .notNull()
      .default('["inject","execute","read","skills:write","catalog:install"]'),
    /** Where approval notifications of this key's executions go (docs/approval-notifications.md). */
    approvalWebhookUrl: text("approval_webhook_url"),
    /** Standard Webhooks secret (`whsec_...`) signing them; write-only in the API. */
    approvalWebhookSecret: text("approval_webhook_secret"),
    /** The ranker of AUTO selection for this key's requests (docs/scoring.md); NULL = the setting. */
    ranker: text("ranker"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_unique").on(t.keyHash)],
);

/** Skills. `api_key_id` NULL = global; `name@version` is unique per owner, global included. */
export const skills = sqliteTable(
  "skills",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    version: text("version").notNull(),
    description: text("description").notNull().default(""),
    /** JSON `{ input, output? }`. */
    schema: text("schema").notNull(),
    handlerCode: text("handler_code").notNull(),
    /** SKILL.md body of a catalog (instruction) skill. */
    instructions: text("instructions"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    mode: text("mode", { enum: ["on", "off", "auto"] })
      .notNull()
      .default("on"),
    policy: text("policy", { enum: ["auto", "manual", "hybrid"] })
      .notNull()
      .default("auto"),
    sourceProvider: text("source_provider", {
      enum: ["builtin", "local", "skillsmp", "skillssh"],
    })
      .notNull()
      .default("local"),
    sourceRef: text("source_ref"),
    /** JSON array of strings. */
    tags: text("tags").notNull().default("[]"),
    installCount: integer("install_count").notNull().default(0),
    timeoutMs: integer("timeout_ms"),
    /** Auto-upgrade of sandbox runs (docs/execution.md#auto-upgrade); null = the handler's default. */
    autoUpgrade: integer("auto_upgrade", { mode: "boolean" }),
    /**
     * JSON spec of an HTTP or code handler (docs/custom-skills.md): `{ type: "http", url, method }`
     * or `{ type: "code", language, code, sha256, memoryMb }`; null for named handlers.
     */
    handler: text("handler"),
    /** Standard Webhooks signing secret (`whsec_...`) of an HTTP handler; write-only in the API. */
    handlerSecret: text("handler_secret"),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("skills_owner_name_version_unique").on(
      sql`coalesce(${t.apiKeyId}, '')`,
      t.name,
      t.version,
    ),
    index("skills_api_key_name_idx").on(t.apiKeyId, t.name),
    check("skills_mode_check", sql`${t.mode} IN ('on','off','auto')`),
    check("skills_policy_check", sql`${t.policy} IN ('auto','manual','hybrid')`),
  ],
);

/**
 * Remote MCP servers whose tools are imported as skills (docs/custom-skills.md#mcp-servers).
 * `headers` holds the JSON object of header names → values sent on every request; the values
 * are write-only in the API.
 */
export const mcpServers = sqliteTable(
  "mcp_servers",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    headers: text("headers").notNull().default("{}"),
    /** JSON array of the imported tool names at the last refresh. */
    tools: text("tools").notNull().default("[]"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    refreshedAt: integer("refreshed_at"),
  },
  (t) => [uniqueIndex("mcp_servers_name_unique").on(t.name)],
);

/**
 * Dashboard sessions ended by sign-out before their expiry (docs/dashboard.md#signing-in-and-sessions): the
 * session cookie is signed and stateless, so a copy of it stays valid until `expires_at` (ms since
 * the epoch) unless its id is here. Rows past their expiry are deleted at the next sign-out.
 */
export const dashboardSessionRevocations = sqliteTable("dashboard_session_revocations", {
  sessionId: text("session_id").primaryKey(),
  expiresAt: integer("expires_at").notNull(),
});

/** Product settings (docs/configuration.md): one JSON value per key. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Per-key overrides of the execution limits (docs/rate-limits.md): a JSON object holding only the
 * overridden fields (`executionsPerMinute`, `concurrentSandboxRuns`, `dailySandboxSeconds`), each a
 * non-negative integer or null (no limit); absent fields follow the `defaultLimits` setting.
 */
export const apiKeyLimits = sqliteTable("api_key_limits", {
  apiKeyId: text("api_key_id").primaryKey(),
  limits: text("limits").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Usage of one key on one UTC day (docs/rate-limits.md#storage): executions admitted, sandbox
 * time of finished runs and sandbox time reserved by runs still going (ms). The daily budget is
 * checked and reserved in one conditional UPDATE.
 */
export const apiKeyUsage = sqliteTable(
  "api_key_usage",
  {
    apiKeyId: text("api_key_id").notNull(),
    /** UTC day, `YYYY-MM-DD`. */
    day: text("day").notNull(),
    /**
     * Not written: a key's executions of a day are counted from `skill_executions`, so that an
     * execution that is not a sandbox run costs no write here. Kept so the table matches its
     * migration.
     */
    executions: integer("executions").notNull().default(0),
    sandboxRuns: integer("sandbox_runs").notNull().default(0),
    sandboxMs: integer("sandbox_ms").notNull().default(0),
    reservedMs: integer("reserved_ms").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.day] })],
);

/**
 * Workspace files of `file_read` / `file_write` (docs/workspaces.md: a Worker has no disk). One row
 * per file; `workspace` is `sha256(apiKeyId || "anonymous").slice(0, 24)`.
 */
export const workspaceFiles = sqliteTable(
  "workspace_files",
  {
    workspace: text("workspace").notNull(),
    path: text("path").notNull(),
    content: text("content", { mode: "text" }).notNull(),
    /** Content encoding in storage: always base64 of the raw bytes. */
    size: integer("size").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("workspace_files_workspace_path_unique").on(t.workspace, t.path)],
);

/**
 * A2A tasks (docs/a2a.md#tasks): the task object of the A2A protocol as JSON, its state, and the
 * key that created it (`api_key_id` NULL = the management token). A key reads only its own tasks.
 */
export const a2aTasks = sqliteTable(
  "a2a_tasks",
  {
    id: text("id").primaryKey(),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    contextId: text("context_id").notNull(),
    /** `submitted`, `working`, `input-required`, `auth-required`, `completed`, `failed`, `canceled`, `rejected`. */
    state: text("state").notNull(),
    /** The A2A `Task` (protocol JSON). */
    task: text("task").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("a2a_tasks_api_key_updated_idx").on(t.apiKeyId, t.updatedAt),
    index("a2a_tasks_api_key_context_idx").on(t.apiKeyId, t.contextId),
    check(
      "a2a_tasks_state_check",
      sql`${t.state} IN ('submitted','working','input-required','auth-required','completed','failed','canceled','rejected','unspecified')`,
    ),
  ],
);

/**
 * Upstream LLM calls of a key (docs/a2a.md#memory_aware_routing): one row per call a gateway (or
 * the proxy) reports, with its outcome and latency. The routing recommendation reads them.
 */
export const upstreamCalls = sqliteTable(
  "upstream_calls",
  {
    id: text("id").primaryKey(),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    status: text("status", { enum: ["success", "error"] }).notNull(),
    /** `rate_limit`, `timeout`, `server_error`, `invalid_request`, `auth`, `other`; null on success. */
    errorClass: text("error_class"),
    latencyMs: integer("latency_ms").notNull(),
    /** Short description of the task the call served (optional), for task-aware routing. */
    task: text("task"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("upstream_calls_api_key_created_idx").on(t.apiKeyId, t.createdAt),
    check("upstream_calls_status_check", sql`${t.status} IN ('success','error')`),
  ],
);

/**
 * What selection learned from traffic (docs/scoring.md#learning-from-traffic): per scope (an API
 * key's id, or `*` for what global skills learned across keys) and skill, the decayed weight of
 * each hashed context feature (a 32-bit hash of a stemmed term, never the text) that preceded a
 * call of the skill. Feature -1 holds the skill's decayed call count. `weight` is as of
 * `updated_at` (ms since the epoch); readers decay it by the half-life. Deleting a skill deletes
 * its rows.
 */
export const skillLearning = sqliteTable(
  "skill_learning",
  {
    scope: text("scope").notNull(),
    skillId: text("skill_id")
      .notNull()
      .references(() => skills.id, { onDelete: "cascade" }),
    feature: integer("feature").notNull(),
    weight: real("weight").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.skillId, t.feature] }),
    index("skill_learning_skill_idx").on(t.skillId),
    index("skill_learning_updated_idx").on(t.updatedAt),
  ],
);

export type SkillRow = typeof skills.$inferSelect;
export type NewSkillRow = typeof skills.$inferInsert;

export * from "./schema-executions.js";
export * from "./schema-token-usage.js";
