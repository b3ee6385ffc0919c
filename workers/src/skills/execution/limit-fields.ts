/**
 * How an execution limit answers (docs/rate-limits.md#headers): the `RateLimit-Policy` and
 * `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers, the error of a refused admission,
 * and the UTC day that daily budgets count in.
 */
import { AppError } from "../../errors.js";
import type { ExecutionLimits } from "./limits.js";

const DAY_MS = 86_400_000;
/** Policy names of the `RateLimit-Policy` items, per limit. */
export const POLICY = {
  minute: "executions-per-minute",
  concurrent: "concurrent-sandbox-runs",
  daily: "daily-sandbox-seconds",
} as const;

/** The UTC day holding `now` (ms), as `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** Whole seconds from `now` (ms) to the next UTC midnight, at least 1. */
export function secondsToUtcMidnight(now: number): number {
  return Math.max(1, Math.ceil((DAY_MS - (now % DAY_MS)) / 1000));
}

/**
 * The `RateLimit-Policy` field value for `limits` (draft-ietf-httpapi-ratelimit-headers, "RateLimit-Policy
 * Field"): the per-minute policy, and for sandbox runs the concurrency and daily policies. The
 * draft registers no unit of time, so the daily policy names its unit in a vendor parameter.
 */
export function policyField(limits: ExecutionLimits, sandbox: boolean): string {
  const items: string[] = [];
  if (limits.executionsPerMinute !== null)
    items.push(`"${POLICY.minute}";q=${limits.executionsPerMinute};w=60`);
  if (sandbox && limits.concurrentSandboxRuns !== null)
    items.push(`"${POLICY.concurrent}";q=${limits.concurrentSandboxRuns};qu="concurrent-requests"`);
  if (sandbox && limits.dailySandboxSeconds !== null)
    items.push(
      `"${POLICY.daily}";q=${limits.dailySandboxSeconds};w=86400;skillgate-unit="sandbox-seconds"`,
    );
  return items.join(", ");
}

const BLOCKED: Record<keyof ExecutionLimits, string> = {
  executionsPerMinute: "This API key is blocked from starting executions",
  concurrentSandboxRuns: "This API key is blocked from running sandbox skills",
  dailySandboxSeconds:
    "This API key is blocked from running sandbox skills: it has no sandbox time",
};

/**
 * The error of a refused admission. A limit of 0 blocks the key for that kind of call
 * (docs/rate-limits.md#a-limit-of-0): waiting does not help, so it is a 403 `limit_blocked`
 * without `Retry-After` (the `RateLimit-Policy` field still shows q=0); any other limit is a
 * retryable 429 with `Retry-After`.
 */
export function refusal(
  code: "rate_limited" | "concurrency_limited" | "quota_exceeded",
  policy: string,
  rateLimit: string,
  retryAfterS: number,
  info: { message: string; limit: keyof ExecutionLimits; value: number },
): AppError {
  if (info.value === 0) {
    const name = rateLimit.slice(0, rateLimit.indexOf(";"));
    return new AppError("limit_blocked", `${BLOCKED[info.limit]} (${info.limit} is 0)`, {
      headers: { "RateLimit-Policy": policy, RateLimit: `${name};r=0` },
      details: { limit: info.limit, value: 0 },
    });
  }
  return new AppError(code, info.message, {
    retryAfterS,
    headers: { "RateLimit-Policy": policy, RateLimit: rateLimit },
    details: { limit: info.limit, value: info.value, retryAfterS },
  });
}
