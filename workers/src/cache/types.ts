/**
 * The KV-style cache every layer uses (docs/architecture.md#runtimes): Workers KV (with a
 * per-isolate memory layer) in the Worker, an in-process TTL cache locally. Values are
 * JSON-serialisable.
 *
 * Consistency: a `put` or `delete` is visible at once on the instance that made it; other
 * instances see it within the TTL of their memory layer (KV itself is eventually consistent,
 * typically within 60 s).
 */
export interface Cache {
  /**
   * True when other instances read what this one writes (Workers KV); false for a cache private
   * to this process, in which storing derived data that the process already holds is wasted.
   */
  readonly shared: boolean;
  /** Returns the value stored under `key`, or `undefined` when absent or expired. */
  get<T>(key: string): Promise<T | undefined>;
  /** Stores `value` under `key` for `ttlSeconds` seconds (KV's minimum is 60 s; shorter TTLs are raised to it there). */
  put(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  /** Returns the bytes stored under `key` with {@link putBytes}, or `undefined`. */
  getBytes(key: string): Promise<Uint8Array | undefined>;
  /** Stores bytes (e.g. a serialised index) under `key` for `ttlSeconds` seconds; the caller must not change them afterwards. */
  putBytes(key: string, value: Uint8Array, ttlSeconds: number): Promise<void>;
  /** Removes `key`. */
  delete(key: string): Promise<void>;
}
