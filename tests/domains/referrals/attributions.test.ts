import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { referralAttributions } from "@db/tenant/referrals";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, unique, type TestApp } from "@tests/helpers";
import { created, JSON_HEADERS, MISSING, referralWorld, storedRow } from "./fixtures";

let t: TestApp;
let admin: string;
let reader: string; // patients.read only
let outsider: string; // a member of A holding referral keys but no patient keys
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
// sources in org A
let provider: any;
let partner: any;
let source: any;
let referrer: any;

const P = (org: string) => `/api/v1/${org}`;
const at = (patientId: string, org = orgA) => `${P(org)}/patients/${patientId}/referral-attributions`;

async function patient(org = orgA, first = "Pat", last = unique("Ient")) {
  return created(t, admin, `${P(org)}/patients`, { first_name: first, last_name: last });
}
const attribute = (patientId: string, body: Record<string, unknown>, org = orgA) => created(t, admin, at(patientId, org), body);
const stored = (id: string) => storedRow(t, orgA, referralAttributions, id);
const listOf = async (patientId: string) => (await t.request("GET", at(patientId), { token: admin })).body;

beforeAll(async () => {
  const w = await referralWorld("patients.read", "patients.write");
  ({ t, admin, reader, outsider, orgA, orgB, events } = w);
  provider = await created(t, admin, `${P(orgA)}/providers`, { abbreviation: "DRA", first_name: "Ada", last_name: "Lovelace" });
  partner = await created(t, admin, `${P(orgA)}/referral-partners`, {
    contact_type: "provider",
    first_name: "Olivia",
    last_name: "Ortho",
    practice_name: "Bright Ortho",
  });
  source = await created(t, admin, `${P(orgA)}/referral-sources`, { name: "Google Ads", source_type: "advertising" });
  referrer = await patient(orgA, "Rita", "Referrer");
});
afterAll(() => t.close());

