// The general rate limit over HTTP: token buckets per credential and per client
// address, per route class (docs/platform/security.md, "Rate limits"). Rates are set low
// (per minute) where a test counts exact values, so a slow machine refills
// nothing in between. The shared-counter cases run against Redis at
// 127.0.0.1:6379 (TEST_REDIS_URL) and are reported as skipped when it does not answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { REDIS_URL, redisUnavailable } from "@tests/support/redis";
import { ADMIN, startTestApp, unique, type TestApp, type TestResponse } from "@tests/helpers";
import { waitFor } from "@tests/support/wait";
import { Elysia } from "elysia";
import { isAsync } from "elysia/compose";
import { loadConfig } from "@/config";
import type { Runtime } from "@/platform/runtime";
import { addressKey, rateLimiter, routeClassOf } from "@/platform/http/rate-limit";
import { httpCore } from "@/platform/http/core";

const CLIENT = "x-test-client";

const redisDown = await redisUnavailable("rate-limit.test", "the shared-counter cases are");

// read: 3 at once, then one every 10 s; write 2, then every 10 s; upload 1, then every 0.5 s;
// auth: 20 per address, then one a minute; per address 4 times a credential's.
const LIMITS = {
  RATE_LIMITS: "on",
  RATE_LIMIT_READ: "6/m,3",
  RATE_LIMIT_WRITE: "6/m,2",
  RATE_LIMIT_UPLOAD: "2/s,1",
  RATE_LIMIT_AUTH: "1/m,20",
  RATE_LIMIT_ADDRESS_FACTOR: "4",
  CLIENT_IP_HEADER: CLIENT,
};

const limitHeaders = (r: TestResponse) => ({
  limit: r.headers.get("ratelimit-limit"),
  remaining: r.headers.get("ratelimit-remaining"),
  reset: r.headers.get("ratelimit-reset"),
});
const retryAfter = (r: TestResponse) => Number(r.headers.get("retry-after"));
let n = 0;
/** A client address of its own for each test, so buckets never carry over. */
const newAddress = () => `10.${(n >> 8) & 255}.${n++ & 255}.${Math.floor(Math.random() * 250)}`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp(LIMITS);
});
afterAll(() => t.close());

/** A fresh token (a new session: its own credential buckets); logins come from the "unknown" address. */
const freshToken = async () => (await t.login()).access_token;
const get = (path: string, address: string, token?: string) => t.request("GET", path, { token, headers: { [CLIENT]: address } });

