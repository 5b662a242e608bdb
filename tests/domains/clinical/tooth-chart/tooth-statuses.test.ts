import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { newLocation } from "@tests/domains/patients/relationships/fixtures";
import { archivePatient, clinical, insertChartedProcedure, JSON_HEADERS, MISSING, newPatient, ofPatient, toothChartApp, toothRows } from "./fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let reader: string; // clinical.read only
let writer: { userId: string; token: string }; // clinical.read + clinical.write
let patientsOnly: string; // patients.read/write, no clinical keys
let memberOfB: string;
let events: EventEnvelope[];
/** Every event of each finished write has arrived (the checks count them exactly). */
const delivered = () => busDrained(t.rt.bus);

type P = { id: string };
let pat: P, other: P, theirs: P;
let today: string;

const statuses = (orgId: string, pid: string) => ofPatient(orgId, pid, "/tooth-statuses");
const history = (orgId: string, pid: string, tooth: string) => ofPatient(orgId, pid, `/teeth/${tooth}/status-history`);
const del = (orgId: string, id: string, qs: string) => clinical(orgId, `/tooth-statuses/${id}${qs}`);

async function put(pid: string, body: Record<string, unknown>, token = admin, orgId = orgA) {
  const r = await t.request("PUT", statuses(orgId, pid), { token, body });
  if (r.status !== 200) throw new Error(`put failed: ${r.status} ${r.text}`);
  return r.body;
}

beforeAll(async () => {
  const w = await toothChartApp();
  ({ t, admin, orgA, orgB, events } = w);
  writer = w.members.writer;
  ({ reader, patientsOnly, memberOfB } = w.tokens);
  locationId = await newLocation(t, orgA);
  today = Temporal.Now.plainDateISO("America/Chicago").toString();
  pat = await newPatient(t, orgA, { first_name: "Tess", last_name: "Tooth", location_uuid: locationId });
  other = await newPatient(t, orgA, { first_name: "Otto", last_name: "Other" });
  theirs = await newPatient(t, orgB, { first_name: "Theo", last_name: "Theirs" });
});
afterAll(() => t.close());

