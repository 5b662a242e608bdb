import type { BusHandler, CacheStore, MessageBus, TokenTake } from "./types";
import { Lru } from "./lru";

/**
 * The answer of a take, from the bucket's tokens after it: the same arithmetic
 * for the in-process store and for Redis (whose script returns `allowed` and `tokens`).
 */
export function tokenTake(allowed: boolean, tokens: number, rate: number, burst: number, cost: number): TokenTake {
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds: allowed ? 0 : (cost - tokens) / rate,
    resetSeconds: Math.max(0, (burst - tokens) / rate),
  };
}

type Bucket = { tokens: number; at: number };

/**
 * Token buckets in a bounded map, updated in place: one map lookup and a little
 * arithmetic per take, no promise. When full, the least recently inserted bucket
 * goes (a bucket that is used often is moved to the back now and then, as in Lru);
 * a dropped bucket comes back full, which errs on the side of letting requests in.
 */
export class TokenBuckets {
  private readonly map = new Map<string, Bucket>();
  private hits = 0;
  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string, rate: number, burst: number, cost = 1): TokenTake {
    const now = this.now();
    const b = this.map.get(key);
    let tokens = burst;
    if (b !== undefined) {
      const elapsed = now - b.at;
      tokens = elapsed > 0 ? Math.min(burst, b.tokens + (elapsed / 1000) * rate) : b.tokens;
    }
    if (tokens < cost) return tokenTake(false, tokens, rate, burst, cost);
    tokens -= cost;
    if (b === undefined) {
      this.map.set(key, { tokens, at: now });
      if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
    } else {
      b.tokens = tokens;
      b.at = now;
      if (++this.hits % 16 === 0) {
        this.map.delete(key);
        this.map.set(key, b);
      }
    }
    return tokenTake(true, tokens, rate, burst, cost);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}

export type MemoryCacheOptions = {
  /** The clock expiry is measured on, in ms since epoch (default Date.now). */
  now?: () => number;
};

export class MemoryCacheStore implements CacheStore {
  readonly kind = "memory" as const;
  private readonly lru: Lru<string, string>;
  private readonly buckets: TokenBuckets;

  constructor(options: MemoryCacheOptions = {}) {
    this.lru = new Lru<string, string>(100_000, options.now);
    this.buckets = new TokenBuckets(100_000, options.now);
  }

  async get(key: string) {
    return this.lru.get(key) ?? null;
  }
  async set(key: string, value: string, ttlSeconds: number) {
    this.lru.set(key, value, ttlSeconds * 1000);
  }
  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    if (this.lru.get(key) !== undefined) return false;
    this.lru.set(key, value, ttlSeconds * 1000);
    return true;
  }
  async delete(key: string) {
    this.lru.delete(key);
  }
  async increment(key: string, ttlSeconds: number) {
    const n = Number(this.lru.get(key) ?? 0) + 1;
    this.lru.set(key, String(n), ttlSeconds > 0 ? ttlSeconds * 1000 : 0);
    return n;
  }
  takeToken(key: string, rate: number, burst: number, cost = 1): TokenTake {
    return this.buckets.take(key, rate, burst, cost);
  }
  async ping() {}
  async close() {
    this.lru.clear();
    this.buckets.clear();
  }
}

export class MemoryBus implements MessageBus {
  readonly kind = "memory" as const;
  private readonly channels = new Map<string, Set<BusHandler>>();

  async publish(channel: string, message: string) {
    const subs = this.channels.get(channel);
    if (!subs) return;
    for (const h of subs) {
      try {
        h(message);
      } catch {
        // one failing subscriber must not stop the others
      }
    }
  }

  subscribe(channel: string, handler: BusHandler) {
    let subs = this.channels.get(channel);
    if (!subs) this.channels.set(channel, (subs = new Set()));
    subs.add(handler);
    return () => {
      subs!.delete(handler);
      if (subs!.size === 0) this.channels.delete(channel);
    };
  }

  async close() {
    this.channels.clear();
  }
}
