import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { jsonBoundsProblem, queryProblem } from "@/platform/http/input-limits";
import { MAX_ISSUES, numericFields } from "@/platform/http/request-validation";
import { pagingQuery } from "@/platform/records/paging";
import { z } from "zod";

let t: TestApp;
let token: string;
let orgId: string;
let patientId: string;

const JSON_HEADERS = { "content-type": "application/json" };
const nested = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Main", timezone: "America/New_York" } });
  const p = await t.request("POST", `/api/v1/${orgId}/patients`, { token, body: { first_name: "Ada", last_name: "Lovelace" } });
  patientId = p.body.id;
});
afterAll(() => t.close());

const locationNames = async () => (await t.request("GET", `/api/v1/${orgId}/locations`, { token })).body.items.map((l: { name: string }) => l.name);
const patient = async () => (await t.request("GET", `/api/v1/${orgId}/patients/${patientId}`, { token })).body;

describe("JSON bodies are bounded before they are parsed", () => {
  const limits = { jsonMaxDepth: 32, jsonMaxValues: 50_000, jsonMaxObjectKeys: 1_000 };

  test("the scanner: depth, values and object keys, with strings and escapes skipped", () => {
    expect(jsonBoundsProblem(nested(32), limits)).toBeNull();
    expect(jsonBoundsProblem(nested(33), limits)?.message).toBe("Body is nested deeper than 32 levels");
    // brackets, commas and escaped quotes inside strings are not structure
    expect(jsonBoundsProblem(JSON.stringify({ a: '[[[[,,,,\\"{{{{'.repeat(100) }), { ...limits, jsonMaxDepth: 2, jsonMaxValues: 3 })).toBeNull();
    expect(jsonBoundsProblem(JSON.stringify({ a: 'x\\"' + "[".repeat(40) }), limits)).toBeNull();
    expect(jsonBoundsProblem(`[${Array(50_001).fill(1).join(",")}]`, limits)?.message).toBe("Body holds more than 50000 values (keys and array items)");
    expect(jsonBoundsProblem(`[${Array(49_999).fill(1).join(",")}]`, limits)).toBeNull();
    const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(",")}}`;
    expect(jsonBoundsProblem(keys(1_000), limits)).toBeNull();
    expect(jsonBoundsProblem(keys(1_001), limits)?.message).toBe("Body has an object with more than 1000 keys");
    // an array of many small objects is fine: the key count is per object
    expect(jsonBoundsProblem(`[${Array(3_000).fill('{"a":1,"b":2}').join(",")}]`, limits)).toBeNull();
  });

  test("the scanner marks a number too large for a double (it would parse to Infinity); large but finite numbers, look-alikes in strings and non-numbers pass", () => {
    const overflow = (body: string) => {
      const found = { overflow: false };
      expect(jsonBoundsProblem(body, limits, found)).toBeNull();
      return found.overflow;
    };
    for (const body of ['{"a":1e400}', '{"a":-1E+309}', "[1, 2.5e308]", `{"a":1${"0".repeat(309)}}`, '{"rows":[{"k":[true,false,null,1e999]}]}']) {
      expect([body.slice(0, 20), overflow(body)]).toEqual([body.slice(0, 20), true]);
    }
    for (const body of [
      '{"a":1e308}',
      '{"a":-1.7976931348623157e308}',
      '{"a":1e-400}',
      '{"a":"1e400"}',
      `{"a":1${"0".repeat(300)}}`,
      '{"t":true,"e":0.5E3}',
      "{'a':'7-035e-755'}",
    ]) {
      expect([body.slice(0, 20), overflow(body)]).toEqual([body.slice(0, 20), false]);
    }
  });

  test("over HTTP such a number is 422 after the guard (401 and 404 first), on a route with a typed field and on one that stores any JSON (drafts import)", async () => {
    const t = await startTestApp();
    try {
      const token = await t.adminToken();
      const org = (await t.createOrg()).id;
      const message = "Body holds a number too large to represent (beyond ±1.8e308)";
      const typed = await t.request("POST", `/api/v1/${org}/locations`, {
        token,
        rawBody: '{"name":"X","timezone":"UTC","max":1e400}',
        headers: { "content-type": "application/json" },
      });
      expect([typed.status, typed.body.detail]).toEqual([422, [{ loc: ["body"], msg: message, type: "value_error" }]]);
      const raw = await t.request("POST", `/api/v1/${org}/insurance/drafts/import`, {
        token,
        rawBody: `{"patient_uuid":"${org}","rows":[{"carrier_name":"X","amount":1e400}]}`,
        headers: { "content-type": "application/json" },
      });
      expect([raw.status, raw.body.detail[0].msg]).toEqual([422, message]);
      expect((await t.request("POST", `/api/v1/${org}/locations`, { rawBody: '{"max":1e400}', headers: { "content-type": "application/json" } })).status).toBe(
        401,
      );
      expect(
        (
          await t.request("POST", "/api/v1/9d02968c-c0ea-489a-80ec-acbc530f760c/locations", {
            token,
            rawBody: '{"max":1e400}',
            headers: { "content-type": "application/json" },
          })
        ).status,
      ).toBe(404);
    } finally {
      await t.close();
    }
  });

  test.each([
    ["a 1 MB body nested 500,000 deep", () => `{"name": ${nested(500_000)}, "timezone": "UTC"}`, "Body is nested deeper than 32 levels"],
    [
      "200,000 array items",
      () => `{"name": [${Array(200_000).fill(1).join(",")}], "timezone": "UTC"}`,
      "Body holds more than 50000 values (keys and array items)",
    ],
    [
      "an object with 40,000 keys",
      () => `{${Array.from({ length: 40_000 }, (_, i) => `"k${i}":1`).join(",")}, "name": "X", "timezone": "UTC"}`,
      "Body has an object with more than 1000 keys",
    ],
  ])("%s: 422 naming the limit, nothing stored", async (_label, body, msg) => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, rawBody: body(), headers: JSON_HEADERS });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body"], msg, type: "limit_exceeded" }] });
    expect(await locationNames()).toEqual(["Main"]);
  });

  test("the login route (public) refuses a deep body with 422, not 500", async () => {
    const r = await t.request("POST", "/api/v1/auth/login", { rawBody: `{"email": ${nested(100_000)}, "password": "x"}`, headers: JSON_HEADERS });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toEqual({ loc: ["body"], msg: "Body is nested deeper than 32 levels", type: "limit_exceeded" });
  });

  test("the limits are configurable", async () => {
    const small = await startTestApp({ JSON_MAX_DEPTH: "3" });
    try {
      const admin = await small.adminToken();
      const r = await small.request("POST", "/api/v1/admin/orgs", { token: admin, rawBody: `{"name": [[[1]]], "slug": "x"}`, headers: JSON_HEADERS });
      expect(r.body).toEqual({ detail: [{ loc: ["body"], msg: "Body is nested deeper than 3 levels", type: "limit_exceeded" }] });
    } finally {
      await small.close();
    }
  });

  test("a body over the size limit without Content-Length (chunked) is 413 and not read to its end", async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(`"${"a".repeat(64 * 1024 - 2)}",`);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode("["));
        sent += chunk.byteLength;
        if (sent > 8 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const { buildApp } = await import("@/app");
    const app = buildApp(t.rt);
    const res = await app.handle(
      new Request(`http://localhost/api/v1/${orgId}/locations`, {
        method: "POST",
        headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
        body: stream,
      }),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ detail: "Request body exceeds 1048576 bytes", code: "payload_too_large" });
    expect(sent).toBeLessThan(2 * 1024 * 1024); // abandoned soon after the limit, not read to 8 MB
  });

  test("more than 50 problems are listed as 49 and a summary", async () => {
    const body: Record<string, unknown> = { name: "X", timezone: "UTC" };
    for (let i = 0; i < 200; i++) body[`extra_${i}`] = i;
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toHaveLength(MAX_ISSUES);
    expect(r.body.detail[0]).toEqual({ loc: ["body", "extra_0"], msg: "Unknown field", type: "extra_forbidden" });
    expect(r.body.detail[MAX_ISSUES - 1]).toEqual({ loc: ["body"], msg: "151 more problems not listed", type: "truncated" });
    expect(await locationNames()).toEqual(["Main"]);
  });
});

