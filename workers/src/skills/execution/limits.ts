/**
 * Per-key execution limits (docs/rate-limits.md): executions per minute, concurrent sandbox runs
 * and a daily budget of sandbox seconds. The executor asks {@link ExecutionLimiter.admit} before it
 * writes anything; a refusal is a 429 {@link AppError} (`rate_limited`, `concurrency_limited`,
 * `quota_exceeded`) carrying `Retry-After` and the `RateLimit-Policy` / `RateLimit` fields of
 * draft-ietf-httpapi-ratelimit-headers (docs/rate-limits.md#headers), or, for a limit of 0, a
 * 403 `limit_blocked` without `Retry-After`. Front doors that run a
 * model's call turn that error into a tool error result (model-call.ts).
 *
 * Daily budgets are exact: a sandbox run reserves its whole time limit in the database with one
 * conditional UPDATE before it starts, and settles to its actual duration when it ends (a
 * {@link UsageStore}). Management calls (no API key) are never limited.
 */

import { AppError } from "../../errors.js";
import { logPrefix } from "../../telemetry/request-context.js";
import type { CallerContext, Skill } from "../types.js";
import {
  bindingHolds,
  InProcessWindows,
  type LiveUsage,
  type MinuteDecision,
  type ShortWindowCounters,
} from "./limit-counters.js";
import { POLICY, policyField, refusal, secondsToUtcMidnight, utcDay } from "./limit-fields.js";
import {
  type AdmissionRequest,
  type AdmissionTicket,
  type ExecutionAdmission,
  type ExecutionLimiterOptions,
  type FailDirection,
  LEASE_GRACE_MS,
} from "./limit-types.js";

export type {
  AdmissionRequest,
  AdmissionTicket,
  DailyUsage,
  ExecutionAdmission,
  ExecutionLimiterOptions,
  ExecutionLimits,
  FailDirection,
  UsageStore,
} from "./limit-types.js";
export { LEASE_GRACE_MS, LIMIT_NAMES, NO_LIMITS } from "./limit-types.js";

const NOOP_TICKET: AdmissionTicket = { reserveMore: async () => true, settle: async () => {} };

/** Admits everything (an executor without per-key limits). */
export const ADMIT_ALL: ExecutionAdmission = { admit: async () => NOOP_TICKET };

/** Enforces the per-key execution limits (see the module docs). */
export class ExecutionLimiter implements ExecutionAdmission {
  private readonly windows: ShortWindowCounters;
  /** Counts in process when `windows` cannot be reached and the limit fails open. */
  private readonly local = new InProcessWindows();
  private readonly onUnreachable: { executions: FailDirection; sandbox: FailDirection };
  private readonly sandboxHandlers: Set<string>;
  private readonly clock: () => number;

  constructor(private readonly opts: ExecutionLimiterOptions) {
    this.sandboxHandlers = new Set(opts.sandboxHandlers);
    this.clock = opts.clock ?? Date.now;
    this.windows = opts.windows ?? this.local;
    this.onUnreachable = opts.onUnreachable ?? { executions: "open", sandbox: "closed" };
  }

  /**
   * Counts the runs of handler `name` as sandbox runs (for code embedding Skillgate that
   * registers its own handler backed by a sandbox).
   */
  countAsSandbox(name: string): void {
    this.sandboxHandlers.add(name);
  }

  /** True when runs of `skill` use the sandbox (concurrency and the daily budget apply). */
  usesSandbox(skill: Skill): boolean {
    return this.sandboxHandlers.has(skill.handlerCode);
  }

  /**
   * A key's short-window usage (executions this minute, runs going) as its counters see it; the
   * in-process view when they cannot be reached.
   */
  async liveUsage(apiKeyId: string): Promise<LiveUsage> {
    const now = this.clock();
    return this.windows.live(apiKeyId, now).catch(() => this.local.live(apiKeyId, now));
  }

  /**
   * Runs `op` on the key's counters; when they cannot be reached, on the in-process ones
   * (`open`) or not at all: 503 `limiter_unavailable` (`closed`).
   * @returns what `op` returned and the counters that answered (to undo on the same ones).
   */
  private async counted<T>(
    kind: "executions" | "sandbox",
    op: (w: ShortWindowCounters) => Promise<T>,
  ): Promise<{ value: T; on: ShortWindowCounters }> {
    try {
      return { value: await op(this.windows), on: this.windows };
    } catch (err) {
      if (this.windows === this.local) throw err;
      console.error(`${logPrefix()}the per-key limiter could not be reached (${kind}):`, err);
      if (this.onUnreachable[kind] === "closed") {
        throw new AppError(
          "limiter_unavailable",
          `The per-key limiter could not be reached; ${kind === "sandbox" ? "sandbox runs" : "executions"} are refused until it answers`,
          { retryAfterS: 1, cause: err },
        );
      }
      return { value: await op(this.local), on: this.local };
    }
  }

