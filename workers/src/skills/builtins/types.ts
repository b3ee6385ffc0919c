/**
 * How builtin skills are declared (docs/registry.md#builtins). Each builtin module exports its
 * definitions and a factory that builds the handlers from the app's dependencies; the registry
 * seeds the definitions as global skills (`source_provider = 'builtin'`, version `1.0.0`), and the
 * executor registers the handlers under the builtin's name.
 */
import type { Config } from "../../config.js";
import type { AppDeps } from "../../deps.js";
import type { HandlerTiming } from "../execution/timing.js";
import type { ExecutionPolicy, InjectionMode, JsonSchema, SkillHandler } from "../types.js";
import type { WorkspaceRepository } from "./workspace-repository.js";

/**
 * What builtins get from the app: its dependencies (configuration, cache, clock, sandbox client,
 * operator fetch, outbound connector, runtime) without the database handle.
 */
export type BuiltinEnv = Omit<AppDeps, "db">;

/** {@link BuiltinEnv} plus the storage the builtins use (built by the services from the database). */
export interface BuiltinDeps extends BuiltinEnv {
  /** Workspace files of `file_read` / `file_write`. */
  workspaces: WorkspaceRepository;
}

/** Declaration of one builtin skill. */
export interface BuiltinDefinition {
  /** Bare tool name, kept as is in every provider format (e.g. `web_search`). */
  name: string;
  description: string;
  /** JSON Schema of the input, root `type: "object"`. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** Default executor policy (docs/policies.md). */
  policy: ExecutionPolicy;
  /** Default injection mode; builtins take part in scoring as `auto`. */
  mode: InjectionMode;
  /** Whether the builtin is enabled on a fresh install. */
  enabled?: boolean;
  /** Descriptive tags that feed AUTO scoring (docs/scoring.md). */
  tags: string[];
  /** Other names a model may use for this builtin (e.g. `omniroute_web_search`). */
  aliases?: string[];
  /**
   * How the executor times the builtin's runs under this configuration: the limit a call asks
   * for, the default and maximum limit, and the grace for a service to report (see
   * `HandlerTiming`). Absent: the per-skill `timeoutMs` or the executor default applies.
   */
  timing?: (config: Config) => HandlerTiming;
  /**
   * True when the builtin's runs use the sandbox host: they count as sandbox runs of the caller's
   * key (concurrent sandbox runs, daily sandbox seconds; docs/rate-limits.md).
   */
  sandbox?: boolean;
  /**
   * False when the builtin cannot work with this deployment's configuration (no search provider,
   * no sandbox host): it is then never injected, so a model is not offered a tool that can only
   * fail. Absent: always available.
   */
  available?: (deps: BuiltinEnv) => boolean;
}

/**
 * Builds the handlers of a builtin module, keyed by builtin name, from what the module needs
 * (`D`: {@link BuiltinEnv}, or {@link BuiltinDeps} for modules that use storage).
 */
export type BuiltinHandlerFactory<D extends BuiltinEnv = BuiltinEnv> = (
  deps: D,
) => Record<string, SkillHandler>;
