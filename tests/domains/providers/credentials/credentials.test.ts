import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { isValidDea } from "@/domains/providers/credentials/schemas";
import { archiveLocation, archiveProvider, createLocation, createProvider, DEA, DEA2, MISSING, NPI, NPI2 } from "./fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let reader: string; // providers.credentials.read only
let outsider: string; // a member of A holding providers.* but no credential keys
let memberOfB: string; // holds the credential keys in B only
let events: EventEnvelope[];

const P = (org: string, provider: string) => `/api/v1/${org}/providers/${provider}`;
const post = (path: string, body: unknown, token = admin) => t.request("POST", path, { token, body });
const get = (path: string, token = admin) => t.request("GET", path, { token });

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["providers.credentials.read"],
      outsider: ["providers.read", "providers.write"],
      memberOfB: { org: "B", keys: ["providers.credentials.read", "providers.credentials.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  ({ reader, outsider, memberOfB } = w.tokens);
});
afterAll(() => t.close());

test("isValidDea: two letters, seven digits, check digit", () => {
  expect(isValidDea(DEA)).toBe(true);
  expect(isValidDea(DEA2)).toBe(true);
  expect(isValidDea("AB1234564")).toBe(false);
  expect(isValidDea("A11234563")).toBe(false);
  expect(isValidDea("AB123456")).toBe(false);
  expect(isValidDea("ab1234563")).toBe(false); // the schema upper-cases first
});

// ---------------------------------------------------------------- identities

