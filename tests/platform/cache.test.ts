// Contract test for the cache store and message bus: the same cases run against the
// in-process versions and the Redis versions. Redis is expected at 127.0.0.1:6379
// (override with TEST_REDIS_URL); when it does not answer, the reason is printed once
// and bun reports every Redis case as skipped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import Redis from "ioredis";
import { REDIS_URL, redisUnavailable } from "@tests/support/redis";
import pino from "pino";
import type { Logger } from "@/platform/logger";
import type { CacheStore, MessageBus, TokenTake } from "@/platform/cache/types";
import { MemoryBus, MemoryCacheStore, TokenBuckets } from "@/platform/cache/memory";
import { CACHE_KEY_PREFIX, createRedisCacheAndBus } from "@/platform/cache/redis";
import { manualClock } from "@tests/support/clock";
import { settle, waitFor as poll } from "@tests/support/wait";

const RUN = `test:${randomUUID()}:`; // unique key/channel prefix for this run

/** A pino logger whose lines are kept in memory, to assert what was warned about. */
function captureLogger() {
  const lines: { level: string; msg: string; [k: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      cb();
    },
  });
  const logger = pino({ level: "debug", base: undefined, formatters: { level: (label) => ({ level: label }) } }, stream) as unknown as Logger;
  return { logger, lines };
}

const waitFor = (cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) => poll(cond, { what, timeoutMs });

const redisDown = await redisUnavailable("cache.test", "the Redis cases are");

type Subject = {
  cache: CacheStore;
  bus: MessageBus;
  /**
   * Lets `ms` of ttl time pass: the memory store's clock is moved at once; Redis
   * expires keys on its own clock, so there we poll until `expired` holds.
   */
  elapse(ms: number, expired: () => Promise<boolean>): Promise<void>;
};

