import { LRUCache } from "lru-cache";
import type { Cache } from "./types.js";

/** Entries kept by default before the least recently used is dropped. */
export const MEMORY_CACHE_MAX_ENTRIES = 10_000;

/**
 * In-process TTL cache implementing {@link Cache} (local default, and the Worker's memory layer in
 * front of KV). Values are stored as given (no serialisation); callers must not mutate what they
 * put or get. At most `maxEntries` entries are kept: once full, a `put` drops the least recently
 * used entry (a read counts as a use), so entries read on every request (keys, settings) outlive
 * one-off ones. Every operation costs O(1) at any fill (the recency order is the `lru-cache`
 * package's); an entry expires `ttlSeconds` after its `put` (from that instant on), is never
 * returned once expired, and is dropped when read or when it reaches the end of the order.
 */
export class MemoryCache implements Cache {
  readonly shared = false;
  private readonly entries: LRUCache<string, { v: unknown; exp: number }>;

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
    // Boxed with its expiry (checked on read), so that any value is stored as given.
    this.entries.set(key, { v: value, exp: this.now() + ttlSeconds * 1000 });
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
