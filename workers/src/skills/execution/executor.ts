/**
 * The executor (README "Time limits" and "Errors"): runs a skill's registered handler with a
 * time limit and retries, writing each lifecycle step (`running` → `success` | `error` |
 * `timeout`, with `pending` first for executions awaiting approval) to `skill_executions`. The
 * `running` row is written before the handler starts, so a crash never loses an execution
 * (docs/execution.md#what-an-execution-costs). One executor per process; handlers are registered
 * by name (`registerHandler`), and `handlerCode` only ever names one — user-supplied source is
 * never evaluated.
 *
 * The executor owns an execution's deadline (README "Time limits"): the limit is what the call
 * or the skill asked for (or the handler's default), the deadline is the start plus the limit,
 * every attempt and retry fits inside it, and a timeout's message states the limit. A handler
 * that talks to another service registers a grace (`HandlerTiming.graceMs`): the time the
 * executor still waits past the deadline for that service to report a run it stopped itself.
 * The grace is internal and never shown.
 */
import { ConflictError, DisabledError, InvalidInputError, NotFoundError } from "../../errors.js";
import type { Metrics } from "../../metrics/types.js";
import { isBuiltin } from "../registry/tool-resolver.js";
import type {
  AttemptLimits,
  AttemptRecord,
  CallerContext,
  Execution,
  Skill,
  SkillHandler,
} from "../types.js";
import {
  exhaustedResource,
  reportedLimits,
  upgradedLimits,
  upgradeEnabled,
} from "./auto-upgrade.js";
import type { ExecutionRepository } from "./execution-repository.js";
import { validateSkillInput } from "./input-validation.js";
import { ADMIT_ALL, type ExecutionAdmission } from "./limits.js";
import { type PhaseDeps, runPhase } from "./phase.js";
import { type HandlerTiming, limitOf } from "./timing.js";

/** Defaults (docs/execution.md#time-budget, docs/execution.md#retries). */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
/** Backoff of 1 s × attempt between retries (docs/execution.md#retries). */
export const DEFAULT_RETRY_BACKOFF_MS = 1_000;

/** Message of an execution its caller cancelled (docs/execution.md#outcomes). */
export { CANCELLED_MESSAGE } from "./phase.js";

/** Options of {@link Executor}. */
export interface ExecutorOptions {
  /** Where executions are recorded. */
  store: ExecutionRepository;
  /** Reads the master switch (`skillsEnabled` setting). */
  isSkillsEnabled: () => Promise<boolean>;
  /**
   * Reads the `customSkillExecution` setting (docs/configuration.md#settings-stored-not-configured):
   * false → only builtins run. Default: always true.
   */
  isCustomExecutionEnabled?: () => Promise<boolean>;
  clock?: () => number;
  /** Base of the linear retry backoff in ms (default 1000). */
  retryBackoffMs?: number;
  /** Receives each execution that reaches a terminal status here (run or rejected). */
  metrics?: Pick<Metrics, "countExecution">;
  /** Per-key limits asked before an execution is written (docs/rate-limits.md); default none. */
  admission?: ExecutionAdmission;
  /**
   * Told of each execution that starts waiting for approval (docs/approval-notifications.md);
   * must return at once (work goes on in the background) and never throw.
   */
  onApprovalRequested?: (execution: Execution, skill: Skill) => void;
}

/** Runs skills and records their executions. */
export class Executor {
  private readonly handlers = new Map<string, SkillHandler>();
  private readonly timings = new Map<string, HandlerTiming>();
  /** Retry-After hints of executions that ended because a service was saturated (not stored). */
  private readonly retryHints = new WeakMap<Execution, number>();
  private readonly timeoutMs = DEFAULT_TIMEOUT_MS;
  private readonly maxRetries = DEFAULT_MAX_RETRIES;
  private readonly retryBackoffMs: number;
  private readonly clock: () => number;
  /** Where executions are recorded. */
  readonly store: ExecutionRepository;
  private readonly isSkillsEnabled: () => Promise<boolean>;
  private readonly isCustomExecutionEnabled: () => Promise<boolean>;
  private readonly metrics: Pick<Metrics, "countExecution"> | undefined;
  private readonly admission: ExecutionAdmission;
  private readonly onApprovalRequested: ExecutorOptions["onApprovalRequested"];

