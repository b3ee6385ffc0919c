/**
 * The in-process counters of the per-key limits (docs/rate-limits.md): fixed one-minute windows
 * on UTC minute boundaries, refunds, concurrency slots, and the RateLimit-Policy field value.
 */
import { describe, expect, it } from "vitest";
import {
  bindingHolds,
  ConcurrencyCounter,
  MinuteCounter,
  minuteResetS,
} from "../../workers/src/skills/execution/limit-counters.js";
import {
  policyField,
  secondsToUtcMidnight,
  utcDay,
} from "../../workers/src/skills/execution/limit-fields.js";

const T = Date.UTC(2026, 5, 30, 23, 59, 50, 250);

describe("MinuteCounter", () => {
  it("admits up to the limit in one window, then refuses until the next minute", () => {
    const c = new MinuteCounter();
    expect(c.take("k", 2, T)).toEqual({ ok: true, remaining: 1, resetS: 10 });
    expect(c.take("k", 2, T + 1000)).toEqual({ ok: true, remaining: 0, resetS: 9 });
    expect(c.take("k", 2, T + 2000)).toEqual({ ok: false, remaining: 0, resetS: 8 });
    expect(c.take("other", 2, T + 2000).ok).toBe(true);
    expect(c.count("k", T + 2000)).toBe(2);
    expect(c.take("k", 2, T + 9_750).ok).toBe(true);
    expect(c.count("k", T + 9_750)).toBe(1);
  });

  it("gives back a refunded execution in the same window only", () => {
    const c = new MinuteCounter();
    c.take("k", 1, T);
    c.refund("k", T + 100);
    expect(c.take("k", 1, T + 200).ok).toBe(true);
    c.refund("k", T + 60_000);
    expect(c.take("k", 1, T + 300).ok).toBe(false);
  });
});

describe("ConcurrencyCounter", () => {
  it("holds at most the limit and frees a slot on release; null holds any number", () => {
    const c = new ConcurrencyCounter();
    expect(c.tryAcquire("k", 1)).toBe(true);
    expect(c.tryAcquire("k", 1)).toBe(false);
    c.release("k");
    expect(c.current("k")).toBe(0);
    expect(c.tryAcquire("k", 0)).toBe(false);
    for (let i = 0; i < 5; i++) expect(c.tryAcquire("k", null)).toBe(true);
    expect(c.current("k")).toBe(5);
  });
});

describe("windows and fields", () => {
  it("counts whole seconds to the end of the minute and of the UTC day", () => {
    expect(minuteResetS(T)).toBe(10);
    expect(minuteResetS(Date.UTC(2026, 0, 1, 0, 0, 0))).toBe(60);
    expect(secondsToUtcMidnight(T)).toBe(10);
    expect(utcDay(T)).toBe("2026-06-30");
    expect(utcDay(T + 10_000)).toBe("2026-07-01");
  });

  it("lists the policies that apply in RateLimit-Policy's structured-field syntax", () => {
    const limits = { executionsPerMinute: 60, concurrentSandboxRuns: 2, dailySandboxSeconds: 3600 };
    expect(policyField(limits, false)).toBe('"executions-per-minute";q=60;w=60');
    expect(policyField(limits, true)).toBe(
      '"executions-per-minute";q=60;w=60, "concurrent-sandbox-runs";q=2;qu="concurrent-requests", "daily-sandbox-seconds";q=3600;w=86400;skillgate-unit="sandbox-seconds"',
    );
    expect(
      policyField(
        { executionsPerMinute: null, concurrentSandboxRuns: null, dailySandboxSeconds: 5 },
        true,
      ),
    ).toBe('"daily-sandbox-seconds";q=5;w=86400;skillgate-unit="sandbox-seconds"');
  });
});

describe("bindingHolds", () => {
  it("holds keys limited to at most the default, and no key without a limit or without a default", () => {
    expect(bindingHolds(60, 60)).toBe(true);
    expect(bindingHolds(10, 60)).toBe(true);
    expect(bindingHolds(0, 60)).toBe(true);
    expect(bindingHolds(61, 60)).toBe(false);
    expect(bindingHolds(null, 60)).toBe(false);
    expect(bindingHolds(10, null)).toBe(false);
    expect(bindingHolds(null, null)).toBe(false);
  });
});
