import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { chartApp, insertProvider, MISSING, type ChartApp } from "./fixtures";

let m: ChartApp;
let sextantCode: string;
beforeAll(async () => {
  m = await chartApp();
  sextantCode = (await m.createCode({ code: "X1001", short_name: "Sextant debridement", code_type: "custom", treatment_area: "sextant", default_fee: 80 })).id;
});
afterAll(() => m.t.close());

const post = async (patientId: string, body: Record<string, unknown>, org = m.orgId) =>
  m.t.request("POST", m.procPath(patientId, org), { token: m.token, body });
const list = async (patientId: string) => (await m.t.request("GET", `${m.procPath(patientId)}?include_deleted=true`, { token: m.token })).body;

describe("create", () => {
  test("every field: refs answer {uuid, name}; office_fee is the code's default fee; fee_override wins effective_fee", async () => {
    const p = await m.createPatient();
    const providerId = await insertProvider(m.t, m.orgId, { first_name: "Ada", last_name: "Molar" });
    const locationId = await m.createLocation("Downtown");
    const apptId = await m.insertAppointment(p.id);
    const priority = await m.definitionId("priority", "Urgent");
    const prognosis = await m.definitionId("prognosis", "Fair");
    const diagnosis = await m.definitionId("diagnosis_codes", "Dental caries");
    const body = {
      procedure_code_uuid: await m.codeId("D2392"),
      tooth_number: "14",
      surfaces: "dom",
      status: "treatment_planned",
      provider_uuid: providerId,
      location_uuid: locationId,
      appointment_uuid: apptId,
      date_service: "2024-03-04",
      date_original_prosthetic: "2010-01-01",
      fee_override: 199.5,
      billing_order_code: "DM",
      do_not_bill_insurance: true,
      is_prosthetic: true,
      note: "Watch the contact",
      clinical_note: "Deep lesion distal",
      billing_note: "Narrative attached",
      material_type_code: "COMP",
      priority_uuid: priority,
      prognosis_uuid: prognosis,
      diagnostic_code_uuid: diagnosis,
      diagnosis_code_1: "k02.9",
      diagnosis_code_2: "K03.81",
      diagnosis_code_3: null,
      diagnosis_code_4: null,
      bundle_group_id: 7,
      item_order: 2,
      visit_phase_hint: 1,
    };
    const r = await post(p.id, body);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      version: 1,
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
      deleted_at: null,
      patient: { uuid: p.id, name: "Pat Ient" },
      procedure_code_uuid: body.procedure_code_uuid,
      procedure_code: "D2392",
      procedure_description: "Composite filling, back tooth, two surfaces",
      procedure_category: "restorative",
      treatment_area: "surface",
      tooth_number: "14",
      surfaces: "MOD",
      quadrant: null,
      arch: null,
      sextant: null,
      tooth_range: null,
      status: "treatment_planned",
      date_service: "2024-03-04",
      date_treatment_planned: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      date_completed: null,
      date_original_prosthetic: "2010-01-01",
      provider: { uuid: providerId, name: "Ada Molar" },
      location: { uuid: locationId, name: "Downtown" },
      appointment: { uuid: apptId, name: "2030-01-02T09:00:00" },
      office_fee: "225.00",
      fee_schedule: null,
      fee_override: "199.50",
      effective_fee: "199.50",
      fee_source: "override",
      billing_order_code: "DM",
      do_not_bill_insurance: true,
      is_prosthetic: true,
      has_active_claim: false,
      note: "Watch the contact",
      clinical_note: "Deep lesion distal",
      billing_note: "Narrative attached",
      material_type_code: "COMP",
      priority: { uuid: priority, name: "Urgent" },
      prognosis: { uuid: prognosis, name: "Fair" },
      diagnostic_code: { uuid: diagnosis, name: "Dental caries" },
      diagnosis_code_1: "K02.9",
      diagnosis_code_2: "K03.81",
      diagnosis_code_3: null,
      diagnosis_code_4: null,
      explosion_code: null,
      bundle_group_id: 7,
      code_sent: null,
      item_order: 2,
      visit_phase_hint: 1,
    });
    const got = await m.t.request("GET", m.procById(r.body.id), { token: m.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
    expect(got.headers.get("etag")).toBe('"1"');
  });

  test("defaults: treatment_planned, today, office fee from the code, billing order from the code, empty note", async () => {
    const p = await m.createPatient();
    const r = await m.chart(p.id, "D2740", { tooth_number: "8" });
    expect(r).toMatchObject({
      status: "treatment_planned",
      date_service: m.today(),
      date_treatment_planned: m.today(),
      date_completed: null,
      office_fee: "1250.00",
      fee_override: null,
      effective_fee: "1250.00",
      fee_source: "fee_schedule",
      billing_order_code: "D",
      do_not_bill_insurance: false,
      is_prosthetic: false,
      note: "",
      provider: null,
      location: null,
      appointment: null,
      priority: null,
    });
  });

  test("today is the practice's day: the location's time zone decides date_service", async () => {
    const p = await m.createPatient();
    const east = await m.createLocation("Far east", "Pacific/Kiritimati"); // UTC+14
    const r = await m.chart(p.id, "D0150", { location_uuid: east });
    expect(r.date_service).toBe(Temporal.Now.plainDateISO("Pacific/Kiritimati").toString());
  });

  test("entry statuses: complete (same-day charting) sets date_completed; existing_* and referred have no planning date", async () => {
    const p = await m.createPatient();
    const done = await m.chart(p.id, "D7140", { tooth_number: "1", status: "complete" });
    expect(done.status).toBe("complete");
    expect(Date.parse(done.date_completed)).toBeGreaterThan(Date.now() - 60_000);
    expect(done.date_treatment_planned).toBeNull();
    for (const status of ["existing_current", "existing_other", "referred"]) {
      const r = await m.chart(p.id, "D2740", { tooth_number: "3", status });
      expect([r.status, r.date_completed, r.date_treatment_planned]).toEqual([status, null, null]);
    }
    for (const status of ["scheduled", "in_progress", "complete_referred"]) {
      const r = await post(p.id, { procedure_code_uuid: await m.codeId("D2740"), tooth_number: "3", status });
      expect([status, r.status, r.body.detail[0].loc, r.body.detail[0].type]).toEqual([status, 422, ["body", "status"], "enum"]);
    }
    expect((await list(p.id)).total).toBe(4);
  });

  test("a completed procedure cannot be dated after today (422 future_date_service); a planned one can", async () => {
    const p = await m.createPatient();
    const r = await post(p.id, { procedure_code_uuid: await m.codeId("D0150"), status: "complete", date_service: "2999-01-01" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "future_date_service", detail: [{ loc: ["body", "date_service"] }] });
    expect((await list(p.id)).total).toBe(0);
    expect((await m.chart(p.id, "D0150", { date_service: "2999-01-01" })).date_service).toBe("2999-01-01");
  });

  test("fee_override 0 is an override of zero; office_fee stays the code's fee", async () => {
    const p = await m.createPatient();
    const r = await m.chart(p.id, "D0150", { fee_override: 0 });
    expect(r).toMatchObject({ office_fee: "95.00", fee_override: "0.00", effective_fee: "0.00", fee_source: "override" });
  });

  test("events: charted_procedure.created with ids and status only; an audit row", async () => {
    const p = await m.createPatient();
    const r = await m.chart(p.id, "D2391", { tooth_number: "30", surfaces: "O", clinical_note: "secret clinical text" });
    const ev = await m.eventsOf(r.id);
    expect(ev.map((e) => e.type)).toEqual(["charted_procedure.created"]);
    expect(ev[0]!.data).toEqual({ id: r.id, patient_id: p.id, status: "treatment_planned" });
    const audit = await auditOf(m.t, m.orgId, r.id);
    expect(audit.map((a) => a.action)).toEqual(["charted_procedure.created"]);
    expect(audit[0].resource_type).toBe("charted_procedure");
  });
});

