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

/**
 * An HTTP handler (docs/custom-skills.md#http-handlers): the input is sent as JSON to `url` with
 * `method`, signed with the skill's Standard Webhooks secret; the JSON answer is the output.
 */
export interface HttpHandlerSpec {
  type: "http";
  url: string;
  method: "POST" | "PUT" | "PATCH";
}

/**
 * A code handler (docs/custom-skills.md#code-skills): `code` runs on the sandbox host with the
 * input as JSON on stdin; stdout is the output. `sha256` is the hex SHA-256 of `code`.
 */
export interface CodeHandlerSpec {
  type: "code";
  language: "python" | "node";
  code: string;
  sha256: string;
  /** Memory limit of each run in MB; null = the sandbox host's default (256). */
  memoryMb: number | null;
}

/** A tool of a remote MCP server imported as a skill (docs/custom-skills.md#mcp-servers). */
export interface McpHandlerSpec {
  type: "mcp";
  /** Id of the imported server (`GET /api/mcp-servers`). */
  serverId: string;
  /** The tool's name on the server. */
  tool: string;
}

/** The handler a custom skill carries with it (instead of naming a compiled-in one). */
export type HandlerSpec = HttpHandlerSpec | CodeHandlerSpec | McpHandlerSpec;

/** A registered skill (docs/registry.md#a-skill). Timestamps are ISO-8601 strings. */
export interface Skill {
  id: string;
  name: string;
  version: string;
  description: string;
  schema: SkillSchema;
  /**
   * The handler name: a handler registered with the executor (never source code; the API calls it
   * `handlerCode` for compatibility). Skills installed with an HTTP or code handler carry
   * `http-handler` / `code-handler` here and their spec in `handler`.
   */
  handlerCode: string;
  /** Spec of an HTTP or code handler; null for skills that name a registered handler. */
  handler: HandlerSpec | null;
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
  /**
   * Whether a sandbox run that ran out of time or memory is run once more with doubled limits
   * (docs/execution.md#auto-upgrade); null = the handler's default (on for `eval_code`).
   */
  autoUpgrade: boolean | null;
  /** Owner API key id; null = global (visible to every key). */
  apiKeyId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Where an attempt runs: `direct` = the handler in this process; `sandbox` = a container. */
export type Placement = "direct" | "sandbox";

/** Why an attempt ran with larger limits than the one before it. */
export type UpgradeReason = "timeout" | "out_of_memory";

/** Limits of one sandbox attempt. Units: ms and MB; `memoryMb` null = the host's default. */
export interface AttemptLimits {
  timeoutMs: number;
  memoryMb: number | null;
}

/** One attempt of an execution as recorded on its row (`attemptLog`). Units: ms and MB. */
export interface AttemptRecord {
  /** 1-based attempt number. */
  attempt: number;
  placement: Placement;
  /** Time limit of the attempt. */
  timeoutMs: number;
  /** Memory limit of a sandbox attempt as the host applied it; null when not known or direct. */
  memoryMb: number | null;
  status: "success" | "error" | "timeout";
  /** Failure code of the attempt; null on success. */
  errorCode: string | null;
  /** Wall time of the attempt. */
  durationMs: number;
  /** Set on an attempt that ran with doubled limits: what the attempt before it ran out of. */
  upgradeReason: UpgradeReason | null;
  /** The sandbox host that started (or refused) a sandbox attempt; absent otherwise. */
  host?: string;
}

/**
 * One delivery attempt of an approval notification (docs/approval-notifications.md). Every
 * attempt of one notification carries the same `webhookId`.
 */
export interface NotificationDelivery {
  /** The `webhook-id` header: the same on every retry of one notification. */
  webhookId: string;
  /** 1-based delivery attempt. */
  attempt: number;
  /** When the attempt was sent (ISO-8601). */
  at: string;
  /** Scheme, host and path of the target (its query string is never shown; it may hold a token). */
  target: string;
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  /** True for a 2xx answer. */
  ok: boolean;
  /** Why the attempt failed (HTTP status, timeout, refused address); null when it succeeded. */
  error: string | null;
  /** Wall time of the attempt in ms. */
  durationMs: number;
}

/** One execution row as the API returns it (shared by every execution endpoint). */
export interface Execution {
  id: string;
  skillId: string;
  skillName: string;
  version: string;
  apiKeyId: string | null;
  sessionId: string | null;
  /** `x-request-id` of the client request that created the execution (docs/api.md#request-ids). */
  requestId?: string | null;
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
  /**
   * Each attempt with its placement, limits and outcome, and why an attempt was upgraded
   * (docs/execution.md#auto-upgrade); empty until the execution ends.
   */
  attemptLog: AttemptRecord[];
  /** Deliveries of the approval notification of an execution that awaited approval. */
  notifications: NotificationDelivery[];
  /** SHA-256 (hex) of the program a code skill ran; null for other handlers. */
  codeSha256: string | null;
  /**
   * The sandbox host of the last sandbox attempt, with its queue wait and program time in ms
   * (docs/execution.md#sandbox-runs); null for an execution that never reached a host.
   */
  sandbox?: { host: string | null; queueWaitMs: number | null; programMs: number | null } | null;
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
  /** Id of the execution this attempt belongs to. */
  executionId: string;
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
  /**
   * Memory limit in MB the executor chose for this sandbox attempt (an upgraded attempt;
   * docs/execution.md#auto-upgrade); undefined = the handler's own choice.
   */
  memoryMb?: number;
  /**
   * Tells the executor where a sandbox attempt ran and how its time split (recorded on the row:
   * docs/execution.md#sandbox-runs). Sandbox handlers call it when the host acknowledges the
   * start and again with the result; fields given replace earlier ones.
   */
  reportSandbox?: (report: SandboxReport) => void;
}

/**
 * Where a sandbox attempt ran and how its time split (docs/execution.md#sandbox-runs). Units: ms.
 */
export interface SandboxReport {
  /** Origin of the sandbox host that started (or refused) the run. */
  host?: string;
  /** Time the run waited on the host for a slot and a container. */
  queueWaitMs?: number;
  /** Time the program itself ran (handover to exit). */
  programMs?: number;
}

/**
 * A skill handler (docs/execution.md#handlers): `(input, ctx) => Promise<output>`. Throw to fail;
 * throw an error with `retryable: true` (see {@link RetryableError}) to ask for another attempt.
 */
export type SkillHandler = (input: unknown, ctx: HandlerContext) => Promise<unknown>;