  async admit(skill: Skill, ctx: CallerContext, req: AdmissionRequest): Promise<AdmissionTicket> {
    const key = ctx.apiKeyId;
    if (key === null) return NOOP_TICKET;
    const limits = await this.opts.limitsFor(key);
    const sandbox = req.run && this.usesSandbox(skill);
    const policy = policyField(limits, sandbox);
    const now = this.clock();
    let slot: { lease: string; on: ShortWindowCounters } | null = null;
    if (sandbox) {
      const leaseMs = req.limitMs * 2 + LEASE_GRACE_MS;
      const got = await this.counted("sandbox", (w) =>
        w.acquire(key, limits.concurrentSandboxRuns, leaseMs, now),
      );
      if (got.value !== null) slot = { lease: got.value, on: got.on };
    }
    const release = () => {
      if (!slot) return;
      const { lease, on } = slot;
      slot = null;
      on.release(key, lease).catch((err: unknown) => {
        console.error(`${logPrefix()}releasing a sandbox slot of key ${key} failed:`, err);
      });
    };
    if (sandbox && !slot) {
      const max = limits.concurrentSandboxRuns ?? 0;
      throw refusal("concurrency_limited", policy, `"${POLICY.concurrent}";r=0`, 1, {
        message: `Concurrent sandbox run limit reached for this API key: ${max} run${max === 1 ? "" : "s"} at a time; retry when one ends`,
        limit: "concurrentSandboxRuns",
        value: max,
      });
    }
    let counted: ShortWindowCounters | null = null;
    try {
      if (req.count) {
        // Counted without a limit too, so that the key's usage shows its executions this minute.
        const perMinute = limits.executionsPerMinute;
        const taken = await this.counted<MinuteDecision>("executions", (w) =>
          w.take(key, perMinute, now),
        );
        const decision = taken.value;
        const platform = this.opts.platform;
        const platformOk =
          decision.ok && platform && bindingHolds(perMinute, await platform.defaultPerMinute())
            ? (await platform.limiter.limit({ key })).success
            : decision.ok;
        if (decision.ok) counted = taken.on;
        if (!platformOk && perMinute !== null) {
          const t = decision.resetS;
          throw refusal("rate_limited", policy, `"${POLICY.minute}";r=0;t=${t}`, t, {
            message: `Rate limit reached for this API key: ${perMinute} execution${perMinute === 1 ? "" : "s"} per minute; retry in ${t} s`,
            limit: "executionsPerMinute",
            value: perMinute,
          });
        }
      }
      const day = utcDay(now);
      const reserveMs = sandbox ? req.limitMs : null;
      const budget = limits.dailySandboxSeconds;
      const budgetMs = sandbox && budget !== null ? budget * 1000 : null;
      if (!(await this.opts.usage.admit(key, day, { count: req.count, reserveMs, budgetMs }))) {
        throw await this.budgetRefusal(key, day, now, policy, budget ?? 0, req.limitMs);
      }
      if (!sandbox) return NOOP_TICKET;
      return this.ticket(key, day, req.limitMs, budgetMs, now, release);
    } catch (err) {
      counted?.refund(key, now).catch((e: unknown) => {
        console.error(`${logPrefix()}refunding an execution of key ${key} failed:`, e);
      });
      release();
      throw err;
    }
  }

  /**
   * The ticket of an admitted sandbox run that reserved `firstMs` on `day` of a key whose budget
   * is `budgetMs` (null: none).
   */
  private ticket(
    key: string,
    day: string,
    firstMs: number,
    budgetMs: number | null,
    started: number,
    release: () => void,
  ): AdmissionTicket {
    let settled = false;
    let reservedMs = firstMs;
    return {
      reserveMore: async (ms) => {
        if (settled) return false;
        if (!(await this.opts.usage.reserve(key, day, ms, budgetMs))) return false;
        reservedMs += ms;
        return true;
      },
      settle: async () => {
        if (settled) return;
        settled = true;
        release();
        const actualMs = Math.max(0, this.clock() - started);
        // The run has ended and its answer stands; a failed write leaves the reservation held for
        // the rest of the day (docs/rate-limits.md#storage), which only errs on the safe side.
        await this.opts.usage.settle(key, day, reservedMs, actualMs).catch((err: unknown) => {
          console.error(`${logPrefix()}settling sandbox time of key ${key} failed:`, err);
        });
      },
    };
  }

  private async budgetRefusal(
    key: string,
    day: string,
    now: number,
    policy: string,
    budget: number,
    limitMs: number,
  ): Promise<AppError> {
    const used = await this.opts.usage.usage(key, day);
    const leftS = Math.max(
      0,
      Math.floor((budget * 1000 - used.sandboxMs - used.reservedMs) / 1000),
    );
    const t = secondsToUtcMidnight(now);
    const needS = Math.ceil(limitMs / 1000);
    return refusal("quota_exceeded", policy, `"${POLICY.daily}";r=${leftS};t=${t}`, t, {
      message: `Daily sandbox budget reached for this API key: ${budget} s per UTC day, ${leftS} s left; this run needs ${needS} s free (its time limit). Ask for a smaller timeoutMs, or retry after 00:00 UTC`,
      limit: "dailySandboxSeconds",
      value: budget,
    });
  }
}
