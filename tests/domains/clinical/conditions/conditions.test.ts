import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { conditionsApp, dayFromToday, insertProvider } from "./fixtures";

let m: Awaited<ReturnType<typeof conditionsApp>>;
let providerId: string;
let archivedProviderId: string;
let foreignProviderId: string;
let caries: { id: string; item_name: string };
let foreignDiagnosis: string;
let billingType: string;
beforeAll(async () => {
  m = await conditionsApp();
  providerId = await insertProvider(m.t, m.orgId, { first_name: "Ada", last_name: "Lovelace" });
  archivedProviderId = await insertProvider(m.t, m.orgId, { first_name: "Old", last_name: "Timer", deleted: true });
  foreignProviderId = await insertProvider(m.t, m.otherOrg, { first_name: "For", last_name: "Eign" });
  caries = (await m.diagnoses()).find((d) => d.item_value === "K02.9")!;
  foreignDiagnosis = (await m.diagnoses(m.otherOrg))[0]!.id;
  billingType = (await m.t.request("GET", `${m.P()}/definitions?category=billing_types`, { token: m.token })).body.items[0].id;
});
afterAll(() => m.t.close());

const today = () => dayFromToday(0);
const list = async (patientId: string, query = "") => (await m.t.request("GET", `${m.listPath(patientId)}${query}`, { token: m.token })).body;
const patch = (id: string, body: Record<string, unknown>) => m.t.request("PATCH", m.itemPath(id), { token: m.token, body });