  constructor(opts: ExecutorOptions) {
    this.store = opts.store;
    this.admission = opts.admission ?? ADMIT_ALL;
    this.onApprovalRequested = opts.onApprovalRequested;
    this.metrics = opts.metrics;
    this.isSkillsEnabled = opts.isSkillsEnabled;
    this.isCustomExecutionEnabled = opts.isCustomExecutionEnabled ?? (async () => true);
    this.clock = opts.clock ?? Date.now;
    this.retryBackoffMs = opts.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS;
  }

  /**
   * Registers (or replaces) the handler `name`. `timing` says how its runs are timed (see
   * {@link HandlerTiming}); without it the skill's `timeoutMs` or the executor default applies.
   */
  registerHandler(name: string, fn: SkillHandler, timing?: HandlerTiming): void {
    this.handlers.set(name, fn);
    if (timing) this.timings.set(name, timing);
    else this.timings.delete(name);
  }

  /** True when a handler `name` is registered. */
  hasHandler(name: string): boolean {
    return this.handlers.has(name);
  }

  /** Names of the registered handlers. */
  handlerNames(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /**
   * The time limit of one execution of `skill` with `input`, in ms: the call's own ask (from its
   * input, when the handler reads one), capped by the skill's `timeoutMs`; else the skill's
   * `timeoutMs`; else the handler's default; else the executor's; never above the handler's
   * maximum.
   */
  limitFor(skill: Skill, input: unknown): number {
    return limitOf(this.timings.get(skill.handlerCode), skill, input, this.timeoutMs);
  }

  /**
   * The terminal execution as answered to its caller: the complete input the run used, not the
   * prefix a history row may keep of it (the row's `inputTruncated` stays visible on later reads).
   * The retry hint of the execution (see {@link retryAfterS}) carries over to the answer.
   */
  private withInput(input: unknown, execution: Execution): Execution {
    const answer = { ...execution, input: input ?? null, inputTruncated: false };
    const hint = this.retryHints.get(execution);
    if (hint !== undefined) this.retryHints.set(answer, hint);
    return answer;
  }

  /**
   * Seconds to wait before trying again, for an execution that ended because a service it needs
   * was saturated (`errorCode` `sandbox_busy`): the service's own hint when it sent one, else
   * undefined. Known only to the process that ran the execution (not stored).
   */
  retryAfterS(execution: Execution): number | undefined {
    return this.retryHints.get(execution);
  }

  /**
   * Checks that `skill` may run now with `input`, before anything is written.
   * @throws DisabledError `skills_disabled` (503, master switch), `custom_execution_disabled` (409,
   *   a custom skill while the `customSkillExecution` setting is off) or `skill_disabled` (409, mode off);
   *   NotFoundError `handler_not_found` when no handler is registered; InvalidInputError for bad input.
   */
  private async preflight(skill: Skill, input: unknown): Promise<void> {
    if (!(await this.isSkillsEnabled())) {
      throw new DisabledError(
        "Skills execution is disabled (skillsEnabled = false)",
        "skills_disabled",
      );
    }
    if (!isBuiltin(skill) && !(await this.isCustomExecutionEnabled())) {
      throw new DisabledError(
        `Skill ${skill.name}@${skill.version} is a custom skill and custom skill execution is off (setting customSkillExecution = false): only builtins run`,
        "custom_execution_disabled",
      );
    }
    if (skill.mode === "off" || !skill.enabled) {
      throw new DisabledError(
        `Skill ${skill.name}@${skill.version} is disabled (mode "off")`,
        "skill_disabled",
      );
    }
    if (!this.handlers.has(skill.handlerCode)) {
      throw new NotFoundError(
        `No handler "${skill.handlerCode}" is registered for ${skill.name}@${skill.version}`,
        "handler_not_found",
      );
    }
    validateSkillInput(skill, input);
  }

  /**
   * Runs `skill` now and returns the terminal execution (docs/execution.md#outcomes: `success`,
   * `error` with `errorMessage` and the program's output, or `timeout` with partial output).
   * @param signal optional cancellation by the caller (a proxy client that went away): the
   *   handler's own signal fires, and the execution ends `error` with code `cancelled`
   *   (docs/execution.md#outcomes).
   * @throws see {@link preflight}; AppError 429 `rate_limited` | `concurrency_limited` |
   *   `quota_exceeded` when the key's limits refuse it (docs/rate-limits.md); nothing is written
   *   when it throws.
   */
  async execute(
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    signal?: AbortSignal,
  ): Promise<Execution> {
    await this.preflight(skill, input);
    const limit = this.limitFor(skill, input);
    const ticket = await this.admission.admit(skill, ctx, {
      limitMs: limit,
      count: true,
      run: true,
    });
    try {
      const row = await this.store.create(skill, input, ctx, { timeoutMs: limit, running: true });
      return this.withInput(input, await this.run(row.id, skill, input, ctx, limit, signal));
    } finally {
      await ticket.settle();
    }
  }

  /**
   * Creates an execution that waits for an operator's approval (policy `hybrid`;
   * docs/policies.md#approval). Its input must fit in the history row whole, since the approved
   * run reads it from there.
   * @throws see {@link preflight}; InvalidInputError `input_too_large` when the input's JSON is
   *   longer than `SKILLS_MAX_STORED_INPUT_BYTES`; AppError 429 `rate_limited` when the key's
   *   executions per minute are used (docs/rate-limits.md).
   */
  async requestApproval(skill: Skill, input: unknown, ctx: CallerContext): Promise<Execution> {
    await this.preflight(skill, input);
    if (!this.store.inputFits(input)) {
      const maxBytes = this.store.limits.maxInputBytes;
      throw new InvalidInputError(
        `Input is longer than ${maxBytes} bytes of JSON: an execution awaiting approval keeps its whole input, at most SKILLS_MAX_STORED_INPUT_BYTES`,
        { maxBytes },
        "input_too_large",
      );
    }
    const limit = this.limitFor(skill, input);
    const ticket = await this.admission.admit(skill, ctx, {
      limitMs: limit,
      count: true,
      run: false,
    });
    await ticket.settle();
    const pending = await this.store.create(skill, input, ctx, {
      approval: "required",
      timeoutMs: limit,
    });
    this.onApprovalRequested?.(pending, skill);
    return pending;
  }

  /**
   * Approves a pending execution and runs it. Returns the terminal execution.
   * @throws DisabledError when the skill is now off; AppError 429 `concurrency_limited` |
   *   `quota_exceeded` when the key's sandbox limits refuse the run (it stays pending);
   *   ConflictError `not_awaiting_approval` when it is no longer pending.
   */
  async approve(execution: Execution, skill: Skill): Promise<Execution> {
    await this.preflight(skill, execution.input);
    const limit = this.limitFor(skill, execution.input);
    const ctx = { apiKeyId: execution.apiKeyId, sessionId: execution.sessionId };
    // The execution was counted when it was requested; its run still takes a sandbox slot and budget.
    const ticket = await this.admission.admit(skill, ctx, {
      limitMs: limit,
      count: false,
      run: true,
    });
    try {
      if (!(await this.store.startApproved(execution.id, limit))) {
        throw new ConflictError(
          `Execution ${execution.id} is not awaiting approval`,
          "not_awaiting_approval",
        );
      }
      return this.withInput(
        execution.input,
        await this.run(execution.id, skill, execution.input, ctx, limit),
      );
    } finally {
      await ticket.settle();
    }
  }

  /** Rejects a pending execution: it ends as `error` "rejected". */
  async reject(execution: Execution, reason?: string): Promise<Execution> {
    if (!(await this.store.claimApproval(execution.id, "rejected"))) {
      throw new ConflictError(
        `Execution ${execution.id} is not awaiting approval`,
        "not_awaiting_approval",
      );
    }
    const rejected = await this.store.finish(execution.id, {
      status: "error",
      errorMessage: reason ? `rejected: ${reason}` : "rejected",
      errorCode: "rejected",
      durationMs: 0,
      attempts: 0,
    });
    return this.counted(rejected, null);
  }

  /** Reports a terminal execution to the metrics backend. @returns it unchanged. */
  private counted(
    execution: Execution,
    durationMs: number | null = execution.durationMs,
  ): Execution {
    if (
      execution.status === "success" ||
      execution.status === "error" ||
      execution.status === "timeout"
    ) {
      this.metrics?.countExecution({
        skill: execution.skillName,
        status: execution.status,
        errorCode: execution.errorCode,
        durationMs,
      });
    }
    return execution;
  }

  /** Runs a row already marked `running` to its terminal status and reports it to the metrics. */
  private async run(
    id: string,
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    limit: number,
    signal?: AbortSignal,
  ): Promise<Execution> {
    return this.counted(await this.runPhases(id, skill, input, ctx, limit, signal));
  }

  /**
   * Runs a row already marked `running` within `limit` ms and writes the outcome: one phase of attempts
   * (docs/execution.md#retries), and for a sandbox skill whose run ran out of time or memory, one
   * upgraded phase with doubled limits (docs/execution.md#auto-upgrade). Never throws for
   * handler failures; a storage failure mid-run leaves an `internal_error` row and propagates.
   * `cancel` aborting ends it as `error` `cancelled` (never upgraded).
   */
  private async runPhases(
    id: string,
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    limit: number,
    cancel?: AbortSignal,
  ): Promise<Execution> {
    const timing = this.timings.get(skill.handlerCode);
    const log: AttemptRecord[] = [];
    const deps: PhaseDeps = {
      handler: this.handlers.get(skill.handlerCode)!,
      graceMs: timing?.graceMs ?? 0,
      placement: timing?.sandbox ? "sandbox" : "direct",
      clock: this.clock,
      maxAttempts: this.maxRetries,
      retryBackoffMs: this.retryBackoffMs,
      setAttempts: (attempts, attemptLog) => this.store.setAttempts(id, attempts, { attemptLog }),
      cancel,
    };
    const started = this.clock();
    try {
      let limits: AttemptLimits = { timeoutMs: limit, memoryMb: null };
      let phase = await runPhase(deps, id, skill, input, ctx, limits, null, log);
      const reason = phase.failure && !phase.aborted ? exhaustedResource(phase.failure) : undefined;
      if (reason && upgradeEnabled(timing?.sandbox, skill, input)) {
        const next = upgradedLimits(
          reason,
          limits,
          reportedLimits(phase.failure?.output),
          timing?.maxLimitMs,
        );
        if (next) {
          limits = next;
          await this.store.setAttempts(id, log.length + 1, {
            attemptLog: log,
            timeoutMs: next.timeoutMs,
          });
          phase = await runPhase(deps, id, skill, input, ctx, limits, reason, log);
        }
      }
      const end = await this.store.finish(id, {
        ...phase.end,
        durationMs: this.clock() - started,
        attempts: log.length,
        attemptLog: log,
      });
      if (phase.retryAfterS !== undefined) this.retryHints.set(end, phase.retryAfterS);
      return end;
    } catch (err) {
      // A storage failure mid-run: still try to leave a terminal row behind.
      await this.store
        .finish(id, {
          status: "error",
          errorMessage: `internal error: ${(err as Error).message}`,
          errorCode: "internal_error",
          durationMs: this.clock() - started,
          attempts: log.length,
          attemptLog: log,
        })
        .catch(() => undefined);
      throw err;
    }
  }
}
