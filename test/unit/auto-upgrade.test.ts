/**
 * The auto-upgrade rule (docs/execution.md#auto-upgrade): both limits double, each capped at the
 * host's maximum, and a run whose exhausted limit is already at the maximum is not upgraded.
 */
import { describe, expect, it } from "vitest";
import { ExecutionFailure } from "../../workers/src/errors.js";
import {
  exhaustedResource,
  upgradedLimits,
  upgradeEnabled,
} from "../../workers/src/skills/execution/auto-upgrade.js";
import { fakeSkill } from "../support/fakes/handler-context.js";

const host = (timeoutMs: number, memoryMb: number) => ({
  timeoutMs,
  memoryMb,
  maxTimeoutMs: 60_000,
  maxMemoryMb: 1024,
});

describe("upgradedLimits", () => {
  it("doubles time and memory", () => {
    expect(
      upgradedLimits("timeout", { timeoutMs: 10_000, memoryMb: null }, host(10_000, 256), 60_000),
    ).toEqual({ timeoutMs: 20_000, memoryMb: 512 });
  });

  it("caps the time at the 60 s maximum", () => {
    expect(
      upgradedLimits("timeout", { timeoutMs: 40_000, memoryMb: null }, host(40_000, 256), 60_000),
    ).toEqual({ timeoutMs: 60_000, memoryMb: 512 });
  });

  it("does not upgrade a timeout already at 60 s", () => {
    expect(
      upgradedLimits("timeout", { timeoutMs: 60_000, memoryMb: null }, host(60_000, 256), 60_000),
    ).toBeUndefined();
  });

  it("does not upgrade memory already at the host's maximum, nor without the host's report", () => {
    expect(
      upgradedLimits(
        "out_of_memory",
        { timeoutMs: 1000, memoryMb: 1024 },
        host(1000, 1024),
        60_000,
      ),
    ).toBeUndefined();
    expect(
      upgradedLimits("out_of_memory", { timeoutMs: 1000, memoryMb: null }, undefined, 60_000),
    ).toBeUndefined();
  });
});

describe("exhaustedResource and upgradeEnabled", () => {
  const failure = (output: unknown) => new ExecutionFailure("x", { output });

  it("reads timedOut and oomKilled from the run result only", () => {
    expect(exhaustedResource(failure({ timedOut: true, oomKilled: false }))).toBe("timeout");
    expect(exhaustedResource(failure({ timedOut: false, oomKilled: true }))).toBe("out_of_memory");
    expect(exhaustedResource(failure({ exitCode: 1 }))).toBeUndefined();
    expect(exhaustedResource(failure(undefined))).toBeUndefined();
  });

  it("follows the skill's choice, else the handler's default, and never for explicit limits", () => {
    const needs = { autoUpgrade: true, explicitLimits: (i: unknown) => i === "explicit" };
    expect(upgradeEnabled(needs, fakeSkill(), {})).toBe(true);
    expect(upgradeEnabled(needs, fakeSkill({ autoUpgrade: false }), {})).toBe(false);
    expect(upgradeEnabled({ autoUpgrade: false }, fakeSkill({ autoUpgrade: true }), {})).toBe(true);
    expect(upgradeEnabled(needs, fakeSkill(), "explicit")).toBe(false);
    expect(upgradeEnabled(undefined, fakeSkill({ autoUpgrade: true }), {})).toBe(false);
  });
});