/** The shared contract; with `unavailable` set (why), bun reports every case as skipped. */
function contract(name: "memory" | "redis", open: () => Promise<Subject>, unavailable: string | null) {
  describe(`cache/bus contract: ${name}`, () => {
    let s: Subject | null = null;
    let n = 0;
    const key = () => `${RUN}${name}:k${++n}`;
    const channel = () => `${RUN}${name}:ch${++n}`;

    beforeAll(async () => {
      if (!unavailable) s = await open();
    });
    afterAll(async () => {
      await s?.bus.close();
      await s?.cache.close();
    });

    // test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
    const it = (title: string, body: (s: Subject) => Promise<void>) => test.skipIf(!!unavailable)(title, () => body(s!));

    it("reports its kind", async ({ cache, bus }) => {
      expect(cache.kind).toBe(name);
      expect(bus.kind).toBe(name);
      await cache.ping();
    });

    it("get of a missing key is null", async ({ cache }) => {
      expect(await cache.get(key())).toBeNull();
    });

    it("set then get returns the value; set overwrites", async ({ cache }) => {
      const k = key();
      await cache.set(k, "v1", 60);
      expect(await cache.get(k)).toBe("v1");
      await cache.set(k, "v2 ünïcode", 60);
      expect(await cache.get(k)).toBe("v2 ünïcode");
    });

    it("values expire after their ttl (whole and fractional seconds)", async ({ cache, elapse }) => {
      const whole = key();
      const frac = key();
      const long = key();
      await cache.set(whole, "a", 1);
      await cache.set(frac, "b", 0.3);
      await cache.set(long, "c", 60);
      expect(await cache.get(whole)).toBe("a");
      expect(await cache.get(frac)).toBe("b");
      await elapse(450, async () => (await cache.get(frac)) === null);
      expect(await cache.get(frac)).toBeNull();
      expect(await cache.get(whole)).toBe("a");
      await elapse(700, async () => (await cache.get(whole)) === null);
      expect(await cache.get(whole)).toBeNull();
      expect(await cache.get(long)).toBe("c");
    });

    it("setIfAbsent sets only when absent, and again once the value expired", async ({ cache, elapse }) => {
      const k = key();
      expect(await cache.setIfAbsent(k, "first", 1)).toBe(true);
      expect(await cache.setIfAbsent(k, "second", 1)).toBe(false);
      expect(await cache.get(k)).toBe("first");
      await elapse(1_150, async () => (await cache.get(k)) === null);
      expect(await cache.get(k)).toBeNull();
      expect(await cache.setIfAbsent(k, "third", 60)).toBe(true);
      expect(await cache.get(k)).toBe("third");
      // a plain set is not blocked by an existing value
      await cache.set(k, "fourth", 60);
      expect(await cache.get(k)).toBe("fourth");
    });

    it("setIfAbsent is won by exactly one of many concurrent callers", async ({ cache }) => {
      const k = key();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.setIfAbsent(k, `owner-${i}`, 30)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await cache.get(k)).toBe(`owner-${results.indexOf(true)}`);
    });

    it("delete removes a key; deleting a missing key is fine", async ({ cache }) => {
      const k = key();
      await cache.set(k, "x", 60);
      await cache.delete(k);
      expect(await cache.get(k)).toBeNull();
      await cache.delete(k);
      expect(await cache.setIfAbsent(k, "y", 60)).toBe(true);
    });

    it("increment counts from 1; get reads the count; delete resets it", async ({ cache }) => {
      const k = key();
      expect(await cache.increment(k, 60)).toBe(1);
      expect(await cache.increment(k, 60)).toBe(2);
      expect(await cache.increment(k, 60)).toBe(3);
      expect(await cache.get(k)).toBe("3");
      await cache.delete(k);
      expect(await cache.get(k)).toBeNull();
      expect(await cache.increment(k, 60)).toBe(1);
    });

    it("an incremented counter expires after its ttl, which each increment renews", async ({ cache, elapse }) => {
      const k = key();
      const renewed = key();
      expect(await cache.increment(k, 0.3)).toBe(1);
      expect(await cache.increment(renewed, 0.3)).toBe(1);
      // both keys, not only k: Redis may expire `renewed` (set a moment later) a moment later
      await elapse(450, async () => (await cache.get(k)) === null && (await cache.get(renewed)) === null);
      expect(await cache.get(k)).toBeNull();
      expect(await cache.increment(k, 60)).toBe(1); // starts again from 1
      expect(await cache.increment(renewed, 60)).toBe(1); // expired too
      expect(await cache.increment(renewed, 60)).toBe(2); // and the renewed ttl (60 s) keeps it
    });

    it("concurrent increments each get their own count", async ({ cache }) => {
      const k = key();
      const counts = await Promise.all(Array.from({ length: 30 }, () => cache.increment(k, 60)));
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(await cache.get(k)).toBe("30");
    });

    it("takeToken: a fresh bucket holds burst tokens; a refused take says when to retry and takes nothing", async ({ cache }) => {
      const k = key();
      const takes = [];
      for (let i = 0; i < 4; i++) takes.push(await cache.takeToken(k, 1, 3));
      expect(takes.map((x) => [x.allowed, x.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
      expect(takes[0]!.retryAfterSeconds).toBe(0);
      expect(takes[0]!.resetSeconds).toBeCloseTo(1, 1); // one token short of full, at 1 a second
      const refused = takes[3]!;
      expect(refused.retryAfterSeconds).toBeGreaterThan(0.5); // a token comes back after at most 1 s (less the time the takes took)
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(1);
      expect(refused.resetSeconds).toBeGreaterThan(2.5);
      expect(refused.resetSeconds).toBeLessThanOrEqual(3);

      // a cost: 3 of 5, then 3 more is refused (2 left) and takes nothing, so 2 still can be taken
      const c = key();
      expect(await cache.takeToken(c, 0.01, 5, 3)).toMatchObject({ allowed: true, remaining: 2 });
      const short = await cache.takeToken(c, 0.01, 5, 3);
      expect(short).toMatchObject({ allowed: false, remaining: 2 });
      expect(short.retryAfterSeconds).toBeGreaterThan(90); // one token at 0.01 a second: 100 s
      expect(short.retryAfterSeconds).toBeLessThanOrEqual(100);
      expect(await cache.takeToken(c, 0.01, 5, 2)).toMatchObject({ allowed: true, remaining: 0 });
    });

    it("takeToken refills at its rate, never above the burst", async ({ cache, elapse }) => {
      const k = key();
      expect(await cache.takeToken(k, 10, 2)).toMatchObject({ allowed: true, remaining: 1 });
      expect(await cache.takeToken(k, 10, 2)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await cache.takeToken(k, 10, 2)).allowed).toBe(false);
      // 10 a second: a token is back after 100 ms (Redis: polled, and refused takes take nothing)
      let polled: TokenTake | null = null;
      await elapse(120, async () => (polled = await cache.takeToken(k, 10, 2)).allowed);
      const next: TokenTake = polled ?? (await cache.takeToken(k, 10, 2));
      expect(next.allowed).toBe(true);
      expect(next.remaining).toBe(0);
      // a long pause fills the bucket to its burst, no more
      const idle = key();
      await cache.takeToken(idle, 1_000, 2);
      expect(await cache.takeToken(idle, 1_000, 2)).toMatchObject({ allowed: true, remaining: 0 });
      const from = Date.now();
      await elapse(50, async () => Date.now() - from >= 50); // 50 tokens' worth of time
      expect(await cache.takeToken(idle, 1_000, 2)).toMatchObject({ allowed: true, remaining: 1 });
    });

    it("takeToken is atomic: of many concurrent takes exactly burst go ahead", async ({ cache }) => {
      const k = key();
      const takes = await Promise.all(Array.from({ length: 40 }, () => cache.takeToken(k, 0.001, 15)));
      expect(takes.filter((x) => x.allowed)).toHaveLength(15);
      expect(takes.filter((x) => !x.allowed).every((x) => x.remaining === 0 && x.retryAfterSeconds > 900)).toBe(true);
    });

    it("publish reaches a subscriber of that channel only", async ({ bus }) => {
      const a = channel();
      const b = channel();
      const gotA: string[] = [];
      const gotB: string[] = [];
      const offA = bus.subscribe(a, (m) => gotA.push(m));
      const offB = bus.subscribe(b, (m) => gotB.push(m));
      await bus.publish(a, "hello");
      await bus.publish(a, '{"json":true}');
      await bus.publish(b, "sentinel");
      await waitFor(() => gotB.length === 1, "sentinel on b");
      await waitFor(() => gotA.length === 2, "two messages on a");
      expect(gotA).toEqual(["hello", '{"json":true}']);
      expect(gotB).toEqual(["sentinel"]);
      offA();
      offB();
    });

    it("publish to a channel nobody listens to is fine", async ({ bus }) => {
      await bus.publish(channel(), "into the void");
    });

    it("every subscriber of a channel gets each message, in order", async ({ bus }) => {
      const ch = channel();
      const one: string[] = [];
      const two: string[] = [];
      const off1 = bus.subscribe(ch, (m) => one.push(m));
      const off2 = bus.subscribe(ch, (m) => two.push(m));
      for (const m of ["m1", "m2", "m3"]) await bus.publish(ch, m);
      await waitFor(() => one.length === 3 && two.length === 3, "three messages for both");
      expect(one).toEqual(["m1", "m2", "m3"]);
      expect(two).toEqual(["m1", "m2", "m3"]);
      off1();
      off2();
    });

    it("a throwing subscriber does not stop the others", async ({ bus }) => {
      const ch = channel();
      const got: string[] = [];
      const offBad = bus.subscribe(ch, () => {
        throw new Error("boom");
      });
      const offGood = bus.subscribe(ch, (m) => got.push(m));
      await bus.publish(ch, "still delivered");
      await waitFor(() => got.length === 1, "delivery past a throwing handler");
      expect(got).toEqual(["still delivered"]);
      offBad();
      offGood();
    });

    it("unsubscribe stops delivery to that handler only; the last one ends the channel", async ({ bus }) => {
      const ch = channel();
      const fence = channel(); // messages on one connection arrive in order: once the fence arrives, earlier ones have too
      const one: string[] = [];
      const two: string[] = [];
      const fenced: string[] = [];
      const off1 = bus.subscribe(ch, (m) => one.push(m));
      const off2 = bus.subscribe(ch, (m) => two.push(m));
      const offFence = bus.subscribe(fence, (m) => fenced.push(m));

      off1();
      off1(); // calling it twice is harmless
      await bus.publish(ch, "after-off1");
      await bus.publish(fence, "f1");
      await waitFor(() => fenced.length === 1, "fence 1");
      expect(one).toEqual([]);
      expect(two).toEqual(["after-off1"]);

      off2();
      await bus.publish(ch, "after-off2");
      await bus.publish(fence, "f2");
      await waitFor(() => fenced.length === 2, "fence 2");
      expect(one).toEqual([]);
      expect(two).toEqual(["after-off1"]);

      // subscribing again after the channel ended works
      const three: string[] = [];
      const off3 = bus.subscribe(ch, (m) => three.push(m));
      await bus.publish(ch, "again");
      await waitFor(() => three.length === 1, "re-subscribed delivery");
      expect(three).toEqual(["again"]);
      off3();
      offFence();
    });
  });
}

contract(
  "memory",
  async () => {
    const clock = manualClock();
    return { cache: new MemoryCacheStore({ now: clock.now }), bus: new MemoryBus(), elapse: async (ms) => clock.advance(ms) };
  },
  null,
);

contract(
  "redis",
  async () => ({
    ...(await createRedisCacheAndBus(REDIS_URL, captureLogger().logger)),
    // deadline: the ttl plus slack for a loaded machine ("redis specifics" pins the exact ttl Redis got)
    elapse: async (ms, expired) => {
      await waitFor(expired, "expiry in Redis", ms + 2_000);
    },
  }),
  redisDown,
);

test("the memory store expires by the wall clock when given no clock", async () => {
  const cache = new MemoryCacheStore();
  await cache.set("k", "v", 0.02);
  expect(await cache.get("k")).toBe("v");
  await waitFor(async () => (await cache.get("k")) === null, "wall-clock expiry", 2_000);
});

test("the memory store answers takeToken with a plain value (no promise on the request path)", () => {
  const cache = new MemoryCacheStore();
  const take = cache.takeToken("k", 1, 2);
  expect(take instanceof Promise).toBe(false);
  expect(take).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 0, resetSeconds: 1 });
});

