import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditOf, createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import { patients } from "@db/tenant/patients";
import { get } from "@/platform/db/work";
import { findPatientRow } from "@/domains/patients/record/rows";
import { insertProvider, orgDb, setBalances } from "./fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let P: string;
let locationId: string;
let providerId: string;
let provider2Id: string;

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  P = `/api/v1/${orgId}/patients`;
  locationId = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Downtown Dental", timezone: "America/Chicago" } })).body.id;
  providerId = await insertProvider(t, orgId, { first_name: "Ada", last_name: "Lovelace" });
  provider2Id = await insertProvider(t, orgId, { first_name: "Grace", last_name: "Hopper" });
  // fee_schedule_uuid names a real schedule (404 otherwise)
  FULL.fee_schedule_uuid = (
    await t.request("POST", `/api/v1/${orgId}/fee-schedules`, { token, body: { name: "Office fees", schedule_type: "office" } })
  ).body.id;
});
afterAll(() => t.close());

const create = async (body: Record<string, unknown>) => {
  const r = await t.request("POST", P, { token, body });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
};
const read = async (id: string) => (await t.request("GET", `${P}/${id}`, { token })).body;
const rawRow = async (id: string) => (await orgDb(t, orgId)).read((d) => get(d.select().from(patients).where(eq(patients.id, id))));

const FULL = {
  first_name: "Johanna",
  last_name: "Smith-Jones",
  middle_name: "Q",
  preferred_name: "Jo",
  title: "Dr.",
  salutation: "Dear Jo",
  gender: "female",
  marital_status: "married",
  pronoun: "she_her",
  date_of_birth: "1984-02-29",
  date_first_visit: "2020-05-01",
  chart_number: "A-1001",
  email: "jo.smith@example.com",
  home_phone: "217-555-0100",
  mobile_phone: "+1 (217) 555-0199",
  work_phone: "217.555.0111",
  address_line1: "1 Main St",
  address_line2: "Apt 2",
  address_note: "Side door",
  city: "Springfield",
  state: "IL",
  postal_code: "62701",
  country: "US",
  preferred_confirmation_method: "text",
  preferred_contact_method: "email",
  preferred_language: "en",
  receives_email: true,
  receives_sms: true,
  ask_to_arrive_early_mins: 15,
  allergy_review_status: "nkda",
  appointment_module_note: "Prefers mornings",
  billing_cycle_day: 15,
  consent_flags: 5,
  emergency_contact_name: "Sam Smith",
  emergency_contact_phone: "217-555-0123",
  medicaid_id: "MC123",
  medical_summary: "Healthy",
  medical_urgent_note: "Latex allergy",
  premedication_required: true,
  smoking_snomed: "266919005",
  social_security_number: "123-45-6789",
  treatment_notes: "None",
  latest_vitals_date: "2024-01-10",
  billing_type_uuid: "01a1fe29-0000-7000-8000-0000000000b1",
  employer_uuid: "01a1fe29-0000-7000-8000-0000000000e1",
  fee_schedule_uuid: "01a1fe29-0000-7000-8000-0000000000f1",
};

