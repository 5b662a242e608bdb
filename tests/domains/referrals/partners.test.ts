import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { referralPartners } from "@db/tenant/referrals";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, unique, type TestApp } from "@tests/helpers";
import { created, JSON_HEADERS, MISSING, referralWorld, storedRow } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string; // referrals.read only
let outsider: string; // a member of A without referral keys
let orgA: string;
let orgB: string;
let A: string; // {P}/referral-partners of org A
let B: string;
let events: EventEnvelope[];

const NPI = "1234567893";
const NPI2 = "9876543213";

beforeAll(async () => {
  const w = await referralWorld("referrals.read", "referrals.write");
  ({ t, admin, reader, outsider, orgA, orgB, events } = w);
  A = `/api/v1/${w.orgA}/referral-partners`;
  B = `/api/v1/${w.orgB}/referral-partners`;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown> = {}, P = A) => created(t, admin, P, { contact_type: "practice", practice_name: "Smile Ortho", ...body });
const read = (id: string) => t.request("GET", `${A}/${id}`, { token: admin });
const total = async () => (await t.request("GET", `${A}?page_size=1`, { token: admin })).body.total as number;
const stored = (id: string) => storedRow(t, orgA, referralPartners, id);

const FULL = {
  contact_type: "provider",
  first_name: "Olivia",
  last_name: "Ortho",
  practice_name: "Bright Ortho",
  specialty: "Orthodontics",
  npi: NPI,
  email: "olivia@brightortho.example",
  phone: "217-555-0100",
  fax: "217-555-0101",
  address_line1: "2 Oak St",
  address_line2: "Suite 4",
  city: "Springfield",
  state: "IL",
  postal_code: "62701",
  country: "CA",
  accepts_ereferral: true,
  ereferral_endpoint: "olivia@direct.brightortho.example",
  preferred_contact_method: "portal",
  is_active: false,
  notes: "Prefers panoramic x-rays attached",
};

describe("POST /referral-partners", () => {
  test("201 with every field; readable by id; audited and published with ids only", async () => {
    const before = events.length;
    const r = await t.request("POST", A, { token: admin, body: FULL });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      ...FULL,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await read(r.body.id)).body).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => a.action)).toEqual(["referral_partner.created"]);
    expect(audit[0].after.npi).toBe(NPI);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["referral_partner.created", "referral_partner", { id: r.body.id, contact_type: "provider" }],
    ]);
  });

  test("no field is required; defaults: contact_type other, country US, accepts_ereferral false, is_active true", async () => {
    const p = await created(t, admin, A, {});
    expect(p).toMatchObject({
      contact_type: "other",
      country: "US",
      accepts_ereferral: false,
      is_active: true,
      first_name: null,
      last_name: null,
      practice_name: null,
      npi: null,
      ereferral_endpoint: null,
      preferred_contact_method: null,
      notes: null,
    });
  });

  test("texts are trimmed, the country is upper-cased; an endpoint without accepts_ereferral is kept", async () => {
    const p = await create({ practice_name: "  Lab Co ", country: "mx", ereferral_endpoint: "https://lab.example/refer", npi: ` ${NPI2} ` });
    expect(p).toMatchObject({ practice_name: "Lab Co", country: "MX", ereferral_endpoint: "https://lab.example/refer", accepts_ereferral: false, npi: NPI2 });
  });

  test("contact_type provider needs first_name and last_name: 422 names_required naming each missing one; nothing is written", async () => {
    const n = await total();
    const both = await t.request("POST", A, { token: admin, body: { contact_type: "provider", practice_name: "X" } });
    expect(both.status).toBe(422);
    expect(both.body).toEqual({
      code: "names_required",
      detail: [
        { loc: ["body", "first_name"], msg: "Required when contact_type is provider", type: "missing" },
        { loc: ["body", "last_name"], msg: "Required when contact_type is provider", type: "missing" },
      ],
    });
    const last = await t.request("POST", A, { token: admin, body: { contact_type: "provider", first_name: "Ann", last_name: null } });
    expect(last.status).toBe(422);
    expect(last.body.detail.map((d: any) => d.loc)).toEqual([["body", "last_name"]]);
    expect(await total()).toBe(n);
    // other contact types need no names
    expect((await create({ contact_type: "lab", practice_name: "Crown Lab" })).contact_type).toBe("lab");
  });

  test("accepts_ereferral true needs ereferral_endpoint: 422 ereferral_endpoint_required; nothing is written", async () => {
    const n = await total();
    for (const body of [{ accepts_ereferral: true }, { accepts_ereferral: true, ereferral_endpoint: null }]) {
      const r = await t.request("POST", A, { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        code: "ereferral_endpoint_required",
        detail: [{ loc: ["body", "ereferral_endpoint"], msg: "Required when accepts_ereferral is true", type: "missing" }],
      });
    }
    expect(await total()).toBe(n);
  });

  test("422 for bad NPIs, wrong types, enums, formats, unknown and read-only fields; nothing is written", async () => {
    const n = await total();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ npi: "1234567890" }, ["body", "npi"], "value_error"], // wrong check digit
      [{ npi: "1234567894" }, ["body", "npi"], "value_error"],
      [{ npi: "123456789" }, ["body", "npi"], "value_error"], // 9 digits
      [{ npi: "12345678931" }, ["body", "npi"], "value_error"],
      [{ npi: "12345A7893" }, ["body", "npi"], "value_error"],
      [{ npi: 1234567893 }, ["body", "npi"], "type_error"],
      [{ contact_type: "dentist" }, ["body", "contact_type"], "enum"],
      [{ preferred_contact_method: "sms" }, ["body", "preferred_contact_method"], "enum"],
      [{ accepts_ereferral: "yes" }, ["body", "accepts_ereferral"], "type_error"],
      [{ is_active: 1 }, ["body", "is_active"], "type_error"],
      [{ first_name: 7 }, ["body", "first_name"], "type_error"],
      [{ first_name: "  " }, ["body", "first_name"], "out_of_range"],
      [{ practice_name: "x".repeat(201) }, ["body", "practice_name"], "out_of_range"],
      [{ email: "not-an-email" }, ["body", "email"], "format"],
      [{ country: "USA" }, ["body", "country"], "format"],
      [{ country: null }, ["body", "country"], "type_error"],
      [{ ereferral_endpoint: "" }, ["body", "ereferral_endpoint"], "out_of_range"],
      [{ website: "x" }, ["body", "website"], "extra_forbidden"],
      [{ id: MISSING }, ["body", "id"], "read_only"],
      [{ version: 3 }, ["body", "version"], "read_only"],
      [{ created_at: "2024-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", A, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"practice_name": "X",', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    const array = await t.request("POST", A, { token: admin, body: [] });
    expect(array.status).toBe(422);
    expect(await total()).toBe(n);
  });

  test("401 without a token, 403 without referrals.write, 404 for another org's or an unknown org's path; nothing is written", async () => {
    const n = await total();
    const body = { practice_name: "Nope" };
    const anon = await t.request("POST", A, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    const r403 = await t.request("POST", A, { token: reader, body });
    expect(r403.status).toBe(403);
    expect(r403.body.code).toBe("forbidden");
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", B, { token: reader, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/referral-partners`, { token: admin, body })).status).toBe(404);
    expect(await total()).toBe(n);
  });
});

