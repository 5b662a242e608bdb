import type { BusHandler, CacheStore, MessageBus } from "./types";
import { Lru } from "./lru";

export type MemoryCacheOptions = {
  /** The clock expiry is measured on, in ms since epoch (default Date.now). */
  now?: () => number;
};

export class MemoryCacheStore implements CacheStore {
  readonly kind = "memory" as const;
  private readonly lru: Lru<string, string>;

  constructor(options: MemoryCacheOptions = {}) {
    this.lru = new Lru<string, string>(100_000, options.now);
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
  async ping() {}
  async close() {
    this.lru.clear();
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
