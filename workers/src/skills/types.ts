/**
 * Core domain types of the skills registry and executor (docs/registry.md, docs/execution.md).
 * Shared by every layer; this module has no runtime code.
 */
import type { CatalogId } from "../catalogs/types.js";

/**
 * Injection mode of a skill (API field `mode`; docs/policies.md#mode-and-policy): whether the
 * skill is offered to a model — `on` always injected, `off` never (and not executable), `auto`
 * injected when its score for the request is high enough. Not to be confused with
 * {@link ExecutionPolicy}, whose `auto` means "runs without a person".
 */
export type InjectionMode = "on" | "off" | "auto";

/**
 * Executor policy of a skill (API field `policy`; docs/policies.md#mode-and-policy): who may
 * trigger a run — `auto` a model's call runs at once, `hybrid` a model's call waits for a
 * person's approval, `manual` only an explicit execution runs it.
 */
export type ExecutionPolicy = "auto" | "manual" | "hybrid";

/**
 * Where a skill came from (API field `sourceProvider`, `?source=` of `GET /api/skills`): a
 * builtin, a local install, or the catalog it was installed from.
 */
export type SkillOrigin = "builtin" | "local" | CatalogId;

/** Terminal and non-terminal execution states (docs/execution.md#lifecycle). */
export type ExecutionStatus = "pending" | "running" | "success" | "error" | "timeout";

/**
 * Approval state of an execution (docs/policies.md#approval): `none` for executions that need no
 * approval, `required` while a hybrid call waits for an operator, then `approved` or `rejected`,
 * or `expired` when nobody decided in time.
 */
export type ApprovalState = "none" | "required" | "approved" | "rejected" | "expired";

/** A JSON Schema object (draft 2020-12 subset), kept as plain data. */
export type JsonSchema = Record<string, unknown>;

/** The skill's schemas (docs/registry.md): `input` is a JSON Schema with root `type: "object"`. */
export interface SkillSchema {
  input: JsonSchema;
  output?: JsonSchema;
}

/** A registered skill (docs/registry.md#a-skill). Timestamps are ISO-8601 strings. */
export interface Skill {
  id: string;
  name: string;
  version: string;
  description: string;
  schema: SkillSchema;
  /**
   * The handler name: a handler registered with the executor (never source code). The API calls
   * it `handlerCode` for compatibility.
   */
  handlerCode: string;
  /** SKILL.md body of a catalog (instruction) skill; null for handler-backed skills. */
  instructions: string | null;
  enabled: boolean;
  mode: InjectionMode;
  policy: ExecutionPolicy;
  sourceProvider: SkillOrigin;
  /** Catalog reference (e.g. `owner/repo/skill-id`) for catalog installs; null otherwise. */
  sourceRef: string | null;
  tags: string[];
  installCount: number;
  /** Per-skill handler timeout override in ms; null = executor default. */
  timeoutMs: number | null;
  /** Owner API key id; null = global (visible to every key). */
  apiKeyId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One execution row as the API returns it (shared by every execution endpoint). */
export interface Execution {
  id: string;
  skillId: string;
  skillName: string;
  version: string;
  apiKeyId: string | null;
  sessionId: string | null;
  status: ExecutionStatus;
  approval: ApprovalState;
  input: unknown;
  output: unknown;
  /**
   * True when `input` is not the input but a string holding the first bytes of its JSON text: the
   * history row keeps at most `SKILLS_MAX_STORED_INPUT_BYTES` (the answer of a run never is cut).
   */
  inputTruncated: boolean;
  /** As `inputTruncated`, for `output` (`SKILLS_MAX_STORED_OUTPUT_BYTES`). */
  outputTruncated: boolean;
  errorMessage: string | null;
  /** Machine-readable failure code (`handler_error`, `timeout`, `interrupted`, `rejected`, `sandbox_unavailable`, ...); null on success. */
  errorCode: string | null;
  /** Wall time of the final attempt sequence in ms; null until the execution ends. */
  durationMs: number | null;
  /** Number of handler attempts made (docs/execution.md#retries). */
  attempts: number;
  createdAt: string;
  updatedAt: string;
}

/** Who asked for an execution and in which conversation. */
export interface CallerContext {
  /** The calling API key's id; null for management acting globally. */
  apiKeyId: string | null;
  sessionId: string | null;
}

/** What a handler receives besides its input. */
export interface HandlerContext extends CallerContext {
  /** Fires when the execution times out or is cancelled; handlers must stop work. */
  signal: AbortSignal;
  /** The skill being executed. */
  skill: Skill;
  /** 1-based attempt number. */
  attempt: number;
  /**
   * What remains of the execution's time limit for this attempt, in ms (the executor's deadline
   * minus now; README "Time limits"). A handler that enforces a limit itself uses this one.
   */
  timeoutMs: number;
}

/**
 * A skill handler (docs/execution.md#handlers): `(input, ctx) => Promise<output>`. Throw to fail;
 * throw an error with `retryable: true` (see {@link RetryableError}) to ask for another attempt.
 */
export type SkillHandler = (input: unknown, ctx: HandlerContext) => Promise<unknown>;
