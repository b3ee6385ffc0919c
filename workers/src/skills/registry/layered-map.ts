/**
 * An immutable map that is cheap to derive with a few changes: a flat base map shared between
 * versions, and a small layer of changes on top. Deriving copies only the layer; once the layer
 * holds more than 64 entries and more than sqrt(2 × size), the next version is flattened into a
 * new base. A chain of single changes then costs about sqrt(2 × size) entry copies per change on
 * average (the layer copies plus the flattening spread over the changes between two flattenings),
 * instead of O(size). Used by the registry snapshot and the per-snapshot lookups, which change one
 * skill at a time.
 */

/** Marks a key removed in a layer. */
const REMOVED: unique symbol = Symbol("removed");

/** Immutable map with cheap derivation. */
export class LayeredMap<K, V> {
  private constructor(
    private readonly base: ReadonlyMap<K, V>,
    private readonly layer: ReadonlyMap<K, V | typeof REMOVED>,
    /** Number of keys. */
    readonly size: number,
  ) {}

  /** A map holding the entries of `map` (taken over, not copied: do not change it afterwards). */
  static of<K, V>(map: Map<K, V> = new Map()): LayeredMap<K, V> {
    return new LayeredMap(map, new Map(), map.size);
  }

  /** The value of `key`, or undefined. */
  get(key: K): V | undefined {
    const v = this.layer.get(key);
    if (v !== undefined) return v === REMOVED ? undefined : v;
    return this.base.get(key);
  }

  /** True when `key` has a value. */
  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  /** Every key (base keys not overridden, then the layer's). */
  *keys(): IterableIterator<K> {
    for (const k of this.base.keys()) if (!this.layer.has(k)) yield k;
    for (const [k, v] of this.layer) if (v !== REMOVED) yield k;
  }

  /** Calls `fn` for every entry (base entries not overridden, then the layer's). */
  forEach(fn: (value: V, key: K) => void): void {
    for (const [k, v] of this.base) if (!this.layer.has(k)) fn(v, k);
    for (const [k, v] of this.layer) if (v !== REMOVED) fn(v, k);
  }

  /**
   * A new map with `changes` applied: `[key, value]` sets, `[key, undefined]` removes.
   * This map is unchanged.
   */
  with(changes: Iterable<readonly [K, V | undefined]>): LayeredMap<K, V> {
    const layer = new Map(this.layer);
    let size = this.size;
    for (const [k, v] of changes) {
      const present = layer.has(k) ? layer.get(k) !== REMOVED : this.base.has(k);
      if (v === undefined) {
        if (present) size--;
        if (this.base.has(k)) layer.set(k, REMOVED);
        else layer.delete(k);
      } else {
        if (!present) size++;
        layer.set(k, v);
      }
    }
    if (layer.size > 64 && layer.size * layer.size > 2 * this.base.size) {
      const flat = new Map<K, V>();
      for (const [k, v] of this.base) if (!layer.has(k)) flat.set(k, v);
      for (const [k, v] of layer) if (v !== REMOVED) flat.set(k, v);
      return new LayeredMap(flat, new Map(), flat.size);
    }
    return new LayeredMap(this.base, layer, size);
  }
}
