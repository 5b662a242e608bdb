import Redis, { type RedisOptions } from "ioredis";
import type { Logger } from "@/platform/logger";
import type { BusHandler, CacheStore, MessageBus } from "./types";

/** Every cache key lives under this prefix, so one Redis can be shared with other tools. */
export const CACHE_KEY_PREFIX = "cusp:";

const CONNECT_TIMEOUT_MS = 5_000;
const QUIT_TIMEOUT_MS = 2_000;

/**
 * `SET key value [EX s | PX ms] [NX]`. A ttl of 0 (or less) means no expiry, as in
 * MemoryCacheStore; fractional seconds use PX.
 */
function setWithTtl(conn: Redis, key: string, value: string, ttlSeconds: number, nx: boolean): Promise<"OK" | null> {
  if (!(ttlSeconds > 0)) return nx ? conn.set(key, value, "NX") : conn.set(key, value);
  if (Number.isInteger(ttlSeconds)) return nx ? conn.set(key, value, "EX", ttlSeconds, "NX") : conn.set(key, value, "EX", ttlSeconds);
  const ms = Math.max(1, Math.round(ttlSeconds * 1000));
  return nx ? conn.set(key, value, "PX", ms, "NX") : conn.set(key, value, "PX", ms);
}

/** The URL may carry a password: log only host and port. */
function describe(conn: Redis): { host?: string; port?: number; db?: number } {
  const { host, port, db } = conn.options;
  return { host, port, db };
}

function watch(conn: Redis, role: "command" | "subscriber", logger: Logger) {
  // Without an "error" listener ioredis prints every failed reconnect attempt;
  // with one, errors are ours to report, and reconnecting never throws.
  conn.on("error", (err: Error) => logger.warn({ role, redis: describe(conn), err: err.message }, "redis connection error"));
  conn.on("reconnecting", (delayMs: number) => logger.warn({ role, redis: describe(conn), delay_ms: delayMs }, "redis reconnecting"));
  conn.on("ready", () => logger.debug({ role, redis: describe(conn) }, "redis ready"));
}

async function quit(conn: Redis) {
  if (conn.status === "end") return;
  if (conn.status !== "ready") {
    // connecting or reconnecting: nothing to flush, stop retrying
    conn.disconnect(false);
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    // QUIT lets queued replies finish; a dead or reconnecting link is cut instead.
    await Promise.race([conn.quit(), new Promise((resolve) => (timer = setTimeout(resolve, QUIT_TIMEOUT_MS)))]);
  } catch {
    // already closed
  } finally {
    clearTimeout(timer);
    conn.disconnect(false);
  }
}

export class RedisCacheStore implements CacheStore {
  readonly kind = "redis" as const;
  constructor(
    private readonly conn: Redis,
    private readonly closeAll: () => Promise<void>,
  ) {}

  private k(key: string) {
    return CACHE_KEY_PREFIX + key;
  }

  async get(key: string) {
    return this.conn.get(this.k(key));
  }

  async set(key: string, value: string, ttlSeconds: number) {
    await setWithTtl(this.conn, this.k(key), value, ttlSeconds, false);
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    return (await setWithTtl(this.conn, this.k(key), value, ttlSeconds, true)) === "OK";
  }

  async delete(key: string) {
    await this.conn.del(this.k(key));
  }

  async ping() {
    const res = await this.conn.ping();
    if (res !== "PONG") throw new Error(`unexpected PING reply from redis: ${res}`);
  }

  close() {
    return this.closeAll();
  }
}

/**
 * Redis pub/sub. Channels are used as given (callers already namespace them,
 * e.g. `cusp:access:invalidate`, `cusp:events:<org>`). Publishing goes over the
 * command connection; receiving needs a connection of its own, which Redis puts
 * in subscriber mode. ioredis re-subscribes every channel after a reconnect.
 */
export class RedisBus implements MessageBus {
  readonly kind = "redis" as const;
  private readonly channels = new Map<string, Set<BusHandler>>();
  /** The SUBSCRIBE in flight per channel, so a publish from this process right after subscribe() is not lost. */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly logger: Logger,
    private readonly closeAll: () => Promise<void>,
  ) {
    sub.on("message", (channel: string, message: string) => {
      const handlers = this.channels.get(channel);
      if (!handlers) return;
      for (const h of [...handlers]) {
        try {
          h(message);
        } catch (err) {
          // one failing subscriber must not stop the others
          this.logger.warn({ channel, err: (err as Error)?.message }, "bus subscriber failed");
        }
      }
    });
  }

  async publish(channel: string, message: string) {
    const pending = this.pending.get(channel);
    if (pending) await pending;
    await this.pub.publish(channel, message);
  }

  subscribe(channel: string, handler: BusHandler) {
    let handlers = this.channels.get(channel);
    if (!handlers) {
      this.channels.set(channel, (handlers = new Set()));
      this.track(channel, this.sub.subscribe(channel), "subscribe");
    }
    handlers.add(handler);
    const subs = handlers;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      subs.delete(handler);
      if (subs.size === 0 && this.channels.get(channel) === subs) {
        this.channels.delete(channel);
        this.track(channel, this.sub.unsubscribe(channel), "unsubscribe");
      }
    };
  }

  private track(channel: string, op: Promise<unknown>, what: string) {
    const p = op.catch((err: Error) => this.logger.warn({ channel, err: err?.message }, `redis ${what} failed`));
    this.pending.set(channel, p);
    void p.finally(() => {
      if (this.pending.get(channel) === p) this.pending.delete(channel);
    });
  }

  close() {
    this.channels.clear();
    return this.closeAll();
  }
}

/**
 * The Redis cache store and message bus over two connections: one for commands
 * (cache and PUBLISH) and a dedicated subscriber. Fails when Redis does not
 * answer at start-up; after that, lost connections are retried and logged.
 * The pair shares its connections: close() on either quits both (closeRuntime
 * closes both anyway).
 */
export async function createRedisCacheAndBus(url: string, logger: Logger): Promise<{ cache: CacheStore; bus: MessageBus }> {
  const options: RedisOptions = {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // A cache call waits through a short outage, then fails instead of hanging a request.
    maxRetriesPerRequest: 3,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  };
  // Named per process, so CLIENT LIST shows who is connected (and a test can find its own links).
  const conn = new Redis(url, { ...options, connectionName: `cusp-${process.pid}` });
  const sub = new Redis(url, { ...options, connectionName: `cusp-sub-${process.pid}` });
  watch(conn, "command", logger);
  watch(sub, "subscriber", logger);

  let closing: Promise<void> | undefined;
  const closeAll = () => (closing ??= Promise.all([quit(conn), quit(sub)]).then(() => {}));

  let cause: Error | undefined;
  const keepCause = (err: Error) => (cause ??= err);
  conn.once("error", keepCause);
  sub.once("error", keepCause);
  try {
    await Promise.all([conn.connect(), sub.connect()]);
  } catch (err) {
    await closeAll();
    // connect() rejects with a bare "Connection is closed."; the cause came as an "error" event
    throw new Error(`redis at ${conn.options.host}:${conn.options.port} is not reachable: ${(cause ?? (err as Error)).message}`, { cause: cause ?? err });
  } finally {
    conn.off("error", keepCause);
    sub.off("error", keepCause);
  }
  return { cache: new RedisCacheStore(conn, closeAll), bus: new RedisBus(conn, sub, logger, closeAll) };
}
