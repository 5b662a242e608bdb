import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { chartApp, insertProvider, MISSING, type ChartApp } from "./fixtures";

let m: ChartApp;
beforeAll(async () => {
  m = await chartApp();
});
afterAll(() => m.t.close());

const patch = (id: string, body: Record<string, unknown>) => m.t.request("PATCH", m.procById(id), { token: m.token, body });
const del = (id: string, version: number | string) => m.t.request("DELETE", `${m.procById(id)}?base_version=${version}`, { token: m.token });

const STATUSES = ["treatment_planned", "scheduled", "in_progress", "complete", "complete_referred", "existing_current", "existing_other", "referred"] as const;
const ALLOWED: Record<string, string[]> = {
  treatment_planned: ["scheduled", "in_progress", "complete", "referred"],
  scheduled: ["treatment_planned", "in_progress", "complete"],
  in_progress: ["scheduled", "complete"],
  referred: ["treatment_planned", "complete_referred"],
  complete: [],
  complete_referred: [],
  existing_current: [],
  existing_other: [],
};

/** A fresh procedure in `status`, reached through entry states and allowed moves. */
async function inState(status: string) {
  const p = await m.createPatient();
  const entry = status === "scheduled" || status === "in_progress" ? "treatment_planned" : status === "complete_referred" ? "referred" : status;
  const proc = await m.chart(p.id, "D2740", { tooth_number: "3", status: entry, date_service: "2024-01-05" });
  return entry === status ? proc : m.setStatus(proc.id, status);
}

describe("status transitions", () => {
  const pairs = STATUSES.flatMap((from) =>
    STATUSES.map((to) => [from, to, from === to ? "same" : ALLOWED[from]!.includes(to) ? "allowed" : "refused"] as const),
  );
  test.each(pairs)("%s -> %s: %s", async (from, to, outcome) => {
    const proc = await inState(from);
    const r = await patch(proc.id, { base_version: proc.version, status: to });
    if (outcome === "refused") {
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: "invalid_transition", detail: [{ loc: ["body", "status"], type: "invalid_transition" }] });
      expect(await m.rowOf("procedure", proc.id)).toMatchObject({ status: from, version: proc.version });
      return;
    }
    expect(r.status).toBe(200);
    expect(r.body.status).toBe(to);
    const events = (await m.eventsOf(proc.id)).filter(
      (e) => e.type === "charted_procedure.status_changed" && e.data.from_status === from && e.data.status === to,
    );
    expect(events).toHaveLength(outcome === "allowed" ? 1 : 0);
  });

  test("completing sets date_completed (UTC now) and moves date_service to today; complete_referred too", async () => {
    const planned = await inState("treatment_planned");
    const before = Date.now();
    const done = await m.setStatus(planned.id, "complete");
    expect(done.date_service).toBe(m.today());
    expect(Date.parse(done.date_completed)).toBeGreaterThanOrEqual(before - 1000);
    expect(done.date_completed).toMatch(/Z$/);
    const referred = await inState("complete_referred");
    expect(referred.date_completed).toEqual(expect.any(String));
  });

  test("completing with an explicit past date_service keeps that date; a future one is 422 future_date_service", async () => {
    const proc = await inState("in_progress");
    const future = await patch(proc.id, { base_version: proc.version, status: "complete", date_service: "2999-01-01" });
    expect([future.status, future.body.code]).toEqual([422, "future_date_service"]);
    const r = await patch(proc.id, { base_version: proc.version, status: "complete", date_service: "2024-02-01" });
    expect(r.body).toMatchObject({ status: "complete", date_service: "2024-02-01" });
    const later = await patch(proc.id, { base_version: r.body.version, date_service: "2999-01-01" });
    expect([later.status, later.body.code]).toEqual([422, "future_date_service"]);
  });

  test("completing a procedure (by PATCH or charted complete) writes the matching auto-note rule's note in the same write; complete_referred does not", async () => {
    const rule = await m.t.request("POST", `/api/v1/${m.orgId}/clinical-notes/auto-rules`, {
      token: m.token,
      body: { name: "Crowns", trigger_event: "procedure_completed", procedure_code_pattern: "D27*" },
    });
    expect(rule.status).toBe(201);
    const notesOf = async (patientId: string) =>
      (await m.t.request("GET", `/api/v1/${m.orgId}/clinical-notes/clinical-notes?patient_uuid=${patientId}`, { token: m.token })).body.items;
    const proc = await inState("in_progress");
    expect(await notesOf(proc.patient.uuid)).toHaveLength(0);
    await m.setStatus(proc.id, "complete");
    const notes = await notesOf(proc.patient.uuid);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ note_type: "procedure", visit_date: m.today(), procedures: [{ uuid: proc.id }] });
    const p = await m.createPatient();
    await m.chart(p.id, "D2740", { tooth_number: "8", status: "complete" });
    await m.chart(p.id, "D0150", { status: "complete" }); // no rule for D0150
    expect(await notesOf(p.id)).toHaveLength(1);
    const referred = await inState("complete_referred");
    expect(await notesOf(referred.patient.uuid)).toHaveLength(0);
    await m.t.request("POST", `/api/v1/${m.orgId}/clinical-notes/auto-rules/${rule.body.id}/archive`, { token: m.token });
  });

  test("status_changed event: ids, changed field names, from and to statuses; audit action charted_procedure.status_changed", async () => {
    const proc = await inState("treatment_planned");
    await m.setStatus(proc.id, "scheduled");
    const ev = (await m.eventsOf(proc.id)).at(-1)!;
    expect(ev.type).toBe("charted_procedure.status_changed");
    expect(ev.data).toEqual({ id: proc.id, patient_id: proc.patient.uuid, changed_fields: ["status"], from_status: "treatment_planned", status: "scheduled" });
    expect((await auditOf(m.t, m.orgId, proc.id)).map((a) => a.action)).toEqual(["charted_procedure.created", "charted_procedure.status_changed"]);
  });
});