describe("provider identities", () => {
  const body = { id_number: "BC-12345", payor_id: "60054", supplemental_id_type: "blue_cross" };

  test("POST 201 with the record; ETag; audit and an ids-only event; GET lists it", async () => {
    const p = await createProvider(t, orgA);
    const before = events.length;
    const r = await post(`${P(orgA, p.id)}/identities`, { ...body, id_number: "  BC-12345 " });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      id_number: "BC-12345",
      payor_id: "60054",
      supplemental_id_type: "blue_cross",
      version: 1,
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
      deleted_at: null,
    });
    expect(r.headers.get("etag")).toBe('"1"');
    const ev = events.slice(before);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ type: "provider_identity.created", resource_type: "provider_identity", resource_id: r.body.id, practice_id: null });
    expect(ev[0]!.data).toEqual({ id: r.body.id, provider_id: p.id });
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => a.action)).toEqual(["provider_identity.created"]);
    expect(audit[0].after).toMatchObject({ provider_uuid: p.id, id_number: "BC-12345", payor_id: "60054" });
    const list = await get(`${P(orgA, p.id)}/identities`, reader);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [r.body], page: 1, page_size: 50, total: 1 });
  });

  test("GET pages oldest first, only this provider's rows; page_size bounds and unknown parameters are 422", async () => {
    const p = await createProvider(t, orgA);
    const other = await createProvider(t, orgA);
    await post(`${P(orgA, other.id)}/identities`, body);
    const ids: string[] = [];
    for (const type of ["blue_cross", "blue_shield", "site_number"])
      ids.push((await post(`${P(orgA, p.id)}/identities`, { ...body, supplemental_id_type: type })).body.id);
    const page2 = await get(`${P(orgA, p.id)}/identities?page=2&page_size=2`);
    expect(page2.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(page2.body.items.map((x: { id: string }) => x.id)).toEqual([ids[2]]);
    const page1 = await get(`${P(orgA, p.id)}/identities?page_size=2`);
    expect(page1.body.items.map((x: { id: string }) => x.id)).toEqual(ids.slice(0, 2));
    for (const q of ["page_size=201", "page_size=0", "page=0", "page=x", "provider_uuid=x"]) {
      const r = await get(`${P(orgA, p.id)}/identities?${q}`);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
    expect((await get(`${P(orgA, p.id)}/identities?page_size=200`)).body.page_size).toBe(200);
  });

  test("409 duplicate for the same payor (any case) and type; another type or after archiving is fine", async () => {
    const p = await createProvider(t, orgA);
    const first = await post(`${P(orgA, p.id)}/identities`, { ...body, payor_id: "ABC12" });
    const dup = await post(`${P(orgA, p.id)}/identities`, { ...body, payor_id: "abc12", id_number: "other" });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "This provider already has an identity of this type for this payor", code: "duplicate" });
    expect((await post(`${P(orgA, p.id)}/identities`, { ...body, payor_id: "ABC12", supplemental_id_type: "site_number" })).status).toBe(201);
    expect((await get(`${P(orgA, p.id)}/identities`)).body.total).toBe(2);
    expect((await post(`${P(orgA, p.id)}/identities/${first.body.id}/archive`, undefined)).status).toBe(200);
    expect((await post(`${P(orgA, p.id)}/identities`, { ...body, payor_id: "ABC12" })).status).toBe(201);
  });

  test("422 for each rule, nothing written", async () => {
    const p = await createProvider(t, orgA);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ payor_id: "1", supplemental_id_type: "blue_cross" }, "id_number", "missing"],
      [{ id_number: "1", supplemental_id_type: "blue_cross" }, "payor_id", "missing"],
      [{ id_number: "1", payor_id: "1" }, "supplemental_id_type", "missing"],
      [{ ...body, supplemental_id_type: "npi" }, "supplemental_id_type", "enum"],
      [{ ...body, id_number: 12345 }, "id_number", "type_error"],
      [{ ...body, id_number: "   " }, "id_number", "out_of_range"],
      [{ ...body, payor_id: "x".repeat(51) }, "payor_id", "out_of_range"],
      [{ ...body, note: "x" }, "note", "extra_forbidden"],
      [{ ...body, id: MISSING }, "id", "read_only"],
      [{ ...body, version: 3 }, "version", "read_only"],
    ];
    for (const [b, field, type] of cases) {
      const r = await post(`${P(orgA, p.id)}/identities`, b);
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", field], type }));
    }
    const malformed = await t.request("POST", `${P(orgA, p.id)}/identities`, {
      token: admin,
      rawBody: "{bad",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await get(`${P(orgA, p.id)}/identities`)).body.total).toBe(0);
  });

  test("archive: 200 with deleted_at, version +1, leaves the list, audited; again 404; stale 409; another provider's row 404", async () => {
    const p = await createProvider(t, orgA);
    const other = await createProvider(t, orgA);
    const a = (await post(`${P(orgA, p.id)}/identities`, body)).body;
    const stale = await post(`${P(orgA, p.id)}/identities/${a.id}/archive?base_version=2`, undefined);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const wrongParent = await post(`${P(orgA, other.id)}/identities/${a.id}/archive`, undefined);
    expect(wrongParent.body).toEqual({ detail: "Provider identity not found", code: "not_found" });
    expect((await get(`${P(orgA, p.id)}/identities`)).body.items).toEqual([a]);
    const before = events.length;
    const r = await post(`${P(orgA, p.id)}/identities/${a.id}/archive?base_version=1`, undefined);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.id, version: 2, id_number: "BC-12345" });
    expect(r.body.deleted_at).toMatch(/Z$/);
    expect(events.slice(before).map((e) => [e.type, e.data])).toEqual([["provider_identity.archived", { id: a.id, changed_fields: ["deleted_at"] }]]);
    expect((await auditOf(t, orgA, a.id)).map((x) => x.action)).toEqual(["provider_identity.created", "provider_identity.archived"]);
    expect((await get(`${P(orgA, p.id)}/identities`)).body.total).toBe(0);
    expect((await post(`${P(orgA, p.id)}/identities/${a.id}/archive`, undefined)).status).toBe(404);
    const badQuery = await post(`${P(orgA, p.id)}/identities/${MISSING}/archive?base_version=x`, undefined);
    expect(badQuery.status).toBe(422);
  });
});

// ---------------------------------------------------------------- location overrides

