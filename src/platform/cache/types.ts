import type { Maybe } from "@/platform/async/maybe";

/**
 * The answer of `takeToken`: whether the request may go ahead, and the bucket's
 * state after it. Seconds may be fractional; callers round up for headers.
 */
export type TokenTake = {
  allowed: boolean;
  /** Whole tokens left in the bucket after this take. */
  remaining: number;
  /** When refused: seconds until `cost` tokens are back; 0 when allowed. */
  retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
};

/**
 * The shared cache store and the fan-out bus between service processes.
 * In-process by default; Redis (REDIS_URL) when several processes serve one
 * deployment, so an invalidation or an event reaches every instance.
 */
export interface CacheStore {
  readonly kind: "memory" | "redis";
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Set only when absent; true when this caller set it (a short lock). */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /**
   * Adds one to the counter at `key` (absent: 0) and (re)sets its expiry to
   * `ttlSeconds` from now, atomically; returns the new count. `get` reads the
   * count as a string, `delete` resets it.
   */
  increment(key: string, ttlSeconds: number): Promise<number>;
  /**
   * Token bucket at `key`, atomic: `burst` tokens at most, refilled at `rate`
   * tokens a second; takes `cost` (default 1) when that many are there, and
   * takes nothing when refused. An absent bucket is full. The in-process store
   * answers with a plain value (no promise on the hot path), Redis with a promise.
   * The bucket's key expires once it would be full again.
   */
  takeToken(key: string, rate: number, burst: number, cost?: number): Maybe<TokenTake>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type BusHandler = (message: string) => void;

export interface MessageBus {
  readonly kind: "memory" | "redis";
  publish(channel: string, message: string): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(channel: string, handler: BusHandler): () => void;
  close(): Promise<void>;
}