describe("POST .../referral-attributions", () => {
  test("201 for each kind of source: its ref is set with a name, the others are null; audited and published without the note", async () => {
    const kinds: [string, string, string, { uuid: string; name: string }][] = [
      ["provider_uuid", provider.id, "provider", { uuid: provider.id, name: "Ada Lovelace" }],
      ["referral_partner_uuid", partner.id, "referral_partner", { uuid: partner.id, name: "Olivia Ortho" }],
      ["referral_source_uuid", source.id, "referral_source", { uuid: source.id, name: "Google Ads" }],
      ["referring_patient_uuid", referrer.id, "referring_patient", { uuid: referrer.id, name: `Rita Referrer` }],
    ];
    for (const [field, id, refField, ref] of kinds) {
      const p = await patient(orgA, "Nora", "New");
      const before = events.length;
      const startedAt = new Date().toISOString();
      const r = await t.request("POST", at(p.id), { token: admin, body: { [field]: id, source_note: "Saw the sign on Main St" } });
      expect(r.status).toBe(201);
      expect(r.headers.get("etag")).toBe('"1"');
      const refs = { provider: null, referral_partner: null, referral_source: null, referring_patient: null, [refField]: ref };
      expect(r.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        patient: { uuid: p.id, name: "Nora New" },
        attribution_role: "primary",
        ...refs,
        source_note: "Saw the sign on Main St",
        attributed_at: r.body.created_at,
        version: 1,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      expect(r.body.attributed_at >= startedAt).toBe(true);
      expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["referral_attribution.created"]);
      const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
      expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
        ["referral_attribution.created", "referral_attribution", { id: r.body.id, patient_id: p.id, attribution_role: "primary" }],
      ]);
      expect(JSON.stringify(mine)).not.toContain("Main St");
      expect((await listOf(p.id)).items).toEqual([r.body]);
    }
  });

  test("attribution_role and attributed_at (with an offset, stored in UTC) may be given; unused sources may be null; inactive sources count", async () => {
    const p = await patient();
    const inactive = await created(t, admin, `${P(orgA)}/referral-sources`, { name: unique("Old flyer"), is_active: false });
    const r = await attribute(p.id, {
      attribution_role: "assist",
      referral_source_uuid: inactive.id,
      provider_uuid: null,
      referral_partner_uuid: null,
      attributed_at: "2024-03-01T09:30:00-05:00",
    });
    expect(r).toMatchObject({
      attribution_role: "assist",
      attributed_at: "2024-03-01T14:30:00.000Z",
      referral_source: { uuid: inactive.id, name: inactive.name },
      provider: null,
      source_note: null,
    });
  });

  test("one active primary per patient: 409 duplicate; secondary and assist are fine; archiving the primary frees the slot", async () => {
    const p = await patient();
    const first = await attribute(p.id, { provider_uuid: provider.id });
    const dup = await t.request("POST", at(p.id), { token: admin, body: { attribution_role: "primary", referral_partner_uuid: partner.id } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "The patient already has an active primary referral attribution", code: "duplicate" });
    const implicit = await t.request("POST", at(p.id), { token: admin, body: { referral_source_uuid: source.id } });
    expect(implicit.status).toBe(409);
    expect((await listOf(p.id)).total).toBe(1);
    await attribute(p.id, { attribution_role: "secondary", referral_partner_uuid: partner.id });
    await attribute(p.id, { attribution_role: "assist", referral_partner_uuid: partner.id });
    // another patient's primary is no obstacle
    await attribute((await patient()).id, { provider_uuid: provider.id });
    expect((await t.request("POST", `${at(p.id)}/${first.id}/archive?base_version=1`, { token: admin })).status).toBe(200);
    expect((await attribute(p.id, { referral_source_uuid: source.id })).attribution_role).toBe("primary");
    expect((await listOf(p.id)).total).toBe(3);
  });

  test("422 exactly_one_source when none or several sources are given; nothing is written", async () => {
    const p = await patient();
    const none = await t.request("POST", at(p.id), { token: admin, body: { source_note: "?" } });
    expect(none.status).toBe(422);
    const msg = "Exactly one of provider_uuid, referral_partner_uuid, referral_source_uuid, referring_patient_uuid is required";
    expect(none.body).toEqual({ code: "exactly_one_source", detail: [{ loc: ["body"], msg, type: "missing" }] });
    const nulls = await t.request("POST", at(p.id), { token: admin, body: { provider_uuid: null, referral_source_uuid: null } });
    expect([nulls.status, nulls.body.code]).toEqual([422, "exactly_one_source"]);
    const two = await t.request("POST", at(p.id), { token: admin, body: { provider_uuid: provider.id, referral_source_uuid: source.id } });
    expect(two.status).toBe(422);
    expect(two.body).toEqual({
      code: "exactly_one_source",
      detail: [
        { loc: ["body", "provider_uuid"], msg, type: "value_error" },
        { loc: ["body", "referral_source_uuid"], msg, type: "value_error" },
      ],
    });
    const four = await t.request("POST", at(p.id), {
      token: admin,
      body: { provider_uuid: provider.id, referral_partner_uuid: partner.id, referral_source_uuid: source.id, referring_patient_uuid: referrer.id },
    });
    expect([four.status, four.body.detail.length]).toEqual([422, 4]);
    expect((await listOf(p.id)).total).toBe(0);
  });

  test("422 self_referral when a patient refers itself (any case of the id); nothing is written", async () => {
    const p = await patient();
    for (const id of [p.id, p.id.toUpperCase()]) {
      const r = await t.request("POST", at(p.id), { token: admin, body: { referring_patient_uuid: id } });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        code: "self_referral",
        detail: [{ loc: ["body", "referring_patient_uuid"], msg: "A patient cannot refer themself", type: "value_error" }],
      });
    }
    expect((await listOf(p.id)).total).toBe(0);
  });

  test("422 for bad fields, unknown and read-only fields, a future attributed_at and malformed JSON; nothing is written", async () => {
    const p = await patient();
    const ok = { provider_uuid: provider.id };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ ...ok, attribution_role: "main" }, ["body", "attribution_role"], "enum"],
      [{ provider_uuid: "not-a-uuid" }, ["body", "provider_uuid"], "format"],
      [{ referral_partner_uuid: 12 }, ["body", "referral_partner_uuid"], "type_error"],
      [{ ...ok, source_note: 5 }, ["body", "source_note"], "type_error"],
      [{ ...ok, source_note: "x".repeat(2001) }, ["body", "source_note"], "out_of_range"],
      [{ ...ok, attributed_at: "2024-03-01" }, ["body", "attributed_at"], "format"],
      [{ ...ok, attributed_at: "2999-01-01T00:00:00Z" }, ["body", "attributed_at"], "value_error"],
      [{ ...ok, patient_uuid: p.id }, ["body", "patient_uuid"], "extra_forbidden"],
      [{ ...ok, provider: { uuid: provider.id } }, ["body", "provider"], "read_only"],
      [{ ...ok, version: 1 }, ["body", "version"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", at(p.id), { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    const bad = await t.request("POST", at(p.id), { token: admin, rawBody: '{"provider_uuid": ', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect((await listOf(p.id)).total).toBe(0);
  });

  test("404 when the source is missing, archived or another org's; nothing is written", async () => {
    const p = await patient();
    const goneProvider = await created(t, admin, `${P(orgA)}/providers`, { abbreviation: "GONE", first_name: "Gone", last_name: "Doc" });
    await t.request("POST", `${P(orgA)}/providers/${goneProvider.id}/archive`, { token: admin });
    const gonePartner = await created(t, admin, `${P(orgA)}/referral-partners`, { practice_name: "Closed" });
    await t.request("POST", `${P(orgA)}/referral-partners/${gonePartner.id}/archive?base_version=1`, { token: admin });
    const goneSource = await created(t, admin, `${P(orgA)}/referral-sources`, { name: unique("Gone") });
    await t.request("POST", `${P(orgA)}/referral-sources/${goneSource.id}/archive?base_version=1`, { token: admin });
    const gonePatient = await patient();
    await t.request("POST", `${P(orgA)}/patients/${gonePatient.id}/archive`, { token: admin });
    const foreignPartner = await created(t, admin, `${P(orgB)}/referral-partners`, { practice_name: "Elsewhere" });
    const foreignPatient = await patient(orgB);
    const cases: [Record<string, unknown>, string][] = [
      [{ provider_uuid: MISSING }, "Provider not found"],
      [{ provider_uuid: goneProvider.id }, "Provider not found"],
      [{ referral_partner_uuid: MISSING }, "Referral partner not found"],
      [{ referral_partner_uuid: gonePartner.id }, "Referral partner not found"],
      [{ referral_partner_uuid: foreignPartner.id }, "Referral partner not found"],
      [{ referral_source_uuid: goneSource.id }, "Referral source not found"],
      [{ referring_patient_uuid: gonePatient.id }, "Referring patient not found"],
      [{ referring_patient_uuid: foreignPatient.id }, "Referring patient not found"],
    ];
    for (const [body, detail] of cases) {
      const r = await t.request("POST", at(p.id), { token: admin, body });
      expect([JSON.stringify(body), r.status, r.body]).toEqual([JSON.stringify(body), 404, { detail, code: "not_found" }]);
    }
    expect((await listOf(p.id)).total).toBe(0);
  });

  test("404 for a missing patient or another org's patient; 422 patient_archived for an archived patient", async () => {
    const foreign = await patient(orgB);
    for (const id of [MISSING, foreign.id]) {
      const r = await t.request("POST", at(id), { token: admin, body: { provider_uuid: provider.id } });
      expect([r.status, r.body]).toEqual([404, { detail: "Patient not found", code: "not_found" }]);
    }
    expect((await t.request("GET", at(foreign.id, orgB), { token: admin })).body.total).toBe(0);
    const archived = await patient();
    await t.request("POST", `${P(orgA)}/patients/${archived.id}/archive`, { token: admin });
    const r = await t.request("POST", at(archived.id), { token: admin, body: { provider_uuid: provider.id } });
    expect([r.status, r.body.code]).toEqual([422, "patient_archived"]);
    expect((await listOf(archived.id)).total).toBe(0);
  });

  test("401, 403 without patients.write, 404 for a non-member org; nothing is written", async () => {
    const p = await patient();
    const body = { provider_uuid: provider.id };
    const anon = await t.request("POST", at(p.id), { body });
    expect([anon.status, anon.headers.get("www-authenticate")]).toEqual([401, "Bearer"]);
    expect((await t.request("POST", at(p.id), { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", at(p.id), { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", at(p.id, orgB), { token: reader, body })).status).toBe(404);
    expect((await listOf(p.id)).total).toBe(0);
  });
});

