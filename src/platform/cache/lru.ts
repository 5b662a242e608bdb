/**
 * A small bounded LRU map with optional per-entry expiry (ms since epoch).
 * `now` is its clock (Date.now unless given; tests pass one they can advance).
 */
export class Lru<K, V> {
  private readonly map = new Map<K, { v: V; exp: number }>();
  private hits = 0;
  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K, now = this.now()): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.exp && hit.exp <= now) {
      this.map.delete(key);
      return undefined;
    }
    // refresh recency only now and then: re-inserting on every hit costs more than it saves
    if (++this.hits % 16 === 0) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit.v;
  }

  set(key: K, v: V, ttlMs = 0): void {
    this.map.delete(key);
    this.map.set(key, { v, exp: ttlMs ? this.now() + ttlMs : 0 });
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
