/**
 * Token accounting of the gateway proxy (docs/limits.md#token-budgets): the usage a proxied
 * request's rounds reported, summed (as the client receives it), recorded per key and UTC day —
 * input and output tokens, requests, rounds, owned tool calls — and an optional daily token budget
 * per key, checked before a request's first round: a key whose input plus output tokens today
 * reached its budget is refused with 429 `token_budget_exceeded` (in the provider's error shape on
 * the proxy paths) until 00:00 UTC. A request already going when the budget is reached finishes;
 * the budget is checked per request, not per token.
 */
import { AppError } from "../errors.js";
import { getFormatAdapter } from "../formats/index.js";
import type { TokenCounts, WireFormat } from "../formats/types.js";
import type { Metrics } from "../metrics/types.js";
import { secondsToUtcMidnight, utcDay } from "../skills/execution/limit-fields.js";
import { logPrefix } from "../telemetry/request-context.js";
import { KeyMemo } from "./key-memo.js";
import { WriteBuffer } from "./write-buffer.js";

/** What one proxied request adds to its key's day. Units: tokens, rounds, calls. */
export interface TokenUsageDelta {
  inputTokens: number;
  outputTokens: number;
  rounds: number;
  ownedCalls: number;
}

/** One key's proxied traffic on one UTC day. */
export interface DayTokenUsage extends TokenUsageDelta {
  /** `YYYY-MM-DD`. */
  day: string;
  /** Proxied requests recorded. */
  requests: number;
}

/** Usage to add to one key's row of one UTC day. */
export interface KeyDayUsage extends DayTokenUsage {
  apiKeyId: string;
}

/** Where token usage and budgets are kept (drizzle: `db/repositories/token-usage.ts`). */
export interface TokenUsageStore {
  /** Adds each row's counts to its key's row of its day (created when missing), in one batch. */
  add(rows: readonly KeyDayUsage[]): Promise<void>;
  /** Rows of `apiKeyId` from `from` to `to` (UTC days, inclusive), oldest first. */
  days(apiKeyId: string, from: string, to: string): Promise<DayTokenUsage[]>;
  /** The key's daily token budget, null when none. */
  budget(apiKeyId: string): Promise<number | null>;
  /** Sets (a non-negative integer) or removes (null) the key's daily token budget. */
  setBudget(apiKeyId: string, dailyTokens: number | null, at: number): Promise<void>;
}

/**
 * Input and output tokens of a usage object in `format`'s shape, 0 for what is missing: the
 * fields each format counts are its adapter's (`FormatAdapter.tokenCounts`, formats/<f>/gateway.ts,
 * each citing the provider's reference).
 */
export function tokenCounts(format: WireFormat, usage: unknown): TokenCounts {
  return getFormatAdapter(format).tokenCounts(usage);
}

/** A key's token usage as the API shows it. */
export interface TokenUsageView {
  /** The key's daily token budget (input plus output tokens), null for none. */
  dailyTokenBudget: number | null;
  /** Today's totals (zeros when nothing was proxied). */
  today: DayTokenUsage;
  /** Days with traffic, oldest first, over the period asked for. */
  days: DayTokenUsage[];
}

const DAY_MS = 86_400_000;

/**
 * How long an instance trusts the daily token budget it read for a key, in ms: a budget set on
 * this instance applies at once; one set on another instance within this time
 * (docs/limits.md#token-budgets). Saves a database read on every proxied request.
 */
export const BUDGET_CACHE_TTL_MS = 10_000;
/** Keys whose budget an instance keeps at most; past it the oldest reads are forgotten. */
const BUDGET_CACHE_MAX = 10_000;
/**
 * How long recorded usage waits to be written with the usage of later requests, ms
 * (docs/limits.md#token-budgets). Budget checks count what waits.
 */
export const USAGE_WRITE_WINDOW_MS = 1_000;
/** Key-days of usage held before they are written regardless of the window. */
const USAGE_BUFFER_MAX = 1_000;

/** Records proxied usage and enforces token budgets (see the module docs). */
export class TokenUsageService {
  /** Usage recorded and not yet written, per key and day. */
  private readonly buffer: WriteBuffer<KeyDayUsage>;
  /** Budgets read per key (null: none); see {@link BUDGET_CACHE_TTL_MS}. */
  private readonly budgets = new KeyMemo<number | null>(BUDGET_CACHE_TTL_MS, BUDGET_CACHE_MAX, () =>
    this.clock(),
  );

  constructor(
    private readonly store: TokenUsageStore,
    private readonly clock: () => number,
    private readonly metrics?: Metrics,
    windowMs = USAGE_WRITE_WINDOW_MS,
  ) {
    this.buffer = new WriteBuffer<KeyDayUsage>({
      windowMs,
      maxEntries: USAGE_BUFFER_MAX,
      merge: addUsage,
      write: (entries) => this.store.add(entries.map(([, row]) => row)),
      onError: (err, dropped) => {
        console.error(`${logPrefix()}recording token usage (${dropped} key-days) failed:`, err);
      },
    });
  }

