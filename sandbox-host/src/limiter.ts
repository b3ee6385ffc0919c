/**
 * Bounded concurrency with a bounded FIFO queue: past the queue 429 `busy`, past a caller's
 * longest wait 429 `queue_timeout`, both with Retry-After (the API's executor treats them as
 * retryable; the run never started).
 */
import { HostError } from "./errors.js";

interface Waiter {
  grant: () => void;
  fail: (err: HostError) => void;
}

/** Counts running slots; callers wait in a FIFO queue when all are taken. */
export class Limiter {
  private active = 0;
  private readonly waiters: Waiter[] = [];

  /**
   * @param maxConcurrency slots that may run at once (>= 1).
   * @param maxQueue callers that may wait (0 = none).
   * @param queueTimeoutMs longest wait in ms before the caller gets 429.
   */
  constructor(
    readonly maxConcurrency: number,
    readonly maxQueue: number,
    private readonly queueTimeoutMs: number,
  ) {}

  /** Slots in use. */
  get running(): number {
    return this.active;
  }

  /** Callers waiting. */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Takes a slot, waiting in the queue if needed. Output: a release function (idempotent).
   * @param signal aborts the wait.
   * @param maxWaitMs longest wait for this caller in ms (the queue timeout caps it).
   * @throws HostError 429 `busy` (with Retry-After) when the queue is full, 429 `queue_timeout`
   *   (with Retry-After) when the wait times out;
   *   HostError 409 `killed` when `signal` aborts while waiting.
   */
  async acquire(signal?: AbortSignal, maxWaitMs?: number): Promise<() => void> {
    if (signal?.aborted) throw new HostError(409, "killed", "Run was killed before it started");
    if (this.active < this.maxConcurrency && this.waiters.length === 0) return this.take();
    if (this.waiters.length >= this.maxQueue) {
      throw new HostError(
        429,
        "busy",
        "Sandbox host is at capacity; retry later",
        this.retryAfterS(),
      );
    }
    return new Promise<() => void>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
      };
      const waiter: Waiter = {
        grant: () => {
          cleanup();
          resolve(this.take());
        },
        fail: (err) => {
          cleanup();
          reject(err);
        },
      };
      const onAbort = () =>
        waiter.fail(new HostError(409, "killed", "Run was killed before it started"));
      const waitMs = Math.min(this.queueTimeoutMs, maxWaitMs ?? this.queueTimeoutMs);
      const timer = setTimeout(
        () =>
          waiter.fail(
            new HostError(
              429,
              "queue_timeout",
              `No sandbox slot came free within the queue wait of ${waitMs} ms; the program never started`,
              this.retryAfterS(),
            ),
          ),
        waitMs,
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Fails every waiting caller (host shutting down). */
  rejectAll(): void {
    for (const w of [...this.waiters])
      w.fail(new HostError(503, "shutting_down", "Sandbox host is shutting down"));
  }

  private take(): () => void {
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiters[0]?.grant();
    };
  }

  /** Seconds a refused caller should wait: about one queue's worth of short runs. */
  private retryAfterS(): number {
    return Math.max(1, Math.ceil((this.waiters.length + 1) / this.maxConcurrency));
  }
}
