/**
 * Every repository over one drizzle database: the only code besides `db/` that knows the
 * database exists is the composition in `services/index.ts`, which builds these once per app.
 */
import { sql } from "drizzle-orm";
import type { DatabaseProbe } from "../../services/health.js";
import type { StoredSizeLimits } from "../../skills/execution/execution-repository.js";
import type { McpServerStore } from "../../skills/registry/mcp-server-repository.js";
import type { Db } from "../client.js";
import { DrizzleAgentTaskRepository } from "./a2a-tasks.js";
import { DrizzleApiKeyRepository } from "./api-keys.js";
import { DrizzleSessionRevocationRepository } from "./dashboard-sessions.js";
import { DrizzleExecutionRepository } from "./executions.js";
import { DrizzleLimitOverridesRepository, DrizzleUsageStore } from "./key-limits.js";
import { DrizzleLearningRepository } from "./learning.js";
import { createMcpServerStore } from "./mcp-servers.js";
import { DrizzleSettingsRepository } from "./settings.js";
import { DrizzleSkillRepository } from "./skills.js";
import { DrizzleTokenUsageStore } from "./token-usage.js";
import { DrizzleRoutingHistoryRepository } from "./upstream-calls.js";
import { DrizzleWorkspaceRepository } from "./workspace-files.js";

/** The repositories of one database. */
export interface Repositories {
  skills: DrizzleSkillRepository;
  executions: DrizzleExecutionRepository;
  apiKeys: DrizzleApiKeyRepository;
  settings: DrizzleSettingsRepository;
  workspaces: DrizzleWorkspaceRepository;
  agentTasks: DrizzleAgentTaskRepository;
  routingHistory: DrizzleRoutingHistoryRepository;
  /** Per-key limit overrides and daily usage (docs/rate-limits.md). */
  limitOverrides: DrizzleLimitOverridesRepository;
  usage: DrizzleUsageStore;
  /** Imported MCP servers. */
  mcpServers: McpServerStore;
  /** Dashboard sessions ended by sign-out (docs/dashboard.md#signing-in-and-sessions). */
  sessionRevocations: DrizzleSessionRevocationRepository;
  /** What selection learned from traffic (docs/scoring.md#learning-from-traffic). */
  learning: DrizzleLearningRepository;
  /** Proxied token usage per key and day, and token budgets (docs/limits.md#token-budgets). */
  tokenUsage: DrizzleTokenUsageStore;
  /** `select 1`, for health checks. */
  database: DatabaseProbe;
}

/**
 * Builds the repositories of `db`.
 * @param clock ms since the epoch, for the timestamps repositories write themselves.
 * @param storedSizeLimits caps of the input and output an execution row keeps (bytes).
 */
export function createRepositories(
  db: Db,
  clock: () => number,
  storedSizeLimits?: StoredSizeLimits,
): Repositories {
  const executions = new DrizzleExecutionRepository(db, clock, storedSizeLimits);
  return {
    skills: new DrizzleSkillRepository(db),
    executions,
    learning: new DrizzleLearningRepository(db, executions.writes),
    // Not on the execution rows' batcher (see token-usage.ts).
    tokenUsage: new DrizzleTokenUsageStore(db),
    apiKeys: new DrizzleApiKeyRepository(db),
    settings: new DrizzleSettingsRepository(db),
    workspaces: new DrizzleWorkspaceRepository(db, clock),
    agentTasks: new DrizzleAgentTaskRepository(db, clock),
    routingHistory: new DrizzleRoutingHistoryRepository(db, clock),
    limitOverrides: new DrizzleLimitOverridesRepository(db),
    usage: new DrizzleUsageStore(db),
    mcpServers: createMcpServerStore(db),
    sessionRevocations: new DrizzleSessionRevocationRepository(db),
    database: {
      async ping() {
        await db.run(sql`select 1`);
      },
    },
  };
}