test("the memory token buckets are bounded: the oldest bucket goes, and comes back full", () => {
  const clock = manualClock();
  const buckets = new TokenBuckets(3, clock.now);
  for (const k of ["a", "b", "c", "d"]) expect(buckets.take(k, 0.001, 2).remaining).toBe(1);
  expect(buckets.size).toBe(3);
  expect(buckets.take("d", 0.001, 2).remaining).toBe(0); // kept
  expect(buckets.take("a", 0.001, 2).remaining).toBe(1); // dropped: full again
  expect(buckets.size).toBe(3);
});

describe("redis specifics", () => {
  const opened: Pick<Subject, "cache" | "bus">[] = [];
  let raw: Redis | null = null;

  beforeAll(() => {
    if (!redisDown) raw = new Redis(REDIS_URL, { lazyConnect: false });
  });
  afterAll(async () => {
    for (const s of opened) {
      await s.bus.close();
      await s.cache.close();
    }
    if (raw) {
      // leave nothing behind from this run
      const keys = await raw.keys(`${CACHE_KEY_PREFIX}${RUN}*`);
      if (keys.length) await raw.del(...keys);
      await raw.quit();
    }
  });

  const it = (title: string, body: (raw: Redis) => Promise<void>) => test.skipIf(!!redisDown)(title, () => body(raw!));

  const open = async (logger = captureLogger().logger) => {
    const s = await createRedisCacheAndBus(REDIS_URL, logger);
    opened.push(s);
    return s;
  };

  it("cache keys live under the cusp: prefix with the requested ttl", async (raw) => {
    const { cache } = await open();
    const k = `${RUN}prefixed`;
    await cache.set(k, "value", 120);
    expect(await raw.get(`cusp:${k}`)).toBe("value");
    expect(await raw.get(k)).toBeNull();
    const ttl = await raw.ttl(`cusp:${k}`);
    expect(ttl).toBeGreaterThan(115);
    expect(ttl).toBeLessThanOrEqual(120);
    expect(await cache.setIfAbsent(`${RUN}lock`, "me", 30)).toBe(true);
    const lockTtl = await raw.ttl(`cusp:${RUN}lock`);
    expect(lockTtl).toBeGreaterThan(25);
    expect(lockTtl).toBeLessThanOrEqual(30);
    await cache.set(`${RUN}forever`, "x", 0);
    expect(await raw.ttl(`cusp:${RUN}forever`)).toBe(-1); // ttl 0: no expiry, as in memory
  });

  // The contract polls Redis expiry instead of sleeping; this pins the exact ttl Redis was given.
  it("whole seconds reach Redis as EX, fractional ones as PX, to the millisecond", async (raw) => {
    const { cache } = await open();
    await cache.set(`${RUN}ex`, "a", 1);
    await cache.set(`${RUN}px`, "b", 0.3);
    expect(await cache.setIfAbsent(`${RUN}nx`, "c", 1)).toBe(true);
    for (const [k, ms] of [
      ["ex", 1_000],
      ["px", 300],
      ["nx", 1_000],
    ] as const) {
      const pttl = await raw.pttl(`cusp:${RUN}${k}`);
      expect(pttl).toBeGreaterThan(ms / 2); // slack for a slow machine; EX 1 read as PX 1 would be 1 ms
      expect(pttl).toBeLessThanOrEqual(ms);
    }
  });

  it("two stores (two API processes) share token buckets and counters", async () => {
    const a = await open();
    const b = await open();
    const k = `${RUN}shared-bucket`;
    expect(await a.cache.takeToken(k, 0.001, 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await b.cache.takeToken(k, 0.001, 3)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await a.cache.takeToken(k, 0.001, 3)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await b.cache.takeToken(k, 0.001, 3)).allowed).toBe(false);
    const n = `${RUN}shared-counter`;
    expect(await a.cache.increment(n, 60)).toBe(1);
    expect(await b.cache.increment(n, 60)).toBe(2);
    expect(await a.cache.get(n)).toBe("2");
  });

  it("a bucket's key expires when it would be full again; a counter's with its ttl", async (raw) => {
    const { cache } = await open();
    const k = `${RUN}bucket-ttl`;
    await cache.takeToken(k, 1, 5); // one token short: full again in 1 s
    const one = await raw.pttl(`cusp:${k}`);
    expect(one).toBeGreaterThan(500);
    expect(one).toBeLessThanOrEqual(1_000);
    await cache.takeToken(k, 1, 5);
    await cache.takeToken(k, 1, 5); // three short: 3 s
    const three = await raw.pttl(`cusp:${k}`);
    expect(three).toBeGreaterThan(2_500);
    expect(three).toBeLessThanOrEqual(3_000);
    const n = `${RUN}counter-ttl`;
    await cache.increment(n, 30);
    const ttl = await raw.pttl(`cusp:${n}`);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    await cache.increment(n, 0);
    expect(await raw.pttl(`cusp:${n}`)).toBe(-1); // ttl 0: no expiry, as in memory
  });

  it("the scripts still run after Redis forgot them (SCRIPT FLUSH: EVALSHA falls back to EVAL)", async (raw) => {
    const { cache } = await open();
    const k = `${RUN}flushed`;
    expect((await cache.takeToken(k, 1, 2)).allowed).toBe(true);
    await raw.script("FLUSH");
    expect(await cache.takeToken(k, 1, 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await cache.increment(`${k}:n`, 30)).toBe(1);
  });

  it("a message published by one process reaches subscribers in another", async () => {
    const a = await open();
    const b = await open();
    const ch = `${RUN}cross`;
    const got: string[] = [];
    const off = b.bus.subscribe(ch, (m) => got.push(m));
    await b.bus.publish(ch, "warm-up"); // returns once b's SUBSCRIBE is acknowledged
    await a.bus.publish(ch, "from-a");
    await waitFor(() => got.length === 2, "cross-process delivery");
    expect(got).toEqual(["warm-up", "from-a"]);
    off();
  });

  it("the channel is SUBSCRIBEd once and UNSUBSCRIBEd with its last handler", async (raw) => {
    const { bus } = await open();
    const ch = `${RUN}numsub`;
    const numsub = async () => Number(((await raw.pubsub("NUMSUB", ch)) as [string, number])[1]);
    const off1 = bus.subscribe(ch, () => {});
    const off2 = bus.subscribe(ch, () => {});
    await bus.publish(ch, "x"); // waits for the SUBSCRIBE
    expect(await numsub()).toBe(1); // one subscriber connection, however many handlers
    off1();
    await settle(); // negative check: give a wrong UNSUBSCRIBE time to reach Redis
    expect(await numsub()).toBe(1);
    off2();
    await waitFor(async () => (await numsub()) === 0, "UNSUBSCRIBE");
    expect(await numsub()).toBe(0);
  });

  it("survives killed connections: warns, reconnects, re-subscribes", async (raw) => {
    const { logger, lines } = captureLogger();
    const { cache, bus } = await open(logger);
    const ch = `${RUN}reconnect`;
    const got: string[] = [];
    const off = bus.subscribe(ch, (m) => got.push(m));
    await bus.publish(ch, "before");
    await waitFor(() => got.length === 1, "delivery before the kill");

    const ours = String(await raw.client("LIST"))
      .split("\n")
      .filter((l) => / name=cusp-(sub-)?\d+ /.test(l) && l.includes(`-${process.pid} `))
      .map((l) => /\bid=(\d+)/.exec(l)![1]);
    expect(ours.length).toBeGreaterThanOrEqual(2);
    for (const id of ours) await raw.client("KILL", "ID", id);

    // the command connection comes back: a cache call made during the outage succeeds
    const k = `${RUN}after-kill`;
    await cache.set(k, "ok", 30);
    expect(await cache.get(k)).toBe("ok");
    await waitFor(() => lines.some((l) => l.level === "warn" && l.msg === "redis reconnecting" && l.role === "subscriber"), "reconnect warning");
    // the subscriber connection comes back subscribed to the channel
    await waitFor(async () => Number(((await raw.pubsub("NUMSUB", ch)) as [string, number])[1]) === 1, "re-subscription");
    await bus.publish(ch, "after");
    await waitFor(() => got.length === 2, "delivery after reconnect");
    expect(got).toEqual(["before", "after"]);
    off();
  });

  it("start-up fails fast when Redis does not answer, and close() is idempotent", async () => {
    const { logger } = captureLogger();
    // port 1 on loopback: connection refused
    await expect(createRedisCacheAndBus("redis://127.0.0.1:1", logger)).rejects.toThrow(/not reachable/);
    const s = await createRedisCacheAndBus(REDIS_URL, logger);
    await s.bus.close();
    await s.cache.close();
    await s.cache.close();
    await expect(s.cache.get("x")).rejects.toThrow();
  });
});
