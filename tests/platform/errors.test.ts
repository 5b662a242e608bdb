import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";

let t: TestApp;
let token: string;
let orgId: string;
let loc: { id: string; version: number; name: string };

beforeAll(async () => {
  t = await startTestApp({ JSON_BODY_LIMIT_BYTES: "2048" });
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Main", timezone: "America/New_York" } });
  loc = r.body;
});
afterAll(() => t.close());

const listNames = async () => (await t.request("GET", `/api/v1/${orgId}/locations`, { token })).body.items.map((l: { name: string }) => l.name);
const current = async () => (await t.request("GET", `/api/v1/${orgId}/locations/${loc.id}`, { token })).body;

describe("422 validation errors in the contract's shape", () => {
  test("missing fields", async () => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: {} });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      detail: [
        { loc: ["body", "name"], msg: "Field required", type: "missing" },
        { loc: ["body", "timezone"], msg: "Field required", type: "missing" },
      ],
    });
  });

  test("wrong type, out of range, unknown and read-only fields; nothing is echoed", async () => {
    const secret = "SSN-123-45-6789";
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, {
      token,
      body: { name: 42, timezone: "America/New_York", country: "USAX", id: "x", version: 3, [secret]: secret },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual({ loc: ["body", "name"], msg: "Expected string, got number", type: "type_error" });
    expect(r.body.detail).toContainEqual({ loc: ["body", "country"], msg: "Must be at most 2 characters", type: "out_of_range" });
    expect(r.body.detail).toContainEqual({ loc: ["body", "id"], msg: "Field is read-only", type: "read_only" });
    expect(r.body.detail).toContainEqual({ loc: ["body", "version"], msg: "Field is read-only", type: "read_only" });
    expect(r.body.detail).toContainEqual({ loc: ["body", secret], msg: "Unknown field", type: "extra_forbidden" });
    expect(r.text.split(secret).length - 1).toBe(1); // only as the field name in loc, never as a value
    expect(await listNames()).toEqual(["Main"]);
  });

  test("invalid IANA time zone", async () => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "X", timezone: "Mars/Olympus" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", "timezone"]);
    expect(await listNames()).toEqual(["Main"]);
  });

  test("malformed JSON", async () => {
    const r = await t.request("PATCH", `/api/v1/${orgId}/locations/${loc.id}`, {
      token,
      rawBody: '{"name": "Y",',
      headers: { "content-type": "application/json" },
    });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }] });
    expect((await current()).name).toBe("Main");
  });

  test("query parameters out of range", async () => {
    for (const q of ["page=0", "page_size=0", "page_size=201", "page=abc"]) {
      const r = await t.request("GET", `/api/v1/${orgId}/locations?${q}`, { token });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
  });
});

describe("other error statuses", () => {
  test("415 for a body that is not JSON; data unchanged", async () => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, {
      token,
      rawBody: "name=Z&timezone=UTC",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(r.status).toBe(415);
    expect(r.body).toEqual({ detail: "Content-Type must be application/json", code: "unsupported_media_type" });
    expect(await listNames()).toEqual(["Main"]);
  });

  test("413 for a body over the limit; data unchanged", async () => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "x".repeat(5000), timezone: "UTC" } });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe("payload_too_large");
    expect(await listNames()).toEqual(["Main"]);
  });

  test("401 with WWW-Authenticate for missing, malformed and forged tokens", async () => {
    for (const auth of [undefined, "garbage", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"]) {
      const r = await t.request("GET", `/api/v1/${orgId}/locations`, { token: auth });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
      expect(r.body.code).toBe("unauthorized");
    }
  });

  test("401 comes before validation: an anonymous bad body learns nothing", async () => {
    const r = await t.request("POST", `/api/v1/${orgId}/locations`, { rawBody: "{bad", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(401);
  });

  test("404 for an unknown route and an unknown record", async () => {
    const a = await t.request("GET", "/api/v1/nothing/here/at/all", { token });
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ detail: "No such endpoint", code: "not_found" });
    const b = await t.request("GET", `/api/v1/${orgId}/locations/01a1fe29-0000-7000-8000-000000000000`, { token });
    expect(b.status).toBe(404);
    expect(b.body).toEqual({ detail: "Location not found", code: "not_found" });
  });

  test("500s never leak stack traces or SQL", async () => {
    const original = t.rt.orgDbs.get.bind(t.rt.orgDbs);
    (t.rt.orgDbs as any).get = () => {
      throw new Error("SQLITE_CORRUPT: SELECT * FROM secrets at /work/main/src/x.ts:1");
    };
    try {
      const r = await t.request("GET", `/api/v1/${orgId}/locations`, { token });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ detail: "Internal server error", code: "internal_error" });
      expect(r.text).not.toContain("SELECT");
    } finally {
      (t.rt.orgDbs as any).get = original;
    }
  });

  test("every response carries a request id, and a client's own id is echoed", async () => {
    const a = await t.request("GET", "/api/ping");
    expect(a.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const b = await t.request("GET", "/api/ping", { headers: { "x-request-id": "client-abc.1" } });
    expect(b.headers.get("x-request-id")).toBe("client-abc.1");
  });
});
