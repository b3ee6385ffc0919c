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
 *
 * Its parts: the checks before anything is written (`preflight.ts`), the run of a `running` row
 * to its terminal status (`run-execution.ts`, phases in `phase.ts`) and the approval flow
 * (`approval.ts`).
 */
import type { Metrics } from "../../metrics/types.js";
import type { CallerContext, Execution, Skill, SkillHandler } from "../types.js";
import { type ApprovalHost, approve, reject, requestApproval } from "./approval.js";
import { DeferredFinishes } from "./deferred-finishes.js";
import type { ExecutionRepository } from "./execution-repository.js";
import { ADMIT_ALL, type AdmissionTicket, type ExecutionAdmission } from "./limits.js";
import { type PreflightGates, preflight } from "./preflight.js";
import { countTerminal, type RunDeps, runExecution } from "./run-execution.js";
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
  /** Outcomes whose terminal write a full disk refused, written again by {@link flushDeferred}. */
  private readonly deferred = new DeferredFinishes();
  private readonly timeoutMs = DEFAULT_TIMEOUT_MS;
  private readonly maxRetries = DEFAULT_MAX_RETRIES;
  private readonly retryBackoffMs: number;
  private readonly clock: () => number;
  /** Where executions are recorded. */
  readonly store: ExecutionRepository;
  private readonly metrics: Pick<Metrics, "countExecution"> | undefined;
  private readonly admission: ExecutionAdmission;
  /** The settings and handler registry the preflight reads. */
  private readonly gates: PreflightGates;
  /** What the approval flow uses of this executor. */
  private readonly approvals: ApprovalHost;

  constructor(opts: ExecutorOptions) {
    this.store = opts.store;
    this.admission = opts.admission ?? ADMIT_ALL;
    this.metrics = opts.metrics;
    this.clock = opts.clock ?? Date.now;
    this.retryBackoffMs = opts.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS;
    this.gates = {
      isSkillsEnabled: opts.isSkillsEnabled,
      isCustomExecutionEnabled: opts.isCustomExecutionEnabled ?? (async () => true),
      hasHandler: (name) => this.handlers.has(name),
    };
    this.approvals = {
      store: this.store,
      admission: this.admission,
      preflight: (skill, input) => preflight(this.gates, skill, input),
      limitFor: (skill, input) => this.limitFor(skill, input),
      run: async (id, skill, input, ctx, limit, ticket) =>
        this.withInput(input, await this.run(id, skill, input, ctx, limit, ticket)),
      ended: (execution) => countTerminal(this.metrics, execution, null),
      onApprovalRequested: opts.onApprovalRequested,
    };
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
   * Runs `skill` now and returns the terminal execution (docs/execution.md#outcomes: `success`,
   * `error` with `errorMessage` and the program's output, or `timeout` with partial output).
   * @param signal optional cancellation by the caller (a proxy client that went away): the
   *   handler's own signal fires, and the execution ends `error` with code `cancelled`
   *   (docs/execution.md#outcomes).
   * @throws as the preflight (`preflight.ts`); AppError 429 `rate_limited` | `concurrency_limited` |
   *   `quota_exceeded` (403 `limit_blocked` for a limit of 0) when the key's limits refuse it
   *   (docs/rate-limits.md); nothing is written
   *   when it throws.
   */
  async execute(
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    signal?: AbortSignal,
  ): Promise<Execution> {
    await preflight(this.gates, skill, input);
    const limit = this.limitFor(skill, input);
    const ticket = await this.admission.admit(skill, ctx, {
      limitMs: limit,
      count: true,
      run: true,
    });
    try {
      const row = await this.store.create(skill, input, ctx, { timeoutMs: limit, running: true });
      return this.withInput(
        input,
        await this.run(row.id, skill, input, ctx, limit, ticket, signal),
      );
    } finally {
      await ticket.settle();
    }
  }

  /**
   * Creates an execution that waits for an operator's approval (policy `hybrid`;
   * docs/policies.md#approval); see `requestApproval` in `approval.ts`.
   * @throws as the preflight (`preflight.ts`); InvalidInputError `input_too_large` when the input
   *   does not fit whole in the history row; AppError 429 `rate_limited` (docs/rate-limits.md).
   */
  requestApproval(skill: Skill, input: unknown, ctx: CallerContext): Promise<Execution> {
    return requestApproval(this.approvals, skill, input, ctx);
  }

  /**
   * Approves a pending execution and runs it. Returns the terminal execution.
   * @throws DisabledError when the skill is now off; AppError 429 `concurrency_limited` |
   *   `quota_exceeded` (403 `limit_blocked` for a limit of 0) when the key's sandbox limits refuse
   *   the run (it stays pending);
   *   ConflictError `not_awaiting_approval` when it is no longer pending.
   */
  approve(execution: Execution, skill: Skill): Promise<Execution> {
    return approve(this.approvals, execution, skill);
  }

  /**
   * Rejects a pending execution: it ends as `error` "rejected".
   * @throws ConflictError `not_awaiting_approval` when it is no longer pending.
   */
  reject(execution: Execution, reason?: string): Promise<Execution> {
    return reject(this.approvals, execution, reason);
  }

  /**
   * Runs a row already marked `running` to its terminal status (see `runExecution`), keeps its
   * retry hint and reports it to the metrics.
   */
  /**
   * Writes the outcomes whose terminal write a full disk refused (docs/execution.md#a-full-disk),
   * to rows still `running`; called by the periodic sweeps. @returns the outcomes written (0 while
   * the disk is still full).
   */
  flushDeferred(): Promise<number> {
    return this.deferred.flush(this.store);
  }

  private async run(
    id: string,
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    limit: number,
    ticket: AdmissionTicket,
    signal?: AbortSignal,
  ): Promise<Execution> {
    const deps: RunDeps = {
      store: this.store,
      handler: this.handlers.get(skill.handlerCode)!,
      timing: this.timings.get(skill.handlerCode),
      clock: this.clock,
      maxAttempts: this.maxRetries,
      retryBackoffMs: this.retryBackoffMs,
      reserveUpgrade: (ms) => ticket.reserveMore(ms),
      deferred: this.deferred,
    };
    const outcome = await runExecution(deps, id, skill, input, ctx, limit, signal);
    // A terminal write went through: there is space again for any outcome still waiting.
    if (this.deferred.size > 0) void this.deferred.flush(this.store).catch(() => undefined);
    const end = outcome.execution;
    if (outcome.retryAfterS !== undefined) this.retryHints.set(end, outcome.retryAfterS);
    return countTerminal(this.metrics, end);
  }
}
