/**
 * Builds the services of one app instance from its dependencies: registry, skill management,
 * executor (one per process), settings, API keys, A2A tasks and the upstream call history. Route handlers receive these; domain
 * modules never read the environment.
 */
import { AgentTaskStore } from "./agents/task-store.js";
import { ApiKeyService } from "./auth/api-keys.js";
import type { AppDeps } from "./deps.js";
import { RoutingHistory } from "./routing/history.js";
import { SettingsService } from "./settings/settings-service.js";
import { BUILTIN_DEFINITIONS, createBuiltinHandlers } from "./skills/builtins/index.js";
import type { BuiltinDefinition } from "./skills/builtins/types.js";
import { ExecutionStore } from "./skills/execution-store.js";
import { Executor } from "./skills/executor.js";
import { type PolicyFloors, policyFloorsFor } from "./skills/policy-floor.js";
import { SkillRegistry } from "./skills/registry.js";
import { SkillService } from "./skills/skill-service.js";

/** Everything the routes use. */
export interface Services {
  deps: AppDeps;
  clock: () => number;
  registry: SkillRegistry;
  skills: SkillService;
  executor: Executor;
  settings: SettingsService;
  apiKeys: ApiKeyService;
  /** A2A tasks, scoped to the key that created them (docs/a2a.md#tasks). */
  agentTasks: AgentTaskStore;
  /** Upstream LLM call history per key (docs/a2a.md#memory-aware-routing). */
  routingHistory: RoutingHistory;
  builtins: readonly BuiltinDefinition[];
  /** Builtin alias → builtin name (e.g. `omniroute_web_search` → `web_search`). */
  builtinAliases: ReadonlyMap<string, string>;
  /** Builtins this deployment cannot run (see `BuiltinDefinition.available`); never injected. */
  unavailableBuiltins: readonly string[];
  /** Policy floors of model calls by handler name (`SKILLS_ALLOW_MODEL_COMMANDS` lifts them). */
  policyFloors: PolicyFloors;
}

/** Options for tests and benchmarks. */
export interface ServiceOptions {
  /** Retry backoff base in ms (default 1000; docs/execution.md#retries). */
  retryBackoffMs?: number;
  /** Builtins to seed (default: the product's). */
  builtins?: readonly BuiltinDefinition[];
}

/** Creates the services for `deps`. */
export function createServices(deps: AppDeps, opts: ServiceOptions = {}): Services {
  const clock = deps.clock ?? Date.now;
  const builtins = opts.builtins ?? BUILTIN_DEFINITIONS;
  const settings = new SettingsService(deps.db, deps.cache, clock);
  const apiKeys = new ApiKeyService(deps.db, deps.cache, clock);
  const registry = new SkillRegistry({ db: deps.db, cache: deps.cache, builtins, clock });
  const executor = new Executor({
    store: new ExecutionStore(deps.db, clock, {
      maxInputBytes: deps.config.SKILLS_MAX_STORED_INPUT_BYTES,
      maxOutputBytes: deps.config.SKILLS_MAX_STORED_OUTPUT_BYTES,
    }),
    isSkillsEnabled: async () => (await settings.get()).skillsEnabled,
    clock,
    retryBackoffMs: opts.retryBackoffMs,
    metrics: deps.metrics,
  });
  const timings = new Map(builtins.map((b) => [b.name, b.timing]));
  for (const [name, handler] of Object.entries(createBuiltinHandlers(deps))) {
    executor.registerHandler(name, handler, timings.get(name)?.(deps.config));
  }
  const skills = new SkillService(
    registry,
    (name) => executor.hasHandler(name),
    (id) => apiKeys.exists(id),
    clock,
  );
  const unavailableBuiltins = builtins
    .filter((b) => b.available && !b.available(deps))
    .map((b) => b.name);
  const builtinAliases = new Map(
    builtins.flatMap((b) => (b.aliases ?? []).map((a): [string, string] => [a, b.name])),
  );
  return {
    deps,
    clock,
    registry,
    skills,
    executor,
    settings,
    apiKeys,
    agentTasks: new AgentTaskStore(deps.db, clock),
    routingHistory: new RoutingHistory(deps.db, clock),
    builtins,
    builtinAliases,
    unavailableBuiltins,
    policyFloors: policyFloorsFor(deps.config.SKILLS_ALLOW_MODEL_COMMANDS),
  };
}
