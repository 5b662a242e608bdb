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