  /**
   * Records one proxied request of `apiKeyId` (nothing for management calls, null): its summed
   * `usage` in `format`'s shape, its rounds and its owned calls. Does not wait for the write: the
   * usage is summed per key and day and written once per {@link USAGE_WRITE_WINDOW_MS}
   * (services/write-buffer.ts); a failed write is logged and lost.
   */
  record(
    apiKeyId: string | null,
    format: WireFormat,
    usage: unknown,
    rounds: number,
    ownedCalls: number,
  ): void {
    if (apiKeyId === null) return;
    const { input, output } = tokenCounts(format, usage);
    const delta = { inputTokens: input, outputTokens: output, rounds, ownedCalls };
    this.metrics?.countTokens?.({ format, ...delta });
    const day = utcDay(this.clock());
    this.buffer.add(bufferKey(apiKeyId, day), { apiKeyId, day, requests: 1, ...delta });
  }

  /** True while usage waits to be written or is being written (the Worker keeps the isolate). */
  get busy(): boolean {
    return this.buffer.busy;
  }

  /** Writes the usage that waits now and settles when the writes started so far have ended. */
  async settled(): Promise<void> {
    await this.buffer.settled();
  }

  /**
   * Refuses a proxied request of a key whose tokens today reached its budget.
   * @throws AppError 429 `token_budget_exceeded` with `Retry-After` (seconds to 00:00 UTC).
   */
  async checkBudget(apiKeyId: string | null): Promise<void> {
    if (apiKeyId === null) return;
    const budget = await this.budgetOf(apiKeyId);
    if (budget === null) return;
    const now = this.clock();
    const day = utcDay(now);
    // What waits is taken before the read: usage written meanwhile is then counted twice (a
    // refusal a little early), never missed.
    const waiting = this.buffer.buffered(bufferKey(apiKeyId, day));
    const [today] = await this.store.days(apiKeyId, day, day);
    const used =
      (today?.inputTokens ?? 0) +
      (today?.outputTokens ?? 0) +
      (waiting?.inputTokens ?? 0) +
      (waiting?.outputTokens ?? 0);
    if (used < budget) return;
    const t = secondsToUtcMidnight(now);
    throw new AppError(
      "token_budget_exceeded",
      `Daily token budget reached for this API key: ${budget} tokens per UTC day, ${used} used; retry after 00:00 UTC (in ${t} s)`,
      {
        retryAfterS: t,
        headers: {
          "RateLimit-Policy": `"daily-tokens";q=${budget};w=86400;skillgate-unit="tokens"`,
          RateLimit: `"daily-tokens";r=0;t=${t}`,
        },
        details: { limit: "dailyTokens", value: budget, used, retryAfterS: t },
      },
    );
  }

  /** The key's budget, read at most every {@link BUDGET_CACHE_TTL_MS} per instance. */
  private budgetOf(apiKeyId: string): Promise<number | null> {
    return this.budgets.get(apiKeyId, () => this.store.budget(apiKeyId));
  }

  /**
   * Usage of `apiKeyId` over the last `days` UTC days (today included) and its budget.
   * @param days 1–366.
   */
  async view(apiKeyId: string, days: number): Promise<TokenUsageView> {
    const now = this.clock();
    const to = utcDay(now);
    const from = utcDay(now - (days - 1) * DAY_MS);
    await this.buffer.settled();
    const [rows, budget] = await Promise.all([
      this.store.days(apiKeyId, from, to),
      this.store.budget(apiKeyId),
    ]);
    const today = rows.find((r) => r.day === to) ?? {
      day: to,
      inputTokens: 0,
      outputTokens: 0,
      requests: 0,
      rounds: 0,
      ownedCalls: 0,
    };
    return { dailyTokenBudget: budget, today, days: rows };
  }

  /** Sets (non-negative integer) or removes (null) the daily token budget of `apiKeyId`. */
  async setBudget(apiKeyId: string, dailyTokens: number | null): Promise<void> {
    this.budgets.forget(apiKeyId);
    try {
      await this.store.setBudget(apiKeyId, dailyTokens, this.clock());
    } finally {
      this.budgets.forget(apiKeyId);
    }
  }
}

function bufferKey(apiKeyId: string, day: string): string {
  return `${apiKeyId}\u0000${day}`;
}

function addUsage(a: KeyDayUsage, b: KeyDayUsage): KeyDayUsage {
  return {
    apiKeyId: a.apiKeyId,
    day: a.day,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    requests: a.requests + b.requests,
    rounds: a.rounds + b.rounds,
    ownedCalls: a.ownedCalls + b.ownedCalls,
  };
}
