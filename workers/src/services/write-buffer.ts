/**
 * Buffers the gateway's observation writes (token usage, routing observations) so that they leave
 * the request path (docs/proxy.md#cost): entries added within one window are merged by key and
 * written together when the window ends, or at once when the buffer is full. On the embedded
 * database a write runs on the event loop, so one write per proxied request would delay the next
 * request's answer; one write per window does not.
 *
 * A window's entries are written in chunks of at most `chunkEntries`, the first after the current
 * turn of the event loop (next-turn.ts), each later one `chunkPauseMs` after the one before: on the
 * embedded database a write of 100 rows holds the event loop for about 3 ms, which every request
 * in progress waits for; a chunk of 10 holds it for about 0.35 ms, and with the pause between
 * chunks a request of a millisecond or two meets at most one. Entries handed to the writer count
 * as buffered until their chunk is written.
 *
 * Nothing waits for a buffered write; {@link WriteBuffer.settled} writes what is buffered at once
 * and waits (the Worker hands it to `waitUntil`, the Node server calls it on shutdown, readers call
 * it before reading the table). A failed write is reported to `onError` and dropped: these are
 * observations, not executions.
 */

import { nextTurn } from "../next-turn.js";

/** How a {@link WriteBuffer} merges and writes its entries. */
export interface WriteBufferOptions<V> {
  /** How long an entry may wait for others, ms (0: the end of the current turn of the event loop). */
  windowMs: number;
  /** Entries (distinct keys) held at most; the buffer is written at once when it reaches this. */
  maxEntries: number;
  /** Most entries per call of `write` (default {@link WRITE_CHUNK_ENTRIES}). */
  chunkEntries?: number;
  /** Pause between two chunks of one window, ms (default {@link WRITE_CHUNK_PAUSE_MS}). */
  chunkPauseMs?: number;
  /** Combines a buffered value with a new one of the same key. */
  merge(buffered: V, added: V): V;
  /** Writes one window's entries (each key once). */
  write(entries: readonly [string, V][]): Promise<void>;
  /** Told about a failed write and how many entries it dropped. */
  onError(err: unknown, dropped: number): void;
}

/** Entries per write by default: about 0.35 ms of the embedded database's time (module docs). */
export const WRITE_CHUNK_ENTRIES = 10;
/** Pause between the chunks of a window by default, ms (module docs). */
export const WRITE_CHUNK_PAUSE_MS = 2;

/** A keyed buffer of writes, flushed per window (see the module docs). */
export class WriteBuffer<V> {
  private entries = new Map<string, V>();
  /** Chunks handed to the writer and not yet written (or failed). */
  private readonly unwritten = new Set<ReadonlyMap<string, V>>();
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

  /** The value buffered (not yet written, in the buffer or being written) under `key`, if any. */
  buffered(key: string): V | undefined {
    let value: V | undefined;
    for (const chunk of [...this.unwritten, this.entries]) {
      const v = chunk.get(key);
      if (v !== undefined) value = value === undefined ? v : this.opts.merge(value, v);
    }
    return value;
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
    const size = Math.max(1, this.opts.chunkEntries ?? WRITE_CHUNK_ENTRIES);
    const chunks: [string, V][][] = [];
    for (let i = 0; i < batch.length; i += size) chunks.push(batch.slice(i, i + size));
    const maps = chunks.map((chunk) => new Map(chunk));
    for (const m of maps) this.unwritten.add(m);
    const write: Promise<void> = (async () => {
      const pauseMs = this.opts.chunkPauseMs ?? WRITE_CHUNK_PAUSE_MS;
      for (const [i, chunk] of chunks.entries()) {
        // Never on the caller's turn (a request adding the entry that filled the buffer).
        if (i === 0) await nextTurn();
        else await new Promise<void>((resolve) => setTimeout(resolve, pauseMs));
        try {
          await this.opts.write(chunk);
        } catch (err) {
          try {
            this.opts.onError(err, chunk.length);
          } catch {
            // A failing report must not strand the window's other chunks.
          }
        } finally {
          this.unwritten.delete(maps[i]!);
        }
      }
    })().finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }
}
