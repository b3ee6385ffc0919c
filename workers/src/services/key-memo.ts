/**
 * An in-process memo of one value per API key with a time to live: what an instance read of a
 * key's settings (limits, ranker, token budget) is trusted for `ttlMs`, so a hot path does not
 * read the database on every request. A write on this instance updates or forgets the entry at
 * once; a write on another instance is seen within `ttlMs` (docs/limits.md).
 */
export class KeyMemo<T> {
  private readonly entries = new Map<string, { value: T; at: number }>();
  /** Counts forgets: a load that spans one is used once and not kept. */
  private forgets = 0;

  /**
   * @param ttlMs how long a read is trusted, in ms.
   * @param maxKeys keys kept at most; past it the oldest read is dropped.
   * @param clock the time in ms.
   */
  constructor(
    private readonly ttlMs: number,
    private readonly maxKeys: number,
    private readonly clock: () => number,
  ) {}

  /** The value of `key`: the memo's while fresh, else `load()`'s, kept from now on. */
  async get(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const forgets = this.forgets;
    const value = await load();
    // A write on this instance while the load was under way may not be in it: keep nothing.
    if (forgets === this.forgets) this.set(key, value, now);
    return value;
  }

  /** Keeps `value` as `key`'s (a write on this instance that knows the new value). */
  set(key: string, value: T, at: number = this.clock()): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxKeys) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, at });
  }

  /** Forgets `key`'s value (call before and after a write whose result is read back later). */
  forget(key: string): void {
    this.forgets++;
    this.entries.delete(key);
  }

  /** Forgets every key (a change that affects them all). */
  clear(): void {
    this.forgets++;
    this.entries.clear();
  }
}