describe("GET /referral-partners", () => {
  let tag: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    tag = unique("lst");
    const a = await create({ contact_type: "provider", first_name: "Peter", last_name: `Perio${tag}`, specialty: "Periodontics", npi: "1245319599" });
    const b = await create({ contact_type: "practice", practice_name: `Endo Group ${tag}`, specialty: "endodontics", npi: "1679576722" });
    const c = await create({ contact_type: "lab", practice_name: `Lab ${tag}`, is_active: false, npi: "1003000126" });
    const gone = await create({ practice_name: `Gone ${tag}` });
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    await create({ practice_name: `Foreign ${tag}` }, B);
    ids = { a: a.id, b: b.id, c: c.id, gone: gone.id };
  });
  const list = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${A}?${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body;
  };
  const idsOf = (body: any) => body.items.map((p: any) => p.id);

  test("paged, in creation order; archived and other orgs' partners are left out", async () => {
    const body = await list(`search=${tag}`, reader);
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(idsOf(body)).toEqual([ids.a, ids.b, ids.c]);
    expect(body.items[0]).toMatchObject({ first_name: "Peter", npi: "1245319599", deleted_at: null, version: 1 });
    const p2 = await list(`search=${tag}&page=2&page_size=2`);
    expect(p2).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(idsOf(p2)).toEqual([ids.c]);
  });

  test("filters: contact_type, specialty (exact, any case), is_active; they combine with search", async () => {
    expect(idsOf(await list(`search=${tag}&contact_type=practice`))).toEqual([ids.b]);
    expect(idsOf(await list(`search=${tag}&specialty=ENDODONTICS`))).toEqual([ids.b]);
    expect(idsOf(await list(`search=${tag}&specialty=Endo`))).toEqual([]);
    expect(idsOf(await list(`search=${tag}&is_active=false`))).toEqual([ids.c]);
    expect(idsOf(await list(`search=${tag}&is_active=true`))).toEqual([ids.a, ids.b]);
    expect(idsOf(await list(`search=${tag}&is_active=true&contact_type=lab`))).toEqual([]);
  });

  test("search matches first, last and full name, practice name and NPI (substring, any case)", async () => {
    expect(idsOf(await list(`search=${`perio${tag}`.toUpperCase()}`))).toEqual([ids.a]);
    expect(idsOf(await list(`search=${encodeURIComponent(`Peter Perio${tag}`)}`))).toEqual([ids.a]);
    expect(idsOf(await list(`search=${encodeURIComponent(`endo group ${tag}`)}`))).toEqual([ids.b]);
    expect(idsOf(await list("search=67957672"))).toEqual([ids.b]);
    expect(idsOf(await list("search=1003000126"))).toEqual([ids.c]);
    expect((await list(`search=${tag}zzz`)).total).toBe(0);
  });

  test("422 for unknown or malformed query parameters", async () => {
    for (const [qs, loc, type] of [
      ["page=0", ["query", "page"], "out_of_range"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["page=x", ["query", "page"], "type_error"],
      ["contact_type=dentist", ["query", "contact_type"], "enum"],
      ["is_active=maybe", ["query", "is_active"], "enum"],
      ["practice=x", ["query", "practice"], "extra_forbidden"],
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

describe("GET /referral-partners/{id}", () => {
  test("200 for a reader; 404 for a missing, archived, malformed or another org's id", async () => {
    const p = await create();
    const r = await t.request("GET", `${A}/${p.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(p);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    const foreign = await create({}, B);
    for (const id of [MISSING, gone.id, foreign.id, "not-a-uuid"]) {
      const miss = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Referral partner not found", code: "not_found" });
    }
  });

  test("401, 403, 404 for a non-member org", async () => {
    const p = await create();
    expect((await t.request("GET", `${A}/${p.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${p.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/${p.id}`, { token: reader })).status).toBe(404);
  });
});

describe("PATCH /referral-partners/{id}", () => {
  test("changes the given fields, bumps the version, audits and publishes the changed field names", async () => {
    const p = await create({ email: "old@example.com", notes: "Call first" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, practice_name: "Smile Ortho West", notes: null, npi: NPI } });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({ ...p, practice_name: "Smile Ortho West", notes: null, npi: NPI, version: 2, updated_at: expect.any(String) });
    expect((await read(p.id)).body).toEqual(r.body);
    const audit = await auditOf(t, orgA, p.id);
    expect(audit.map((a) => a.action)).toEqual(["referral_partner.created", "referral_partner.updated"]);
    expect([audit[1].before.practice_name, audit[1].after.practice_name]).toEqual(["Smile Ortho", "Smile Ortho West"]);
    const mine = events.slice(before).filter((e) => e.resource_id === p.id);
    expect(mine.map((e) => e.type)).toEqual(["referral_partner.updated"]);
    expect(mine[0].data).toEqual({ id: p.id, changed_fields: ["practice_name", "npi", "notes"] });
  });

  test("the rules are judged on the merged record: 422 and the row unchanged", async () => {
    const doc = await create({ contact_type: "provider", first_name: "Dee", last_name: "Dds" });
    const practice = await create({ contact_type: "practice" });
    const ereferral = await create({ accepts_ereferral: true, ereferral_endpoint: "https://x.example/in" });
    const cases: [string, Record<string, unknown>, string, unknown[]][] = [
      [doc.id, { first_name: null }, "names_required", ["body", "first_name"]],
      [practice.id, { contact_type: "provider", first_name: "Only" }, "names_required", ["body", "last_name"]],
      [practice.id, { accepts_ereferral: true }, "ereferral_endpoint_required", ["body", "ereferral_endpoint"]],
      [ereferral.id, { ereferral_endpoint: null }, "ereferral_endpoint_required", ["body", "ereferral_endpoint"]],
    ];
    for (const [id, patch, code, loc] of cases) {
      const rowBefore = await stored(id);
      const r = await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: 1, ...patch } });
      expect([JSON.stringify(patch), r.status, r.body.code]).toEqual([JSON.stringify(patch), 422, code]);
      expect(r.body.detail.map((d: any) => d.loc)).toEqual([loc]);
      expect(await stored(id)).toEqual(rowBefore);
    }
    // names already on the record satisfy the rule; an endpoint already stored satisfies accepts_ereferral
    const ok = await t.request("PATCH", `${A}/${practice.id}`, {
      token: admin,
      body: { base_version: 1, contact_type: "provider", first_name: "Pat", last_name: "Practice" },
    });
    expect(ok.body).toMatchObject({ contact_type: "provider", first_name: "Pat", last_name: "Practice", version: 2 });
    const ok2 = await t.request("PATCH", `${A}/${doc.id}`, { token: admin, body: { base_version: 1, practice_name: "Dee's Place" } });
    expect(ok2.status).toBe(200);
    const off = await t.request("PATCH", `${A}/${ereferral.id}`, {
      token: admin,
      body: { base_version: 1, accepts_ereferral: false, ereferral_endpoint: null },
    });
    expect(off.body).toMatchObject({ accepts_ereferral: false, ereferral_endpoint: null });
  });

  test("409 version_conflict on a stale base_version (checked before the rules); the row is unchanged", async () => {
    const p = await create();
    await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, city: "Peoria" } });
    const rowBefore = await stored(p.id);
    for (const body of [
      { base_version: 1, city: "Chicago" },
      { base_version: 1, accepts_ereferral: true },
    ]) {
      const r = await t.request("PATCH", `${A}/${p.id}`, { token: admin, body });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("version_conflict");
    }
    expect(await stored(p.id)).toEqual(rowBefore);
  });

  test("422 for a missing base_version, unknown, read-only, wrong-typed fields and malformed JSON; the row is unchanged", async () => {
    const p = await create();
    const rowBefore = await stored(p.id);
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ city: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 1, npi: "1234567890" }, ["body", "npi"], "value_error"],
      [{ base_version: 1, contact_type: "x" }, ["body", "contact_type"], "enum"],
      [{ base_version: 1, deleted_at: null }, ["body", "deleted_at"], "read_only"],
      [{ base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("PATCH", `${A}/${p.id}`, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    expect((await t.request("PATCH", `${A}/${p.id}`, { token: admin, rawBody: "{nope", headers: JSON_HEADERS })).status).toBe(422);
    expect(await stored(p.id)).toEqual(rowBefore);
  });

  test("404 for a missing, archived or another org's partner (that row is unchanged); 401, 403, 404 non-member", async () => {
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive?base_version=1`, { token: admin });
    const foreign = await create({}, B);
    const foreignBefore = await storedRow(t, orgB, referralPartners, foreign.id);
    for (const id of [MISSING, gone.id, foreign.id]) {
      const r = await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: 1, city: "X" } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect(await storedRow(t, orgB, referralPartners, foreign.id)).toEqual(foreignBefore);
    const p = await create();
    const rowBefore = await stored(p.id);
    const body = { base_version: 1, city: "X" };
    expect((await t.request("PATCH", `${A}/${p.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${p.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/${p.id}`, { token: reader, body })).status).toBe(404);
    expect(await stored(p.id)).toEqual(rowBefore);
  });
});

describe("POST /referral-partners/{id}/archive", () => {
  test("answers the archived record; it leaves lists and GET; audited and published", async () => {
    const p = await create({ practice_name: unique("Arch") });
    const before = events.length;
    const r = await t.request("POST", `${A}/${p.id}/archive?base_version=1`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...p, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await read(p.id)).status).toBe(404);
    expect((await t.request("GET", `${A}?search=${p.practice_name}`, { token: admin })).body.total).toBe(0);
    expect((await stored(p.id)).practice_name).toBe(p.practice_name); // data kept
    expect((await auditOf(t, orgA, p.id)).map((a) => a.action)).toEqual(["referral_partner.created", "referral_partner.archived"]);
    const mine = events.slice(before).filter((e) => e.resource_id === p.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["referral_partner.archived", { id: p.id, changed_fields: ["deleted_at"] }]]);
  });

  test("409 stale base_version; 422 missing or malformed base_version; the row is unchanged", async () => {
    const p = await create();
    await t.request("PATCH", `${A}/${p.id}`, { token: admin, body: { base_version: 1, city: "Peoria" } });
    const rowBefore = await stored(p.id);
    const stale = await t.request("POST", `${A}/${p.id}/archive?base_version=1`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    for (const [qs, loc, type] of [
      ["", ["query", "base_version"], "missing"],
      ["?base_version=abc", ["query", "base_version"], "type_error"],
      ["?base_version=2&force=1", ["query", "force"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("POST", `${A}/${p.id}/archive${qs}`, { token: admin });
      expect([qs, r.status]).toEqual([qs, 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    expect(await stored(p.id)).toEqual(rowBefore);
  });

  test("404 for a missing, already archived or another org's partner; 401, 403, 404 non-member; nothing changes", async () => {
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
    expect((await t.request("GET", `${B}/${foreign.id}`, { token: admin })).body.deleted_at).toBeNull();
    const p = await create();
    expect((await t.request("POST", `${A}/${p.id}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${p.id}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${B}/${p.id}/archive?base_version=1`, { token: reader })).status).toBe(404);
    expect((await stored(p.id)).deleted_at).toBeNull();
  });
});
