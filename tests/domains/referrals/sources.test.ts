import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { referralSources } from "@db/tenant/referrals";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, unique, type TestApp } from "@tests/helpers";
import { created, JSON_HEADERS, MISSING, referralWorld, storedRow } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string; // referrals.read only
let outsider: string; // a member of A without referral keys
let orgA: string;
let orgB: string;
let A: string; // {P}/referral-sources of org A
let B: string;
let events: EventEnvelope[];

beforeAll(async () => {
  const w = await referralWorld("referrals.read", "referrals.write");
  ({ t, admin, reader, outsider, orgA, orgB, events } = w);
  A = `/api/v1/${orgA}/referral-sources`;
  B = `/api/v1/${orgB}/referral-sources`;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown> = {}, P = A) => created(t, admin, P, { name: unique("Source"), ...body });
const read = (id: string) => t.request("GET", `${A}/${id}`, { token: admin });
const total = async () => (await t.request("GET", `${A}?page_size=1`, { token: admin })).body.total as number;
const stored = (id: string) => storedRow(t, orgA, referralSources, id);

describe("POST /referral-sources", () => {
  test("201 with every field; readable by id; audited and published", async () => {
    const before = events.length;
    const body = { name: " Spring Health Fair ", source_type: "event", description: "Booth at the 2024 fair", is_active: false };
    const r = await t.request("POST", A, { token: admin, body });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Spring Health Fair",
      source_type: "event",
      description: "Booth at the 2024 fair",
      is_active: false,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await read(r.body.id)).body).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["referral_source.created"]);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["referral_source.created", "referral_source", { id: r.body.id, source_type: "event" }],
    ]);
  });

  test("only name is required; defaults source_type other, is_active true", async () => {
    const s = await create();
    expect(s).toMatchObject({ source_type: "other", description: null, is_active: true });
  });

  test("409 duplicate for a name in use by a live source (any case); archived names are reusable; other orgs don't count", async () => {
    const name = unique("Google Ads");
    await create({ name });
    const n = await total();
    const r = await t.request("POST", A, { token: admin, body: { name: ` ${name.toUpperCase()} ` } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: "Another referral source already has this name", code: "duplicate" });
    expect(await total()).toBe(n);
    expect((await create({ name }, B)).name).toBe(name);
    const old = await create({ name: `${name} old` });
    await t.request("POST", `${A}/${old.id}/archive?base_version=1`, { token: admin });
    expect((await create({ name: `${name} old` })).name).toBe(`${name} old`);
  });

  test("422 for missing, blank, wrong-typed, enum, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const n = await total();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{}, ["body", "name"], "missing"],
      [{ name: "   " }, ["body", "name"], "out_of_range"],
      [{ name: "x".repeat(201) }, ["body", "name"], "out_of_range"],
      [{ name: 5 }, ["body", "name"], "type_error"],
      [{ name: "A", source_type: "billboard" }, ["body", "source_type"], "enum"],
      [{ name: "A", is_active: "true" }, ["body", "is_active"], "type_error"],
      [{ name: "A", description: ["x"] }, ["body", "description"], "type_error"],
      [{ name: "A", channel: "x" }, ["body", "channel"], "extra_forbidden"],
      [{ name: "A", id: MISSING }, ["body", "id"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", A, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name": ', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await total()).toBe(n);
  });

  test("401, 403 without referrals.write, 404 for a non-member or unknown org; nothing is written", async () => {
    const n = await total();
    const body = { name: unique("Nope") };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", B, { token: reader, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/referral-sources`, { token: admin, body })).status).toBe(404);
    expect(await total()).toBe(n);
  });
});

