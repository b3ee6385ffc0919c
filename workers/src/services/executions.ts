/**
 * The executions service (docs/execution.md, docs/policies.md#approval): run a skill now, read
 * the history, decide pending approvals, expire them, and finish what a crash left behind. A key
 * sees and decides only its own executions (another key's id answers 404); management sees all.
 * It also decides the HTTP answer of a terminal execution: the execution itself, unless the
 * program never ran because a service it needs failed.
 */

import { ERROR_CODES, isErrorCode } from "@skillgate/errors";
import { canAccessOwned, type Principal } from "../auth/principal.js";
import { AppError, ForbiddenError, NotFoundError } from "../errors.js";
import {
  applyRetention,
  type DeleteOptions,
  type DeleteOutcome,
  deleteFinishedExecutions,
  type ExecutionDeleteFilter,
} from "../retention/execution-retention.js";
import type {
  ExecutionFilter,
  ExecutionRepository,
} from "../skills/execution/execution-repository.js";
import { DEFAULT_TIMEOUT_MS, type Executor } from "../skills/execution/executor.js";
import { decideModelCall } from "../skills/interception/model-call.js";
import { COMMAND_HANDLER_FLOORS, type PolicyFloors } from "../skills/interception/policy-floor.js";
import type { CallerContext, Execution, Skill } from "../skills/types.js";
import { type Page, pageOf } from "./page.js";
import type { SkillsService } from "./skills.js";

/** `Retry-After` (s) of a 429 whose service gave no hint: a slot frees up quickly. */
const BUSY_RETRY_AFTER_S = 1;
/** `Retry-After` (s) of a 503 whose service gave no hint: a host or engine coming back up. */
const UNAVAILABLE_RETRY_AFTER_S = 5;
/** A history query: filters plus `page` (from 1) and `limit`. */
export interface ExecutionQuery extends ExecutionFilter {
  page: number;
  limit: number;
}

/** Runs skills and manages their executions. */
export class ExecutionsService {
  /**
   * @param executor the process's executor.
   * @param repository where executions are recorded (the executor's own).
   * @param skills resolves skill references and ids.
   * @param approvalTtlMs how long an execution may await approval (`APPROVAL_TTL_MS`).
   * @param policyFloors the deployment's policy floors (`SKILLS_ALLOW_MODEL_COMMANDS`), applied
   *   by the {@link forModels} view; default: the floors apply (fail closed).
   * @param modelDoor true for the view of {@link forModels}.
   */
  constructor(
    private readonly executor: Executor,
    private readonly repository: ExecutionRepository,
    private readonly skills: SkillsService,
    private readonly approvalTtlMs: number,
    private readonly policyFloors: PolicyFloors = COMMAND_HANDLER_FLOORS,
    private readonly modelDoor = false,
  ) {}

  /**
   * The same service as a door that a model drives sees it (the MCP execute tool, A2A skills;
   * docs/policies.md#model-calls-on-every-door): `execute` and `run` apply the policy floors of
   * the skill's handler (`execute_command` is refused with 403 `model_call_refused`, `eval_code`
   * is recorded as `pending` awaiting approval and nothing runs), and `approve` is refused with
   * `model_call_refused` (a model never approves its own call). Reads and `reject` are unchanged.
   */
  forModels(): ExecutionsService {
    if (this.modelDoor) return this;
    return new ExecutionsService(
      this.executor,
      this.repository,
      this.skills,
      this.approvalTtlMs,
      this.policyFloors,
      true,
    );
  }

  /** A page of executions, newest first (approvals past their time expire first). */
  async list(query: ExecutionQuery): Promise<Page<Execution>> {
    await this.expireApprovals();
    const { page, limit, ...filter } = query;
    const [data, total] = await Promise.all([
      this.repository.list(filter, limit, (page - 1) * limit),
      this.repository.count(filter),
    ]);
    return pageOf(data, total, page, limit);
  }

  /** One execution the caller may see. @throws NotFoundError `execution_not_found` otherwise. */
  async get(principal: Principal, id: string): Promise<Execution> {
    const execution = await this.repository.get(id);
    if (!execution || !canAccessOwned(principal, execution.apiKeyId)) {
      throw new NotFoundError(`Execution ${id} not found`, "execution_not_found");
    }
    return execution;
  }

  /**
   * Runs the skill `ref` names (`name`, `name@version`, `name@<constraint>`) now.
   * @returns the terminal execution (see {@link answerFor}).
   * @throws NotFoundError `skill_not_found`; the executor's preflight errors (nothing written);
   *   UpstreamError 503 / BusyError 429 when a needed service failed.
   */
  async execute(ref: string, input: unknown, caller: CallerContext): Promise<Execution> {
    const skill = await this.skills.resolveRef(ref, caller.apiKeyId);
    return this.answerFor(await this.start(skill, input, caller));
  }

  /**
   * Runs the skill `ref` names now and returns the terminal execution as recorded, whatever its
   * status (for front doors that render a failed run themselves, such as the MCP execute tool).
   * In the {@link forModels} view a floored skill answers as described there.
   * @throws NotFoundError `skill_not_found`; the executor's preflight errors (nothing written);
   *   ForbiddenError `model_call_refused` in the model view.
   */
  async run(ref: string, input: unknown, caller: CallerContext): Promise<Execution> {
    const skill = await this.skills.resolveRef(ref, caller.apiKeyId);
    return this.start(skill, input, caller);
  }