describe("GET .../referral-attributions", () => {
  test("paged, oldest attributed_at first; archived ones and other patients' are left out", async () => {
    const p = await patient();
    const late = await attribute(p.id, { provider_uuid: provider.id, attributed_at: "2024-05-01T00:00:00Z" });
    const early = await attribute(p.id, { attribution_role: "secondary", referral_partner_uuid: partner.id, attributed_at: "2023-01-01T00:00:00Z" });
    const mid = await attribute(p.id, { attribution_role: "assist", referral_source_uuid: source.id, attributed_at: "2024-01-01T00:00:00Z" });
    const gone = await attribute(p.id, { attribution_role: "assist", referring_patient_uuid: referrer.id });
    await t.request("POST", `${at(p.id)}/${gone.id}/archive?base_version=1`, { token: admin });
    await attribute((await patient()).id, { provider_uuid: provider.id });
    const r = await t.request("GET", at(p.id), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [early, mid, late], page: 1, page_size: 50, total: 3 });
    const p2 = (await t.request("GET", `${at(p.id)}?page=2&page_size=2`, { token: admin })).body;
    expect(p2).toEqual({ items: [late], page: 2, page_size: 2, total: 3 });
  });

  test("an archived patient's attributions stay readable; refs keep the names of archived targets", async () => {
    const p = await patient();
    const partner2 = await created(t, admin, `${P(orgA)}/referral-partners`, { practice_name: "Soon Closed Dental" });
    const a = await attribute(p.id, { referral_partner_uuid: partner2.id });
    await t.request("POST", `${P(orgA)}/referral-partners/${partner2.id}/archive?base_version=1`, { token: admin });
    await t.request("POST", `${P(orgA)}/patients/${p.id}/archive`, { token: admin });
    const r = await t.request("GET", at(p.id), { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([{ ...a, referral_partner: { uuid: partner2.id, name: "Soon Closed Dental" } }]);
  });

  test("404 for a missing or another org's patient; 422 bad query; 401, 403, 404 non-member", async () => {
    const foreign = await patient(orgB);
    for (const id of [MISSING, foreign.id]) expect((await t.request("GET", at(id), { token: admin })).status).toBe(404);
    const p = await patient();
    for (const qs of ["page=0", "page_size=500", "role=primary"]) {
      expect((await t.request("GET", `${at(p.id)}?${qs}`, { token: admin })).status).toBe(422);
    }
    expect((await t.request("GET", at(p.id))).status).toBe(401);
    expect((await t.request("GET", at(p.id), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", at(p.id, orgB), { token: reader })).status).toBe(404);
  });
});

describe("GET .../referral-attributions/{id}", () => {
  test("200; 404 for another patient's, another org's, an archived or a missing attribution; 401, 403", async () => {
    const p = await patient();
    const other = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const r = await t.request("GET", `${at(p.id)}/${a.id}`, { token: reader });
    expect([r.status, r.body, r.headers.get("etag")]).toEqual([200, a, '"1"']);
    const fp = await patient(orgB);
    const foreign = await attribute(fp.id, { referring_patient_uuid: (await patient(orgB)).id }, orgB);
    const gone = await attribute(p.id, { attribution_role: "assist", provider_uuid: provider.id });
    await t.request("POST", `${at(p.id)}/${gone.id}/archive?base_version=1`, { token: admin });
    for (const path of [
      `${at(other.id)}/${a.id}`,
      `${at(p.id)}/${foreign.id}`,
      `${at(fp.id)}/${foreign.id}`,
      `${at(p.id)}/${gone.id}`,
      `${at(p.id)}/${MISSING}`,
    ]) {
      expect([path, (await t.request("GET", path, { token: admin })).status]).toEqual([path, 404]);
    }
    expect((await t.request("GET", `${at(p.id)}/${a.id}`)).status).toBe(401);
    expect((await t.request("GET", `${at(p.id)}/${a.id}`, { token: outsider })).status).toBe(403);
  });
});

describe("PATCH .../referral-attributions/{id}", () => {
  test("changes attribution_role and source_note; bumps the version; audited; the event names the changed fields only", async () => {
    const p = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id, source_note: "Friend of Dr A" });
    const before = events.length;
    const r = await t.request("PATCH", `${at(p.id)}/${a.id}`, {
      token: admin,
      body: { base_version: 1, attribution_role: "secondary", source_note: "Moved from Dr A" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({ ...a, attribution_role: "secondary", source_note: "Moved from Dr A", version: 2, updated_at: expect.any(String) });
    expect((await auditOf(t, orgA, a.id)).map((x) => x.action)).toEqual(["referral_attribution.created", "referral_attribution.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === a.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["referral_attribution.updated", { id: a.id, changed_fields: ["attribution_role", "source_note"] }]]);
    expect(JSON.stringify(mine)).not.toContain("Dr A");
    // back to primary: the slot is free again
    const back = await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, body: { base_version: 2, attribution_role: "primary" } });
    expect(back.body).toMatchObject({ attribution_role: "primary", version: 3 });
    // primary -> primary on the same record is no conflict
    expect(
      (await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, body: { base_version: 3, attribution_role: "primary", source_note: null } })).status,
    ).toBe(200);
  });

  test("409 duplicate when it would become a second active primary; 409 stale; the row is unchanged", async () => {
    const p = await patient();
    await attribute(p.id, { provider_uuid: provider.id });
    const a = await attribute(p.id, { attribution_role: "assist", referral_source_uuid: source.id });
    const rowBefore = await stored(a.id);
    const dup = await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, body: { base_version: 1, attribution_role: "primary" } });
    expect([dup.status, dup.body.code]).toEqual([409, "duplicate"]);
    const stale = await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, body: { base_version: 2, source_note: "x" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect(await stored(a.id)).toEqual(rowBefore);
  });

  test("sources are immutable: sending any source field (or attributed_at) is 422 read_only; other bad input 422; the row is unchanged", async () => {
    const p = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const rowBefore = await stored(a.id);
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ base_version: 1, provider_uuid: provider.id }, ["body", "provider_uuid"], "read_only"],
      [{ base_version: 1, referral_partner_uuid: partner.id }, ["body", "referral_partner_uuid"], "read_only"],
      [{ base_version: 1, referral_source_uuid: null }, ["body", "referral_source_uuid"], "read_only"],
      [{ base_version: 1, referring_patient_uuid: referrer.id }, ["body", "referring_patient_uuid"], "read_only"],
      [{ base_version: 1, attributed_at: "2024-01-01T00:00:00Z" }, ["body", "attributed_at"], "read_only"],
      [{ base_version: 1, patient_uuid: p.id }, ["body", "patient_uuid"], "read_only"],
      [{ attribution_role: "assist" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, attribution_role: "lead" }, ["body", "attribution_role"], "enum"],
      [{ base_version: 1, source_note: false }, ["body", "source_note"], "type_error"],
      [{ base_version: 1, color: "red" }, ["body", "color"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    expect((await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, rawBody: "{]", headers: JSON_HEADERS })).status).toBe(422);
    expect(await stored(a.id)).toEqual(rowBefore);
  });

  test("404 when it belongs to another patient or org, is archived or missing, or the patient is missing; the rows are unchanged", async () => {
    const p = await patient();
    const other = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const fp = await patient(orgB);
    const foreign = await attribute(fp.id, { referring_patient_uuid: (await patient(orgB)).id }, orgB);
    const gone = await attribute(p.id, { attribution_role: "assist", provider_uuid: provider.id });
    await t.request("POST", `${at(p.id)}/${gone.id}/archive?base_version=1`, { token: admin });
    const rowBefore = await stored(a.id);
    for (const path of [
      `${at(other.id)}/${a.id}`,
      `${at(p.id)}/${foreign.id}`,
      `${at(fp.id)}/${foreign.id}`,
      `${at(p.id)}/${gone.id}`,
      `${at(MISSING)}/${a.id}`,
    ]) {
      const r = await t.request("PATCH", path, { token: admin, body: { base_version: 1, source_note: "hijack" } });
      expect([path, r.status, r.body.code]).toEqual([path, 404, "not_found"]);
    }
    expect(await stored(a.id)).toEqual(rowBefore);
    expect((await storedRow(t, orgB, referralAttributions, foreign.id)).source_note).toBeNull();
  });

  test("422 patient_archived under an archived patient; 401, 403, 404 non-member; the row is unchanged", async () => {
    const p = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const body = { base_version: 1, source_note: "x" };
    expect((await t.request("PATCH", `${at(p.id)}/${a.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${at(p.id, orgB)}/${a.id}`, { token: reader, body })).status).toBe(404);
    await t.request("POST", `${P(orgA)}/patients/${p.id}/archive`, { token: admin });
    const r = await t.request("PATCH", `${at(p.id)}/${a.id}`, { token: admin, body });
    expect([r.status, r.body.code]).toEqual([422, "patient_archived"]);
    expect((await stored(a.id)).version).toBe(1);
  });
});

