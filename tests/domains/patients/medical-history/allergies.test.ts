import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { medicalApp } from "./fixtures";

let m: Awaited<ReturnType<typeof medicalApp>>;
beforeAll(async () => {
  m = await medicalApp();
});
afterAll(() => m.t.close());

const allergens = async (patientId: string, query = "") =>
  (await m.t.request("GET", `${m.path(patientId, "allergies")}${query}`, { token: m.token })).body.items.map((a: { allergen: string }) => a.allergen);
const tomorrowPlus = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe("allergies", () => {
  test("create with every field; defaults when only the allergen is sent", async () => {
    const p = await m.createPatient();
    const body = {
      allergen: "Penicillin",
      allergen_category: "drug",
      reaction: "Hives",
      severity: "severe",
      is_active: true,
      onset_date: "2019-06-01",
      note: "Since childhood",
    };
    const r = await m.t.request("POST", m.path(p.id, "allergies"), { token: m.token, body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ ...body, patient: { uuid: p.id, name: "Pat Ient" }, version: 1 });
    const min = await m.createRecord(p.id, "allergies", { allergen: " Latex ", allergen_category: undefined });
    expect(min).toMatchObject({ allergen: "Latex", allergen_category: "other", reaction: null, severity: null, is_active: true, onset_date: null, note: null });
  });

  test.each([
    ["missing allergen", { allergen: undefined }, ["body", "allergen"], "missing"],
    ["blank allergen", { allergen: " " }, ["body", "allergen"], "out_of_range"],
    ["allergen too long", { allergen: "x".repeat(201) }, ["body", "allergen"], "out_of_range"],
    ["unknown category", { allergen_category: "pollen" }, ["body", "allergen_category"], "enum"],
    ["unknown severity", { severity: "deadly" }, ["body", "severity"], "enum"],
    ["is_active not a boolean", { is_active: "yes" }, ["body", "is_active"], "type_error"],
    ["is_active null", { is_active: null }, ["body", "is_active"], "type_error"],
    ["onset_date not a date", { onset_date: "2020-02-30" }, ["body", "onset_date"], "format"],
    ["reaction too long", { reaction: "x".repeat(501) }, ["body", "reaction"], "out_of_range"],
    ["note too long", { note: "x".repeat(2001) }, ["body", "note"], "out_of_range"],
  ])("422 on create: %s; nothing written, review status unchanged", async (_name, body, loc, type) => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "allergies"), { token: m.token, body: { allergen: "Peanuts", ...body } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect(await allergens(p.id)).toEqual([]);
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "not_reviewed", version: 1 });
  });

  test("onset_date in the future is 422 future_date (one day of slack for zones east of UTC)", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "allergies"), { token: m.token, body: { allergen: "Peanuts", onset_date: tomorrowPlus(2) } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "future_date", detail: [{ loc: ["body", "onset_date"], type: "value_error" }] });
    const ok = await m.createRecord(p.id, "allergies", { onset_date: tomorrowPlus(1) });
    const patch = await m.t.request("PATCH", m.path(p.id, "allergies", ok.id), { token: m.token, body: { base_version: 1, onset_date: tomorrowPlus(3) } });
    expect(patch.status).toBe(422);
    expect(patch.body.code).toBe("future_date");
    expect(await m.rowOf("allergies", ok.id)).toMatchObject({ onset_date: tomorrowPlus(1), version: 1 });
  });

  test("is_active filter: true active only, false inactive only, omitted all; archived never", async () => {
    const p = await m.createPatient();
    await m.createRecord(p.id, "allergies", { allergen: "Aspirin" });
    await m.createRecord(p.id, "allergies", { allergen: "Codeine", is_active: false });
    const gone = await m.createRecord(p.id, "allergies", { allergen: "Sulfa" });
    await m.t.request("POST", `${m.path(p.id, "allergies", gone.id)}/archive`, { token: m.token });
    expect(await allergens(p.id)).toEqual(["Aspirin", "Codeine"]);
    expect(await allergens(p.id, "?is_active=true")).toEqual(["Aspirin"]);
    expect(await allergens(p.id, "?is_active=false")).toEqual(["Codeine"]);
    expect((await m.t.request("GET", m.path(p.id, "allergies", gone.id), { token: m.token })).status).toBe(404);
    expect((await m.t.request("POST", `${m.path(p.id, "allergies", gone.id)}/archive`, { token: m.token })).status).toBe(404);
    const bad = await m.t.request("GET", `${m.path(p.id, "allergies")}?is_active=maybe`, { token: m.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "is_active"]);
  });
});

