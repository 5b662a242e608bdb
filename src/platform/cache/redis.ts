import Redis, { type RedisOptions } from "ioredis";
import type { Logger } from "@/platform/logger";
import type { BusHandler, CacheStore, MessageBus, TokenTake } from "./types";
import { tokenTake } from "./memory";
import { Breaker } from "@/platform/async/breaker";

/** Every cache key lives under this prefix, so one Redis can be shared with other tools. */
export const CACHE_KEY_PREFIX = "cusp:";

const CONNECT_TIMEOUT_MS = 5_000;
/** No request waits longer than this on a Redis that does not answer (docs/platform/reliability.md). */
const REDIS_COMMAND_TIMEOUT_MS = 250;
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

/**
 * The token bucket, one atomic step: the bucket is "tokens at" (at in ms on
 * Redis's own clock, so API instances with skewed clocks agree), refilled from
 * `at` to now, then `cost` taken when there; an untouched bucket expires when it
 * would be full again. Returns { allowed (0/1), tokens left as a string } (a Lua
 * number would reach the client truncated to an integer). TIME before a write
 * needs Redis 5 or later (scripts replicated by effects).
 */
const TAKE_TOKEN_LUA = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local tokens = burst
local v = redis.call('GET', KEYS[1])
if v then
  local sep = string.find(v, ' ', 1, true)
  local saved = tonumber(string.sub(v, 1, sep - 1))
  local elapsed = now - tonumber(string.sub(v, sep + 1))
  if elapsed > 0 then
    tokens = math.min(burst, saved + elapsed * rate / 1000)
  else
    tokens = saved
  end
end
if tokens < cost then
  return {0, string.format('%.17g', tokens)}
end
tokens = tokens - cost
local ttl = math.ceil((burst - tokens) / rate * 1000)
if ttl < 1 then ttl = 1 end
redis.call('SET', KEYS[1], string.format('%.17g %.17g', tokens, now), 'PX', ttl)
return {1, string.format('%.17g', tokens)}
`;

/** INCR and (re)set the expiry in one step, so a counter never lives on without one. */
const INCREMENT_LUA = `
local n = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) else redis.call('PERSIST', KEYS[1]) end
return n
`;

type ScriptedRedis = Redis & {
  cuspTakeToken(key: string, rate: number, burst: number, cost: number): Promise<[number, string]>;
  cuspIncrement(key: string, ttlMs: number): Promise<number>;
};

/** The scripts, loaded once per connection and called by EVALSHA (ioredis falls back to EVAL after a script flush). */
function withScripts(conn: Redis): ScriptedRedis {
  conn.defineCommand("cuspTakeToken", { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
  conn.defineCommand("cuspIncrement", { numberOfKeys: 1, lua: INCREMENT_LUA });
  return conn as ScriptedRedis;
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
  private readonly conn: ScriptedRedis;
  constructor(
    conn: Redis,
    /** Every command goes through it: a Redis that does not answer is given up on at once (async/breaker.ts). */
    readonly breaker: Breaker,
    private readonly closeAll: () => Promise<void>,
  ) {
    this.conn = withScripts(conn);
  }

  private call<T>(command: (conn: ScriptedRedis) => Promise<T>): Promise<T> {
    return this.breaker.run(() => command(this.conn));
  }

  private k(key: string) {
    return CACHE_KEY_PREFIX + key;
  }

  async get(key: string) {
    return this.call((c) => c.get(this.k(key)));
  }

  async set(key: string, value: string, ttlSeconds: number) {
    await this.call((c) => setWithTtl(c, this.k(key), value, ttlSeconds, false));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    return (await this.call((c) => setWithTtl(c, this.k(key), value, ttlSeconds, true))) === "OK";
  }

  async delete(key: string) {
    await this.call((c) => c.del(this.k(key)));
  }

  increment(key: string, ttlSeconds: number): Promise<number> {
    return this.call((c) => c.cuspIncrement(this.k(key), ttlSeconds > 0 ? Math.max(1, Math.round(ttlSeconds * 1000)) : 0));
  }

  async takeToken(key: string, rate: number, burst: number, cost = 1): Promise<TokenTake> {
    const [allowed, tokens] = await this.call((c) => c.cuspTakeToken(this.k(key), rate, burst, cost));
    return tokenTake(allowed === 1, Number(tokens), rate, burst, cost);
  }

  async ping() {
    const res = await this.call((c) => c.ping());
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
    /** The command connection's breaker, shared with the cache store: publishing is a command. */
    private readonly breaker: Breaker,
    private readonly logger: Logger,
    private readonly closeAll: () => Promise<void>,
  ) {
    // After a reconnect ioredis subscribes again to what it had subscribed; a channel whose
    // SUBSCRIBE failed while Redis was away is subscribed here, so no stream stays deaf.
    sub.on("ready", () => {
      if (this.channels.size) this.track("*", this.sub.subscribe(...this.channels.keys()), "resubscribe");
    });
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
    await this.breaker.run(() => this.pub.publish(channel, message));
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
    // A command during a reconnect waits for it, but never past the breaker's 250 ms
    // (a dropped link is back in 50 ms); one reconnect that fails fails the commands
    // waiting for it, and after three failures the breaker refuses at once, so no
    // request waits on a Redis that is away. The link is retried in the background
    // after 50 ms, then twice as long each time, up to every 2 s.
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(50 * 2 ** (attempt - 1), 2_000),
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
  const breaker = new Breaker("redis", { timeoutMs: REDIS_COMMAND_TIMEOUT_MS }, (state) =>
    (state === "open" ? logger.warn : logger.info).call(logger, { redis: describe(conn), state }, "redis breaker"),
  );
  return { cache: new RedisCacheStore(conn, breaker, closeAll), bus: new RedisBus(conn, sub, breaker, logger, closeAll) };
}