describe("POST .../referral-attributions/{id}/archive", () => {
  test("200 {detail: archived}; the attribution leaves the list and GET; data kept; audited and published", async () => {
    const p = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const before = events.length;
    const r = await t.request("POST", `${at(p.id)}/${a.id}/archive?base_version=1`, { token: admin });
    expect([r.status, r.body]).toEqual([200, { detail: "archived" }]);
    expect((await listOf(p.id)).total).toBe(0);
    expect((await t.request("GET", `${at(p.id)}/${a.id}`, { token: admin })).status).toBe(404);
    const row = await stored(a.id);
    expect([row.version, row.provider_id, typeof row.deleted_at]).toEqual([2, provider.id, "string"]);
    expect((await auditOf(t, orgA, a.id)).map((x) => x.action)).toEqual(["referral_attribution.created", "referral_attribution.archived"]);
    const mine = events.slice(before).filter((e) => e.resource_id === a.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["referral_attribution.archived", { id: a.id, changed_fields: ["deleted_at"] }]]);
  });

  test("409 stale, 422 missing base_version; 404 another patient's / org's / missing / already archived; the rows are unchanged", async () => {
    const p = await patient();
    const other = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const stale = await t.request("POST", `${at(p.id)}/${a.id}/archive?base_version=2`, { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const noVersion = await t.request("POST", `${at(p.id)}/${a.id}/archive`, { token: admin });
    expect([noVersion.status, noVersion.body.detail[0].loc]).toEqual([422, ["query", "base_version"]]);
    const fp = await patient(orgB);
    const foreign = await attribute(fp.id, { referring_patient_uuid: (await patient(orgB)).id }, orgB);
    const gone = await attribute(p.id, { attribution_role: "assist", provider_uuid: provider.id });
    await t.request("POST", `${at(p.id)}/${gone.id}/archive?base_version=1`, { token: admin });
    for (const [path, v] of [
      [`${at(other.id)}/${a.id}`, 1],
      [`${at(p.id)}/${foreign.id}`, 1],
      [`${at(fp.id)}/${foreign.id}`, 1],
      [`${at(p.id)}/${gone.id}`, 2],
      [`${at(p.id)}/${MISSING}`, 1],
      [`${at(MISSING)}/${a.id}`, 1],
    ] as const) {
      const r = await t.request("POST", `${path}/archive?base_version=${v}`, { token: admin });
      expect([path, r.status]).toEqual([path, 404]);
    }
    const row = await stored(a.id);
    expect([row.version, row.deleted_at]).toEqual([1, null]);
    expect((await storedRow(t, orgB, referralAttributions, foreign.id)).deleted_at).toBeNull();
  });

  test("401, 403 without patients.write, 404 for a non-member org; nothing changes", async () => {
    const p = await patient();
    const a = await attribute(p.id, { provider_uuid: provider.id });
    const path = `${at(p.id)}/${a.id}/archive?base_version=1`;
    expect((await t.request("POST", path)).status).toBe(401);
    expect((await t.request("POST", path, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${at(p.id, orgB)}/${a.id}/archive?base_version=1`, { token: reader })).status).toBe(404);
    expect((await stored(a.id)).deleted_at).toBeNull();
  });
});