describe("GET /referral-sources", () => {
  let tag: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    tag = unique("src");
    const web = await create({ name: `B Website ${tag}`, source_type: "website" });
    const ads = await create({ name: `A Radio ${tag}`, source_type: "advertising", description: "Morning show spots" });
    const off = await create({ name: `C Old flyer ${tag}`, source_type: "advertising", is_active: false });
    const gone = await create({ name: `D Gone ${tag}` });
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    await create({ name: `E Foreign ${tag}` }, B);
    ids = { web: web.id, ads: ads.id, off: off.id };
  });
  const list = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${A}?${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body;
  };
  const idsOf = (body: any) => body.items.map((s: any) => s.id);

  test("paged by name; archived and other orgs' sources are left out", async () => {
    const body = await list(`search=${tag}`, reader);
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(idsOf(body)).toEqual([ids.ads, ids.web, ids.off]);
    const p2 = await list(`search=${tag}&page=2&page_size=1`);
    expect([p2.total, idsOf(p2)]).toEqual([3, [ids.web]]);
  });

  test("filters is_active and source_type; search also matches the description", async () => {
    expect(idsOf(await list(`search=${tag}&is_active=true`))).toEqual([ids.ads, ids.web]);
    expect(idsOf(await list(`search=${tag}&is_active=0`))).toEqual([ids.off]);
    expect(idsOf(await list(`search=${tag}&source_type=advertising`))).toEqual([ids.ads, ids.off]);
    expect(idsOf(await list(`search=${`b website ${tag}`.toUpperCase().replace(/ /g, "%20")}`))).toEqual([ids.web]);
    expect(idsOf(await list("search=morning%20SHOW"))).toEqual([ids.ads]);
  });

  test("422 for unknown or malformed query parameters", async () => {
    for (const [qs, loc, type] of [
      ["page_size=0", ["query", "page_size"], "out_of_range"],
      ["is_active=yes", ["query", "is_active"], "enum"],
      ["source_type=tv", ["query", "source_type"], "enum"],
      ["name=x", ["query", "name"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${A}?${qs}`, { token: admin });
      expect([qs, r.status]).toEqual([qs, 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
  });

  test("401, 403 without referrals.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", B, { token: reader })).status).toBe(404);
  });
});

describe("GET /referral-sources/{id}", () => {
  test("200; 404 for a missing, archived or another org's source; 401, 403, 404 non-member", async () => {
    const s = await create();
    const r = await t.request("GET", `${A}/${s.id}`, { token: reader });
    expect([r.status, r.body]).toEqual([200, s]);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    const foreign = await create({}, B);
    for (const id of [MISSING, gone.id, foreign.id]) {
      const miss = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Referral source not found", code: "not_found" });
    }
    expect((await t.request("GET", `${A}/${s.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${s.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/${s.id}`, { token: reader })).status).toBe(404);
  });
});

describe("PATCH /referral-sources/{id}", () => {
  test("changes the given fields, bumps the version, audits and publishes the changed field names", async () => {
    const s = await create({ source_type: "website" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 1, source_type: "social_media", is_active: false } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...s, source_type: "social_media", is_active: false, version: 2, updated_at: expect.any(String) });
    expect((await auditOf(t, orgA, s.id)).map((a) => a.action)).toEqual(["referral_source.created", "referral_source.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === s.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["referral_source.updated", { id: s.id, changed_fields: ["source_type", "is_active"] }]]);
    // renaming to its own name (another case) is not a duplicate
    const same = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 2, name: s.name.toUpperCase() } });
    expect(same.body.name).toBe(s.name.toUpperCase());
  });

  test("409 duplicate name, 409 stale base_version, 422 bad input; the row is unchanged", async () => {
    const taken = await create();
    const s = await create();
    const rowBefore = await stored(s.id);
    const dup = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 1, name: taken.name } });
    expect([dup.status, dup.body.code]).toEqual([409, "duplicate"]);
    const stale = await t.request("PATCH", `${A}/${s.id}`, { token: admin, body: { base_version: 2, name: "Fresh" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    for (const body of [{ name: "X" }, { base_version: 1, name: null }, { base_version: 1, source_type: "tv" }, { base_version: 1, version: 2 }]) {
      expect((await t.request("PATCH", `${A}/${s.id}`, { token: admin, body })).status).toBe(422);
    }
    expect((await t.request("PATCH", `${A}/${s.id}`, { token: admin, rawBody: "{", headers: JSON_HEADERS })).status).toBe(422);
    expect(await stored(s.id)).toEqual(rowBefore);
  });

  test("404 for a missing, archived or another org's source; 401, 403, 404 non-member; nothing changes", async () => {
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    const foreign = await create({}, B);
    for (const id of [MISSING, gone.id, foreign.id]) {
      expect((await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: 1, name: unique("Z") } })).status).toBe(404);
    }
    expect((await storedRow(t, orgB, referralSources, foreign.id)).version).toBe(1);
    const s = await create();
    const body = { base_version: 1, name: unique("Y") };
    expect((await t.request("PATCH", `${A}/${s.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${s.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/${s.id}`, { token: reader, body })).status).toBe(404);
    expect((await stored(s.id)).version).toBe(1);
  });
});

describe("POST /referral-sources/{id}/archive", () => {
  test("answers the archived record; it leaves lists and GET; audited and published", async () => {
    const s = await create();
    const before = events.length;
    const r = await t.request("POST", `${A}/${s.id}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...s, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await read(s.id)).status).toBe(404);
    expect((await t.request("GET", `${A}?search=${s.name}`, { token: admin })).body.total).toBe(0);
    expect((await auditOf(t, orgA, s.id)).map((a) => a.action)).toEqual(["referral_source.created", "referral_source.archived"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === s.id)
        .map((e) => e.type),
    ).toEqual(["referral_source.archived"]);
  });

  test("409 stale, 422 without base_version, 404 missing / archived / another org's, 401, 403; nothing changes", async () => {
    const s = await create();
    const stale = await t.request("POST", `${A}/${s.id}/archive?base_version=2`, { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const noVersion = await t.request("POST", `${A}/${s.id}/archive`, { token: admin });
    expect(noVersion.status).toBe(422);
    expect(noVersion.body.detail[0]).toMatchObject({ loc: ["query", "base_version"], type: "missing" });
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    const foreign = await create({}, B);
    for (const [id, v] of [
      [MISSING, 1],
      [gone.id, 2],
      [foreign.id, 1],
    ] as const) {
      expect((await t.request("POST", `${A}/${id}/archive?base_version=${v}`, { token: admin })).status).toBe(404);
    }
    expect((await storedRow(t, orgB, referralSources, foreign.id)).deleted_at).toBeNull();
    expect((await t.request("POST", `${A}/${s.id}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${s.id}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${B}/${s.id}/archive?base_version=1`, { token: reader })).status).toBe(404);
    const row = await stored(s.id);
    expect([row.version, row.deleted_at]).toEqual([1, null]);
  });
});