describe("PUT .../tooth-statuses", () => {
  test("creates the tooth's first record: version 1, defaults, today in the practice's zone; audited; event with ids only", async () => {
    const before = events.length;
    const r = await t.request("PUT", statuses(orgA, pat.id), {
      token: writer.token,
      body: {
        tooth_number: "3",
        status: "impacted",
        note: "Distal caries noted",
        impaction_angle: "mesioangular",
        impaction_depth: "partial_bony",
        rotate: -12.5,
        tip_m: 45,
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      patient: { uuid: pat.id, name: "Tess Tooth" },
      tooth_number: "3",
      status: "impacted",
      effective_date: today,
      note: "Distal caries noted",
      source: "manual",
      charted_procedure: null,
      transposition_with: null,
      ectopic_slot_index: null,
      eruption_pct: null,
      eruption_stage: null,
      impaction_angle: "mesioangular",
      impaction_depth: "partial_bony",
      root_completion: null,
      scale_factor: 1,
      rotate: -12.5,
      shift_b: 0,
      shift_m: 0,
      shift_o: 0,
      tip_b: 0,
      tip_m: 45,
      superseded_at: null,
      deleted_at: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: "tooth_status.updated", resource_type: "tooth_status", actor_id: writer.userId, before: null });
    expect(audit[0].after).toMatchObject({ tooth_number: "3", status: "impacted" });
    await delivered();
    const ev = events.slice(before).filter((e) => e.type === "tooth_status.updated");
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      resource_type: "tooth_status",
      resource_id: r.body.id,
      practice_id: locationId,
      data: { id: r.body.id, patient_id: pat.id, tooth_number: "3", superseded_id: null },
    });
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual([
      "effective_date",
      "impaction_angle",
      "impaction_depth",
      "note",
      "rotate",
      "source",
      "status",
      "tip_m",
    ]);
    expect(JSON.stringify(ev[0])).not.toContain("caries");
  });

  test("supersedes the current record: the new one carries version + 1, unsent fields reset; the old one keeps its version and gets superseded_at", async () => {
    const first = await put(pat.id, { tooth_number: "14", status: "present", rotate: 30, shift_b: 2.5 });
    const before = events.length;
    const second = await put(pat.id, { tooth_number: "14", status: "prosthetic", expected_version: 1, effective_date: "2025-01-15", source: "imported" });
    expect(second).toMatchObject({
      tooth_number: "14",
      status: "prosthetic",
      version: 2,
      rotate: 0,
      shift_b: 0,
      effective_date: "2025-01-15",
      source: "imported",
      superseded_at: null,
    });
    const rows = (await toothRows(t, orgA)).filter((x) => x.tooth_number === "14");
    expect(rows).toHaveLength(2);
    const old = rows.find((x) => x.id === first.id)!;
    expect(old).toMatchObject({ version: 1, superseded_at: second.created_at, deleted_at: null, status: "present", rotate: 30 });
    const list = await t.request("GET", statuses(orgA, pat.id), { token: reader });
    expect(list.body.items.filter((x: any) => x.tooth_number === "14")).toEqual([second]);
    await delivered();
    const ev = events.slice(before).find((e) => e.type === "tooth_status.updated")!;
    expect(ev.data).toMatchObject({ id: second.id, superseded_id: first.id });
    expect((ev.data.changed_fields as string[]).sort()).toEqual(["effective_date", "rotate", "shift_b", "source", "status"]);
    expect((await auditOf(t, orgA, second.id))[0].before).toMatchObject({ id: first.id, status: "present" });
  });

  test("tooth numbers: letters case-insensitive, supernumerary 51-82 and AS-TS; transposition_with", async () => {
    expect(await put(pat.id, { tooth_number: "b", status: "primary" })).toMatchObject({ tooth_number: "B" });
    expect(await put(pat.id, { tooth_number: "51", status: "supernumerary", ectopic_slot_index: 2, scale_factor: 0.5 })).toMatchObject({
      tooth_number: "51",
      ectopic_slot_index: 2,
      scale_factor: 0.5,
    });
    expect(await put(pat.id, { tooth_number: "ds", status: "impacted" })).toMatchObject({ tooth_number: "DS" });
    expect(
      await put(pat.id, {
        tooth_number: "6",
        status: "present",
        transposition_with: "5",
        eruption_pct: 100,
        eruption_stage: "full",
        root_completion: 100,
        shift_o: -10,
        shift_m: 10,
        tip_b: -45,
        rotate: 180,
        scale_factor: 2,
      }),
    ).toMatchObject({
      transposition_with: "5",
      eruption_pct: 100,
      eruption_stage: "full",
      root_completion: 100,
      shift_o: -10,
      shift_m: 10,
      tip_b: -45,
      rotate: 180,
      scale_factor: 2,
    });
  });

  test("expected_version 0: only while the tooth has no current record; a stale expected_version is 409; nothing changed", async () => {
    const created = await put(pat.id, { tooth_number: "19", status: "present", expected_version: 0 });
    expect(created.version).toBe(1);
    const before = await toothRows(t, orgA);
    for (const expected_version of [0, 2]) {
      const r = await t.request("PUT", statuses(orgA, pat.id), { token: admin, body: { tooth_number: "19", status: "missing", expected_version } });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: "The record is at version 1; reload and retry", code: "version_conflict" });
    }
    const none = await t.request("PUT", statuses(orgA, pat.id), { token: admin, body: { tooth_number: "20", status: "missing", expected_version: 1 } });
    expect(none.status).toBe(409);
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test("charted_procedure_uuid: links a procedure of this patient (ref named by its code); 404 for a missing, deleted or other patient's procedure", async () => {
    const proc = await insertChartedProcedure(t, orgA, pat.id, { code: "D7140" });
    const linked = await put(pat.id, { tooth_number: "1", status: "missing", source: "clinical_chart", charted_procedure_uuid: proc.toUpperCase() });
    expect(linked.charted_procedure).toEqual({ uuid: proc, name: "D7140" });
    const deleted = await insertChartedProcedure(t, orgA, pat.id, { deleted: true });
    const othersProc = await insertChartedProcedure(t, orgA, other.id);
    const foreignProc = await insertChartedProcedure(t, orgB, theirs.id);
    const before = await toothRows(t, orgA);
    for (const id of [MISSING, deleted, othersProc, foreignProc]) {
      const r = await t.request("PUT", statuses(orgA, pat.id), { token: admin, body: { tooth_number: "2", status: "missing", charted_procedure_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Charted procedure not found", code: "not_found" });
    }
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  const tomorrowPlus2 = Temporal.Now.plainDateISO("America/Chicago").add({ days: 2 }).toString();
  test.each([
    ["missing tooth_number", { tooth_number: undefined }, ["body", "tooth_number"], "missing"],
    ["missing status", { status: undefined }, ["body", "status"], "missing"],
    ["tooth 33", { tooth_number: "33" }, ["body", "tooth_number"], "value_error"],
    ["tooth 0", { tooth_number: "0" }, ["body", "tooth_number"], "value_error"],
    ["tooth U", { tooth_number: "U" }, ["body", "tooth_number"], "value_error"],
    ["tooth 83", { tooth_number: "83" }, ["body", "tooth_number"], "value_error"],
    ["tooth a number", { tooth_number: 3 }, ["body", "tooth_number"], "type_error"],
    ["unknown status", { status: "wobbly" }, ["body", "status"], "enum"],
    ["source age_seeded (system only)", { source: "age_seeded" }, ["body", "source"], "enum"],
    ["unknown source", { source: "scanner" }, ["body", "source"], "enum"],
    ["rotate 181", { rotate: 181 }, ["body", "rotate"], "out_of_range"],
    ["rotate -180.5", { rotate: -180.5 }, ["body", "rotate"], "out_of_range"],
    ["rotate a string", { rotate: "5" }, ["body", "rotate"], "type_error"],
    ["shift_b 10.1", { shift_b: 10.1 }, ["body", "shift_b"], "out_of_range"],
    ["shift_m -11", { shift_m: -11 }, ["body", "shift_m"], "out_of_range"],
    ["shift_o 11", { shift_o: 11 }, ["body", "shift_o"], "out_of_range"],
    ["tip_b 46", { tip_b: 46 }, ["body", "tip_b"], "out_of_range"],
    ["tip_m -45.5", { tip_m: -45.5 }, ["body", "tip_m"], "out_of_range"],
    ["eruption_pct 101", { eruption_pct: 101 }, ["body", "eruption_pct"], "out_of_range"],
    ["eruption_pct -1", { eruption_pct: -1 }, ["body", "eruption_pct"], "out_of_range"],
    ["eruption_pct 50.5", { eruption_pct: 50.5 }, ["body", "eruption_pct"], "type_error"],
    ["root_completion 101", { root_completion: 101 }, ["body", "root_completion"], "out_of_range"],
    ["scale_factor 0.4", { scale_factor: 0.4 }, ["body", "scale_factor"], "out_of_range"],
    ["scale_factor 2.1", { scale_factor: 2.1 }, ["body", "scale_factor"], "out_of_range"],
    ["ectopic_slot_index 10", { ectopic_slot_index: 10 }, ["body", "ectopic_slot_index"], "out_of_range"],
    ["eruption_stage", { eruption_stage: "halfway" }, ["body", "eruption_stage"], "enum"],
    ["impaction_angle", { impaction_angle: "sideways" }, ["body", "impaction_angle"], "enum"],
    ["impaction_depth", { impaction_depth: "deep" }, ["body", "impaction_depth"], "enum"],
    ["transposition_with not a tooth", { transposition_with: "99" }, ["body", "transposition_with"], "value_error"],
    ["transposed with itself", { tooth_number: "7", transposition_with: "7" }, ["body", "transposition_with"], "value_error"],
    ["effective_date not a date", { effective_date: "2025-13-01" }, ["body", "effective_date"], "format"],
    ["effective_date in the future", { effective_date: tomorrowPlus2 }, ["body", "effective_date"], "value_error"],
    ["expected_version -1", { expected_version: -1 }, ["body", "expected_version"], "out_of_range"],
    ["expected_version a string", { expected_version: "1" }, ["body", "expected_version"], "type_error"],
    ["charted_procedure_uuid not a uuid", { charted_procedure_uuid: "abc" }, ["body", "charted_procedure_uuid"], "format"],
    ["note too long", { note: "n".repeat(2001) }, ["body", "note"], "out_of_range"],
    ["unknown field", { color: "red" }, ["body", "color"], "extra_forbidden"],
    ["read-only version", { version: 3 }, ["body", "version"], "read_only"],
    ["read-only superseded_at", { superseded_at: null }, ["body", "superseded_at"], "read_only"],
  ])("422 %s; nothing written", async (_name, patch, loc, type) => {
    const before = await toothRows(t, orgA);
    const r = await t.request("PUT", statuses(orgA, pat.id), { token: admin, body: { tooth_number: "8", status: "present", ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test("422 for malformed JSON, a body that is not an object, and an archived patient (patient_archived); nothing written", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Gil", last_name: "Gone" });
    await archivePatient(t, orgA, gone.id);
    const before = await toothRows(t, orgA);
    const bad = await t.request("PUT", statuses(orgA, pat.id), { token: admin, rawBody: '{"tooth_number": "3",', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    expect((await t.request("PUT", statuses(orgA, pat.id), { token: admin, body: ["3"] })).status).toBe(422);
    const archived = await t.request("PUT", statuses(orgA, gone.id), { token: admin, body: { tooth_number: "3", status: "present" } });
    expect(archived.status).toBe(422);
    expect(archived.body).toMatchObject({ code: "patient_archived", detail: [{ loc: ["path", "patient_uuid"] }] });
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test("401; 403 without clinical.write; 404 for a missing patient, another org's patient and a non-member; nothing written", async () => {
    const body = { tooth_number: "3", status: "missing" };
    const before = await toothRows(t, orgA);
    const anon = await t.request("PUT", statuses(orgA, pat.id), { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    for (const token of [reader, patientsOnly]) {
      const r = await t.request("PUT", statuses(orgA, pat.id), { token, body });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    for (const [path, token, detail] of [
      [statuses(orgA, MISSING), admin, "Patient not found"],
      [statuses(orgA, theirs.id), admin, "Patient not found"],
      [statuses(orgA, pat.id), memberOfB, "Organization not found"],
      [statuses(orgB, pat.id), memberOfB, "Patient not found"],
    ] as const) {
      const r = await t.request("PUT", path, { token, body });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await toothRows(t, orgA)).toEqual(before);
    expect(await toothRows(t, orgB)).toEqual([]);
  });
});

describe("GET .../tooth-statuses", () => {
  let chart: P;
  beforeAll(async () => {
    chart = await newPatient(t, orgA, { first_name: "Carl", last_name: "Chart" });
    for (const tooth of ["AS", "T", "30", "52", "A", "2"]) await put(chart.id, { tooth_number: tooth, status: "present" });
    await put(chart.id, { tooth_number: "30", status: "missing" });
    await put(other.id, { tooth_number: "9", status: "present" });
  });

  test("one current record per tooth in chart order (1-32, A-T, 51-82, AS-TS), total; superseded, deleted and other patients' records left out", async () => {
    const deleteMe = await put(chart.id, { tooth_number: "K", status: "primary" });
    expect((await t.request("DELETE", del(orgA, deleteMe.id, "?base_version=1"), { token: admin })).status).toBe(204);
    const r = await t.request("GET", statuses(orgA, chart.id), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(6);
    expect(r.body.items.map((x: any) => `${x.tooth_number}:${x.status}`)).toEqual([
      "2:present",
      "30:missing",
      "A:present",
      "T:present",
      "52:present",
      "AS:present",
    ]);
    expect(r.body.items.every((x: any) => x.patient.uuid === chart.id && x.superseded_at === null && x.deleted_at === null)).toBe(true);
  });

  test("a patient without records: empty; an archived patient stays readable", async () => {
    const empty = await newPatient(t, orgA, { first_name: "Ed", last_name: "Entulous" });
    expect((await t.request("GET", statuses(orgA, empty.id), { token: reader })).body).toEqual({ items: [], total: 0 });
    await put(empty.id, { tooth_number: "8", status: "present" });
    await archivePatient(t, orgA, empty.id);
    const r = await t.request("GET", statuses(orgA, empty.id), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
  });

  test("401; 403 without clinical.read; 404 for a missing patient, another org's patient and a non-member; 422 for a query parameter", async () => {
    expect((await t.request("GET", statuses(orgA, chart.id))).status).toBe(401);
    expect((await t.request("GET", statuses(orgA, chart.id), { token: patientsOnly })).status).toBe(403);
    for (const [path, token] of [
      [statuses(orgA, MISSING), admin],
      [statuses(orgA, theirs.id), admin],
      [statuses(orgA, chart.id), memberOfB],
      [statuses(orgB, chart.id), memberOfB],
    ] as const) {
      expect((await t.request("GET", path, { token })).status).toBe(404);
    }
    const q = await t.request("GET", `${statuses(orgA, chart.id)}?status=present`, { token: reader });
    expect(q.status).toBe(422);
    expect(q.body.detail).toContainEqual(expect.objectContaining({ loc: ["query", "status"], type: "extra_forbidden" }));
  });
});

describe("GET .../teeth/:tooth_num/status-history", () => {
  let h: P;
  const ids: string[] = [];
  beforeAll(async () => {
    h = await newPatient(t, orgA, { first_name: "Hal", last_name: "History" });
    ids.push((await put(h.id, { tooth_number: "E", status: "primary" })).id);
    ids.push((await put(h.id, { tooth_number: "E", status: "exfoliating", expected_version: 1 })).id);
    const third = await put(h.id, { tooth_number: "E", status: "over_retained", expected_version: 2 });
    ids.push(third.id);
    expect((await t.request("DELETE", del(orgA, third.id, "?base_version=3"), { token: admin })).status).toBe(204);
    ids.push((await put(h.id, { tooth_number: "E", status: "missing", expected_version: 0 })).id);
    await put(h.id, { tooth_number: "F", status: "primary" });
  });

  test("every record of the tooth, superseded and deleted ones included, newest first; versions keep counting after a delete", async () => {
    for (const tooth of ["E", "e"]) {
      const r = await t.request("GET", history(orgA, h.id, tooth), { token: reader });
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(4);
      expect(r.body.items.map((x: any) => x.id)).toEqual([...ids].reverse());
      expect(r.body.items.map((x: any) => [x.status, x.version, !!x.superseded_at, !!x.deleted_at])).toEqual([
        ["missing", 4, false, false],
        ["over_retained", 3, true, true],
        ["exfoliating", 2, true, false],
        ["primary", 1, true, false],
      ]);
    }
    expect((await t.request("GET", history(orgA, h.id, "9"), { token: reader })).body).toEqual({ items: [], total: 0 });
  });

  test("422 for a bad tooth number or a query parameter; 401; 403; 404 for a missing patient, another org's patient and a non-member", async () => {
    for (const bad of ["33", "U", "0", "x1"]) {
      const r = await t.request("GET", history(orgA, h.id, bad), { token: reader });
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["path", "tooth_num"], type: "value_error" })]);
    }
    const q = await t.request("GET", `${history(orgA, h.id, "E")}?include_deleted=false`, { token: reader });
    expect(q.status).toBe(422);
    expect(q.body.detail).toContainEqual(expect.objectContaining({ loc: ["query", "include_deleted"], type: "extra_forbidden" }));
    expect((await t.request("GET", history(orgA, h.id, "E"))).status).toBe(401);
    expect((await t.request("GET", history(orgA, h.id, "E"), { token: patientsOnly })).status).toBe(403);
    for (const [path, token] of [
      [history(orgA, MISSING, "E"), admin],
      [history(orgA, theirs.id, "E"), admin],
      [history(orgA, h.id, "E"), memberOfB],
      [history(orgB, h.id, "E"), memberOfB],
    ] as const) {
      const r = await t.request("GET", path, { token });
      expect(r.status).toBe(404);
    }
  });
});

describe("DELETE .../tooth-statuses/:status_uuid", () => {
  let d: P;
  beforeAll(async () => {
    d = await newPatient(t, orgA, { first_name: "Del", last_name: "Eted", location_uuid: locationId });
  });

  test("204: superseded and soft-deleted, leaves the chart, stays in the history; audited; event; a repeat is 204 again (409 when stale)", async () => {
    const rec = await put(d.id, { tooth_number: "30", status: "present" });
    const before = events.length;
    const r = await t.request("DELETE", del(orgA, rec.id, "?base_version=1"), { token: writer.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    const row = (await toothRows(t, orgA)).find((x) => x.id === rec.id)!;
    expect(row.deleted_at).toMatch(/Z$/);
    expect(row.superseded_at).toBe(row.deleted_at);
    expect(row.version).toBe(1);
    expect((await t.request("GET", statuses(orgA, d.id), { token: reader })).body.items.map((x: any) => x.id)).not.toContain(rec.id);
    expect((await t.request("GET", history(orgA, d.id, "30"), { token: reader })).body.items[0]).toMatchObject({ id: rec.id, deleted_at: row.deleted_at });
    const audit = (await auditOf(t, orgA, rec.id)).find((a) => a.action === "tooth_status.deleted");
    expect(audit).toMatchObject({ resource_type: "tooth_status", actor_id: writer.userId });
    await delivered();
    const ev = events.slice(before).filter((e) => e.type === "tooth_status.deleted");
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ resource_id: rec.id, practice_id: locationId, data: { id: rec.id, patient_id: d.id, tooth_number: "30" } });
    const rows = await toothRows(t, orgA);
    // a repeat at the version it was deleted at is 204; any other base_version is stale (CONTRACT.md: 409), found by the fuzz test
    expect((await t.request("DELETE", del(orgA, rec.id, "?base_version=1"), { token: admin })).status).toBe(204);
    const stale = await t.request("DELETE", del(orgA, rec.id, "?base_version=7"), { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect(await toothRows(t, orgA)).toEqual(rows);
    // the tooth can be charted again: its versions keep counting
    expect(await put(d.id, { tooth_number: "30", status: "missing", expected_version: 0 })).toMatchObject({ version: 2 });
  });

  test("a superseded record can be deleted from the history; its superseded_at is kept", async () => {
    const first = await put(d.id, { tooth_number: "31", status: "present" });
    await put(d.id, { tooth_number: "31", status: "missing" });
    const supersededAt = (await toothRows(t, orgA)).find((x) => x.id === first.id)!.superseded_at;
    expect((await t.request("DELETE", del(orgA, first.id, "?base_version=1"), { token: admin })).status).toBe(204);
    const row = (await toothRows(t, orgA)).find((x) => x.id === first.id)!;
    expect(row.superseded_at).toBe(supersededAt);
    expect(row.deleted_at).toMatch(/Z$/);
    expect((await t.request("GET", statuses(orgA, d.id), { token: reader })).body.items.find((x: any) => x.tooth_number === "31")).toMatchObject({
      status: "missing",
    });
  });

  test("409 stale base_version; 422 without or with a bad base_version or an unknown parameter; 422 patient_archived; nothing changed", async () => {
    await put(d.id, { tooth_number: "29", status: "present" });
    const rec = await put(d.id, { tooth_number: "29", status: "impacted" }); // version 2
    const before = await toothRows(t, orgA);
    const stale = await t.request("DELETE", del(orgA, rec.id, "?base_version=1"), { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ detail: "The record is at version 2; reload and retry", code: "version_conflict" });
    for (const [qs, loc, type] of [
      ["", ["query", "base_version"], "missing"],
      ["?base_version=0", ["query", "base_version"], "out_of_range"],
      ["?base_version=abc", ["query", "base_version"], "type_error"],
      ["?base_version=2&force=true", ["query", "force"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("DELETE", del(orgA, rec.id, qs), { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect(await toothRows(t, orgA)).toEqual(before);
    const gone = await newPatient(t, orgA, { first_name: "Arch", last_name: "Ived" });
    const goneRec = await put(gone.id, { tooth_number: "3", status: "present" });
    await archivePatient(t, orgA, gone.id);
    const archived = await t.request("DELETE", del(orgA, goneRec.id, "?base_version=1"), { token: admin });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect((await toothRows(t, orgA)).find((x) => x.id === goneRec.id)!.deleted_at).toBeNull();
  });

  test("401; 403 without clinical.write; 404 for an unknown id, another org's record and a non-member; nothing changed", async () => {
    const rec = await put(d.id, { tooth_number: "28", status: "present" });
    const theirsRec = await put(theirs.id, { tooth_number: "28", status: "present" }, admin, orgB);
    const beforeA = await toothRows(t, orgA);
    const beforeB = await toothRows(t, orgB);
    expect((await t.request("DELETE", del(orgA, rec.id, "?base_version=1"))).status).toBe(401);
    for (const token of [reader, patientsOnly]) expect((await t.request("DELETE", del(orgA, rec.id, "?base_version=1"), { token })).status).toBe(403);
    for (const [path, token, detail] of [
      [del(orgA, MISSING, "?base_version=1"), admin, "Tooth status not found"],
      [del(orgA, theirsRec.id, "?base_version=1"), admin, "Tooth status not found"],
      [del(orgB, rec.id, "?base_version=1"), memberOfB, "Tooth status not found"],
      [del(orgA, rec.id, "?base_version=1"), memberOfB, "Organization not found"],
    ] as const) {
      const r = await t.request("DELETE", path, { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await toothRows(t, orgA)).toEqual(beforeA);
    expect(await toothRows(t, orgB)).toEqual(beforeB);
  });
});
