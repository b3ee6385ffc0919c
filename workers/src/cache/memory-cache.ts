import type { Cache } from "./types.js";

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * In-process TTL cache implementing {@link Cache} (local default). Values are stored as given
 * (no serialisation); callers must not mutate what they put or get. Expired entries are dropped
 * on read and by a sweep when the map grows past `maxEntries`.
 */
export class MemoryCache implements Cache {
  readonly shared = false;
  private readonly entries = new Map<string, Entry>();

  /**
   * @param now clock in ms (injectable for tests).
   * @param maxEntries soft cap on the number of entries before expired ones are swept.
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    return this.getSync<T>(key);
  }

  /** Synchronous read, for hot paths that already hold the cache. */
  getSync<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  async put(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    if (this.entries.size >= this.maxEntries) this.sweep();
    this.entries.set(key, { value, expiresAt: this.now() + ttlSeconds * 1000 });
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

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    // Still full: drop the oldest insertions (Map keeps insertion order).
    for (const key of this.entries.keys()) {
      if (this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