describe("the site must fit the code's treatment area", () => {
  // [code, body, ok?, loc field, type]
  const cases: [string, string, Record<string, unknown>, true | [string, string]][] = [
    ["surface: tooth and surfaces", "D2391", { tooth_number: "3", surfaces: "O" }, true],
    ["surface: missing surfaces", "D2391", { tooth_number: "3" }, ["surfaces", "missing"]],
    ["surface: missing tooth", "D2391", { surfaces: "O" }, ["tooth_number", "missing"]],
    ["surface: with a quadrant too", "D2391", { tooth_number: "3", surfaces: "O", quadrant: "UR" }, ["quadrant", "value_error"]],
    ["surface: occlusal on a front tooth", "D2330", { tooth_number: "8", surfaces: "O" }, ["surfaces", "value_error"]],
    ["surface: incisal on a back tooth", "D2391", { tooth_number: "3", surfaces: "I" }, ["surfaces", "value_error"]],
    ["surface: incisal and facial on a front tooth", "D2331", { tooth_number: "8", surfaces: "IF" }, true],
    ["surface: primary molar occlusal", "D2391", { tooth_number: "a", surfaces: "o" }, true],
    ["tooth: a tooth", "D2740", { tooth_number: "19" }, true],
    ["tooth: no tooth", "D2740", {}, ["tooth_number", "missing"]],
    ["tooth: surfaces given", "D2740", { tooth_number: "19", surfaces: "O" }, ["surfaces", "value_error"]],
    ["tooth: arch given", "D2740", { tooth_number: "19", arch: "lower" }, ["arch", "value_error"]],
    ["quadrant: a quadrant", "D4341", { quadrant: "LL" }, true],
    ["quadrant: none", "D4341", {}, ["quadrant", "missing"]],
    ["quadrant: a tooth instead", "D4341", { tooth_number: "3" }, ["quadrant", "missing"]],
    ["quadrant: a tooth as well", "D4341", { quadrant: "UR", tooth_number: "3" }, ["tooth_number", "value_error"]],
    ["arch: an arch", "D0240", { arch: "upper" }, true],
    ["arch: none", "D0240", {}, ["arch", "missing"]],
    ["arch: and a sextant", "D0240", { arch: "upper", sextant: 2 }, ["sextant", "value_error"]],
    ["sextant: a sextant", "X1001", { sextant: 6 }, true],
    ["sextant: none", "X1001", {}, ["sextant", "missing"]],
    ["mouth: nothing", "D0150", {}, true],
    ["mouth: a tooth", "D0150", { tooth_number: "3" }, ["tooth_number", "value_error"]],
    ["mouth: a tooth range", "D0150", { tooth_range: "3-5" }, ["tooth_range", "value_error"]],
    ["tooth_range: a range", "D6930", { tooth_range: "3-5" }, true],
    ["tooth_range: none", "D6930", {}, ["tooth_range", "missing"]],
    ["tooth_range: a tooth instead", "D6930", { tooth_number: "4" }, ["tooth_range", "missing"]],
  ];
  test.each(cases)("%s", async (_name, code, site, expected) => {
    const p = await m.createPatient();
    const codeId = code === "X1001" ? sextantCode : await m.codeId(code);
    const r = await post(p.id, { procedure_code_uuid: codeId, ...site });
    if (expected === true) {
      expect(r.status).toBe(201);
      return;
    }
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "invalid_site", detail: [{ loc: ["body", expected[0]], type: expected[1] }] });
    expect((await list(p.id)).total).toBe(0);
  });

  test.each([
    ["tooth_number", "33"],
    ["tooth_number", "0"],
    ["tooth_number", "U"],
    ["tooth_number", "03"],
    ["tooth_number", "51"],
    ["surfaces", "X"],
    ["surfaces", "MM"],
    ["surfaces", ""],
    ["surfaces", "MODBLIFVM"],
    ["tooth_range", "5-3"],
    ["tooth_range", "3"],
    ["tooth_range", "15-18"],
    ["tooth_range", "3-C"],
    ["tooth_range", "A-K"],
    ["quadrant", "UX"],
    ["arch", "both"],
    ["sextant", 7],
    ["sextant", 0],
  ])("422 for %s = %p (schema)", async (field, value) => {
    const p = await m.createPatient();
    const r = await post(p.id, { procedure_code_uuid: await m.codeId("D0150"), [field]: value });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(["body", field]);
    expect(r.body.code).toBeUndefined();
  });

  test("normalization: letters upper-case, surfaces canonical, ranges canonical", async () => {
    const p = await m.createPatient();
    expect((await m.chart(p.id, "D2394", { tooth_number: " 30 ", surfaces: "lbdom" })).surfaces).toBe("MODBL");
    expect((await m.chart(p.id, "D2740", { tooth_number: "t" })).tooth_number).toBe("T");
    expect((await m.chart(p.id, "D6930", { tooth_range: "28 - 30" })).tooth_range).toBe("28-30");
    expect((await m.chart(p.id, "D6930", { tooth_range: "a-c" })).tooth_range).toBe("A-C");
  });
});

