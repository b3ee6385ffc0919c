/**
 * `KeyLimiter`, the Durable Object that counts one API key's short-window limits in the Worker
 * (docs/rate-limits.md#the-per-key-limiter-durable-object): executions per minute in fixed
 * one-minute windows and the concurrent sandbox runs as leases. There is one object per key
 * (`idFromName(apiKeyId)`), and a Durable Object serves its requests one at a time, so its counts
 * are exact across every isolate and location. The state is kept in the object's storage, so an
 * evicted object starts again where it stopped; a lease whose release never came (an isolate that
 * died mid-run) lapses at its expiry.
 *
 * Wire: `POST /` with one JSON operation (`take`, `refund`, `acquire`, `release`, `live`; see
 * {@link KeyLimiterOp}) answers 200 with its JSON result, 400 for a body that is not one.
 */
import { z } from "zod";

/** The persisted state of one key. `window` is the UTC minute (ms / 60 000) `count` belongs to. */
interface KeyWindowState {
  window: number;
  count: number;
  /** Lease id → expiry, ms since the epoch. */
  leases: Record<string, number>;
}

/** The subset of `DurableObjectState` the object uses. */
export interface DurableObjectStateLike {
  storage: {
    get<T>(key: string): Promise<T | undefined>;
    put<T>(key: string, value: T): Promise<void>;
  };
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

const MINUTE_MS = 60_000;
const ms = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const limit = z.number().int().nonnegative().max(1_000_000_000).nullable();
const lease = z.string().min(1).max(64);

/** One operation on a key's counters (times in ms since the epoch, as the caller's clock says). */
export const KeyLimiterOp = z.discriminatedUnion("op", [
  z.object({ op: z.literal("take"), limit, now: ms }),
  z.object({ op: z.literal("refund"), now: ms }),
  z.object({
    op: z.literal("acquire"),
    limit,
    leaseMs: ms.max(86_400_000),
    now: ms,
    lease,
  }),
  z.object({ op: z.literal("release"), lease, now: ms }),
  z.object({ op: z.literal("live"), now: ms }),
]);
/** A parsed {@link KeyLimiterOp}. */
export type KeyLimiterOp = z.infer<typeof KeyLimiterOp>;

/** Most leases one key holds at once (a bound on the object's state; far above any real limit). */
const MAX_LEASES = 10_000;

/** The Durable Object class bound as `KEY_LIMITER` (wrangler.toml). */
export class KeyLimiter {
  private state: KeyWindowState = { window: -1, count: 0, leases: {} };

  constructor(
    private readonly ctx: DurableObjectStateLike,
    _env: unknown,
  ) {
    void ctx.blockConcurrencyWhile(async () => {
      const saved = await ctx.storage.get<KeyWindowState>("state");
      if (saved) this.state = saved;
    });
  }

  /** Serves one operation (see the module docs). */
  async fetch(request: Request): Promise<Response> {
    let op: KeyLimiterOp;
    try {
      const text = await request.text();
      if (text.length > 4096) throw new Error("too long");
      op = KeyLimiterOp.parse(JSON.parse(text));
    } catch {
      return Response.json({ error: "not a key limiter operation" }, { status: 400 });
    }
    const { result, changed } = this.apply(op);
    if (changed) await this.ctx.storage.put("state", this.state);
    return Response.json(result);
  }

  /** Applies `op` to the state in memory (synchronously, so that no other request interleaves). */
  private apply(op: KeyLimiterOp): { result: unknown; changed: boolean } {
    const s = this.state;
    // Callers' clocks may differ a little: a window never goes back, so a late clock cannot reopen
    // a minute that a later one already counted in.
    const window = Math.max(Math.floor(op.now / MINUTE_MS), s.window);
    let changed = false;
    for (const [id, expires] of Object.entries(s.leases)) {
      if (expires <= op.now) {
        delete s.leases[id];
        changed = true;
      }
    }
    const running = () => Object.keys(s.leases).length;
    const resetS = Math.max(1, Math.ceil((MINUTE_MS - (op.now % MINUTE_MS)) / 1000));
    switch (op.op) {
      case "take": {
        const count = s.window === window ? s.count : 0;
        if (op.limit !== null && count >= op.limit)
          return { result: { ok: false, remaining: 0, resetS }, changed };
        s.window = window;
        s.count = count + 1;
        const remaining = op.limit === null ? null : op.limit - s.count;
        return { result: { ok: true, remaining, resetS }, changed: true };
      }
      case "refund":
        if (s.window === window && s.count > 0) {
          s.count--;
          changed = true;
        }
        return { result: { ok: true }, changed };
      case "acquire": {
        const current = running();
        if ((op.limit !== null && current >= op.limit) || current >= MAX_LEASES)
          return { result: { ok: false }, changed };
        s.leases[op.lease] = op.now + op.leaseMs;
        return { result: { ok: true }, changed: true };
      }
      case "release":
        if (op.lease in s.leases) {
          delete s.leases[op.lease];
          changed = true;
        }
        return { result: { ok: true }, changed };
      case "live":
        return {
          result: {
            executionsThisMinute: s.window === window ? s.count : 0,
            concurrentSandboxRuns: running(),
          },
          changed,
        };
    }
  }
}
