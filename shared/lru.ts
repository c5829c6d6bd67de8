/**
 * A bounded cache with least-recently-used eviction: a Map in use order (a hit moves its key to the
 * end; past `capacity` entries the first, least recently used, goes).
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`Lru capacity must be at least 1, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  /** The cached value of `key`, else `make(key)` stored. */
  getOrSet(key: K, make: (key: K) => V): V {
    let v = this.get(key);
    if (v === undefined) this.set(key, (v = make(key)));
    return v;
  }
}