describe("create and get", () => {
  test("every field: references answer {uuid, name}, tooth and surface in canonical form", async () => {
    const p = await m.createPatient();
    const body = {
      condition_type: "caries",
      date_identified: "2024-03-05",
      tooth_number: "c",
      surface: "om",
      severity: "moderate",
      status: "monitoring",
      provider_uuid: providerId.toUpperCase(),
      diagnostic_code_uuid: caries.id,
      note: "Watch at recall",
    };
    const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, body });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      patient: { uuid: p.id, name: "Pat Ient" },
      condition_type: "caries",
      date_identified: "2024-03-05",
      date_resolved: null,
      tooth_number: "C",
      surface: "MO",
      severity: "moderate",
      status: "monitoring",
      provider: { uuid: providerId, name: "Ada Lovelace" },
      diagnostic_code: { uuid: caries.id, name: "Dental caries" },
      note: "Watch at recall",
      version: 1,
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
    });
    const got = await m.t.request("GET", m.itemPath(r.body.id), { token: m.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
    expect(got.headers.get("etag")).toBe('"1"');
    expect(await m.rowOf(r.body.id)).toMatchObject({
      patient_id: p.id,
      provider_id: providerId,
      diagnostic_code_id: caries.id,
      tooth_number: "C",
      surface: "MO",
    });
  });

  test("defaults: status active, date_identified today (UTC without a location), the rest null or empty", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, { condition_type: "watch" });
    expect(c).toMatchObject({
      condition_type: "watch",
      status: "active",
      date_identified: today(),
      date_resolved: null,
      tooth_number: null,
      surface: null,
      severity: null,
      provider: null,
      diagnostic_code: null,
      note: "",
    });
  });

  test("date_identified defaults to today in the patient's practice time zone", async () => {
    const zone = "Pacific/Kiritimati"; // UTC+14: its date is often tomorrow in UTC
    const loc = await m.t.request("POST", `${m.P()}/locations`, { token: m.token, body: { name: "Island office", timezone: zone } });
    const p = await m.createPatient({ location_uuid: loc.body.id });
    const c = await m.createCondition(p.id);
    expect(c.date_identified).toBe(Temporal.Now.plainDateISO(zone).toString());
    expect(c.date_identified >= today()).toBe(true);
  });

  test("status resolved on create sets date_resolved (today unless given)", async () => {
    const p = await m.createPatient();
    const a = await m.createCondition(p.id, { status: "resolved", date_identified: "2024-01-01" });
    expect(a).toMatchObject({ status: "resolved", date_resolved: today() });
    const b = await m.createCondition(p.id, { status: "resolved", date_identified: "2024-01-01", date_resolved: "2024-02-01" });
    expect(b).toMatchObject({ status: "resolved", date_identified: "2024-01-01", date_resolved: "2024-02-01" });
  });

  test.each([
    ["missing condition_type", { condition_type: undefined }, ["body", "condition_type"], "missing"],
    ["unknown condition_type", { condition_type: "cavity" }, ["body", "condition_type"], "enum"],
    ["condition_type a number", { condition_type: 3 }, ["body", "condition_type"], "enum"],
    ["tooth 33", { tooth_number: "33" }, ["body", "tooth_number"], "format"],
    ["tooth 0", { tooth_number: "0" }, ["body", "tooth_number"], "format"],
    ["tooth U", { tooth_number: "U" }, ["body", "tooth_number"], "format"],
    ["tooth as a number", { tooth_number: 14 }, ["body", "tooth_number"], "type_error"],
    ["surface X", { tooth_number: "14", surface: "X" }, ["body", "surface"], "format"],
    ["surface repeated", { tooth_number: "14", surface: "MM" }, ["body", "surface"], "value_error"],
    ["unknown severity", { severity: "extreme" }, ["body", "severity"], "enum"],
    ["unknown status", { status: "cured" }, ["body", "status"], "enum"],
    ["bad date_identified", { date_identified: "2024-02-30" }, ["body", "date_identified"], "format"],
    ["date_identified a number", { date_identified: 20240101 }, ["body", "date_identified"], "type_error"],
    ["bad provider_uuid", { provider_uuid: "nope" }, ["body", "provider_uuid"], "format"],
    ["bad diagnostic_code_uuid", { diagnostic_code_uuid: 12 }, ["body", "diagnostic_code_uuid"], "type_error"],
    ["note too long", { note: "x".repeat(2001) }, ["body", "note"], "out_of_range"],
    ["note null", { note: null }, ["body", "note"], "type_error"],
    ["unknown field", { colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ["id is read-only", { id: "0190a1b2-0000-7000-8000-000000000001" }, ["body", "id"], "read_only"],
    ["version is read-only", { version: 3 }, ["body", "version"], "read_only"],
    ["provider ref is read-only", { provider: { uuid: "x" } }, ["body", "provider"], "read_only"],
    ["base_version is unknown on create", { base_version: 1 }, ["body", "base_version"], "extra_forbidden"],
  ])("422 on create: %s; nothing written", async (_name, extra, loc, type) => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, body: { condition_type: "caries", ...extra } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect(r.body.code).toBeUndefined();
    expect((await list(p.id)).total).toBe(0);
  });

  test.each([
    ["date_identified in the future", { date_identified: dayFromToday(2) }, "date_identified", "date_in_future"],
    ["date_resolved in the future", { status: "resolved", date_resolved: dayFromToday(2) }, "date_resolved", "date_in_future"],
    [
      "date_resolved before date_identified",
      { date_identified: "2024-05-01", status: "resolved", date_resolved: "2024-04-30" },
      "date_resolved",
      "invalid_date_range",
    ],
    ["date_resolved without status resolved", { date_resolved: "2024-04-30" }, "date_resolved", "condition_not_resolved"],
    ["a surface without a tooth", { surface: "O" }, "surface", "surface_without_tooth"],
  ])("422 domain rule on create: %s; nothing written", async (_name, extra, field, code) => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, body: { condition_type: "fracture", ...extra } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code, detail: [{ loc: ["body", field], type: "value_error" }] });
    expect((await list(p.id)).total).toBe(0);
  });

  test("malformed JSON is 422 json_invalid; nothing written", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, rawBody: '{"condition_type": ', headers: { "content-type": "application/json" } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }] });
    expect((await list(p.id)).total).toBe(0);
  });

  test("provider_uuid must be a current provider of this org (404 unknown, archived, another org's); nothing written", async () => {
    const p = await m.createPatient();
    for (const id of ["0190a1b2-0000-7000-8000-0000000000ff", archivedProviderId, foreignProviderId]) {
      const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, body: { condition_type: "caries", provider_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Provider not found", code: "not_found" });
    }
    expect((await list(p.id)).total).toBe(0);
  });

  test("diagnostic_code_uuid must be a diagnosis definition of this org (404 unknown, other category, another org's, archived)", async () => {
    const p = await m.createPatient();
    const created = await m.t.request("POST", `${m.P()}/definitions`, {
      token: m.token,
      body: { category: "diagnosis_codes", item_name: "Old diagnosis", item_value: "K00.0" },
    });
    await m.t.request("POST", `${m.P()}/definitions/${created.body.id}/archive`, { token: m.token });
    for (const id of ["0190a1b2-0000-7000-8000-0000000000ff", billingType, foreignDiagnosis, created.body.id]) {
      const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, body: { condition_type: "caries", diagnostic_code_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Diagnostic code not found", code: "not_found" });
    }
    expect((await list(p.id)).total).toBe(0);
  });

  test("404 for a missing patient; 422 patient_archived for an archived one", async () => {
    const missing = await m.t.request("POST", m.listPath("0190a1b2-0000-7000-8000-0000000000ee"), { token: m.token, body: { condition_type: "caries" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: "Patient not found", code: "not_found" });
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    await m.t.request("POST", `${m.P()}/patients/${p.id}/archive`, { token: m.token });
    const r = await m.t.request("POST", m.listPath(p.id), { token: m.token, body: { condition_type: "caries" } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("patient_archived");
    expect((await patch(c.id, { base_version: 1, note: "x" })).body.code).toBe("patient_archived");
    expect((await m.t.request("DELETE", `${m.itemPath(c.id)}?base_version=1`, { token: m.token })).body.code).toBe("patient_archived");
    // the archived patient's chart stays readable
    expect((await list(p.id)).total).toBe(1);
    expect((await m.t.request("GET", m.itemPath(c.id), { token: m.token })).status).toBe(200);
    expect(await m.rowOf(c.id)).toMatchObject({ version: 1, note: "", deleted_at: null });
  });

  test("GET: 404 for an unknown id and a malformed one", async () => {
    for (const id of ["0190a1b2-0000-7000-8000-0000000000ee", "not-a-uuid"]) {
      const r = await m.t.request("GET", m.itemPath(id), { token: m.token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Condition not found", code: "not_found" });
    }
  });

  test("audit row and event on create: ids only", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, { note: "Deep lesion near pulp", tooth_number: "3" });
    const audit = await auditOf(m.t, m.orgId, c.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: "patient_condition.created", resource_type: "patient_condition", resource_id: c.id });
    const ev = await m.eventsOf(c.id);
    expect(ev.map((e) => [e.type, e.data])).toEqual([["patient_condition.created", { id: c.id, patient_id: p.id }]]);
    expect(JSON.stringify(ev)).not.toContain("Deep lesion");
  });
});

describe("list", () => {
  test("ordered by date_identified; filters status, condition_type, tooth_number (any case); paging; 422 on bad filters", async () => {
    const p = await m.createPatient();
    const other = await m.createPatient();
    await m.createCondition(other.id, { tooth_number: "3" });
    const a = await m.createCondition(p.id, { condition_type: "caries", tooth_number: "3", date_identified: "2024-05-01" });
    const b = await m.createCondition(p.id, { condition_type: "fracture", tooth_number: "A", date_identified: "2023-01-01", status: "monitoring" });
    const c = await m.createCondition(p.id, {
      condition_type: "caries",
      tooth_number: "30",
      date_identified: "2024-01-01",
      status: "resolved",
      date_resolved: "2024-02-01",
    });
    const d = await m.createCondition(p.id, { condition_type: "periodontal", date_identified: "2024-05-01" });
    const ids = async (q: string) => (await list(p.id, q)).items.map((x: { id: string }) => x.id);
    expect(await ids("")).toEqual([b.id, c.id, a.id, d.id]);
    expect(await ids("?status=active")).toEqual([a.id, d.id]);
    expect(await ids("?status=resolved")).toEqual([c.id]);
    expect(await ids("?condition_type=caries")).toEqual([c.id, a.id]);
    expect(await ids("?tooth_number=a")).toEqual([b.id]);
    expect(await ids("?tooth_number=3&status=active")).toEqual([a.id]);
    expect(await list(p.id, "?page=2&page_size=3")).toMatchObject({ page: 2, page_size: 3, total: 4, items: [{ id: d.id }] });
    expect(await list(p.id)).toMatchObject({ page: 1, page_size: 50, total: 4 });
    for (const q of ["?status=cured", "?condition_type=cavity", "?tooth_number=33", "?page=0", "?page_size=201", "?toothnumber=3"]) {
      const r = await m.t.request("GET", `${m.listPath(p.id)}${q}`, { token: m.token });
      expect([q, r.status]).toEqual([q, 422]);
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
  });

  test("404 for a missing patient", async () => {
    const r = await m.t.request("GET", m.listPath("0190a1b2-0000-7000-8000-0000000000ee"), { token: m.token });
    expect(r.status).toBe(404);
  });
});

describe("PATCH", () => {
  test("changes only the given fields; event lists the changed fields; audit has before and after", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, { tooth_number: "14", surface: "O", note: "Initial" });
    const r = await patch(c.id, { base_version: 1, surface: "DO", severity: "severe", provider_uuid: providerId, diagnostic_code_uuid: caries.id });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      surface: "OD",
      severity: "severe",
      tooth_number: "14",
      note: "Initial",
      status: "active",
      version: 2,
      provider: { uuid: providerId, name: "Ada Lovelace" },
      diagnostic_code: { uuid: caries.id, name: "Dental caries" },
    });
    expect(r.headers.get("etag")).toBe('"2"');
    const ev = await m.eventsOf(c.id);
    expect(ev[1]).toMatchObject({
      type: "patient_condition.updated",
      data: { id: c.id, patient_id: p.id, changed_fields: ["surface", "severity", "provider_id", "diagnostic_code_id"] },
    });
    const audit = await auditOf(m.t, m.orgId, c.id);
    expect(audit.map((a) => a.action)).toEqual(["patient_condition.created", "patient_condition.updated"]);
    const cleared = await patch(c.id, { base_version: 2, provider_uuid: null, diagnostic_code_uuid: null, severity: null, surface: null, tooth_number: null });
    expect(cleared.body).toMatchObject({ provider: null, diagnostic_code: null, severity: null, surface: null, tooth_number: null, version: 3 });
  });

  test("resolving sets date_resolved (today unless given) and emits patient_condition.resolved; leaving resolved clears it", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, { date_identified: "2024-01-10" });
    const resolved = await patch(c.id, { base_version: 1, status: "resolved" });
    expect(resolved.body).toMatchObject({ status: "resolved", date_resolved: today(), version: 2 });
    const corrected = await patch(c.id, { base_version: 2, date_resolved: "2024-03-01" });
    expect(corrected.body).toMatchObject({ status: "resolved", date_resolved: "2024-03-01", version: 3 });
    const noted = await patch(c.id, { base_version: 3, note: "Restored with composite" });
    expect(noted.body).toMatchObject({ status: "resolved", date_resolved: "2024-03-01", version: 4 });
    const reopened = await patch(c.id, { base_version: 4, status: "monitoring" });
    expect(reopened.body).toMatchObject({ status: "monitoring", date_resolved: null, version: 5 });
    const given = await patch(c.id, { base_version: 5, status: "resolved", date_resolved: "2024-01-10" });
    expect(given.body).toMatchObject({ status: "resolved", date_resolved: "2024-01-10", version: 6 });
    const ev = await m.eventsOf(c.id);
    expect(ev.map((e) => [e.type, e.data.changed_fields])).toEqual([
      ["patient_condition.created", undefined],
      ["patient_condition.resolved", ["status", "date_resolved"]],
      ["patient_condition.updated", ["date_resolved"]],
      ["patient_condition.updated", ["note"]],
      ["patient_condition.updated", ["status", "date_resolved"]],
      ["patient_condition.resolved", ["status", "date_resolved"]],
    ]);
    expect((await auditOf(m.t, m.orgId, c.id)).map((a) => a.action)).toContain("patient_condition.resolved");
  });

  test.each([
    ["date_resolved before date_identified", { status: "resolved", date_resolved: "2024-01-09" }, "date_resolved", "invalid_date_range"],
    ["date_resolved in the future", { status: "resolved", date_resolved: dayFromToday(2) }, "date_resolved", "date_in_future"],
    ["date_identified in the future", { date_identified: dayFromToday(2) }, "date_identified", "date_in_future"],
    ["date_resolved on an unresolved condition", { date_resolved: "2024-02-01" }, "date_resolved", "condition_not_resolved"],
    ["leaving resolved while sending date_resolved", { status: "active", date_resolved: "2024-02-01" }, "date_resolved", "condition_not_resolved"],
    ["a surface without a tooth", { surface: "M" }, "surface", "surface_without_tooth"],
  ])("422 domain rule: %s; nothing changed", async (_name, body, field, code) => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, { date_identified: "2024-01-10" });
    const r = await patch(c.id, { base_version: 1, ...body });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code, detail: [{ loc: ["body", field] }] });
    expect(await m.rowOf(c.id)).toMatchObject({ version: 1, status: "active", date_resolved: null, date_identified: "2024-01-10", surface: null });
  });

  test("moving date_identified after a resolved condition's date_resolved is 422 invalid_date_range; removing the tooth of a surface too", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, {
      date_identified: "2024-01-10",
      status: "resolved",
      date_resolved: "2024-02-01",
      tooth_number: "8",
      surface: "I",
    });
    const r = await patch(c.id, { base_version: 1, date_identified: "2024-02-02" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "invalid_date_range", detail: [{ loc: ["body", "date_identified"] }] });
    expect((await patch(c.id, { base_version: 1, tooth_number: null })).body.code).toBe("surface_without_tooth");
    expect((await patch(c.id, { base_version: 1, date_identified: "2024-02-01" })).body).toMatchObject({ date_identified: "2024-02-01", version: 2 });
  });

  test.each([
    ["missing base_version", { note: "x" }, ["body", "base_version"], "missing"],
    ["base_version a string", { base_version: "1" }, ["body", "base_version"], "type_error"],
    ["base_version 0", { base_version: 0 }, ["body", "base_version"], "out_of_range"],
    ["unknown field", { base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ["patient is read-only", { base_version: 1, patient: {} }, ["body", "patient"], "read_only"],
    ["status null", { base_version: 1, status: null }, ["body", "status"], "enum"],
    ["condition_type null", { base_version: 1, condition_type: null }, ["body", "condition_type"], "enum"],
    ["date_identified null", { base_version: 1, date_identified: null }, ["body", "date_identified"], "type_error"],
    ["bad tooth", { base_version: 1, tooth_number: "T1" }, ["body", "tooth_number"], "format"],
  ])("422 schema: %s; nothing changed", async (_name, body, loc, type) => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    const r = await patch(c.id, body);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect((await m.rowOf(c.id))!.version).toBe(1);
  });

  test("malformed JSON is 422; 409 on a stale base_version; 404 for unknown provider / diagnosis and unknown or deleted condition; nothing changed", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id, { note: "keep" });
    const bad = await m.t.request("PATCH", m.itemPath(c.id), { token: m.token, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    await patch(c.id, { base_version: 1, severity: "mild" });
    const stale = await patch(c.id, { base_version: 1, note: "lost update" });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: "version_conflict" });
    expect((await patch(c.id, { base_version: 2, provider_uuid: foreignProviderId })).status).toBe(404);
    expect((await patch(c.id, { base_version: 2, diagnostic_code_uuid: billingType })).status).toBe(404);
    expect(await m.rowOf(c.id)).toMatchObject({ version: 2, note: "keep", severity: "mild", provider_id: null, diagnostic_code_id: null });
    expect((await patch("0190a1b2-0000-7000-8000-0000000000ee", { base_version: 1 })).status).toBe(404);
    await m.t.request("DELETE", `${m.itemPath(c.id)}?base_version=2`, { token: m.token });
    const gone = await patch(c.id, { base_version: 3, note: "zombie" });
    expect(gone.status).toBe(404);
    expect(await m.rowOf(c.id)).toMatchObject({ version: 3, note: "keep" });
  });
});

