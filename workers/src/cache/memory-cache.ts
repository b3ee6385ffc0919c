import { LRUCache } from "lru-cache";
import type { Cache } from "./types.js";

/** Entries kept by default before the least recently used is dropped. */
export const MEMORY_CACHE_MAX_ENTRIES = 10_000;

/** Least time between two passes that drop the expired entries of a full cache, in ms. */
export const MEMORY_CACHE_PURGE_INTERVAL_MS = 1_000;

/**
 * In-process TTL cache implementing {@link Cache} (local default, and the Worker's memory layer in
 * front of KV). Values are stored as given (no serialisation); callers must not mutate what they
 * put or get. At most `maxEntries` entries are kept: once full, a `put` first drops the expired
 * entries (one pass over the cache, at most once per {@link MEMORY_CACHE_PURGE_INTERVAL_MS}), then,
 * if still full, the least recently used entry (a read counts as a use), so entries read on every
 * request (keys, settings) and long-lived ones (a mixed turn, a session's found skills) outlive a
 * flood of short-lived ones. Reads and writes cost O(1) (the recency order is the `lru-cache`
 * package's), plus that pass, amortised over a second of writes. An entry expires `ttlSeconds`
 * after its `put` (from that instant on) and is never returned once expired.
 */
export class MemoryCache implements Cache {
  readonly shared = false;
  private readonly entries: LRUCache<string, { v: unknown; exp: number }>;
  /** Clock time before which a full cache does not look for expired entries again. */
  private nextPurgeAt = Number.NEGATIVE_INFINITY;

  /**
   * @param now clock in ms (injectable for tests).
   * @param maxEntries the most entries kept (least recently used dropped first).
   */
  constructor(
    private readonly now: () => number = Date.now,
    maxEntries = MEMORY_CACHE_MAX_ENTRIES,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.getSync<T>(key);
  }

  /** Synchronous read, for hot paths that already hold the cache. */
  getSync<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.exp <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.v as T;
  }

  async put(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    const now = this.now();
    if (
      this.entries.size >= this.entries.max &&
      now >= this.nextPurgeAt &&
      !this.entries.has(key)
    ) {
      this.nextPurgeAt = now + MEMORY_CACHE_PURGE_INTERVAL_MS;
      this.dropExpired(now);
    }
    // Boxed with its expiry (checked on read), so that any value is stored as given.
    this.entries.set(key, { v: value, exp: now + ttlSeconds * 1000 });
  }

  /** Drops every entry expired at `now` (a pass over the cache). */
  private dropExpired(now: number): void {
    const gone: string[] = [];
    for (const [key, entry] of this.entries.entries()) if (entry.exp <= now) gone.push(key);
    for (const key of gone) this.entries.delete(key);
  }

  async getBytes(key: string): Promise<Uint8Array | undefined> {
    const value = this.getSync<unknown>(key);
    return value instanceof Uint8Array ? value : undefined;
  }

  async putBytes(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    await this.put(key, value, ttlSeconds);
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }
}
