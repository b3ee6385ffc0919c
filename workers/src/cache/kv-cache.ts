/**
 * {@link Cache} over a Workers KV namespace with a per-isolate memory layer in front (Worker
 * default). Reads hit memory first (at most `memoryTtlSeconds` old), then KV. A `put` or `delete`
 * updates this isolate's memory at once; other isolates see it when their memory entry expires
 * and KV has propagated (KV is eventually consistent, typically within 60 s).
 */
import { MemoryCache } from "./memory-cache.js";
import type { Cache } from "./types.js";

/** The subset of the Workers KV binding this cache uses. */
export interface KvNamespaceLike {
  get(key: string, type: "json"): Promise<unknown>;
  get(key: string, type: "arrayBuffer"): Promise<ArrayBuffer | null>;
  put(
    key: string,
    value: string | ArrayBuffer | ArrayBufferView,
    options?: { expirationTtl?: number },
  ): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Workers KV's minimum `expirationTtl`, in seconds. */
export const KV_MIN_TTL_S = 60;

/** Two-layer cache: isolate memory, then KV. */
export class KvCache implements Cache {
  readonly shared = true;
  private readonly memory: MemoryCache;

  /**
   * @param kv the KV namespace binding.
   * @param memoryTtlSeconds upper bound on how long this isolate trusts its memory copy (s).
   * @param now clock in ms.
   */
  constructor(
    private readonly kv: KvNamespaceLike,
    private readonly memoryTtlSeconds = 60,
    now: () => number = Date.now,
  ) {
    this.memory = new MemoryCache(now);
  }

  async get<T>(key: string): Promise<T | undefined> {
    const hit = this.memory.getSync<T>(key);
    if (hit !== undefined) return hit;
    const value = (await this.kv.get(key, "json")) as T | null;
    if (value === null || value === undefined) return undefined;
    await this.memory.put(key, value, this.memoryTtlSeconds);
    return value;
  }

  async put(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.memory.put(key, value, Math.min(ttlSeconds, this.memoryTtlSeconds));
    await this.kv.put(key, JSON.stringify(value), {
      expirationTtl: Math.max(KV_MIN_TTL_S, Math.ceil(ttlSeconds)),
    });
  }

  async getBytes(key: string): Promise<Uint8Array | undefined> {
    const hit = await this.memory.getBytes(key);
    if (hit !== undefined) return hit;
    const value = await this.kv.get(key, "arrayBuffer");
    if (value === null || value === undefined) return undefined;
    const bytes = new Uint8Array(value);
    await this.memory.putBytes(key, bytes, this.memoryTtlSeconds);
    return bytes;
  }

  async putBytes(key: string, value: Uint8Array, ttlSeconds: number): Promise<void> {
    await this.memory.putBytes(key, value, Math.min(ttlSeconds, this.memoryTtlSeconds));
    await this.kv.put(key, value, { expirationTtl: Math.max(KV_MIN_TTL_S, Math.ceil(ttlSeconds)) });
  }

  async delete(key: string): Promise<void> {
    await this.memory.delete(key);
    await this.kv.delete(key);
  }
}