describe("DELETE", () => {
  test("204 soft delete: leaves the list and GET; deleted event and audit; repeat is 404", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    const keep = await m.createCondition(p.id);
    const r = await m.t.request("DELETE", `${m.itemPath(c.id)}?base_version=1`, { token: m.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(await m.rowOf(c.id)).toMatchObject({ version: 2, deleted_at: expect.any(String) });
    expect((await list(p.id)).items.map((x: { id: string }) => x.id)).toEqual([keep.id]);
    expect((await m.t.request("GET", m.itemPath(c.id), { token: m.token })).status).toBe(404);
    expect((await m.t.request("DELETE", `${m.itemPath(c.id)}?base_version=2`, { token: m.token })).status).toBe(404);
    const ev = await m.eventsOf(c.id);
    expect(ev[1]).toMatchObject({ type: "patient_condition.deleted", data: { id: c.id, patient_id: p.id, changed_fields: ["deleted_at"] } });
    expect((await auditOf(m.t, m.orgId, c.id)).map((a) => a.action)).toEqual(["patient_condition.created", "patient_condition.deleted"]);
  });

  test("409 on a stale base_version, 422 without or with a bad one, 404 unknown; nothing changed", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    await patch(c.id, { base_version: 1, note: "v2" });
    const stale = await m.t.request("DELETE", `${m.itemPath(c.id)}?base_version=1`, { token: m.token });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    for (const q of ["", "?base_version=abc", "?base_version=0", "?base_version=2&force=1"]) {
      const r = await m.t.request("DELETE", `${m.itemPath(c.id)}${q}`, { token: m.token });
      expect([q, r.status]).toEqual([q, 422]);
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
    expect((await m.t.request("DELETE", `${m.itemPath("0190a1b2-0000-7000-8000-0000000000ee")}?base_version=1`, { token: m.token })).status).toBe(404);
    expect(await m.rowOf(c.id)).toMatchObject({ version: 2, deleted_at: null });
  });
});
