/**
 * The executor (SPEC §5): runs a skill's registered handler with a timeout and retries, writing
 * each lifecycle step (`pending` → `running` → `success` | `error` | `timeout`) to
 * `skill_executions`. One executor per process; handlers are registered by name
 * (`registerHandler`), and `handlerCode` only ever names one — user-supplied source is never
 * evaluated.
 */
import {
  ConflictError,
  DisabledError,
  ExecutionFailure,
  InvalidInputError,
  NotFoundError,
} from "../errors.js";
import type { Metrics } from "../metrics/types.js";
import type { ExecutionFilter, ExecutionStore } from "./execution-store.js";
import { validateSkillInput } from "./input-validation.js";
import type { CallerContext, Execution, Skill, SkillHandler } from "./types.js";

/** SPEC §5 defaults. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
/** SPEC §5: backoff of 1 s × attempt between retries. */
export const DEFAULT_RETRY_BACKOFF_MS = 1_000;

/** Options of {@link Executor}. */
export interface ExecutorOptions {
  store: ExecutionStore;
  /** Reads the master switch (`skillsEnabled` setting). */
  isSkillsEnabled: () => Promise<boolean>;
  clock?: () => number;
  /** Base of the linear retry backoff in ms (SPEC: 1000). */
  retryBackoffMs?: number;
  /** Receives each execution that reaches a terminal status here (run or rejected). */
  metrics?: Pick<Metrics, "countExecution">;
}

/** Per-handler time budget derived from the call's input (e.g. sandbox timeout + grace). */
export type TimeoutPolicy = (input: unknown) => number;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });

/** Runs skills and records their executions. */
export class Executor {
  private readonly handlers = new Map<string, SkillHandler>();
  private readonly timeoutPolicies = new Map<string, TimeoutPolicy>();
  private timeoutMs = DEFAULT_TIMEOUT_MS;
  private maxRetries = DEFAULT_MAX_RETRIES;
  private readonly retryBackoffMs: number;
  private readonly clock: () => number;
  readonly store: ExecutionStore;
  private readonly isSkillsEnabled: () => Promise<boolean>;
  private readonly metrics: Pick<Metrics, "countExecution"> | undefined;

  constructor(opts: ExecutorOptions) {
    this.store = opts.store;
    this.metrics = opts.metrics;
    this.isSkillsEnabled = opts.isSkillsEnabled;
    this.clock = opts.clock ?? Date.now;
    this.retryBackoffMs = opts.retryBackoffMs ?? DEFAULT_RETRY_BACKOFF_MS;
  }

  /** Registers (or replaces) the handler `name`; `timeoutFor` overrides the budget per call. */
  registerHandler(name: string, fn: SkillHandler, timeoutFor?: TimeoutPolicy): void {
    this.handlers.set(name, fn);
    if (timeoutFor) this.timeoutPolicies.set(name, timeoutFor);
  }

  /** True when a handler `name` is registered. */
  hasHandler(name: string): boolean {
    return this.handlers.has(name);
  }

  /** Names of the registered handlers. */
  handlerNames(): string[] {
    return [...this.handlers.keys()].sort();
  }

  /** Default handler timeout in ms (SPEC §5 `setTimeout`; 30 000 by default). */
  setTimeout(ms: number): void {
    if (!Number.isInteger(ms) || ms <= 0)
      throw new InvalidInputError("timeout must be a positive integer (ms)");
    this.timeoutMs = ms;
  }

  /** Total number of attempts for retryable errors (SPEC §5 `setMaxRetries`; 3 by default). */
  setMaxRetries(n: number): void {
    if (!Number.isInteger(n) || n < 1)
      throw new InvalidInputError("maxRetries must be an integer >= 1");
    this.maxRetries = n;
  }

  /** The time budget of one execution of `skill` with `input`, in ms. */
  budgetFor(skill: Skill, input: unknown): number {
    if (skill.timeoutMs) return skill.timeoutMs;
    const policy = this.timeoutPolicies.get(skill.handlerCode);
    return policy ? policy(input) : this.timeoutMs;
  }

