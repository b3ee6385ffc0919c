/**
 * Per-key execution limits as management sees them (docs/rate-limits.md): the defaults (the
 * `defaultLimits` setting), a key's overrides (`PUT /api/keys/{id}/limits`), the effective limits
 * the executor enforces, and a key's usage today. Enforcement itself is in
 * `skills/execution/limits.ts`.
 */

import type { LiveUsage } from "../skills/execution/limit-counters.js";
import { utcDay } from "../skills/execution/limit-fields.js";
import {
  type DailyUsage,
  type ExecutionLimiter,
  type ExecutionLimits,
  LIMIT_NAMES,
  NO_LIMITS,
  type UsageStore,
} from "../skills/execution/limits.js";
import { KeyMemo } from "./key-memo.js";
import type { SettingsService } from "./settings.js";

export type { ExecutionLimits };
export { LIMIT_NAMES };

/** A key's overrides: only the limits it sets itself; null = no limit for this key. */
export type LimitOverrides = Partial<ExecutionLimits>;

/** Storage of per-key overrides as JSON text (the drizzle implementation is in `db/repositories/key-limits.ts`). */
export interface LimitOverridesRepository {
  get(apiKeyId: string): Promise<string | undefined>;
  /** Writes (inserts or replaces) the overrides of `apiKeyId`. @param at ms since the epoch. */
  put(apiKeyId: string, limits: string, at: number): Promise<void>;
}

/** A key's limits and usage as `GET /api/keys/{id}` shows them. Units: executions, runs, seconds. */
export interface KeyLimitsView {
  /** The limits enforced now (overrides over the defaults); null = no limit. */
  limits: ExecutionLimits;
  /** The key's own overrides (absent fields follow the defaults). */
  overrides: LimitOverrides;
  usage: {
    /** UTC day of the daily counters, `YYYY-MM-DD`. */
    day: string;
    executionsToday: number;
    sandboxRunsToday: number;
    /** Sandbox seconds of finished runs today (ms precision). */
    sandboxSecondsToday: number;
    /** Sandbox seconds held by runs still going (their time limits). */
    reservedSandboxSeconds: number;
    /** Seconds of today's budget left; null without a daily budget. */
    remainingSandboxSeconds: number | null;
    /** Executions this minute, counted by the instance that answers. */
    executionsThisMinute: number;
    /** Sandbox runs going, counted by the instance that answers. */
    concurrentSandboxRuns: number;
  };
}

/** How long effective limits are kept in process memory, ms (writes here drop them at once). */
const MEMO_MS = 5_000;

/** Keeps only valid limit values of `raw` (non-negative integers or null). */
export function sanitizeLimits(raw: unknown): LimitOverrides {
  const out: LimitOverrides = {};
  if (raw === null || typeof raw !== "object") return out;
  const record = raw as Record<string, unknown>;
  for (const name of LIMIT_NAMES) {
    const v = record[name];
    if (v === null || (typeof v === "number" && Number.isInteger(v) && v >= 0)) out[name] = v;
  }
  return out;
}

/** Reads and writes the limits of keys. */
export class LimitsService {
  private readonly memo = new KeyMemo<ExecutionLimits>(MEMO_MS, 10_000, () => this.clock());

  constructor(
    private readonly overridesStore: LimitOverridesRepository,
    private readonly usageStore: UsageStore,
    private readonly settings: SettingsService,
    private readonly limiter: () => ExecutionLimiter,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The default limits (the `defaultLimits` setting; no limits on a fresh install). */
  async defaults(): Promise<ExecutionLimits> {
    return { ...NO_LIMITS, ...sanitizeLimits((await this.settings.get()).defaultLimits) };
  }

  /** The overrides `apiKeyId` sets itself. */
  async overrides(apiKeyId: string): Promise<LimitOverrides> {
    const text = await this.overridesStore.get(apiKeyId);
    if (text === undefined) return {};
    try {
      return sanitizeLimits(JSON.parse(text));
    } catch {
      return {};
    }
  }

  /** The limits enforced for `apiKeyId` (kept 5 s in memory; a write here drops them). */
  async effective(apiKeyId: string): Promise<ExecutionLimits> {
    return this.memo.get(apiKeyId, async () => {
      const [defaults, overrides] = await Promise.all([this.defaults(), this.overrides(apiKeyId)]);
      return { ...defaults, ...overrides };
    });
  }

  /**
   * Replaces the overrides of `apiKeyId` (the caller checked that the key exists): fields given
   * are the key's own (null = no limit), fields left out follow the defaults.
   */
  async setOverrides(apiKeyId: string, overrides: LimitOverrides): Promise<void> {
    await this.overridesStore.put(
      apiKeyId,
      JSON.stringify(sanitizeLimits(overrides)),
      this.clock(),
    );
    this.memo.forget(apiKeyId);
  }

  /** Drops the memoised effective limits (after the defaults changed). */
  forgetEffective(): void {
    this.memo.clear();
  }

  /** The limits and today's usage of `apiKeyId`. */
  async view(apiKeyId: string): Promise<KeyLimitsView> {
    this.memo.forget(apiKeyId);
    const day = utcDay(this.clock());
    const [limits, overrides, used, live] = await Promise.all([
      this.effective(apiKeyId),
      this.overrides(apiKeyId),
      this.usageStore.usage(apiKeyId, day),
      this.limiter().liveUsage(apiKeyId),
    ]);
    return { limits, overrides, usage: usageView(day, used, limits, live) };
  }
}

function usageView(
  day: string,
  used: DailyUsage,
  limits: ExecutionLimits,
  live: LiveUsage,
): KeyLimitsView["usage"] {
  const budget = limits.dailySandboxSeconds;
  return {
    day,
    executionsToday: used.executions,
    sandboxRunsToday: used.sandboxRuns,
    sandboxSecondsToday: used.sandboxMs / 1000,
    reservedSandboxSeconds: used.reservedMs / 1000,
    remainingSandboxSeconds:
      budget === null
        ? null
        : Math.max(0, (budget * 1000 - used.sandboxMs - used.reservedMs) / 1000),
    ...live,
  };
}