describe("provider location overrides", () => {
  test("POST 201: location ref and name, DEA and state upper-cased; audit keeps DEA and state Rx id masked; event ids only", async () => {
    const p = await createProvider(t, orgA);
    const loc = await createLocation(t, orgA, "Main Street");
    const before = events.length;
    const r = await post(`${P(orgA, p.id)}/location-overrides`, {
      location_uuid: loc.id.toUpperCase(),
      dea_number: " ab1234563 ",
      state_license: "D-4412",
      state_rx_id: "CSR998877",
      state_where_licensed: "ny",
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      location: { uuid: loc.id, name: "Main Street" },
      location_name: "Main Street",
      dea_number: DEA,
      state_license: "D-4412",
      state_rx_id: "CSR998877",
      state_where_licensed: "NY",
      version: 1,
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
      deleted_at: null,
    });
    const ev = events.slice(before);
    expect(ev.map((e) => e.type)).toEqual(["provider_location_override.created"]);
    expect(ev[0]!.practice_id).toBe(loc.id);
    expect(ev[0]!.data).toEqual({ id: r.body.id, provider_id: p.id, location_id: loc.id });
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit[0].after).toMatchObject({
      provider_uuid: p.id,
      location_uuid: loc.id,
      dea_number: "***4563",
      state_rx_id: "***8877",
      state_license: "D-4412",
    });
    expect(JSON.stringify(audit)).not.toContain(DEA);
    expect(JSON.stringify(audit)).not.toContain("CSR998877");
    const list = await get(`${P(orgA, p.id)}/location-overrides`, reader);
    expect(list.body).toEqual({ items: [r.body], page: 1, page_size: 50, total: 1 });
  });

  test("only some fields: the rest are null; one field is enough", async () => {
    const p = await createProvider(t, orgA);
    const loc = await createLocation(t, orgA);
    const r = await post(`${P(orgA, p.id)}/location-overrides`, { location_uuid: loc.id, state_license: "L1", dea_number: null });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ dea_number: null, state_rx_id: null, state_where_licensed: null, state_license: "L1" });
  });

  test("404 for an unknown, archived or other org's location; nothing written", async () => {
    const p = await createProvider(t, orgA);
    const archived = await createLocation(t, orgA);
    await archiveLocation(t, orgA, archived.id);
    const foreign = await createLocation(t, orgB);
    for (const id of [MISSING, archived.id, foreign.id]) {
      const r = await post(`${P(orgA, p.id)}/location-overrides`, { location_uuid: id, dea_number: DEA });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Location not found", code: "not_found" });
    }
    expect((await get(`${P(orgA, p.id)}/location-overrides`)).body.total).toBe(0);
  });

  test("409 duplicate: a second override for the same location; another location or after archiving is fine", async () => {
    const p = await createProvider(t, orgA);
    const loc = await createLocation(t, orgA);
    const loc2 = await createLocation(t, orgA);
    const first = (await post(`${P(orgA, p.id)}/location-overrides`, { location_uuid: loc.id, dea_number: DEA })).body;
    const dup = await post(`${P(orgA, p.id)}/location-overrides`, { location_uuid: loc.id, dea_number: DEA2 });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "This provider already has an override for this location", code: "duplicate" });
    expect((await post(`${P(orgA, p.id)}/location-overrides`, { location_uuid: loc2.id, dea_number: DEA2 })).status).toBe(201);
    // another provider may hold an override for the same location
    const p2 = await createProvider(t, orgA);
    expect((await post(`${P(orgA, p2.id)}/location-overrides`, { location_uuid: loc.id, dea_number: DEA2 })).status).toBe(201);
    const archived = await post(`${P(orgA, p.id)}/location-overrides/${first.id}/archive`, undefined);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id: first.id, version: 2, location: { uuid: loc.id, name: loc.name } });
    expect((await post(`${P(orgA, p.id)}/location-overrides`, { location_uuid: loc.id, dea_number: DEA2 })).status).toBe(201);
    const audit = await auditOf(t, orgA, first.id);
    expect(audit.map((a) => a.action)).toEqual(["provider_location_override.created", "provider_location_override.archived"]);
    expect(audit[1].before.dea_number).toBe("***4563");
  });

  test("422 for each rule, nothing written", async () => {
    const p = await createProvider(t, orgA);
    const loc = await createLocation(t, orgA);
    const cases: [Record<string, unknown>, string[], string][] = [
      [{ dea_number: DEA }, ["body", "location_uuid"], "missing"],
      [{ location_uuid: "nope", dea_number: DEA }, ["body", "location_uuid"], "format"],
      [{ location_uuid: loc.id, dea_number: "AB1234564" }, ["body", "dea_number"], "value_error"],
      [{ location_uuid: loc.id, dea_number: "A11234563" }, ["body", "dea_number"], "value_error"],
      [{ location_uuid: loc.id, dea_number: "AB12345631" }, ["body", "dea_number"], "value_error"],
      [{ location_uuid: loc.id, dea_number: 1234563 }, ["body", "dea_number"], "type_error"],
      [{ location_uuid: loc.id, state_where_licensed: "ZZ" }, ["body", "state_where_licensed"], "enum"],
      [{ location_uuid: loc.id, state_where_licensed: "New York" }, ["body", "state_where_licensed"], "enum"],
      [{ location_uuid: loc.id, state_license: "x".repeat(51) }, ["body", "state_license"], "out_of_range"],
      [{ location_uuid: loc.id }, ["body"], "value_error"],
      [{ location_uuid: loc.id, dea_number: null, state_license: null }, ["body"], "value_error"],
      [{ location_uuid: loc.id, dea_number: DEA, location_name: "x" }, ["body", "location_name"], "read_only"],
      [{ location_uuid: loc.id, dea_number: DEA, npi: "x" }, ["body", "npi"], "extra_forbidden"],
    ];
    for (const [b, loc_, type] of cases) {
      const r = await post(`${P(orgA, p.id)}/location-overrides`, b);
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc: loc_, type }));
    }
    const malformed = await t.request("POST", `${P(orgA, p.id)}/location-overrides`, {
      token: admin,
      rawBody: "[",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].type).toBe("json_invalid");
    expect((await get(`${P(orgA, p.id)}/location-overrides`)).body.total).toBe(0);
  });
});