describe("references", () => {
  test("404 for a missing or archived procedure code, another org's code; 422 for an inactive one; nothing written", async () => {
    const p = await m.createPatient();
    const archived = await m.createCode({ code: "X2001", short_name: "Old", code_type: "custom" });
    await m.t.request("POST", `/api/v1/${m.orgId}/codes/procedure-codes/${archived.id}/archive`, { token: m.token });
    const foreign = await m.codeId("D0150", m.otherOrg);
    for (const id of [MISSING, archived.id, foreign]) {
      const r = await post(p.id, { procedure_code_uuid: id });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Procedure code not found", code: "not_found" });
    }
    const inactive = await m.createCode({ code: "X2002", short_name: "Retired", code_type: "custom", status: "inactive" });
    const r = await post(p.id, { procedure_code_uuid: inactive.id });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("procedure_code_inactive");
    expect((await list(p.id)).total).toBe(0);
  });

  test("404 naming each reference that does not exist here: provider, location, appointment (also another patient's), definitions by category", async () => {
    const p = await m.createPatient();
    const other = await m.createPatient();
    const othersAppt = await m.insertAppointment(other.id);
    const priority = await m.definitionId("priority");
    const foreignProvider = await insertProvider(m.t, m.otherOrg, { first_name: "For", last_name: "Eign" });
    const archivedLocation = await m.createLocation("Closed");
    await m.archiveLocationRow(archivedLocation);
    const cases: [Record<string, unknown>, string][] = [
      [{ provider_uuid: MISSING }, "Provider"],
      [{ provider_uuid: foreignProvider }, "Provider"],
      [{ location_uuid: MISSING }, "Location"],
      [{ location_uuid: archivedLocation }, "Location"],
      [{ appointment_uuid: MISSING }, "Appointment"],
      [{ appointment_uuid: othersAppt }, "Appointment"],
      [{ priority_uuid: MISSING }, "Priority"],
      [{ prognosis_uuid: priority }, "Prognosis"],
      [{ diagnostic_code_uuid: priority }, "Diagnostic code"],
      [{ explosion_code_uuid: MISSING }, "Explosion code"],
    ];
    for (const [body, label] of cases) {
      const r = await post(p.id, { procedure_code_uuid: await m.codeId("D0150"), ...body });
      expect([label, r.status, r.body.detail]).toEqual([label, 404, `${label} not found`]);
    }
    expect((await list(p.id)).total).toBe(0);
  });

  test("404 for a missing patient and another org's patient; 422 patient_archived for an archived one", async () => {
    const code = await m.codeId("D0150");
    expect((await post(MISSING, { procedure_code_uuid: code })).status).toBe(404);
    const foreign = await m.createPatient({}, m.otherOrg);
    const r = await post(foreign.id, { procedure_code_uuid: code });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Patient not found", code: "not_found" });
    const archived = await m.createPatient();
    await m.t.request("POST", `/api/v1/${m.orgId}/patients/${archived.id}/archive`, { token: m.token });
    const a = await post(archived.id, { procedure_code_uuid: code });
    expect([a.status, a.body.code]).toEqual([422, "patient_archived"]);
    // an archived patient's chart stays readable
    expect((await m.t.request("GET", m.procPath(archived.id), { token: m.token })).status).toBe(200);
  });
});

