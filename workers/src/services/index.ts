/**
 * The application layer (docs/architecture.md#layers): builds the services of one app instance
 * from its dependencies. Every front door (REST routes, and the proxy, MCP, A2A and dashboard)
 * calls these services and nothing below them; this module is where the database, the cache and
 * the outside clients are wired to the domain (repositories, registry, executor, builtins).
 */

import { globalFetch } from "../catalogs/upstream.js";
import { createRepositories } from "../db/repositories/index.js";
import type { AppDeps } from "../deps.js";
import { guardOutboundUrl } from "../outbound/guard.js";
import { BUILTIN_DEFINITIONS, createBuiltinHandlers } from "../skills/builtins/index.js";
import type { BuiltinDefinition } from "../skills/builtins/types.js";
import type { ApprovalNotifier } from "../skills/execution/approval-notifier.js";
import { Executor } from "../skills/execution/executor.js";
import { ExecutionLimiter } from "../skills/execution/limits.js";
import { createMcpToolHandler, MCP_HANDLER_NAME } from "../skills/handlers/mcp-import.js";
import { InjectionIndexStore } from "../skills/injection/injection-store.js";
import { policyFloorsFor } from "../skills/interception/policy-floor.js";
import { SelectionLearning } from "../skills/learning/learning.js";
import { SelectionStats } from "../skills/learning/selection-stats.js";
import { SkillRegistry } from "../skills/registry/registry.js";
import type { Tracing } from "../telemetry/tracing.js";
import { createApprovalNotifier } from "./approval-notifications.js";
import { CatalogsService } from "./catalogs.js";
import { ExecutionsService } from "./executions.js";
import { FoundSkillsStore } from "./found-skills.js";
import { HealthService } from "./health.js";
import { ApiKeyService } from "./keys.js";
import { LimitsService } from "./limits.js";
import { McpServerService } from "./mcp-servers.js";
import { OperatorService } from "./operator.js";
import type { ProxyService } from "./proxy.js";
import { OBSERVATION_WRITE_WINDOW_MS, RoutingService } from "./routing.js";
import { SettingsService } from "./settings.js";
import { SkillsService } from "./skills.js";
import { AgentTasksService } from "./tasks.js";
import { ToolsService } from "./tools.js";
import { TokenUsageService, USAGE_WRITE_WINDOW_MS } from "./usage.js";
import { createGateway } from "./wiring/gateway.js";
import { envOf, registerSpecHandlers, sandboxHandlerNames } from "./wiring/handlers.js";

/** The services every front door calls. */
export interface FrontDoorServices {
  skills: SkillsService;
  executions: ExecutionsService;
  catalogs: CatalogsService;
  tools: ToolsService;
  settings: SettingsService;
  keys: ApiKeyService;
  health: HealthService;
  /** A2A tasks, scoped to the key that created them (docs/a2a.md#tasks). */
  tasks: AgentTasksService;
  /** Upstream call history and routing recommendations (docs/a2a.md#memory_aware_routing). */
  routing: RoutingService;
  /** OpenTelemetry tracing, null when no OTLP endpoint is configured. */
  tracing: Tracing | null;
  /** The gateway proxy's upstreams, limits and mixed-turn storage (docs/proxy.md). */
  proxy: ProxyService;
  /** Dashboard operations: sign-in, scoped history, approvals, chart aggregates (docs/dashboard.md). */
  operator: OperatorService;
  /** Imported MCP servers (docs/custom-skills.md#mcp-servers). */
  mcpServers: McpServerService;
  /** Per-key execution limits and usage (docs/rate-limits.md). */
  limits: LimitsService;
  /** Proxied token usage per key and day, and token budgets (docs/limits.md#token-budgets). */
  tokenUsage: TokenUsageService;
}

/**
 * The services plus the domain singletons of this app instance (one registry, one executor per
 * process), which entry points and tests reach for handler registration and cache control.
 * Front doors get {@link FrontDoorServices} only.
 */
export interface Services extends FrontDoorServices {
  registry: SkillRegistry;
  executor: Executor;
  /** Enforces the per-key limits; `countAsSandbox(name)` adds an embedder's sandbox handler. */
  limiter: ExecutionLimiter;
  /** Background delivery of approval notifications (docs/approval-notifications.md). */
  approvalNotifier: ApprovalNotifier;
  /** Prepares the injection index of each registry snapshot (derived, or loaded from the cache). */
  indexes: InjectionIndexStore;
  /** Learning from traffic (docs/scoring.md#learning-from-traffic). */
  learning: SelectionLearning;
}