describe("PATCH", () => {
  test("every listed field; only they change; event charted_procedure.updated names them", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D2391", { tooth_number: "3", surfaces: "O", note: "first" });
    const providerId = await insertProvider(m.t, m.orgId, { first_name: "Bo", last_name: "Cusp" });
    const prognosis = await m.definitionId("prognosis", "Poor");
    const r = await patch(proc.id, {
      base_version: 1,
      surfaces: "mo",
      tooth_number: "2",
      note: "second",
      clinical_note: "cn",
      billing_note: "bn",
      billing_order_code: "M",
      date_original_prosthetic: "2001-02-03",
      date_service: "2024-06-01",
      do_not_bill_insurance: true,
      is_prosthetic: true,
      fee_override: 150,
      material_type_code: "AMAL",
      prognosis_uuid: prognosis,
      provider_uuid: providerId,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 2,
      tooth_number: "2",
      surfaces: "MO",
      note: "second",
      clinical_note: "cn",
      billing_note: "bn",
      billing_order_code: "M",
      date_original_prosthetic: "2001-02-03",
      date_service: "2024-06-01",
      do_not_bill_insurance: true,
      is_prosthetic: true,
      office_fee: "175.00",
      fee_override: "150.00",
      effective_fee: "150.00",
      fee_source: "override",
      material_type_code: "AMAL",
      prognosis: { uuid: prognosis, name: "Poor" },
      provider: { uuid: providerId, name: "Bo Cusp" },
      status: "treatment_planned",
      procedure_code: "D2391",
    });
    expect(r.headers.get("etag")).toBe('"2"');
    const ev = (await m.eventsOf(proc.id)).at(-1)!;
    expect(ev.type).toBe("charted_procedure.updated");
    expect((ev.data.changed_fields as string[]).sort()).toEqual([
      "billing_note",
      "billing_order_code",
      "clinical_note",
      "date_original_prosthetic",
      "date_service",
      "do_not_bill_insurance",
      "fee_override_cents",
      "is_prosthetic",
      "material_type_code",
      "note",
      "prognosis_id",
      "provider_id",
      "surfaces",
      "tooth_number",
    ]);
    // null clears
    const cleared = await patch(proc.id, { base_version: 2, fee_override: null, prognosis_uuid: null, clinical_note: null });
    expect(cleared.body).toMatchObject({
      fee_override: null,
      effective_fee: "175.00",
      fee_source: "fee_schedule",
      prognosis: null,
      clinical_note: null,
      version: 3,
    });
  });

  test("a new procedure code re-checks the site and re-prices office_fee from the new code; fee_override stays", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D2391", { tooth_number: "3", surfaces: "O", fee_override: 100 });
    const crown = await m.codeId("D2740");
    const refused = await patch(proc.id, { base_version: 1, procedure_code_uuid: crown });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "invalid_site", detail: [{ loc: ["body", "surfaces"] }] });
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ procedure_code: "D2391", office_fee_cents: 17500, version: 1 });
    const r = await patch(proc.id, { base_version: 1, procedure_code_uuid: crown, surfaces: null });
    expect(r.body).toMatchObject({
      procedure_code: "D2740",
      procedure_code_uuid: crown,
      treatment_area: "tooth",
      surfaces: null,
      tooth_number: "3",
      office_fee: "1250.00",
      fee_override: "100.00",
      effective_fee: "100.00",
    });
    // the same code again changes nothing about the fee
    const same = await patch(proc.id, { base_version: 2, procedure_code_uuid: crown, fee_override: null });
    expect(same.body).toMatchObject({ office_fee: "1250.00", effective_fee: "1250.00" });
  });

  test("office_fee is fixed at charting time: a later change of the code's default fee does not touch it", async () => {
    const p = await m.createPatient();
    const code = await m.createCode({ code: "X3001", short_name: "Thing", code_type: "custom", default_fee: 40 });
    const proc = (await m.t.request("POST", m.procPath(p.id), { token: m.token, body: { procedure_code_uuid: code.id } })).body;
    await m.t.request("PATCH", `/api/v1/${m.orgId}/codes/procedure-codes/${code.id}`, { token: m.token, body: { base_version: 1, default_fee: 90 } });
    expect((await m.t.request("GET", m.procById(proc.id), { token: m.token })).body.office_fee).toBe("40.00");
  });

  test("site fields are judged on the record after the patch", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D2391", { tooth_number: "3", surfaces: "O" });
    for (const [body, field] of [
      [{ surfaces: null }, "surfaces"],
      [{ tooth_number: null }, "tooth_number"],
      [{ tooth_number: "8" }, "surfaces"],
      [{ arch: "upper" }, "arch"],
    ] as const) {
      const r = await patch(proc.id, { base_version: 1, ...body });
      expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "invalid_site", ["body", field]]);
    }
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ tooth_number: "3", surfaces: "O", version: 1 });
  });

  test("409 stale base_version (nothing changed); 404 missing, deleted and another org's; 422 for schema errors", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D0150");
    await patch(proc.id, { base_version: 1, note: "x" });
    const stale = await patch(proc.id, { base_version: 1, note: "y", status: "existing_other" });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ note: "x", version: 2 });
    expect((await patch(MISSING, { base_version: 1, note: "z" })).status).toBe(404);
    const foreign = await m.chart((await m.createPatient({}, m.otherOrg)).id, "D0150", {}, m.otherOrg);
    expect((await patch(foreign.id, { base_version: 1, note: "z" })).status).toBe(404);
    expect(await m.rowOf("procedure", foreign.id, m.otherOrg)).toMatchObject({ note: "", version: 1 });
    for (const [body, loc, type] of [
      [{ note: "z" }, "base_version", "missing"],
      [{ base_version: "2" }, "base_version", "type_error"],
      [{ base_version: 2, status: "gone" }, "status", "enum"],
      [{ base_version: 2, office_fee: 3 }, "office_fee", "read_only"],
      [{ base_version: 2, procedure_code: "D1" }, "procedure_code", "read_only"],
      [{ base_version: 2, wat: 1 }, "wat", "extra_forbidden"],
      [{ base_version: 2, sextant: 2.5 }, "sextant", "type_error"],
    ] as const) {
      const r = await patch(proc.id, body);
      expect([r.status, r.body.detail[0].loc, r.body.detail[0].type]).toEqual([422, ["body", loc], type]);
    }
    const bad = await m.t.request("PATCH", m.procById(proc.id), { token: m.token, rawBody: "{", headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ note: "x", version: 2 });
  });

  test("404 for references that do not exist here; nothing changed", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D0150");
    for (const body of [
      { provider_uuid: MISSING },
      { priority_uuid: await m.definitionId("prognosis") },
      { procedure_code_uuid: MISSING },
      { appointment_uuid: MISSING },
    ]) {
      expect((await patch(proc.id, { base_version: 1, ...body })).status).toBe(404);
    }
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ version: 1, provider_id: null, priority_id: null });
  });
});