// ---------------------------------------------------------------- prescription access

describe("provider prescription access", () => {
  test("POST 201 with defaults; with every field and a member as user; audit and ids-only event", async () => {
    const p = await createProvider(t, orgA);
    const r1 = await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI });
    expect(r1.status).toBe(201);
    expect(r1.body).toEqual({
      id: r1.body.id,
      national_provider_id: NPI,
      erx_status: "disabled",
      erx_type: null,
      is_epcs: false,
      is_identity_proofed: false,
      user_uuid: null,
      version: 1,
      created_at: r1.body.created_at,
      updated_at: r1.body.created_at,
      deleted_at: null,
    });
    const member = await createMember(t, orgA, []);
    const before = events.length;
    const r2 = await post(`${P(orgA, p.id)}/prescription-access`, {
      national_provider_id: NPI2,
      erx_status: "enabled",
      erx_type: "DoseSpot",
      is_epcs: true,
      is_identity_proofed: true,
      user_uuid: member.userId.toUpperCase(),
    });
    expect(r2.status).toBe(201);
    expect(r2.body).toMatchObject({
      national_provider_id: NPI2,
      erx_status: "enabled",
      erx_type: "DoseSpot",
      is_epcs: true,
      is_identity_proofed: true,
      user_uuid: member.userId,
    });
    expect(events.slice(before).map((e) => [e.type, e.data])).toEqual([
      ["provider_prescription_access.created", { id: r2.body.id, provider_id: p.id, user_id: member.userId }],
    ]);
    expect((await auditOf(t, orgA, r2.body.id))[0]).toMatchObject({
      action: "provider_prescription_access.created",
      after: { provider_uuid: p.id, national_provider_id: NPI2 },
    });
    const list = await get(`${P(orgA, p.id)}/prescription-access`, reader);
    expect(list.body).toEqual({ items: [r1.body, r2.body], page: 1, page_size: 50, total: 2 });
  });

  test("user_uuid must be a member of this org (not removed): otherwise 404; a missing provider is reported first", async () => {
    const p = await createProvider(t, orgA);
    const ofB = await createMember(t, orgB, []);
    const removed = await createMember(t, orgA, []);
    const rm = await post(`/api/v1/${orgA}/iam/users/${removed.userId}/remove`, undefined);
    expect(rm.status).toBe(200);
    for (const userId of [MISSING, ofB.userId, removed.userId]) {
      const r = await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI, user_uuid: userId });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "User not found", code: "not_found" });
    }
    const both = await post(`${P(orgA, MISSING)}/prescription-access`, { national_provider_id: NPI, user_uuid: MISSING });
    expect(both.body).toEqual({ detail: "Provider not found", code: "not_found" });
    expect((await get(`${P(orgA, p.id)}/prescription-access`)).body.total).toBe(0);
  });

  test("409 duplicate for the same NPI and eRx type (any case); another type is fine", async () => {
    const p = await createProvider(t, orgA);
    expect((await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI, erx_type: "DoseSpot" })).status).toBe(201);
    const dup = await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI, erx_type: "dosespot" });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    expect((await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI })).status).toBe(201);
    expect((await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI })).status).toBe(409);
    expect((await get(`${P(orgA, p.id)}/prescription-access`)).body.total).toBe(2);
  });

  test("422 for each rule (NPI check digit, EPCS without identity proofing, enums, unknown fields), nothing written", async () => {
    const p = await createProvider(t, orgA);
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, "national_provider_id", "missing"],
      [{ national_provider_id: "1234567890" }, "national_provider_id", "value_error"],
      [{ national_provider_id: "123456789" }, "national_provider_id", "value_error"],
      [{ national_provider_id: 1234567893 }, "national_provider_id", "type_error"],
      [{ national_provider_id: NPI, erx_status: "on" }, "erx_status", "enum"],
      [{ national_provider_id: NPI, is_epcs: "yes" }, "is_epcs", "type_error"],
      [{ national_provider_id: NPI, user_uuid: "bob" }, "user_uuid", "format"],
      [{ national_provider_id: NPI, provider_uuid: p.id }, "provider_uuid", "extra_forbidden"],
    ];
    for (const [b, field, type] of cases) {
      const r = await post(`${P(orgA, p.id)}/prescription-access`, b);
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", field], type }));
    }
    const epcs = await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI, is_epcs: true });
    expect(epcs.status).toBe(422);
    expect(epcs.body).toEqual({
      detail: [{ loc: ["body", "is_epcs"], msg: "EPCS needs is_identity_proofed", type: "value_error" }],
      code: "epcs_requires_identity_proofing",
    });
    const malformed = await t.request("POST", `${P(orgA, p.id)}/prescription-access`, {
      token: admin,
      rawBody: '{"national_provider_id":',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(422);
    expect((await get(`${P(orgA, p.id)}/prescription-access`)).body.total).toBe(0);
  });

  test("archive: 200, leaves the list; stale 409; again 404", async () => {
    const p = await createProvider(t, orgA);
    const a = (await post(`${P(orgA, p.id)}/prescription-access`, { national_provider_id: NPI })).body;
    expect((await post(`${P(orgA, p.id)}/prescription-access/${a.id}/archive?base_version=5`, undefined)).status).toBe(409);
    const r = await post(`${P(orgA, p.id)}/prescription-access/${a.id}/archive?base_version=1`, undefined);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.id, version: 2, national_provider_id: NPI });
    expect((await get(`${P(orgA, p.id)}/prescription-access`)).body.total).toBe(0);
    expect((await post(`${P(orgA, p.id)}/prescription-access/${a.id}/archive`, undefined)).status).toBe(404);
    expect((await auditOf(t, orgA, a.id)).map((x) => x.action)).toEqual(["provider_prescription_access.created", "provider_prescription_access.archived"]);
  });
});