describe("the patient's allergy_review_status", () => {
  test("an active allergy makes a not_reviewed patient reviewed: a patient write with its version, audit row and event", async () => {
    const p = await m.createPatient();
    const a = await m.createRecord(p.id, "allergies", { allergen: "Penicillin" });
    const patient = (await m.t.request("GET", `${m.base()}/${p.id}`, { token: m.token })).body;
    expect(patient).toMatchObject({ allergy_review_status: "reviewed", version: 2 });
    const audits = await auditOf(m.t, m.orgId, p.id);
    const update = audits.find((x) => x.action === "patient.updated")!;
    expect(update.before.allergy_review_status).toBe("not_reviewed");
    expect(update.after.allergy_review_status).toBe("reviewed");
    const ev = await m.eventsOf(p.id);
    expect(ev.map((e) => [e.type, e.data])).toEqual([
      ["patient.created", { id: p.id }],
      ["patient.updated", { id: p.id, changed_fields: ["allergy_review_status"] }],
    ]);
    // a second active allergy changes nothing more on the patient
    await m.createRecord(p.id, "allergies", { allergen: "Latex" });
    await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 1, note: "confirmed" } });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "reviewed", version: 2 });
  });

  test("an nkda patient becomes reviewed when an active allergy is recorded", async () => {
    const p = await m.createPatient({ allergy_review_status: "nkda" });
    await m.createRecord(p.id, "allergies", { allergen: "Ibuprofen" });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "reviewed", version: 2 });
  });

  test("an inactive allergy leaves the status alone until it is made active", async () => {
    const p = await m.createPatient({ allergy_review_status: "nkda" });
    const a = await m.createRecord(p.id, "allergies", { allergen: "Codeine", is_active: false });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "nkda", version: 1 });
    await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 1, reaction: "nausea" } });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "nkda", version: 1 });
    const on = await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 2, is_active: true } });
    expect(on.body).toMatchObject({ is_active: true, version: 3 });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "reviewed", version: 2 });
  });

  test("PATCH patient to nkda is 422 while an active allergy is recorded (patient unchanged); allowed once none is active", async () => {
    const p = await m.createPatient();
    const a = await m.createRecord(p.id, "allergies", { allergen: "Penicillin" });
    const refused = await m.t.request("PATCH", `${m.base()}/${p.id}`, { token: m.token, body: { base_version: 2, allergy_review_status: "nkda" } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "active_allergies_recorded", detail: [{ loc: ["body", "allergy_review_status"] }] });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "reviewed", version: 2 });
    const stale = await m.t.request("PATCH", `${m.base()}/${p.id}`, { token: m.token, body: { base_version: 1, allergy_review_status: "nkda" } });
    expect(stale.status).toBe(409);
    await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 1, is_active: false } });
    const ok = await m.t.request("PATCH", `${m.base()}/${p.id}`, { token: m.token, body: { base_version: 2, allergy_review_status: "nkda" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ allergy_review_status: "nkda", version: 3 });
  });

  test("deactivating or archiving the last allergy keeps reviewed (nkda is a clinician's statement)", async () => {
    const p = await m.createPatient();
    const a = await m.createRecord(p.id, "allergies", { allergen: "Aspirin" });
    const b = await m.createRecord(p.id, "allergies", { allergen: "Latex" });
    await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 1, is_active: false } });
    await m.t.request("POST", `${m.path(p.id, "allergies", b.id)}/archive`, { token: m.token });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "reviewed", version: 2 });
  });

  test("a refused write changes neither the allergy nor the patient", async () => {
    const p = await m.createPatient({ allergy_review_status: "nkda" });
    const a = await m.createRecord(p.id, "allergies", { allergen: "Codeine", is_active: false });
    const stale = await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 9, is_active: true } });
    expect(stale.status).toBe(409);
    const bad = await m.t.request("PATCH", m.path(p.id, "allergies", a.id), { token: m.token, body: { base_version: 1, is_active: true, severity: "awful" } });
    expect(bad.status).toBe(422);
    expect(await m.rowOf("allergies", a.id)).toMatchObject({ is_active: false, version: 1 });
    expect(await m.patientRow(p.id)).toMatchObject({ allergy_review_status: "nkda", version: 1 });
  });
});