describe("rate limits over HTTP (in-process buckets)", () => {
  test("a credential's reads count down in RateLimit-* headers, then 429 with Retry-After; another credential goes on", async () => {
    const address = newAddress();
    const token = await freshToken();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get("/api/v1/admin/orgs", address, token));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    // Limit: the burst; Remaining: whole tokens left; Reset: seconds until the bucket is full (10 s a token)
    expect(answers.slice(0, 3).map(limitHeaders)).toEqual([
      { limit: "3", remaining: "2", reset: "10" },
      { limit: "3", remaining: "1", reset: "20" },
      { limit: "3", remaining: "0", reset: "30" },
    ]);
    const refused = answers[3]!;
    expect(refused.body).toEqual({ detail: expect.stringMatching(/^Rate limit exceeded; try again in (9|10) seconds$/), code: "rate_limited" });
    expect(retryAfter(refused)).toBeGreaterThanOrEqual(9);
    expect(retryAfter(refused)).toBeLessThanOrEqual(10);
    expect(refused.headers.get("ratelimit-limit")).toBe("3");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-request-id")).toBeString();

    // the same address, another credential: its own bucket (the address's is 12)
    const other = await get("/api/v1/admin/orgs", address, await freshToken());
    expect(other.status).toBe(200);
    expect(limitHeaders(other)).toEqual({ limit: "3", remaining: "2", reset: "10" });
    // the refused credential stays refused, from any address
    expect((await get("/api/v1/admin/orgs", newAddress(), token)).status).toBe(429);
  });

  test("the per-address bucket (RATE_LIMIT_ADDRESS_FACTOR times larger) counts every credential, invalid ones too", async () => {
    const address = newAddress();
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await get("/api/v1/admin/orgs", address, `not-a-token-${unique()}`));
    // the guard refuses each token, but each request spent a token of the address's bucket
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(401));
    expect(limitHeaders(answers[0]!)).toEqual({ limit: "3", remaining: "2", reset: "10" }); // the fuller bucket binds: the credential's
    expect(limitHeaders(answers[11]!)).toEqual({ limit: "12", remaining: "0", reset: "30" }); // 12 short at 24 a minute: 30 s

    const refused = await get("/api/v1/admin/orgs", address, `not-a-token-${unique()}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-limit")).toBe("12");
    expect(retryAfter(refused)).toBeGreaterThanOrEqual(2); // one token at 24 a minute: 2.5 s
    expect(retryAfter(refused)).toBeLessThanOrEqual(3);
    // a valid credential and no credential at all: refused too (the address's bucket is empty)
    expect((await get("/api/v1/admin/orgs", address, await freshToken())).status).toBe(429);
    expect((await get("/openapi.json", address)).status).toBe(429);
    // another address is not affected
    expect((await get("/api/v1/admin/orgs", newAddress(), `not-a-token-${unique()}`)).status).toBe(401);
  });

  test("reads, writes and uploads have separate buckets; the probes are never limited", async () => {
    const address = newAddress();
    const token = await freshToken();
    for (let i = 0; i < 3; i++) expect((await get("/api/v1/admin/orgs", address, token)).status).toBe(200);
    expect((await get("/api/v1/admin/orgs", address, token)).status).toBe(429);

    // writes: POST/PUT/PATCH/DELETE, burst 2 (an invalid body still spends a token)
    const write = () => t.request("POST", "/api/v1/admin/orgs", { token, body: {}, headers: { [CLIENT]: address } });
    const w1 = await write();
    expect(w1.status).toBe(422);
    expect(limitHeaders(w1)).toEqual({ limit: "2", remaining: "1", reset: "10" });
    expect((await write()).status).toBe(422);
    expect((await write()).status).toBe(429);

    // uploads: a multipart body, burst 1
    const upload = async () => {
      const form = new FormData();
      form.set("file", new Blob(["x"]), "x.txt");
      const encoded = new Response(form);
      const type = encoded.headers.get("content-type")!; // (read before the body: Bun sets it lazily)
      return t.request("POST", "/api/v1/admin/orgs", { token, rawBody: await encoded.text(), headers: { [CLIENT]: address, "content-type": type } });
    };
    const u1 = await upload();
    expect(u1.status).not.toBe(429);
    expect(u1.headers.get("ratelimit-limit")).toBe("1");
    expect((await upload()).status).toBe(429);

    // the probes: no bucket, no headers
    for (let i = 0; i < 5; i++) {
      for (const path of ["/api/ping", "/api/health"]) {
        const r = await get(path, address, token);
        expect(r.status).toBe(200);
        expect(r.headers.get("ratelimit-limit")).toBeNull();
      }
    }
  });

  test("a refused request goes ahead once its Retry-After has passed", async () => {
    const address = newAddress();
    const token = await freshToken();
    const upload = () =>
      t.request("POST", "/api/v1/admin/orgs", {
        token,
        rawBody: "--b--\r\n",
        headers: { [CLIENT]: address, "content-type": "multipart/form-data; boundary=b" },
      });
    const started = Date.now();
    expect((await upload()).status).not.toBe(429);
    const refused = await upload();
    expect(refused.status).toBe(429);
    expect(retryAfter(refused)).toBe(1); // 0.5 s, in whole seconds
    await waitFor(async () => (await upload()).status !== 429, { what: "the upload bucket to refill", intervalMs: 25, timeoutMs: 3_000 });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(490); // 2 a second: the token is back 500 ms after it was taken
    expect(waited).toBeLessThan(1_500);
  });

  test("the access_token query parameter is the same credential as the Authorization header", async () => {
    const address = newAddress();
    const token = await freshToken();
    for (let i = 0; i < 3; i++) expect((await get("/api/v1/admin/orgs", address, token)).status).toBe(200);
    const byQuery = await get(`/api/v1/admin/orgs?access_token=${token}`, address);
    expect(byQuery.status).toBe(429);
    expect(byQuery.headers.get("ratelimit-limit")).toBe("3");
  });

  test("auth routes have one bucket per address (RATE_LIMIT_AUTH, no credential bucket)", async () => {
    const address = newAddress();
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await get("/api/v1/auth/me/orgs", address));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(limitHeaders(answers[0]!)).toEqual({ limit: "20", remaining: "19", reset: "60" });
    expect(limitHeaders(answers[19]!)).toEqual({ limit: "20", remaining: "0", reset: "1200" });

    // the right password from that address: refused before anything is checked
    const login = await t.request("POST", "/api/v1/auth/login", { body: ADMIN, headers: { [CLIENT]: address } });
    expect(login.status).toBe(429);
    expect(retryAfter(login)).toBeGreaterThanOrEqual(59);
    expect(retryAfter(login)).toBeLessThanOrEqual(60);
    // a valid token does not open another bucket on auth routes
    expect((await get("/api/v1/auth/me/orgs", address, await freshToken())).status).toBe(429);
    // another address logs in
    expect((await t.request("POST", "/api/v1/auth/login", { body: ADMIN, headers: { [CLIENT]: newAddress() } })).status).toBe(200);
  });

  test("CLIENT_IP_HEADER: the last entry of a list is the client (the one the proxy added)", async () => {
    const address = newAddress();
    for (let i = 0; i < 20; i++) expect((await get("/api/v1/auth/me/orgs", `203.0.113.9, ${address}`)).status).toBe(401);
    expect((await get("/api/v1/auth/me/orgs", address)).status).toBe(429);
    expect((await get("/api/v1/auth/me/orgs", `${address}, 203.0.113.9`)).status).toBe(401);
  });
});

describe("rate limits switched off or not configured", () => {
  test("RATE_LIMITS=off: no bucket, no headers", async () => {
    const off = await startTestApp({ ...LIMITS, RATE_LIMITS: "off", RATE_LIMIT_AUTH: "1/m,1" });
    try {
      for (let i = 0; i < 5; i++) {
        const r = await off.request("GET", "/api/v1/auth/me/orgs", { headers: { [CLIENT]: "10.9.9.9" } });
        expect(r.status).toBe(401);
        expect(r.headers.get("ratelimit-limit")).toBeNull();
      }
    } finally {
      await off.close();
    }
  });

  test("without CLIENT_IP_HEADER a client's header is ignored: every in-process request is the same address", async () => {
    const plain = await startTestApp({ ...LIMITS, CLIENT_IP_HEADER: "", RATE_LIMIT_AUTH: "1/m,2" });
    try {
      expect((await plain.request("GET", "/api/v1/auth/me/orgs", { headers: { [CLIENT]: "10.0.0.1" } })).status).toBe(401);
      expect((await plain.request("GET", "/api/v1/auth/me/orgs", { headers: { [CLIENT]: "10.0.0.2", "x-forwarded-for": "10.0.0.3" } })).status).toBe(401);
      expect((await plain.request("GET", "/api/v1/auth/me/orgs", { headers: { [CLIENT]: "10.0.0.4", "x-forwarded-for": "10.0.0.5" } })).status).toBe(429);
    } finally {
      await plain.close();
    }
  });
});

describe("the hook's cost", () => {
  type Hooks = { event: { request?: { fn: (...args: unknown[]) => unknown }[] } };
  const requestHooks = (rt: Runtime) => (httpCore(rt) as unknown as Hooks).event.request ?? [];

  test("in process the limits are taken in http-core's one request hook, which is synchronous: Elysia does not await it (no promise per request)", () => {
    const hooks = requestHooks(t.rt);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.fn.name).toBe("admitRequest");
    expect(isAsync(hooks[0]!.fn)).toBe(false);
    // switched off, the hook is the same one, and nothing is taken
    expect(rateLimiter({ ...t.rt, config: { ...t.rt.config, rateLimits: { ...t.rt.config.rateLimits, enabled: false } } })).toBeNull();
  });

  test("with a shared store the one request hook is asynchronous (it waits for Redis)", () => {
    const shared = { ...t.rt, cache: { ...t.rt.cache, kind: "redis" } } as unknown as Runtime;
    const hooks = requestHooks(shared);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.fn.name).toBe("admitRequestAtEdgeOrSharedLimits");
    expect(isAsync(hooks[0]!.fn)).toBe(true);
  });
});

describe("a failing shared store", () => {
  test("lets requests through unlimited and warns (at most every 10 s)", async () => {
    const warnings: unknown[] = [];
    const failing = {
      kind: "redis",
      takeToken: () => Promise.reject(new Error("connection lost")),
    } as unknown as Runtime["cache"];
    const rt = {
      config: loadConfig({ ...LIMITS, DATA_DIR: t.dir, RATE_LIMIT_READ: "1/m,1" }),
      cache: failing,
      logger: { warn: (...args: unknown[]) => warnings.push(args), isLevelEnabled: () => false },
    } as unknown as Runtime;
    expect(rateLimiter(rt)!.shared).toBe(true);
    const app = new Elysia().use(httpCore(rt)).get("/api/v1/org/patients", () => "ok");
    for (let i = 0; i < 3; i++) {
      const r = await app.handle(new Request("http://localhost/api/v1/org/patients", { headers: { authorization: "Bearer t" } }));
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-limit")).toBeNull();
    }
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("connection lost");
  });
});

describe("route classes and address keys", () => {
  test("route classes", () => {
    const type = (v: string | null) => () => v;
    expect(routeClassOf("GET", "/api/ping", type(null))).toBeNull();
    expect(routeClassOf("GET", "/api/health", type(null))).toBeNull();
    expect(routeClassOf("POST", "/api/v1/auth/login", type("application/json"))).toBe("auth");
    expect(routeClassOf("GET", "/api/v1/auth/me/orgs", type(null))).toBe("auth");
    expect(routeClassOf("GET", "/api/v1/org/patients", type(null))).toBe("read");
    expect(routeClassOf("HEAD", "/api/v1/org/patients", type(null))).toBe("read");
    for (const m of ["POST", "PUT", "PATCH", "DELETE"]) expect(routeClassOf(m, "/api/v1/org/patients", type("application/json"))).toBe("write");
    expect(routeClassOf("POST", "/api/v1/org/documents", type("Multipart/Form-Data; boundary=x"))).toBe("upload");
  });

  test("IPv6 addresses stand for their /64; IPv4-mapped ones for the IPv4 address", () => {
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("2001:DB8:0:12:aaaa::1")).toBe("2001:db8:0:12::/64");
    expect(addressKey("2001:db8:0:12:ffff:1:2:3")).toBe("2001:db8:0:12::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});

describe("rate limits shared through Redis (two API instances)", () => {
  let a: TestApp | null = null;
  let b: TestApp | null = null;
  let raw: Redis | null = null;
  const address = `10.200.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

  beforeAll(async () => {
    if (redisDown) return;
    a = await startTestApp({ ...LIMITS, REDIS_URL });
    b = await startTestApp({ ...LIMITS, REDIS_URL });
    raw = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (raw) {
      const keys = await raw.keys(`cusp:rl:*:a:${address}`);
      if (keys.length) await raw.del(...keys);
      await raw.quit();
    }
  });

  test.skipIf(!!redisDown)("a credential's bucket and an address's bucket are one, whichever instance answers", async () => {
    const token = `shared-${unique()}`; // not a valid token on either instance: the buckets do not care
    const send = (app: TestApp) => app.request("GET", "/api/v1/admin/orgs", { token, headers: { [CLIENT]: address } });
    const answers = [await send(a!), await send(b!), await send(a!), await send(b!)];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 429]);
    expect(answers.slice(0, 3).map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["2", "1", "0"]);
    expect(retryAfter(answers[3]!)).toBeGreaterThanOrEqual(9);
    expect(retryAfter(answers[3]!)).toBeLessThanOrEqual(10);
    expect((await send(a!)).status).toBe(429);
    // the buckets are Redis keys with an expiry, under the cusp: prefix
    const ttl = await raw!.pttl(`cusp:rl:read:a:${address}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(15_000); // 6 tokens short of 12 at 24 a minute (5 requests, 1 refused on the credential)
  });
});
