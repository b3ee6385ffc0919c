/**
 * The approval flow of an execution (docs/policies.md#approval): a `hybrid` call creates an
 * execution that waits as `pending`; an operator approves it (it runs) or rejects it (it ends
 * `error` `rejected`). Expiry of unanswered approvals is the repository's
 * (`ExecutionRepository.expireApprovals`).
 */
import { ConflictError, InvalidInputError } from "../../errors.js";
import type { CallerContext, Execution, Skill } from "../types.js";
import type { ExecutionRepository } from "./execution-repository.js";
import type { ExecutionAdmission } from "./limits.js";

/** What the approval flow needs from the executor. */
export interface ApprovalHost {
  /** Where executions are recorded. */
  store: ExecutionRepository;
  /** Per-key limits asked before an execution is written or run (docs/rate-limits.md). */
  admission: ExecutionAdmission;
  /** The checks before anything is written; throws as the executor's preflight. */
  preflight: (skill: Skill, input: unknown) => Promise<void>;
  /** The time limit of one execution, ms. */
  limitFor: (skill: Skill, input: unknown) => number;
  /**
   * Runs the row `id` (already `running`) to its terminal status, reports it to the metrics and
   * answers it with its complete input.
   */
  run: (
    id: string,
    skill: Skill,
    input: unknown,
    ctx: CallerContext,
    limit: number,
  ) => Promise<Execution>;
  /** Reports an execution that ended without running to the metrics; returns it unchanged. */
  ended: (execution: Execution) => Execution;
  /** Told of each execution that starts waiting for approval; returns at once, never throws. */
  onApprovalRequested?: (execution: Execution, skill: Skill) => void;
}

/** The error of an approve or reject on an execution that no longer waits. */
function notAwaiting(execution: Execution): ConflictError {
  return new ConflictError(
    `Execution ${execution.id} is not awaiting approval`,
    "not_awaiting_approval",
  );
}

/**
 * Creates an execution that waits for an operator's approval (policy `hybrid`;
 * docs/policies.md#approval). Its input must fit in the history row whole, since the approved
 * run reads it from there.
 * @throws see the executor's preflight; InvalidInputError `input_too_large` when the input's JSON
 *   is longer than `SKILLS_MAX_STORED_INPUT_BYTES`; AppError 429 `rate_limited` when the key's
 *   executions per minute are used (docs/rate-limits.md).
 */
export async function requestApproval(
  host: ApprovalHost,
  skill: Skill,
  input: unknown,
  ctx: CallerContext,
): Promise<Execution> {
  await host.preflight(skill, input);
  if (!host.store.inputFits(input)) {
    const maxBytes = host.store.limits.maxInputBytes;
    throw new InvalidInputError(
      `Input is longer than ${maxBytes} bytes of JSON: an execution awaiting approval keeps its whole input, at most SKILLS_MAX_STORED_INPUT_BYTES`,
      { maxBytes },
      "input_too_large",
    );
  }
  const limit = host.limitFor(skill, input);
  const ticket = await host.admission.admit(skill, ctx, {
    limitMs: limit,
    count: true,
    run: false,
  });
  await ticket.settle();
  const pending = await host.store.create(skill, input, ctx, {
    approval: "required",
    timeoutMs: limit,
  });
  host.onApprovalRequested?.(pending, skill);
  return pending;
}

/**
 * Approves a pending execution and runs it. Returns the terminal execution.
 * @throws DisabledError when the skill is now off; AppError 429 `concurrency_limited` |
 *   `quota_exceeded` when the key's sandbox limits refuse the run (it stays pending);
 *   ConflictError `not_awaiting_approval` when it is no longer pending.
 */
export async function approve(
  host: ApprovalHost,
  execution: Execution,
  skill: Skill,
): Promise<Execution> {
  await host.preflight(skill, execution.input);
  const limit = host.limitFor(skill, execution.input);
  const ctx = { apiKeyId: execution.apiKeyId, sessionId: execution.sessionId };
  // The execution was counted when it was requested; its run still takes a sandbox slot and budget.
  const ticket = await host.admission.admit(skill, ctx, {
    limitMs: limit,
    count: false,
    run: true,
  });
  try {
    if (!(await host.store.startApproved(execution.id, limit))) throw notAwaiting(execution);
    return await host.run(execution.id, skill, execution.input, ctx, limit);
  } finally {
    await ticket.settle();
  }
}

/**
 * Rejects a pending execution: it ends as `error` "rejected" (with `reason` appended when given).
 * @throws ConflictError `not_awaiting_approval` when it is no longer pending.
 */
export async function reject(
  host: ApprovalHost,
  execution: Execution,
  reason?: string,
): Promise<Execution> {
  if (!(await host.store.claimApproval(execution.id, "rejected"))) throw notAwaiting(execution);
  const rejected = await host.store.finish(execution.id, {
    status: "error",
    errorMessage: reason ? `rejected: ${reason}` : "rejected",
    errorCode: "rejected",
    durationMs: 0,
    attempts: 0,
  });
  return host.ended(rejected);
}
