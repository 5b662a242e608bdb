import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insertProvider, medicalApp } from "./fixtures";

let m: Awaited<ReturnType<typeof medicalApp>>;
let providerId: string;
let archivedProviderId: string;
let foreignProviderId: string;
beforeAll(async () => {
  m = await medicalApp();
  providerId = await insertProvider(m.t, m.orgId, { first_name: "Ada", last_name: "Lovelace" });
  archivedProviderId = await insertProvider(m.t, m.orgId, { first_name: "Old", last_name: "Timer", deleted: true });
  foreignProviderId = await insertProvider(m.t, m.otherOrg, { first_name: "For", last_name: "Eign" });
});
afterAll(() => m.t.close());

const DEF = "0190a1b2-0000-7000-8000-00000000d001";
const list = async (patientId: string, query = "") => (await m.t.request("GET", `${m.path(patientId, "medications")}${query}`, { token: m.token })).body;

describe("medications", () => {
  test("create with every field: references answer {uuid, name}; the definition's name is null", async () => {
    const p = await m.createPatient();
    const body = {
      medication_definition_uuid: DEF.toUpperCase(),
      med_descript: "Amoxicillin 500 mg capsule",
      provider_uuid: providerId,
      dosage: "500 mg",
      frequency: "every 8 hours",
      route: "oral",
      rx_cui: "723",
      date_start: "2024-01-01",
      date_stop: "2024-01-10",
      discontinuation_reason: null,
      patient_note: "Take with food",
      is_cpoe: true,
      status: "active",
    };
    const r = await m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body });
    expect(r.status).toBe(201);
    const { medication_definition_uuid: _d, provider_uuid: _p, ...plain } = body;
    expect(r.body).toEqual({
      ...plain,
      id: r.body.id,
      patient: { uuid: p.id, name: "Pat Ient" },
      medication_definition: { uuid: DEF, name: null },
      provider: { uuid: providerId, name: "Ada Lovelace" },
      interaction_warnings: [],
      version: 1,
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
      deleted_at: null,
    });
    expect((await m.t.request("GET", m.path(p.id, "medications", r.body.id), { token: m.token })).body).toEqual(r.body);
  });

  test("defaults: status active, is_cpoe false, the rest null", async () => {
    const p = await m.createPatient();
    const med = await m.createRecord(p.id, "medications", { med_descript: "Chlorhexidine rinse" });
    expect(med).toMatchObject({
      status: "active",
      is_cpoe: false,
      medication_definition: null,
      provider: null,
      dosage: null,
      frequency: null,
      route: null,
      rx_cui: null,
      date_start: null,
      date_stop: null,
      discontinuation_reason: null,
      patient_note: null,
      interaction_warnings: [],
    });
  });

  test("a medication needs med_descript, medication_definition_uuid or rx_cui (422 medication_not_identified), also after a PATCH", async () => {
    const p = await m.createPatient();
    const none = await m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body: { dosage: "1 tab" } });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ code: "medication_not_identified", detail: [{ loc: ["body", "med_descript"], type: "missing" }] });
    const byDef = await m.createRecord(p.id, "medications", { med_descript: undefined, medication_definition_uuid: DEF });
    expect(byDef.medication_definition).toEqual({ uuid: DEF, name: null });
    const cleared = await m.t.request("PATCH", m.path(p.id, "medications", byDef.id), {
      token: m.token,
      body: { base_version: 1, medication_definition_uuid: null },
    });
    expect(cleared.status).toBe(422);
    expect(cleared.body.code).toBe("medication_not_identified");
    const swapped = await m.t.request("PATCH", m.path(p.id, "medications", byDef.id), {
      token: m.token,
      body: { base_version: 1, medication_definition_uuid: null, rx_cui: "1191" },
    });
    expect(swapped.body).toMatchObject({ medication_definition: null, rx_cui: "1191", version: 2 });
    expect((await list(p.id)).total).toBe(1);
  });

  test.each([
    ["blank med_descript", { med_descript: "  " }, ["body", "med_descript"], "out_of_range"],
    ["med_descript too long", { med_descript: "x".repeat(501) }, ["body", "med_descript"], "out_of_range"],
    ["bad medication_definition_uuid", { medication_definition_uuid: "abc" }, ["body", "medication_definition_uuid"], "format"],
    ["bad provider_uuid", { provider_uuid: "12" }, ["body", "provider_uuid"], "format"],
    ["rx_cui with letters", { rx_cui: "RX723" }, ["body", "rx_cui"], "format"],
    ["rx_cui a number", { rx_cui: 723 }, ["body", "rx_cui"], "type_error"],
    ["unknown status", { status: "stopped" }, ["body", "status"], "enum"],
    ["is_cpoe not a boolean", { is_cpoe: "true" }, ["body", "is_cpoe"], "type_error"],
    ["bad date_start", { date_start: "2024-13-01" }, ["body", "date_start"], "format"],
    ["dosage too long", { dosage: "x".repeat(101) }, ["body", "dosage"], "out_of_range"],
    ["interaction_warnings is read-only", { interaction_warnings: [] }, ["body", "interaction_warnings"], "read_only"],
    ["provider ref object is read-only", { provider: { uuid: "x" } }, ["body", "provider"], "read_only"],
  ])("422 on create: %s; nothing written", async (_name, body, loc, type) => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body: { med_descript: "Ibuprofen", ...body } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect((await list(p.id)).total).toBe(0);
  });

  test("date_stop before date_start is 422 invalid_date_range", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "medications"), {
      token: m.token,
      body: { med_descript: "Ibuprofen", date_start: "2024-02-02", date_stop: "2024-02-01" },
    });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "invalid_date_range", detail: [{ loc: ["body", "date_stop"] }] });
    const med = await m.createRecord(p.id, "medications", { date_stop: "2024-02-01" });
    const patch = await m.t.request("PATCH", m.path(p.id, "medications", med.id), { token: m.token, body: { base_version: 1, date_start: "2024-03-01" } });
    expect(patch.status).toBe(422);
    expect(await m.rowOf("medications", med.id)).toMatchObject({ date_start: null, version: 1 });
  });

  test("provider_uuid must be a current provider of this org: 404 for unknown, archived and another org's; nothing written", async () => {
    const p = await m.createPatient();
    for (const id of ["0190a1b2-0000-7000-8000-0000000000ff", archivedProviderId, foreignProviderId]) {
      const r = await m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body: { med_descript: "Ibuprofen", provider_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Provider not found", code: "not_found" });
    }
    expect((await list(p.id)).total).toBe(0);
    const med = await m.createRecord(p.id, "medications", { provider_uuid: providerId.toUpperCase() });
    expect(med.provider).toEqual({ uuid: providerId, name: "Ada Lovelace" });
    const bad = await m.t.request("PATCH", m.path(p.id, "medications", med.id), {
      token: m.token,
      body: { base_version: 1, provider_uuid: foreignProviderId },
    });
    expect(bad.status).toBe(404);
    expect(await m.rowOf("medications", med.id)).toMatchObject({ provider_id: providerId, version: 1 });
    const unset = await m.t.request("PATCH", m.path(p.id, "medications", med.id), { token: m.token, body: { base_version: 1, provider_uuid: null } });
    expect(unset.body).toMatchObject({ provider: null, version: 2 });
  });

  test("PATCH: status moves (discontinued with a reason), only the given fields change", async () => {
    const p = await m.createPatient();
    const med = await m.createRecord(p.id, "medications", { med_descript: "Naproxen 500 mg", dosage: "1 tab", provider_uuid: providerId });
    const r = await m.t.request("PATCH", m.path(p.id, "medications", med.id), {
      token: m.token,
      body: { base_version: 1, status: "discontinued", discontinuation_reason: "GI upset", date_stop: "2024-05-01" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "discontinued",
      discontinuation_reason: "GI upset",
      date_stop: "2024-05-01",
      dosage: "1 tab",
      med_descript: "Naproxen 500 mg",
      provider: { uuid: providerId, name: "Ada Lovelace" },
      version: 2,
    });
    const ev = await m.eventsOf(med.id);
    expect(ev[1]!.data).toEqual({ id: med.id, patient_id: p.id, changed_fields: ["date_stop", "discontinuation_reason", "status"] });
  });

  test("status filter and paging; archived ones leave the list and are 404 (archive again: 404)", async () => {
    const p = await m.createPatient();
    for (const [med_descript, status] of [
      ["A", "active"],
      ["B", "completed"],
      ["C", "on_hold"],
      ["D", "discontinued"],
      ["E", "active"],
    ]) {
      await m.createRecord(p.id, "medications", { med_descript, status });
    }
    const names = async (q: string) => (await list(p.id, q)).items.map((x: { med_descript: string }) => x.med_descript);
    expect(await names("")).toEqual(["A", "B", "C", "D", "E"]);
    expect(await names("?status=active")).toEqual(["A", "E"]);
    expect(await names("?status=on_hold")).toEqual(["C"]);
    expect(await list(p.id, "?page=2&page_size=2")).toMatchObject({ page: 2, page_size: 2, total: 5, items: [{ med_descript: "C" }, { med_descript: "D" }] });
    const e = (await list(p.id, "?status=active")).items[1];
    const archived = await m.t.request("POST", `${m.path(p.id, "medications", e.id)}/archive`, { token: m.token });
    expect(archived.body).toMatchObject({ id: e.id, version: 2, interaction_warnings: [] });
    expect(await names("?status=active")).toEqual(["A"]);
    expect((await m.t.request("GET", m.path(p.id, "medications", e.id), { token: m.token })).status).toBe(404);
    expect((await m.t.request("POST", `${m.path(p.id, "medications", e.id)}/archive`, { token: m.token })).status).toBe(404);
    expect((await m.t.request("GET", `${m.path(p.id, "medications")}?status=stopped`, { token: m.token })).status).toBe(422);
  });

  test("Idempotency-Key: a retried create replays the first answer (warnings included) and records once", async () => {
    const p = await m.createPatient();
    await m.createRecord(p.id, "allergies", { allergen: "Penicillin" });
    const send = (body: Record<string, unknown>) =>
      m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body, headers: { "idempotency-key": "med-1" } });
    const first = await send({ med_descript: "Amoxicillin 500 mg" });
    const again = await send({ med_descript: "Amoxicillin 500 mg" });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(first.body.interaction_warnings).toHaveLength(1);
    expect((await send({ med_descript: "Ampicillin" })).status).toBe(409);
    expect((await list(p.id)).total).toBe(1);
  });
});