describe("required bodies", () => {
  test("PUT patient preferences with no body is 422 and changes nothing", async () => {
    const path = `/api/v1/${orgId}/schedule/patient-preferences/by-patient/${patientId}`;
    const before = await t.request("GET", path, { token });
    const r = await t.request("PUT", path, { token });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body"], msg: "Request body is required", type: "missing" }] });
    const after = await t.request("GET", path, { token });
    expect(after.status).toBe(before.status);
    expect(after.body).toEqual(before.body);
  });

  test("POST and PATCH with no body are 422; a route without a body takes none", async () => {
    const created = await t.request("POST", `/api/v1/${orgId}/locations`, { token });
    expect(created.body).toEqual({ detail: [{ loc: ["body"], msg: "Request body is required", type: "missing" }] });
    const before = await patient();
    const patched = await t.request("PATCH", `/api/v1/${orgId}/patients/${patientId}`, { token });
    expect(patched.status).toBe(422);
    expect(await patient()).toEqual(before);
    const archived = await t.request("POST", `/api/v1/${orgId}/patients/${patientId}/archive`, { token });
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe("archived");
    expect((await t.request("POST", `/api/v1/${orgId}/patients/${patientId}/restore`, { token })).status).toBe(200);
  });

  test("a multipart form sent to a JSON route is 415 (after authentication), and nothing is stored", async () => {
    const form = { "content-type": "multipart/form-data; boundary=x" };
    const rawBody = '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nForm\r\n--x--\r\n';
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, rawBody, headers: form });
    expect(r.status).toBe(415);
    expect(r.body).toEqual({ detail: "Content-Type must be application/json", code: "unsupported_media_type" });
    const anonymous = await t.request("POST", `/api/v1/${orgId}/locations`, { rawBody: "--x--", headers: form });
    expect(anonymous.status).toBe(401);
    expect(await locationNames()).toEqual(["Main"]);
  });

  test("an empty JSON object is a body: the schema decides", async () => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: {} });
    expect(r.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ["body", "name"],
      ["body", "timezone"],
    ]);
  });
});