describe("schema validation", () => {
  test.each([
    ["missing procedure_code_uuid", { procedure_code_uuid: undefined }, ["body", "procedure_code_uuid"], "missing"],
    ["bad procedure_code_uuid", { procedure_code_uuid: "nope" }, ["body", "procedure_code_uuid"], "format"],
    ["tooth_number as a number", { tooth_number: 3 }, ["body", "tooth_number"], "type_error"],
    ["unknown status", { status: "done" }, ["body", "status"], "enum"],
    ["fee_override negative", { fee_override: -1 }, ["body", "fee_override"], "out_of_range"],
    ["fee_override three decimals", { fee_override: 1.005 }, ["body", "fee_override"], "value_error"],
    ["fee_override a string", { fee_override: "10" }, ["body", "fee_override"], "type_error"],
    ["bad date_service", { date_service: "2024-02-30" }, ["body", "date_service"], "format"],
    ["billing_order_code unknown", { billing_order_code: "X" }, ["body", "billing_order_code"], "enum"],
    ["do_not_bill_insurance a string", { do_not_bill_insurance: "yes" }, ["body", "do_not_bill_insurance"], "type_error"],
    ["note too long", { note: "x".repeat(2001) }, ["body", "note"], "out_of_range"],
    ["note null", { note: null }, ["body", "note"], "type_error"],
    ["bad ICD code", { diagnosis_code_1: "caries" }, ["body", "diagnosis_code_1"], "format"],
    ["unknown field", { colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ["office_fee is read-only", { office_fee: 1 }, ["body", "office_fee"], "read_only"],
    ["effective_fee is read-only", { effective_fee: 1 }, ["body", "effective_fee"], "read_only"],
    ["date_completed is read-only", { date_completed: "2024-01-01T00:00:00Z" }, ["body", "date_completed"], "read_only"],
    ["has_active_claim is read-only", { has_active_claim: true }, ["body", "has_active_claim"], "read_only"],
    ["id is read-only", { id: "x" }, ["body", "id"], "read_only"],
  ])("422: %s; nothing written", async (_name, body, loc, type) => {
    const p = await m.createPatient();
    const r = await post(p.id, { procedure_code_uuid: await m.codeId("D0150"), ...body });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect((await list(p.id)).total).toBe(0);
  });

  test("malformed JSON is 422 json_invalid", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.procPath(p.id), { token: m.token, rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    expect((await list(p.id)).total).toBe(0);
  });
});