// ---------------------------------------------------------------- every route: 401, 403, 404 (tenancy, parents)

describe("access and tenancy on every route", () => {
  type Route = { method: "GET" | "POST"; path: (org: string, provider: string, item: string) => string; body?: () => Record<string, unknown>; write: boolean };
  let locA: { id: string };
  let locB: { id: string };
  const bodies = {
    identities: () => ({ id_number: "N1", payor_id: `P${Math.random()}`, supplemental_id_type: "other" }),
    "location-overrides": () => ({ location_uuid: locA.id, dea_number: DEA }),
    "prescription-access": () => ({ national_provider_id: NPI, erx_type: `T${Math.random()}` }),
  } as const;
  const kinds = Object.keys(bodies) as (keyof typeof bodies)[];
  const routes = (kind: keyof typeof bodies): Route[] => [
    { method: "GET", path: (o, p) => `${P(o, p)}/${kind}`, write: false },
    { method: "POST", path: (o, p) => `${P(o, p)}/${kind}`, body: bodies[kind], write: true },
    { method: "POST", path: (o, p, i) => `${P(o, p)}/${kind}/${i}/archive`, write: true },
  ];
  const items: Record<string, { provider: string; item: string }> = {};

  beforeAll(async () => {
    locA = await createLocation(t, orgA);
    locB = await createLocation(t, orgB);
    for (const [org, loc] of [
      [orgA, locA],
      [orgB, locB],
    ] as const) {
      const p = await createProvider(t, org);
      for (const kind of kinds) {
        const b = kind === "location-overrides" ? { location_uuid: loc.id, dea_number: DEA } : bodies[kind]();
        const r = await post(`${P(org, p.id)}/${kind}`, b);
        if (r.status !== 201) throw new Error(r.text);
        items[`${org}:${kind}`] = { provider: p.id, item: r.body.id };
      }
    }
  });

  const send = (r: Route, path: string, token?: string) => t.request(r.method, path, { token, body: r.body?.() });

  test("401 without a token, 403 without the key (reads need .read, writes .write), 404 for a member of another org only", async () => {
    for (const kind of kinds) {
      const { provider, item } = items[`${orgA}:${kind}`]!;
      for (const r of routes(kind)) {
        const path = r.path(orgA, provider, item);
        const anon = await send(r, path);
        expect(anon.status).toBe(401);
        expect(anon.headers.get("www-authenticate")).toBe("Bearer");
        expect((await send(r, path, outsider)).status).toBe(403);
        expect((await send(r, path, reader)).status).toBe(r.write ? 403 : 200);
        expect((await send(r, path, memberOfB)).status).toBe(404);
      }
    }
    // nothing was archived or added by the refused writes
    for (const kind of kinds) {
      const { provider, item } = items[`${orgA}:${kind}`]!;
      const list = (await get(`${P(orgA, provider)}/${kind}`)).body;
      expect(list.items.map((x: { id: string }) => x.id)).toEqual([item]);
      expect(list.items[0].version).toBe(1);
    }
  });

  test("422 for unknown or out-of-range query parameters on every list and archive", async () => {
    for (const kind of kinds) {
      const { provider, item } = items[`${orgA}:${kind}`]!;
      for (const q of ["page_size=201", "page=0", "search=x"]) {
        const r = await get(`${P(orgA, provider)}/${kind}?${q}`);
        expect(r.status).toBe(422);
        expect(r.body.detail[0].loc[0]).toBe("query");
      }
      for (const q of ["base_version=0", "base_version=x", "force=true"]) {
        const r = await t.request("POST", `${P(orgA, provider)}/${kind}/${item}/archive?${q}`, { token: admin });
        expect(r.status).toBe(422);
        expect(r.body.detail[0].loc[0]).toBe("query");
      }
      expect((await get(`${P(orgA, provider)}/${kind}`)).body.items[0]).toMatchObject({ id: item, version: 1, deleted_at: null });
    }
  });

  test("404 for another org's provider or row through this org's path, a missing provider, and an archived provider", async () => {
    const archived = await createProvider(t, orgA);
    await archiveProvider(t, orgA, archived.id);
    for (const kind of kinds) {
      const a = items[`${orgA}:${kind}`]!;
      const b = items[`${orgB}:${kind}`]!;
      for (const r of routes(kind)) {
        for (const [provider, item, label] of [
          [b.provider, b.item, "Provider"],
          [MISSING, a.item, "Provider"],
          [archived.id, a.item, "Provider"],
        ] as const) {
          const res = await send(r, r.path(orgA, provider, item), admin);
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ detail: `${label} not found`, code: "not_found" });
        }
      }
      // this org's provider, the other org's row
      const res = await t.request("POST", `${P(orgA, a.provider)}/${kind}/${b.item}/archive`, { token: admin });
      expect(res.status).toBe(404);
      expect((await t.request("POST", `${P(orgA, a.provider)}/${kind}/${MISSING}/archive`, { token: admin })).status).toBe(404);
      // org B's row is untouched
      expect((await get(`${P(orgB, b.provider)}/${kind}`)).body.items[0]).toMatchObject({ id: b.item, version: 1, deleted_at: null });
    }
  });
});