  /**
   * Checks that `skill` may run now with `input`, before anything is written.
   * @throws DisabledError `skills_disabled` (503, master switch) or `skill_disabled` (409, mode off);
   *   NotFoundError `handler_not_found` when no handler is registered; InvalidInputError for bad input.
   */
  async preflight(skill: Skill, input: unknown): Promise<void> {
    if (!(await this.isSkillsEnabled())) {
      throw new DisabledError(
        "Skills execution is disabled (skillsEnabled = false)",
        "skills_disabled",
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
   * Runs `skill` now and returns the terminal execution (SPEC §5 "Outcomes": `success`, `error`
   * with `errorMessage` and the program's output, or `timeout` with partial output).
   * @throws see {@link preflight}; nothing is written when it throws.
   */
  async execute(skill: Skill, input: unknown, ctx: CallerContext): Promise<Execution> {
    await this.preflight(skill, input);
    const budget = this.budgetFor(skill, input);
    const row = await this.store.create(skill, input, ctx, { timeoutMs: budget });
    return this.run(row.id, skill, input, ctx, budget);
  }

  /**
   * Creates an execution that waits for an operator's approval (SPEC §5, policy `hybrid`).
   * @throws see {@link preflight}.
   */
  async requestApproval(skill: Skill, input: unknown, ctx: CallerContext): Promise<Execution> {
    await this.preflight(skill, input);
    return this.store.create(skill, input, ctx, {
      approval: "required",
      timeoutMs: this.budgetFor(skill, input),
    });
  }

  /**
   * Approves a pending execution and runs it. Returns the terminal execution.
   * @throws DisabledError when the skill is now off; ConflictError `not_awaiting_approval` when it is no longer pending.
   */
  async approve(execution: Execution, skill: Skill): Promise<Execution> {
    await this.preflight(skill, execution.input);
    if (!(await this.store.claimApproval(execution.id, "approved"))) {
      throw new ConflictError(
        `Execution ${execution.id} is not awaiting approval`,
        "not_awaiting_approval",
      );
    }
    const budget = this.budgetFor(skill, execution.input);
    const ctx = { apiKeyId: execution.apiKeyId, sessionId: execution.sessionId };
    return this.run(execution.id, skill, execution.input, ctx, budget);
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

  /** One execution by id (SPEC §5 `getExecution`). */
  getExecution(id: string): Promise<Execution | undefined> {
    return this.store.get(id);
  }

  /** Executions of a key, newest first (SPEC §5 `listExecutions`). */
  listExecutions(
    apiKeyId: string | null | undefined,
    limit: number,
    offset: number,
    filter: ExecutionFilter = {},
  ) {
    return this.store.list({ ...filter, apiKeyId }, limit, offset);
  }

  /** Number of executions of a key (SPEC §5 `countExecutions`). */
  countExecutions(apiKeyId: string | null | undefined, filter: ExecutionFilter = {}) {
    return this.store.count({ ...filter, apiKeyId });
  }

  /** Runs a created row to its terminal status and reports it. */
  private async run(
    id: string,
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    budget: number,
  ): Promise<Execution> {
    return this.counted(await this.runAttempts(id, skill, input, ctx, budget));
  }

  /** Runs the attempts of a created row and writes the outcome. Never throws for handler failures. */
  private async runAttempts(
    id: string,
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    budget: number,
  ): Promise<Execution> {
    const handler = this.handlers.get(skill.handlerCode)!;
    await this.store.markRunning(id, budget);
    const started = this.clock();
    const deadline = started + budget;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new ExecutionFailure("timed out", { status: "timeout" })),
      budget,
    );
    let attempt = 0;
    try {
      for (;;) {
        attempt++;
        if (attempt > 1) await this.store.setAttempts(id, attempt);
        const outcome = await runAttempt(handler, input, {
          ...ctx,
          signal: controller.signal,
          skill,
          attempt,
          timeoutMs: Math.max(0, deadline - this.clock()),
        });
        const durationMs = this.clock() - started;
        if (outcome.ok) {
          return await this.store.finish(id, {
            status: "success",
            output: outcome.output,
            durationMs,
            attempts: attempt,
          });
        }
        const failure = outcome.failure;
        if (controller.signal.aborted || failure.status === "timeout") {
          return await this.store.finish(id, {
            status: "timeout",
            output: failure.output,
            errorMessage: `Skill execution timed out after ${budget} ms`,
            errorCode: "timeout",
            durationMs,
            attempts: attempt,
          });
        }
        const backoff = this.retryBackoffMs * attempt;
        if (failure.retryable && attempt < this.maxRetries && this.clock() + backoff < deadline) {
          await sleep(backoff, controller.signal);
          if (!controller.signal.aborted) continue;
        }
        return await this.store.finish(id, {
          status: controller.signal.aborted ? "timeout" : "error",
          output: failure.output,
          errorMessage: controller.signal.aborted
            ? `Skill execution timed out after ${budget} ms`
            : failure.message,
          errorCode: controller.signal.aborted ? "timeout" : failure.code,
          durationMs: this.clock() - started,
          attempts: attempt,
        });
      }
    } catch (err) {
      // A storage failure mid-run: still try to leave a terminal row behind.
      await this.store
        .finish(id, {
          status: "error",
          errorMessage: `internal error: ${(err as Error).message}`,
          errorCode: "internal_error",
          durationMs: this.clock() - started,
          attempts: attempt,
        })
        .catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
      if (!controller.signal.aborted) controller.abort(new Error("execution finished"));
    }
  }
}

type AttemptOutcome = { ok: true; output: unknown } | { ok: false; failure: ExecutionFailure };

/** Runs one handler attempt, racing it against the abort signal. */
async function runAttempt(
  handler: SkillHandler,
  input: unknown,
  ctx: Parameters<SkillHandler>[1],
): Promise<AttemptOutcome> {
  const { signal } = ctx;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<AttemptOutcome>((resolve) => {
    onAbort = () =>
      resolve({ ok: false, failure: new ExecutionFailure("timed out", { status: "timeout" }) });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([
      handler(input, ctx).then(
        (output): AttemptOutcome => ({ ok: true, output: output === undefined ? null : output }),
        (err): AttemptOutcome => ({ ok: false, failure: toFailure(err) }),
      ),
      aborted,
    ]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/** Normalises anything a handler throws to an {@link ExecutionFailure}. */
function toFailure(err: unknown): ExecutionFailure {
  if (err instanceof ExecutionFailure) return err;
  const e = err as { message?: unknown; retryable?: unknown; code?: unknown } | null;
  const message = typeof e?.message === "string" && e.message ? e.message : String(err);
  return new ExecutionFailure(message, {
    retryable: e?.retryable === true,
    code: typeof e?.code === "string" ? e.code : "handler_error",
  });
}