  /**
   * Starts an execution of `skill`: at once for an operator; for a model, as the shared rule of
   * model calls decides (model-call.ts, `explicit`: the floors apply, the stored policy does not).
   * A skill that is off or custom while custom execution is off falls through to the executor,
   * whose preflight refuses it with its own code (`skill_disabled`, ...), as for an operator.
   */
  private async start(skill: Skill, input: unknown, caller: CallerContext): Promise<Execution> {
    if (!this.modelDoor) return this.executor.execute(skill, input, caller);
    const decision = decideModelCall(skill, { explicit: true, policyFloors: this.policyFloors });
    if (decision.kind === "refuse" && decision.reason === "policy")
      throw new ForbiddenError(decision.error, "model_call_refused");
    if (decision.kind === "approve") return this.executor.requestApproval(skill, input, caller);
    return this.executor.execute(skill, input, caller);
  }

  /**
   * Approves a pending execution the caller may see; it runs now.
   * @returns the terminal execution (see {@link answerFor}).
   * @throws NotFoundError `execution_not_found` / `skill_not_found`; ConflictError
   *   `not_awaiting_approval`; the executor's preflight errors; ForbiddenError
   *   `model_call_refused` in the {@link forModels} view.
   */
  async approve(principal: Principal, id: string): Promise<Execution> {
    if (this.modelDoor)
      throw new ForbiddenError(
        "A model cannot approve executions: an operator or the owning key approves them over the REST API or the dashboard",
        "model_call_refused",
      );
    await this.expireApprovals();
    const pending = await this.get(principal, id);
    const skill = await this.skills.byId(pending.skillId);
    if (!skill) {
      throw new NotFoundError(
        `Skill of execution ${pending.id} no longer exists`,
        "skill_not_found",
      );
    }
    return this.answerFor(await this.executor.approve(pending, skill));
  }

  /**
   * Rejects a pending execution the caller may see; it ends as `error` "rejected".
   * @throws NotFoundError `execution_not_found`; ConflictError `not_awaiting_approval`.
   */
  async reject(principal: Principal, id: string, reason?: string): Promise<Execution> {
    await this.expireApprovals();
    const pending = await this.get(principal, id);
    return this.executor.reject(pending, reason);
  }

  /** Ends approvals older than `APPROVAL_TTL_MS` as `error` (`approval_expired`). @returns how many. */
  expireApprovals(): Promise<number> {
    return this.repository.expireApprovals(this.approvalTtlMs);
  }

  /**
   * Deletes the dashboard chart rollups of hours older than 48 h at `now` (ms since epoch;
   * docs/dashboard.md#charts). @returns the number of rollup rows deleted.
   */
  pruneRollups(now: number): Promise<number> {
    return this.repository.pruneRollups(now);
  }

  /**
   * Deletes finished executions matching `filter` in bounded batches (docs/execution.md#retention).
   * @returns how many rows went and whether `opts.maxBatches` left some.
   */
  deleteFinished(filter: ExecutionDeleteFilter, opts: DeleteOptions = {}): Promise<DeleteOutcome> {
    return deleteFinishedExecutions(this.repository, filter, opts);
  }

  /**
   * One retention pass: deletes finished executions older than `retentionDays` days at `now` (ms
   * since the epoch); nothing when `retentionDays` is 0 (`EXECUTION_RETENTION_DAYS`).
   */
  applyRetention(
    retentionDays: number,
    now: number,
    opts: DeleteOptions = {},
  ): Promise<DeleteOutcome> {
    return applyRetention(this.repository, retentionDays, now, opts);
  }

  /**
   * Ends executions a stopped process left `running` (docs/execution.md#crash-recovery). With
   * `staleAfterMs`, only rows past their time limit plus that many ms (another instance may still
   * be running the rest). @returns how many ended.
   */
  recoverInterrupted(staleAfterMs?: number): Promise<number> {
    return this.repository.recoverInterrupted({
      staleAfterMs,
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    });
  }

  /**
   * Writes the outcomes whose terminal write a full disk refused, now that there may be space
   * (docs/execution.md#a-full-disk). @returns how many were written.
   */
  flushDeferredFinishes(): Promise<number> {
    return this.executor.flushDeferred();
  }

  /**
   * The answer for a terminal execution (docs/execution.md#outcomes): the execution itself,
   * unless the program never ran because a service it needs failed — an execution whose error
   * code is registered as retryable with status 503 (`sandbox_unavailable`, `docker_unavailable`,
   * `shutting_down`, ...) or 429 (`sandbox_busy`, with `Retry-After`). That answer carries the
   * code, its registry status, and the recorded execution in `details`, with `Retry-After` (the
   * service's own hint when it gave one, else 1 s for 429 and 5 s for 503; RFC 9110 §10.2.3).
   * @throws AppError 503 / 429 as described.
   */
  private answerFor(execution: Execution): Execution {
    const code = execution.errorCode;
    if (execution.status !== "error" || code === null || !isErrorCode(code)) return execution;
    const spec = ERROR_CODES[code];
    if (!spec.retryable || (spec.status !== 503 && spec.status !== 429)) return execution;
    throw new AppError(code, execution.errorMessage ?? spec.message, {
      details: { execution },
      retryAfterS:
        this.executor.retryAfterS(execution) ??
        (spec.status === 429 ? BUSY_RETRY_AFTER_S : UNAVAILABLE_RETRY_AFTER_S),
    });
  }
}
