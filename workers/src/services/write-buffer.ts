/**
 * Buffers the gateway's observation writes (token usage, routing observations) so that they leave
 * the request path (docs/proxy.md#cost): entries added within one window are merged by key and
 * written together when the window ends, or at once when the buffer is full. On the embedded
 * database a write runs on the event loop, so one write per proxied request would delay the next
 * request's answer; one write per window does not.
 *
 * Nothing waits for a buffered write; {@link WriteBuffer.settled} writes what is buffered at once
 * and waits (the Worker hands it to `waitUntil`, the Node server calls it on shutdown, readers call
 * it before reading the table). A failed write is reported to `onError` and dropped: these are
 * observations, not executions.
 */

/** How a {@link WriteBuffer} merges and writes its entries. */
export interface WriteBufferOptions<V> {
  /** How long an entry may wait for others, ms (0: the end of the current turn of the event loop). */
  windowMs: number;
  /** Entries (distinct keys) held at most; the buffer is written at once when it reaches this. */
  maxEntries: number;
  /** Combines a buffered value with a new one of the same key. */
  merge(buffered: V, added: V): V;
  /** Writes one window's entries (each key once). */
  write(entries: readonly [string, V][]): Promise<void>;
  /** Told about a failed write and how many entries it dropped. */
  onError(err: unknown, dropped: number): void;
}

/** A keyed buffer of writes, flushed per window (see the module docs). */
export class WriteBuffer<V> {
  private entries = new Map<string, V>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly opts: WriteBufferOptions<V>) {}

  /** Adds `value` under `key` (merged with what is buffered there); schedules the write. */
  add(key: string, value: V): void {
    const buffered = this.entries.get(key);
    this.entries.set(key, buffered === undefined ? value : this.opts.merge(buffered, value));
    if (this.entries.size >= this.opts.maxEntries) this.flush();
    else this.timer ??= this.schedule();
  }

  /** The value buffered (not yet written) under `key`, if any. */
  buffered(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** True while entries are buffered or being written (the Worker keeps the isolate for them). */
  get busy(): boolean {
    return this.entries.size > 0 || this.inFlight.size > 0;
  }

  /** Writes what is buffered now and settles when every write started so far has ended. */
  async settled(): Promise<void> {
    this.flush();
    await Promise.all([...this.inFlight]);
  }

  private schedule(): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => this.flush(), this.opts.windowMs);
    // A pending window must not keep a Node process alive; shutdown calls settled().
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  private flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.entries.size === 0) return;
    const batch = [...this.entries];
    this.entries = new Map();
    const write: Promise<void> = (async () => this.opts.write(batch))()
      .catch((err: unknown) => this.opts.onError(err, batch.length))
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }
}