describe("DELETE", () => {
  test("soft delete: 204, gone from GET and lists, deleted_at set; event and audit charted_procedure.deleted", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D2740", { tooth_number: "3" });
    const r = await del(proc.id, 1);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await m.t.request("GET", m.procById(proc.id), { token: m.token })).status).toBe(404);
    expect((await m.rowOf("procedure", proc.id)).deleted_at).toEqual(expect.any(String));
    const ev = (await m.eventsOf(proc.id)).at(-1)!;
    expect([ev.type, ev.data.changed_fields]).toEqual(["charted_procedure.deleted", ["deleted_at"]]);
    expect((await auditOf(m.t, m.orgId, proc.id)).map((a) => a.action)).toContain("charted_procedure.deleted");
    // again: it is gone
    expect((await del(proc.id, 2)).status).toBe(404);
  });

  test.each(["complete", "complete_referred"])("422 procedure_completed for %s; nothing changed", async (status) => {
    const proc = await inState(status);
    const r = await del(proc.id, proc.version);
    expect([r.status, r.body.code]).toEqual([422, "procedure_completed"]);
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ deleted_at: null, version: proc.version });
  });

  test.each(["treatment_planned", "scheduled", "in_progress", "referred", "existing_current", "existing_other"])("%s can be deleted", async (status) => {
    const proc = await inState(status);
    expect((await del(proc.id, proc.version)).status).toBe(204);
  });

  test("409 stale base_version; 404 missing and another org's; 422 without or with a bad base_version", async () => {
    const p = await m.createPatient();
    const proc = await m.chart(p.id, "D0150");
    expect((await del(proc.id, 5)).status).toBe(409);
    expect((await del(MISSING, 1)).status).toBe(404);
    const foreign = await m.chart((await m.createPatient({}, m.otherOrg)).id, "D0150", {}, m.otherOrg);
    expect((await del(foreign.id, 1)).status).toBe(404);
    expect((await m.rowOf("procedure", foreign.id, m.otherOrg)).deleted_at).toBeNull();
    const none = await m.t.request("DELETE", m.procById(proc.id), { token: m.token });
    expect([none.status, none.body.detail[0].loc]).toEqual([422, ["query", "base_version"]]);
    expect((await del(proc.id, "x")).status).toBe(422);
    expect((await m.rowOf("procedure", proc.id)).deleted_at).toBeNull();
  });
});