describe("query strings", () => {
  test.each(["0x10", "1e2", "+5", "%205", "5.0", "", "-", "1_0", "٣"])("page=%s is 422 (decimal digits only)", async (value) => {
    const r = await t.request("GET", `/api/v1/${orgId}/locations?page=${value}`, { token });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["query", "page"], msg: "Must be a whole number in decimal digits", type: "type_error" }] });
  });

  test("decimal integers are read as numbers; range rules still apply", async () => {
    const ok = await t.request("GET", `/api/v1/${orgId}/locations?page=2&page_size=007`, { token });
    expect(ok.status).toBe(200);
    expect([ok.body.page, ok.body.page_size]).toEqual([2, 7]);
    const low = await t.request("GET", `/api/v1/${orgId}/locations?page=0`, { token });
    expect(low.body).toEqual({ detail: [{ loc: ["query", "page"], msg: "Must be at least 1", type: "out_of_range" }] });
  });

  test("the numeric fields of a query schema are found from the schema itself", () => {
    const fields = numericFields(
      z.object({ ...pagingQuery(), weekday: z.coerce.number().int().optional(), ratio: z.coerce.number().optional(), name: z.string() }),
    );
    expect(Object.fromEntries(fields)).toEqual({ page: "integer", page_size: "integer", weekday: "integer", ratio: "number" });
  });

  test("too many parameters or too long a query string is 422 before anything else runs", async () => {
    const many = Array.from({ length: 65 }, (_, i) => `p${i}=1`).join("&");
    const r1 = await t.request("GET", `/api/v1/${orgId}/locations?${many}`);
    expect(r1.status).toBe(422);
    expect(r1.body).toEqual({ detail: [{ loc: ["query"], msg: "Query string has more than 64 parameters", type: "limit_exceeded" }] });
    const r2 = await t.request("GET", `/api/v1/${orgId}/patients?search=${"a".repeat(9000)}`, { token });
    expect(r2.body).toEqual({ detail: [{ loc: ["query"], msg: "Query string is longer than 8192 characters", type: "limit_exceeded" }] });
    expect(queryProblem("http://x/a?b=1&c=2", { queryMaxBytes: 10, queryMaxParams: 2 })).toBeNull();
    expect(queryProblem("http://x/a?b=1&c=2&d=3", { queryMaxBytes: 100, queryMaxParams: 2 })?.message).toBe("Query string has more than 2 parameters");
  });
});

describe("a hostile body does not hold up other requests", () => {
  test("1 MB nested bodies answer 422 quickly over a real socket while pings keep flowing", async () => {
    const { buildApp } = await import("@/app");
    const server = Bun.serve({ port: 0, fetch: buildApp(t.rt).fetch, maxRequestBodySize: 4 * 1024 * 1024 });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const body = Buffer.from(`{"email": ${nested(500_000)}, "password": "x"}`);
      expect(body.byteLength).toBeGreaterThan(1_000_000);
      const ping = async () => {
        const t0 = performance.now();
        await (await fetch(`${base}/api/ping`)).text();
        return performance.now() - t0;
      };
      for (let i = 0; i < 5; i++) await ping(); // warm the connection pool and the routes
      let stop = false;
      const pings: number[] = [];
      const pinger = (async () => {
        while (!stop) pings.push(await ping());
      })();
      const hostile: number[] = [];
      for (let i = 0; i < 20; i++) {
        const t0 = performance.now();
        const r = await fetch(`${base}/api/v1/auth/login`, { method: "POST", headers: JSON_HEADERS, body });
        expect(r.status).toBe(422);
        expect((await r.json()).detail[0].type).toBe("limit_exceeded");
        hostile.push(performance.now() - t0);
      }
      stop = true;
      await pinger;
      hostile.sort((a, b) => a - b);
      pings.sort((a, b) => a - b);
      // Client, server and pinger share this one thread: the figures include sending 1 MB over loopback.
      // Before the bounds, one such body held the thread for seconds.
      expect(hostile[10]!).toBeLessThan(50);
      expect(pings.length).toBeGreaterThan(10);
      expect(pings[Math.floor(pings.length * 0.9)]!).toBeLessThan(50);
    } finally {
      server.stop(true);
    }
  });
});