describe("POST /patients", () => {
  test("creates with every writable field; answers the full record with refs, derived fields and a masked SSN", async () => {
    const r = await t.request("POST", P, {
      token,
      body: { ...FULL, location_uuid: locationId, primary_provider_uuid: providerId, secondary_provider_uuid: provider2Id },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    const p = r.body;
    const { social_security_number: _ssn, billing_type_uuid: _b, employer_uuid: _e, fee_schedule_uuid: _f, ...plain } = FULL;
    expect(p).toMatchObject(plain);
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.uuid).toBe(p.id);
    expect(p.version).toBe(1);
    expect(p.status).toBe("active");
    expect(p.created_at).toMatch(/Z$/);
    expect(p.deleted_at).toBeNull();
    expect(p.social_security_number).toBe("***-**-6789");
    expect(p.location).toEqual({ uuid: locationId, name: "Downtown Dental" });
    expect(p.primary_provider).toEqual({ uuid: providerId, name: "Ada Lovelace" });
    expect(p.secondary_provider).toEqual({ uuid: provider2Id, name: "Grace Hopper" });
    expect(p.billing_type).toEqual({ uuid: FULL.billing_type_uuid, name: null });
    expect(p.employer).toEqual({ uuid: FULL.employer_uuid, name: null });
    expect(p.fee_schedule).toEqual({ uuid: FULL.fee_schedule_uuid, name: "Office fees" });
    expect(p.responsible_party).toBeNull();
    expect(p.preferred_provider_uuid).toBe(providerId);
    expect(p.primary_phone).toBe("+1 (217) 555-0199");
    expect(p).toMatchObject({
      balance_0_30: "0.00",
      balance_31_60: "0.00",
      balance_61_90: "0.00",
      balance_over_90: "0.00",
      balance_total: "0.00",
      estimated_balance: "0.00",
      insurance_estimate: "0.00",
      payment_plan_due: "0.00",
      scheduling_restricted: false,
      potential_duplicates: [],
    });
    // stored: SSN digits, phone digits of every phone (+1 numbers also in national form)
    const row = (await rawRow(p.id))!;
    expect(row.social_security_number).toBe("123456789");
    expect(row.phone_digits).toBe("2175550100 12175550199 2175550199 2175550111");
    expect(await read(p.id)).toEqual(p);
  });

  test("only first_name and last_name are required; defaults apply", async () => {
    const p = await create({ first_name: "  Min ", last_name: "Imal" });
    expect(p).toMatchObject({
      first_name: "Min",
      last_name: "Imal",
      status: "active",
      allergy_review_status: "not_reviewed",
      consent_flags: 0,
      receives_email: false,
      receives_sms: false,
      premedication_required: false,
      email: null,
      primary_phone: null,
      location: null,
      primary_provider: null,
      preferred_provider_uuid: null,
      social_security_number: null,
      date_time_deceased: null,
    });
  });

  test("status may start as prospective, inactive or deceased (with a date of death); never archived", async () => {
    expect((await create({ first_name: "Pro", last_name: "Spect", status: "prospective" })).status).toBe("prospective");
    const inactive = await create({ first_name: "In", last_name: "Active", status: "inactive" });
    expect(inactive.scheduling_restricted).toBe(true);
    const dead = await create({ first_name: "De", last_name: "Ceased", status: "deceased", date_time_deceased: "2024-03-01T10:00:00-05:00" });
    expect(dead.date_time_deceased).toBe("2024-03-01T15:00:00.000Z");
    const r = await t.request("POST", P, { token, body: { first_name: "A", last_name: "B", status: "archived" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body", "status"], type: "enum" });
    const alive = await t.request("POST", P, { token, body: { first_name: "A", last_name: "B", date_time_deceased: "2024-03-01T10:00:00Z" } });
    expect(alive.status).toBe(422);
    expect(alive.body.detail[0]).toMatchObject({ loc: ["body", "date_time_deceased"], type: "value_error" });
  });

  test("the responsible party is another patient of this org", async () => {
    const guarantor = await create({ first_name: "Gary", last_name: "Guarantor" });
    const child = await create({ first_name: "Kid", last_name: "Guarantor", responsible_party_uuid: guarantor.id });
    expect(child.responsible_party).toEqual({ uuid: guarantor.id, name: "Gary Guarantor" });
  });

  test.each([
    ["missing first_name", { first_name: undefined }, ["body", "first_name"], "missing"],
    ["missing last_name", { last_name: undefined }, ["body", "last_name"], "missing"],
    ["blank first_name", { first_name: "  ", last_name: "X" }, ["body", "first_name"], "out_of_range"],
    ["first_name not a string", { first_name: 5, last_name: "X" }, ["body", "first_name"], "type_error"],
    ["ask_to_arrive_early_mins above 120", { ask_to_arrive_early_mins: 121 }, ["body", "ask_to_arrive_early_mins"], "out_of_range"],
    ["ask_to_arrive_early_mins negative", { ask_to_arrive_early_mins: -1 }, ["body", "ask_to_arrive_early_mins"], "out_of_range"],
    ["ask_to_arrive_early_mins fractional", { ask_to_arrive_early_mins: 1.5 }, ["body", "ask_to_arrive_early_mins"], "type_error"],
    ["billing_cycle_day 0", { billing_cycle_day: 0 }, ["body", "billing_cycle_day"], "out_of_range"],
    ["billing_cycle_day 32", { billing_cycle_day: 32 }, ["body", "billing_cycle_day"], "out_of_range"],
    ["consent_flags negative", { consent_flags: -1 }, ["body", "consent_flags"], "out_of_range"],
    ["gender", { gender: "robot" }, ["body", "gender"], "enum"],
    ["marital_status", { marital_status: "complicated" }, ["body", "marital_status"], "enum"],
    ["pronoun", { pronoun: "xe_xem" }, ["body", "pronoun"], "enum"],
    ["preferred_contact_method", { preferred_contact_method: "fax" }, ["body", "preferred_contact_method"], "enum"],
    ["preferred_confirmation_method", { preferred_confirmation_method: "pigeon" }, ["body", "preferred_confirmation_method"], "enum"],
    ["allergy_review_status", { allergy_review_status: "maybe" }, ["body", "allergy_review_status"], "enum"],
    ["date_of_birth format", { date_of_birth: "02/29/1984" }, ["body", "date_of_birth"], "format"],
    ["date_of_birth impossible", { date_of_birth: "1983-02-29" }, ["body", "date_of_birth"], "format"],
    ["date_of_birth in the future", { date_of_birth: "2999-01-01" }, ["body", "date_of_birth"], "value_error"],
    ["date_first_visit format", { date_first_visit: "2020-13-01" }, ["body", "date_first_visit"], "format"],
    ["latest_vitals_date format", { latest_vitals_date: "yesterday" }, ["body", "latest_vitals_date"], "format"],
    ["date_time_deceased without offset", { status: "deceased", date_time_deceased: "2024-03-01T10:00:00" }, ["body", "date_time_deceased"], "format"],
    ["email", { email: "not-an-email" }, ["body", "email"], "format"],
    ["social_security_number", { social_security_number: "12-345-6789" }, ["body", "social_security_number"], "format"],
    ["social_security_number length", { social_security_number: "1234567890" }, ["body", "social_security_number"], "format"],
    ["receives_sms not boolean", { receives_sms: "yes" }, ["body", "receives_sms"], "type_error"],
    ["location_uuid malformed", { location_uuid: "nope" }, ["body", "location_uuid"], "format"],
    ["unknown field", { favourite_colour: "blue" }, ["body", "favourite_colour"], "extra_forbidden"],
    ["id", { id: "01a1fe29-0000-7000-8000-000000000001" }, ["body", "id"], "read_only"],
    ["uuid", { uuid: "01a1fe29-0000-7000-8000-000000000001" }, ["body", "uuid"], "read_only"],
    ["version", { version: 3 }, ["body", "version"], "read_only"],
    ["created_at", { created_at: "2020-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
    ["deleted_at", { deleted_at: null }, ["body", "deleted_at"], "read_only"],
  ])("422 %s, and nothing is created", async (_name, fields, loc, type) => {
    const before = (await t.request("GET", `${P}?page_size=1`, { token })).body.total;
    const r = await t.request("POST", P, { token, body: { first_name: "Val", last_name: "Idation", ...fields } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(r.text).not.toContain("robot");
    expect((await t.request("GET", `${P}?page_size=1`, { token })).body.total).toBe(before);
  });

  test.each([
    "balance_total",
    "balance_0_30",
    "estimated_balance",
    "payment_plan_due",
    "scheduling_restricted",
    "potential_duplicates",
    "primary_phone",
    "preferred_provider_uuid",
    "location",
    "primary_provider",
  ])("422 for the derived field %s (never written)", async (field) => {
    const r = await t.request("POST", P, { token, body: { first_name: "Der", last_name: "Ived", [field]: "1000.00" } });
    expect(r.status).toBe(422);
    // read_only once the platform reads the schema's declared derived fields (see docs/patients/patients.md)
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", field], type: expect.stringMatching(/^(read_only|extra_forbidden)$/) }));
  });

  test("422 for malformed JSON; 415 for another media type", async () => {
    const bad = await t.request("POST", P, { token, rawBody: '{"first_name": "x",', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    const media = await t.request("POST", P, { token, rawBody: "first_name=x", headers: { "content-type": "text/plain" } });
    expect(media.status).toBe(415);
  });

  test("404 when a referenced location, provider or responsible party does not exist, is archived, or is another org's", async () => {
    const ghost = "01a1fe29-0000-7000-8000-00000000dead";
    const archivedLoc = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Old", timezone: "UTC" } })).body;
    await t.request("POST", `/api/v1/${orgId}/locations/${archivedLoc.id}/archive`, { token });
    const archivedProvider = await insertProvider(t, orgId, { first_name: "Old", last_name: "Doc", deleted: true });
    const foreignPatient = (await t.request("POST", `/api/v1/${otherOrg}/patients`, { token, body: { first_name: "For", last_name: "Eign" } })).body;
    const foreignProvider = await insertProvider(t, otherOrg, { first_name: "For", last_name: "Eign" });
    const before = (await t.request("GET", `${P}?page_size=1`, { token })).body.total;
    for (const [field, value, label] of [
      ["location_uuid", ghost, "Location"],
      ["location_uuid", archivedLoc.id, "Location"],
      ["primary_provider_uuid", ghost, "Provider"],
      ["secondary_provider_uuid", archivedProvider, "Provider"],
      ["primary_provider_uuid", foreignProvider, "Provider"],
      ["responsible_party_uuid", ghost, "Responsible party"],
      ["responsible_party_uuid", foreignPatient.id, "Responsible party"],
    ] as const) {
      const r = await t.request("POST", P, { token, body: { first_name: "Ref", last_name: "Check", [field]: value } });
      expect({ field, status: r.status, body: r.body }).toEqual({ field, status: 404, body: { detail: `${label} not found`, code: "not_found" } });
    }
    expect((await t.request("GET", `${P}?page_size=1`, { token })).body.total).toBe(before);
  });

  test("401 without a token, 404 for a non-member org, 403 without patients.write", async () => {
    expect((await t.request("POST", P, { body: { first_name: "A", last_name: "B" } })).status).toBe(401);
    const outsider = await createMember(t, otherOrg, ["patients.write", "patients.read"]);
    const r = await t.request("POST", P, { token: outsider.token, body: { first_name: "A", last_name: "B" } });
    expect(r.status).toBe(404);
    const reader = await createMember(t, orgId, ["patients.read"]);
    const before = (await t.request("GET", `${P}?page_size=1`, { token })).body.total;
    const f = await t.request("POST", P, { token: reader.token, body: { first_name: "A", last_name: "B" } });
    expect(f.status).toBe(403);
    expect(f.body.code).toBe("forbidden");
    expect((await t.request("GET", `${P}?page_size=1`, { token })).body.total).toBe(before);
  });
});

describe("GET /patients/{id}", () => {
  test("reads one patient; 404 for an unknown id, another org's patient and a non-member org; 401; 403", async () => {
    const p = await create({ first_name: "Read", last_name: "Me" });
    const ok = await t.request("GET", `${P}/${p.id}`, { token });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(p.id);
    expect(ok.headers.get("etag")).toBe('"1"');
    expect((await t.request("GET", `${P}/01a1fe29-0000-7000-8000-000000000000`, { token })).status).toBe(404);
    expect((await t.request("GET", `${P}/not-a-uuid`, { token })).status).toBe(404);
    const foreign = await t.request("GET", `/api/v1/${otherOrg}/patients/${p.id}`, { token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ detail: "Patient not found", code: "not_found" });
    const outsider = await createMember(t, otherOrg, ["patients.read"]);
    expect((await t.request("GET", `${P}/${p.id}`, { token: outsider.token })).status).toBe(404);
    expect((await t.request("GET", `${P}/${p.id}`)).status).toBe(401);
    const writerOnly = await createMember(t, orgId, ["locations.read"]);
    expect((await t.request("GET", `${P}/${p.id}`, { token: writerOnly.token })).status).toBe(403);
    const reader = await createMember(t, orgId, ["patients.read"]);
    expect((await t.request("GET", `${P}/${p.id}`, { token: reader.token })).status).toBe(200);
  });

  test("balances are money strings from the cents columns; scheduling_restricted above 500.00", async () => {
    const p = await create({ first_name: "Owes", last_name: "Money" });
    await setBalances(t, orgId, p.id, {
      balance_0_30_cents: 10_000,
      balance_31_60_cents: 20_000,
      balance_61_90_cents: 15_000,
      balance_over_90_cents: 5_000,
      estimated_balance_cents: 1234,
      insurance_estimate_cents: 99,
      payment_plan_due_cents: 2500,
    });
    const at500 = await read(p.id);
    expect(at500).toMatchObject({
      balance_0_30: "100.00",
      balance_31_60: "200.00",
      balance_61_90: "150.00",
      balance_over_90: "50.00",
      balance_total: "500.00",
      estimated_balance: "12.34",
      insurance_estimate: "0.99",
      payment_plan_due: "25.00",
      scheduling_restricted: false,
    });
    await setBalances(t, orgId, p.id, { balance_over_90_cents: 5_001 });
    const over = await read(p.id);
    expect(over.balance_total).toBe("500.01");
    expect(over.scheduling_restricted).toBe(true);
  });
});

describe("rows read through the patients domain's own statements (rows.ts)", () => {
  test("decode exactly as drizzle does: every column, booleans, nulls and the archived row", async () => {
    const full = await create({
      ...FULL,
      location_uuid: locationId,
      primary_provider_uuid: providerId,
      secondary_provider_uuid: provider2Id,
      receives_email: true,
      receives_sms: false,
      premedication_required: true,
    });
    const bare = await create({ first_name: "Bare", last_name: "Bones" });
    await t.request("POST", `${P}/${bare.id}/archive`, { token });
    const db = await orgDb(t, orgId);
    for (const id of [full.id, bare.id]) {
      const mine = await db.read((d) => findPatientRow(d, id));
      const drizzles = await rawRow(id);
      expect(mine).toEqual(drizzles!);
      expect(Object.keys(mine!)).toEqual(Object.keys(drizzles!));
    }
    const mine = (await db.read((d) => findPatientRow(d, full.id)))!;
    expect([mine.receives_email, mine.receives_sms, mine.premedication_required]).toEqual([true, false, true]);
    expect(await db.read((d) => findPatientRow(d, "01a1fe29-0000-7000-8000-000000000000"))).toBeUndefined();
  });

  test("GET by id (one statement with the reference names) answers what the list and a write answer", async () => {
    const guarantor = await create({ first_name: "Gus", last_name: "Payer" });
    const base = { ...FULL, first_name: "Twin", last_name: "Parity", location_uuid: locationId, primary_provider_uuid: providerId };
    const one = await create({ ...base, secondary_provider_uuid: provider2Id, responsible_party_uuid: guarantor.id });
    const other = await create({ ...base, chart_number: "A-1002", email: "twin2@example.com" }); // a potential duplicate of `one`
    const self = await create({ first_name: "Self", last_name: "Guarantor" });
    const selfPaid = (await t.request("PATCH", `${P}/${self.id}`, { token, body: { base_version: 1, responsible_party_uuid: self.id } })).body;
    // an archived guarantor keeps its name in the reference
    await t.request("POST", `${P}/${guarantor.id}/archive`, { token });
    const [oneNow, otherNow, selfNow] = await Promise.all([one.id, other.id, self.id].map(read));
    expect(oneNow.location).toEqual({ uuid: locationId, name: "Downtown Dental" });
    expect(oneNow.primary_provider).toEqual({ uuid: providerId, name: "Ada Lovelace" });
    expect(oneNow.secondary_provider).toEqual({ uuid: provider2Id, name: "Grace Hopper" });
    expect(oneNow.responsible_party).toEqual({ uuid: guarantor.id, name: "Gus Payer" });
    expect(oneNow.fee_schedule).toEqual({ uuid: FULL.fee_schedule_uuid, name: "Office fees" });
    expect(oneNow.potential_duplicates.map((d: { uuid: string }) => d.uuid)).toEqual([other.id]);
    expect(otherNow.potential_duplicates.map((d: { uuid: string }) => d.uuid)).toEqual([one.id]);
    expect(otherNow.secondary_provider).toBeNull();
    expect(selfNow).toEqual(selfPaid);
    expect(selfNow.responsible_party).toEqual({ uuid: self.id, name: "Self Guarantor" });
    const listed = (await t.request("GET", `${P}?search=Twin Parity&sort_by=created_at`, { token })).body.items;
    expect(listed).toEqual([oneNow, otherNow]);
    // archiving one side of the pair takes it off the other's list
    await t.request("POST", `${P}/${other.id}/archive`, { token });
    expect((await read(one.id)).potential_duplicates).toEqual([]);
  });
});

describe("PATCH /patients/{id}", () => {
  test("updates fields, bumps the version, clears with null and keeps phone digits in step", async () => {
    const p = await create({ first_name: "Pat", last_name: "Ch", home_phone: "(217) 555-0001", email: "pat@example.com" });
    const r = await t.request("PATCH", `${P}/${p.id}`, {
      token,
      body: {
        base_version: 1,
        first_name: "Patty",
        email: null,
        mobile_phone: "217 555 0002",
        gender: "other",
        ask_to_arrive_early_mins: 0,
        billing_cycle_day: 31,
        location_uuid: locationId,
        primary_provider_uuid: provider2Id,
        social_security_number: "987654321",
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toMatchObject({
      version: 2,
      first_name: "Patty",
      last_name: "Ch",
      email: null,
      mobile_phone: "217 555 0002",
      home_phone: "(217) 555-0001",
      primary_phone: "217 555 0002",
      gender: "other",
      ask_to_arrive_early_mins: 0,
      billing_cycle_day: 31,
      location: { uuid: locationId, name: "Downtown Dental" },
      primary_provider: { uuid: provider2Id, name: "Grace Hopper" },
      preferred_provider_uuid: provider2Id,
      social_security_number: "***-**-4321",
    });
    expect((await rawRow(p.id))!.phone_digits).toBe("2175550001 2175550002");
    const cleared = await t.request("PATCH", `${P}/${p.id}`, {
      token,
      body: { base_version: 2, mobile_phone: null, location_uuid: null, primary_provider_uuid: null },
    });
    expect(cleared.body).toMatchObject({ version: 3, primary_phone: "(217) 555-0001", location: null, primary_provider: null, preferred_provider_uuid: null });
    expect((await rawRow(p.id))!.phone_digits).toBe("2175550001");
  });

  test("a patient may be its own responsible party", async () => {
    const p = await create({ first_name: "Self", last_name: "Pay" });
    const r = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, responsible_party_uuid: p.id } });
    expect(r.status).toBe(200);
    expect(r.body.responsible_party).toEqual({ uuid: p.id, name: "Self Pay" });
  });

  test("409 on a stale base_version, and the row keeps its values", async () => {
    const p = await create({ first_name: "Stale", last_name: "Mate" });
    await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, city: "Peoria" } });
    const r = await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, city: "Lost" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect(await read(p.id)).toMatchObject({ version: 2, city: "Peoria" });
  });

  test("422: missing base_version, status (use transition-status), derived and unknown fields, bad values; nothing changes", async () => {
    const p = await create({ first_name: "Strict", last_name: "Patch" });
    const cases: [Record<string, unknown>, (string | number)[], string | RegExp][] = [
      [{ city: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 1, status: "inactive" }, ["body", "status"], /^(read_only|extra_forbidden)$/],
      [{ base_version: 1, balance_total: 0 }, ["body", "balance_total"], /^(read_only|extra_forbidden)$/],
      [{ base_version: 1, id: p.id }, ["body", "id"], "read_only"],
      [{ base_version: 1, nickname: "x" }, ["body", "nickname"], "extra_forbidden"],
      [{ base_version: 1, first_name: null }, ["body", "first_name"], "type_error"],
      [{ base_version: 1, ask_to_arrive_early_mins: 500 }, ["body", "ask_to_arrive_early_mins"], "out_of_range"],
      [{ base_version: 1, date_time_deceased: "2024-01-01T00:00:00Z" }, ["body", "date_time_deceased"], "value_error"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("PATCH", `${P}/${p.id}`, { token, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type: typeof type === "string" ? type : expect.stringMatching(type) }));
    }
    expect(await read(p.id)).toMatchObject({ version: 1, status: "active", city: null, first_name: "Strict" });
  });

  test("404 for unknown ids, another org's patient and missing refs; 401; 403; nothing changes", async () => {
    const p = await create({ first_name: "Guard", last_name: "Ed" });
    expect((await t.request("PATCH", `${P}/01a1fe29-0000-7000-8000-000000000000`, { token, body: { base_version: 1, city: "X" } })).status).toBe(404);
    expect((await t.request("PATCH", `/api/v1/${otherOrg}/patients/${p.id}`, { token, body: { base_version: 1, city: "X" } })).status).toBe(404);
    const missingRef = await t.request("PATCH", `${P}/${p.id}`, {
      token,
      body: { base_version: 1, primary_provider_uuid: "01a1fe29-0000-7000-8000-00000000dead" },
    });
    expect(missingRef.status).toBe(404);
    expect(missingRef.body.detail).toBe("Provider not found");
    expect((await t.request("PATCH", `${P}/${p.id}`, { body: { base_version: 1, city: "X" } })).status).toBe(401);
    const reader = await createMember(t, orgId, ["patients.read"]);
    expect((await t.request("PATCH", `${P}/${p.id}`, { token: reader.token, body: { base_version: 1, city: "X" } })).status).toBe(403);
    expect(await read(p.id)).toMatchObject({ version: 1, city: null, primary_provider: null });
  });
});

describe("audit and SSN", () => {
  test("writes are audited; the SSN never appears in audit entries, only that one is on file", async () => {
    const p = await create({ first_name: "Secret", last_name: "Number", social_security_number: "111-22-3333" });
    await t.request("PATCH", `${P}/${p.id}`, { token, body: { base_version: 1, social_security_number: "444556666", city: "Joliet" } });
    const entries = await auditOf(t, orgId, p.id);
    expect(entries.map((e) => e.action).sort()).toEqual(["patient.created", "patient.updated"]);
    // ids and request ids are random hex: one may hold "3333" by chance, so they are blanked first
    const text = JSON.stringify(entries).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>");
    expect(text).toContain('"resource_id":"<id>"');
    for (const digits of ["111223333", "111-22-3333", "3333", "444556666", "6666"]) expect(text).not.toContain(digits);
    const updated = entries.find((e) => e.action === "patient.updated")!;
    expect(updated.before.social_security_number).toBe("[redacted]");
    expect(updated.after.city).toBe("Joliet");
    expect(updated.before.city).toBeNull();
  });
});