const modelViews = new WeakMap<FrontDoorServices, FrontDoorServices>();

/**
 * The services as a front door that a model drives sees them (docs/policies.md#model-calls-on-every-door):
 * the MCP endpoint and the A2A agent. Their executions service is the model view
 * ({@link ExecutionsService.forModels}, also under the operator service): an execute request
 * applies the policy floors of the skill's handler, and a model never approves. Interception and the proxy reach the same rule
 * through the tools service. @returns a view sharing every other service (memoised per input).
 */
export function modelDoorServices(services: FrontDoorServices): FrontDoorServices {
  let view = modelViews.get(services);
  if (!view) {
    view = {
      ...services,
      executions: services.executions.forModels(),
      operator: services.operator.forModels(),
    };
    modelViews.set(services, view);
  }
  return view;
}

/** Options for tests and benchmarks. */
export interface ServiceOptions {
  /** Retry backoff base in ms (default 1000; docs/execution.md#retries). */
  retryBackoffMs?: number;
  /** Builtins to seed (default: the product's). */
  builtins?: readonly BuiltinDefinition[];
  /** Backoff base of approval-notification retries in ms (default 1000). */
  notificationBackoffMs?: number;
}

/** Creates the services for `deps`. */
export function createServices(deps: AppDeps, opts: ServiceOptions = {}): Services {
  const clock = deps.clock ?? Date.now;
  const builtins = opts.builtins ?? BUILTIN_DEFINITIONS;
  const repos = createRepositories(deps.db, clock, {
    maxInputBytes: deps.config.SKILLS_MAX_STORED_INPUT_BYTES,
    maxOutputBytes: deps.config.SKILLS_MAX_STORED_OUTPUT_BYTES,
  });
  const settings = new SettingsService(repos.settings, deps.cache, clock);
  const keys = new ApiKeyService(repos.apiKeys, deps.cache, deps.config.MGMT_TOKEN, clock);
  const indexes = new InjectionIndexStore(deps.cache);
  const registry = new SkillRegistry({
    repository: repos.skills,
    cache: deps.cache,
    builtins,
    clock,
    onSnapshot: (snapshot, cause) => indexes.prepare(snapshot, cause),
    indexCache: indexes.cache,
  });
  const approvalNotifier = createApprovalNotifier({
    deps,
    keys,
    settings,
    store: repos.executions,
    backoffMs: opts.notificationBackoffMs,
  });
  const timings = new Map(builtins.map((b) => [b.name, b.timing]));
  const limiter: ExecutionLimiter = new ExecutionLimiter({
    limitsFor: (id) => limits.effective(id),
    usage: repos.usage,
    sandboxHandlers: sandboxHandlerNames(builtins),
    platform: deps.executionRateLimiter && {
      limiter: deps.executionRateLimiter,
      defaultPerMinute: async () => (await limits.defaults()).executionsPerMinute,
    },
    windows: deps.shortWindows,
    onUnreachable: {
      executions: deps.config.KEY_LIMITER_ON_UNREACHABLE_EXECUTIONS,
      sandbox: deps.config.KEY_LIMITER_ON_UNREACHABLE_SANDBOX,
    },
    clock,
  });
  const limits = new LimitsService(
    repos.limitOverrides,
    repos.usage,
    settings,
    () => limiter,
    clock,
  );
  const executor = new Executor({
    store: repos.executions,
    isSkillsEnabled: async () => (await settings.get()).skillsEnabled,
    isCustomExecutionEnabled: async () => (await settings.get()).customSkillExecution,
    clock,
    retryBackoffMs: opts.retryBackoffMs,
    metrics: deps.metrics,
    admission: limiter,
    onApprovalRequested: (execution, skill) => approvalNotifier.notify(execution, skill),
  });
  const env = envOf(deps);
  const handlers = createBuiltinHandlers({ ...env, workspaces: repos.workspaces });
  for (const [name, handler] of Object.entries(handlers)) {
    executor.registerHandler(name, handler, timings.get(name)?.(deps.config));
  }
  registerSpecHandlers(env, registry, executor);
  const skills = new SkillsService(
    registry,
    (name) => executor.hasHandler(name),
    (id) => keys.exists(id),
    clock,
    deps.config.SKILLS_HTTP_HANDLER_ALLOWLIST,
  );
  const fetchImpl = deps.fetch ?? globalFetch;
  const mcpServers = new McpServerService({
    store: repos.mcpServers,
    registry,
    skills,
    fetch: fetchImpl,
    allowlist: deps.config.SKILLS_HTTP_HANDLER_ALLOWLIST,
    guard: async (url, signal) =>
      (await guardOutboundUrl(url, { resolve: deps.outbound?.resolve, signal })).addresses,
    connect: deps.outbound?.connect,
    listBounds: {
      maxPageBytes: deps.config.SKILLS_MCP_MAX_LIST_BYTES,
      maxTools: deps.config.SKILLS_MCP_MAX_TOOLS,
    },
    clock,
  });
  executor.registerHandler(
    MCP_HANDLER_NAME,
    createMcpToolHandler((id, signal) => mcpServers.connectionFor(id, signal), fetchImpl, {
      maxResultBytes: deps.config.SKILLS_MCP_MAX_RESULT_BYTES,
    }),
  );
  const policyFloors = policyFloorsFor(deps.config.SKILLS_ALLOW_MODEL_COMMANDS);
  const learning = new SelectionLearning({
    store: repos.learning,
    cache: deps.cache,
    params: {
      halfLifeMs: deps.config.SELECTION_LEARNING_HALF_LIFE_DAYS * 86_400_000,
      maxFeaturesPerSkill: deps.config.SELECTION_LEARNING_MAX_FEATURES_PER_SKILL,
    },
    enabled: deps.config.SELECTION_LEARNING,
    shareGlobal: deps.config.SELECTION_LEARNING_SHARE_GLOBAL,
    clock,
  });
  const executions = new ExecutionsService(
    executor,
    repos.executions,
    skills,
    deps.config.APPROVAL_TTL_MS,
    policyFloors,
  );
  const tools = new ToolsService({
    registry,
    settings,
    executor,
    unavailableBuiltins: builtins
      .filter((b) => b.available && !b.available(env))
      .map((b) => b.name),
    builtinAliases: new Map(
      builtins.flatMap((b) => (b.aliases ?? []).map((a): [string, string] => [a, b.name])),
    ),
    policyFloors,
    keyRanker: (id) => keys.rankerOf(id),
    searchMode: deps.config.SKILLS_SEARCH_TOOL,
    foundSkills: new FoundSkillsStore(deps.cache),
    learning,
    stats: new SelectionStats(),
    metrics: deps.metrics,
  });
  // On Node observations wait up to a second to be written together; elsewhere (the Worker,
  // whose isolate may go once its answers are done) they are written at the end of the turn.
  const node = deps.runtime === "node";
  const tokenUsage = new TokenUsageService(
    repos.tokenUsage,
    clock,
    deps.metrics,
    node ? USAGE_WRITE_WINDOW_MS : 0,
  );
  const routing = new RoutingService(
    repos.routingHistory,
    clock,
    node ? OBSERVATION_WRITE_WINDOW_MS : 0,
  );
  const { proxy, tracing } = createGateway(deps, clock, { tools, settings, tokenUsage, routing });
  return {
    registry,
    executor,
    limiter,
    limits,
    tokenUsage,
    approvalNotifier,
    indexes,
    learning,
    skills,
    settings,
    keys,
    executions,
    operator: new OperatorService({
      mgmtToken: deps.config.MGMT_TOKEN,
      sessionSecret: deps.config.DASHBOARD_SESSION_SECRET,
      keys,
      executions,
      repository: repos.executions,
      cache: deps.cache,
      sessionRevocations: repos.sessionRevocations,
      handlerNames: () => executor.handlerNames(),
      clock,
    }),
    catalogs: new CatalogsService({
      env: { config: deps.config, fetch: fetchImpl, settings: () => settings.get() },
      settings,
      skills,
      registry,
      githubRawBaseUrl: deps.config.GITHUB_RAW_BASE_URL,
    }),
    tools,
    tasks: new AgentTasksService(repos.agentTasks),
    routing,
    tracing,
    proxy,
    mcpServers,
    health: new HealthService({
      database: repos.database,
      registry,
      executor,
      sandbox: deps.sandbox,
      runtime: deps.runtime,
      storage: deps.storage,
      minFreeBytes: deps.config.DATABASE_MIN_FREE_BYTES,
      clock,
    }),
  };
}
