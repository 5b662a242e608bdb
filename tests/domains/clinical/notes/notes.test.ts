import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { archivePatient, JSON_HEADERS, MISSING, newAppointment, newLocation, newPatient, newProcedure, newProvider, snapshot } from "./fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let writer: { userId: string; token: string }; // read + write
let signer: { userId: string; token: string }; // read + sign
let reader: string;
let patientsOnly: string;
let memberOfB: string;
let events: EventEnvelope[];

type P = { id: string };
let pat: P, other: P, theirs: P;
let provider: { id: string }, theirProvider: { id: string };
let appt: { id: string }, otherAppt: { id: string };
let proc: { id: string }, proc2: { id: string }, otherProc: { id: string }, deletedProc: { id: string }, theirProc: { id: string };

const notes = (orgId: string, rest = "") => `/api/v1/${orgId}/clinical-notes/clinical-notes${rest}`;
const BODY = () => ({ patient_uuid: pat.id, content: "Patient reports sensitivity on #3." });

async function create(body: Record<string, unknown> = {}, token = admin, orgId = orgA) {
  const r = await t.request("POST", notes(orgId), { token, body: { ...BODY(), ...body } });
  if (r.status !== 201) throw new Error(`create note failed: ${r.status} ${r.text}`);
  return r.body;
}
async function sign(id: string, version: number, token = admin) {
  const r = await t.request("POST", notes(orgA, `/${id}/sign`), { token, body: { base_version: version } });
  if (r.status !== 200) throw new Error(`sign failed: ${r.status} ${r.text}`);
  return r.body;
}
const readNote = async (id: string) => (await t.request("GET", notes(orgA, `/${id}`), { token: admin })).body;

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      writer: { keys: ["clinical.notes.read", "clinical.notes.write"], displayName: "Wendy Writer" },
      signer: { keys: ["clinical.notes.read", "clinical.notes.sign"], displayName: "Dr. Sam Signer" },
      reader: ["clinical.notes.read"],
      patientsOnly: ["patients.read", "patients.write", "clinical.read", "clinical.write"],
      memberOfB: { org: "B", keys: ["clinical.notes.read", "clinical.notes.write", "clinical.notes.sign"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  ({ writer, signer } = w.members);
  ({ reader, patientsOnly, memberOfB } = w.tokens);
  locationId = await newLocation(t, orgA);
  pat = await newPatient(t, orgA, { first_name: "Nora", last_name: "Notes", location_uuid: locationId });
  other = await newPatient(t, orgA, { first_name: "Otto", last_name: "Other" });
  theirs = await newPatient(t, orgB, { first_name: "Theo", last_name: "Theirs" });
  provider = await newProvider(t, orgA, { first_name: "Ada", last_name: "Molar" });
  theirProvider = await newProvider(t, orgB);
  appt = await newAppointment(t, orgA, { patient_id: pat.id, location_id: locationId, provider_id: provider.id, scheduled_start: "2026-03-09T09:00:00" });
  otherAppt = await newAppointment(t, orgA, {
    patient_id: other.id,
    location_id: locationId,
    provider_id: provider.id,
    scheduled_start: "2026-03-10T09:00:00",
  });
  proc = await newProcedure(t, orgA, { patient_id: pat.id, code: "D2391", tooth_number: "3", surfaces: "MO" });
  proc2 = await newProcedure(t, orgA, { patient_id: pat.id, code: "D2740", tooth_number: "14" });
  otherProc = await newProcedure(t, orgA, { patient_id: other.id, code: "D2391", tooth_number: "3" });
  deletedProc = await newProcedure(t, orgA, { patient_id: pat.id, code: "D2391", deleted: true });
  theirProc = await newProcedure(t, orgB, { patient_id: theirs.id, code: "D2391" });
});
afterAll(() => t.close());

describe("POST /clinical-notes", () => {
  test("201 with every field and its refs; author from the caller; audited; the event has ids only", async () => {
    const before = events.length;
    const r = await t.request("POST", notes(orgA), {
      token: writer.token,
      body: {
        patient_uuid: pat.id,
        content: "  MO composite on #3, tolerated well.  ",
        note_type: "procedure",
        appointment_uuid: appt.id,
        provider_uuid: provider.id,
        procedure_uuids: [proc.id, proc2.id, proc.id],
        case_id: "CASE-42",
        visit_date: "2026-03-08",
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: r.body.created_at,
      patient: { uuid: pat.id, name: "Nora Notes" },
      provider: { uuid: provider.id, name: "Ada Molar" },
      appointment: { uuid: appt.id, name: "2026-03-09T09:00:00" },
      procedures: [
        { uuid: proc.id, name: "D2391 #3 MO" },
        { uuid: proc2.id, name: "D2740 #14" },
      ],
      note_type: "procedure",
      content: "MO composite on #3, tolerated well.",
      content_edited: false,
      visit_date: "2026-03-08",
      case_id: "CASE-42",
      status: "draft",
      signed_at: null,
      signed_by: null,
      author: { uuid: writer.userId, name: "Wendy Writer" },
      auto_rule: null,
      addendums: [],
    });
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: "clinical_note.created", resource_type: "clinical_note", actor_id: writer.userId });
    expect(audit[0].after.content).toBe("MO composite on #3, tolerated well.");
    const ev = events.slice(before).find((e) => e.type === "clinical_note.created")!;
    expect(ev).toMatchObject({ resource_id: r.body.id, practice_id: locationId, data: { id: r.body.id, patient_id: pat.id } });
    expect(Object.keys(ev.data).sort()).toEqual(["id", "patient_id"]);
    expect(JSON.stringify(ev)).not.toContain("composite");
  });

  test("defaults: note_type progress, visit_date today in the practice's zone, else the appointment's date", async () => {
    const today = Temporal.Now.plainDateISO("America/Chicago").toString();
    const plain = await create();
    expect(plain).toMatchObject({ note_type: "progress", visit_date: today, provider: null, appointment: null, procedures: [], case_id: null });
    const noPractice = await create({ patient_uuid: other.id });
    expect(noPractice.visit_date).toBe(Temporal.Now.plainDateISO("UTC").toString());
    const withAppt = await create({ appointment_uuid: appt.id.toUpperCase() });
    expect(withAppt).toMatchObject({ visit_date: "2026-03-09", appointment: { uuid: appt.id } });
  });

  test.each([
    ["missing patient_uuid", { patient_uuid: undefined }, ["body", "patient_uuid"], "missing"],
    ["missing content", { content: undefined }, ["body", "content"], "missing"],
    ["blank content", { content: "   " }, ["body", "content"], "out_of_range"],
    ["content too long", { content: "x".repeat(50_001) }, ["body", "content"], "out_of_range"],
    ["content a number", { content: 7 }, ["body", "content"], "type_error"],
    ["bad note_type", { note_type: "gossip" }, ["body", "note_type"], "enum"],
    ["patient_uuid not a uuid", { patient_uuid: "nora" }, ["body", "patient_uuid"], "format"],
    ["procedure_uuids not a list", { procedure_uuids: "x" }, ["body", "procedure_uuids"], "type_error"],
    ["procedure_uuids item not a uuid", { procedure_uuids: ["x"] }, ["body", "procedure_uuids", 0], "format"],
    ["visit_date not a date", { visit_date: "2026-02-30" }, ["body", "visit_date"], "format"],
    ["case_id too long", { case_id: "c".repeat(101) }, ["body", "case_id"], "out_of_range"],
    ["unknown field", { mood: "calm" }, ["body", "mood"], "extra_forbidden"],
    ["read-only status", { status: "signed" }, ["body", "status"], "read_only"],
    ["read-only signed_by", { signed_by: { uuid: MISSING } }, ["body", "signed_by"], "read_only"],
    ["read-only content_edited", { content_edited: true }, ["body", "content_edited"], "read_only"],
    ["read-only id", { id: MISSING }, ["body", "id"], "read_only"],
  ])("422 %s; nothing written", async (_name, patch, loc, type) => {
    const before = await snapshot(t, orgA);
    const r = await t.request("POST", notes(orgA), { token: admin, body: { ...BODY(), ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("422 malformed JSON, archived patient, another patient's appointment or procedure; nothing written", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Gil", last_name: "Gone" });
    await archivePatient(t, orgA, gone.id);
    const before = await snapshot(t, orgA);
    const bad = await t.request("POST", notes(orgA), { token: admin, rawBody: '{"content": "x",', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    for (const [body, code, loc] of [
      [{ patient_uuid: gone.id }, "patient_archived", ["path", "patient_uuid"]],
      [{ appointment_uuid: otherAppt.id }, "appointment_patient_mismatch", ["body", "appointment_uuid"]],
      [{ procedure_uuids: [proc.id, otherProc.id] }, "procedure_patient_mismatch", ["body", "procedure_uuids", 1]],
    ] as const) {
      const r = await t.request("POST", notes(orgA), { token: admin, body: { ...BODY(), ...body } });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code, detail: [{ loc }] });
    }
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("401; 403 without clinical.notes.write; 404 for missing or another org's patient, provider, appointment, procedure; nothing written", async () => {
    const before = await snapshot(t, orgA);
    const anon = await t.request("POST", notes(orgA), { body: BODY() });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    for (const token of [reader, signer.token, patientsOnly]) expect((await t.request("POST", notes(orgA), { token, body: BODY() })).status).toBe(403);
    for (const [body, token, detail] of [
      [{ patient_uuid: MISSING }, admin, "Patient not found"],
      [{ patient_uuid: theirs.id }, admin, "Patient not found"],
      [{ provider_uuid: MISSING }, admin, "Provider not found"],
      [{ provider_uuid: theirProvider.id }, admin, "Provider not found"],
      [{ appointment_uuid: MISSING }, admin, "Appointment not found"],
      [{ procedure_uuids: [theirProc.id] }, admin, "Charted procedure not found"],
      [{ procedure_uuids: [deletedProc.id] }, admin, "Charted procedure not found"],
      [{}, memberOfB, "Organization not found"],
    ] as const) {
      const r = await t.request("POST", notes(orgA), { token, body: { ...BODY(), ...body } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await snapshot(t, orgB)).notes).toEqual([]);
  });
});

describe("GET /clinical-notes/{note_uuid}", () => {
  test("200 with ETag; 401; 403; 404 for a missing note, a deleted draft, another org's note, a non-member", async () => {
    const note = await create({ provider_uuid: provider.id });
    const r = await t.request("GET", notes(orgA, `/${note.id}`), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(note);
    expect(r.headers.get("etag")).toBe('"1"');
    expect((await t.request("GET", notes(orgA, `/${note.id}`))).status).toBe(401);
    expect((await t.request("GET", notes(orgA, `/${note.id}`), { token: patientsOnly })).status).toBe(403);
    const gone = await create();
    expect((await t.request("DELETE", notes(orgA, `/${gone.id}?base_version=1`), { token: admin })).status).toBe(204);
    const theirNote = await create({ patient_uuid: theirs.id }, admin, orgB);
    for (const [path, token, detail] of [
      [notes(orgA, `/${MISSING}`), admin, "Clinical note not found"],
      [notes(orgA, `/${gone.id}`), admin, "Clinical note not found"],
      [notes(orgA, `/${theirNote.id}`), admin, "Clinical note not found"],
      [notes(orgB, `/${note.id}`), memberOfB, "Clinical note not found"],
      [notes(orgA, `/${note.id}`), memberOfB, "Organization not found"],
    ] as const) {
      const res = await t.request("GET", path, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail, code: "not_found" });
    }
  });
});

describe("GET /clinical-notes", () => {
  let lena: P;
  const ids: Record<string, string> = {};
  const list = async (qs: string, token = admin) => t.request("GET", notes(orgA, `?${qs}`), { token });
  const idsOf = async (qs: string) => {
    const r = await list(qs);
    expect(r.status).toBe(200);
    return r.body.items.map((n: { id: string }) => n.id);
  };

  beforeAll(async () => {
    lena = await newPatient(t, orgA, { first_name: "Lena", last_name: "List" });
    const mk = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (await create({ patient_uuid: lena.id, ...body })).id;
    };
    await mk("jan", { visit_date: "2026-01-10", note_type: "exam", provider_uuid: provider.id, case_id: "ORTHO-1" });
    await mk("feb", { visit_date: "2026-02-10", note_type: "phone" });
    await mk("feb2", { visit_date: "2026-02-10", note_type: "progress", provider_uuid: provider.id, case_id: "ORTHO-1" });
    await mk("mar", { visit_date: "2026-03-10", note_type: "consult" });
    const signedFeb = await readNote(ids.feb!);
    await sign(ids.feb!, signedFeb.version);
  });

  test("a patient's notes, newest first (visit_date, then creation); the full note shape; paged", async () => {
    expect(await idsOf(`patient_uuid=${lena.id}`)).toEqual([ids.mar, ids.feb2, ids.feb, ids.jan]);
    const page = await list(`patient_uuid=${lena.id}&page=2&page_size=3`, reader);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(page.body.items).toEqual([await readNote(ids.jan!)]);
  });

  test.each([
    ["provider_uuid", () => `provider_uuid=${provider.id}`, ["feb2", "jan"]],
    ["status=signed", () => "status=signed", ["feb"]],
    ["status=draft", () => "status=draft", ["mar", "feb2", "jan"]],
    ["note_type", () => "note_type=consult", ["mar"]],
    ["case_id", () => "case_id=ORTHO-1", ["feb2", "jan"]],
    ["date range (inclusive)", () => "date_from=2026-02-10&date_to=2026-03-10", ["mar", "feb2", "feb"]],
    ["date_to only", () => "date_to=2026-01-31", ["jan"]],
  ])("filter %s", async (_name, qs, expected) => {
    expect(await idsOf(`patient_uuid=${lena.id}&${qs()}`)).toEqual(expected.map((k) => ids[k]));
  });

  test("without patient_uuid: every patient's notes of this org only (e.g. a provider's unsigned queue)", async () => {
    const all = await idsOf(`status=draft&provider_uuid=${provider.id}&page_size=200`);
    expect(all).toContain(ids.jan);
    const theirNote = await create({ patient_uuid: theirs.id }, admin, orgB);
    expect(await idsOf("page_size=200")).not.toContain(theirNote.id);
  });

  test("appointment_uuid filter", async () => {
    const n = await create({ appointment_uuid: appt.id });
    expect(await idsOf(`appointment_uuid=${appt.id}`)).toContain(n.id);
    expect(await idsOf(`appointment_uuid=${otherAppt.id}`)).toEqual([]);
  });

  test.each([
    ["date_to before date_from", "date_from=2026-03-01&date_to=2026-02-01", ["query", "date_to"], "value_error"],
    ["bad status", "status=final", ["query", "status"], "enum"],
    ["bad date", "date_from=March", ["query", "date_from"], "format"],
    ["page_size over 200", "page_size=201", ["query", "page_size"], "out_of_range"],
    ["page 0", "page=0", ["query", "page"], "out_of_range"],
    ["unknown parameter", "patient_id=x", ["query", "patient_id"], "extra_forbidden"],
  ])("422 %s", async (_name, qs, loc, type) => {
    const r = await list(qs);
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401; 403; 404 for a missing or another org's patient and for a non-member", async () => {
    expect((await t.request("GET", notes(orgA))).status).toBe(401);
    expect((await list("", patientsOnly)).status).toBe(403);
    for (const [path, token, detail] of [
      [notes(orgA, `?patient_uuid=${MISSING}`), admin, "Patient not found"],
      [notes(orgA, `?patient_uuid=${theirs.id}`), admin, "Patient not found"],
      [notes(orgA), memberOfB, "Organization not found"],
    ] as const) {
      const r = await t.request("GET", path, { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
  });
});

describe("PATCH /clinical-notes/{note_uuid}", () => {
  test("edits a draft: content_edited turns true only when the content changes; version, audit and event", async () => {
    const note = await create();
    const before = events.length;
    const r1 = await t.request("PATCH", notes(orgA, `/${note.id}`), {
      token: writer.token,
      body: { base_version: 1, note_type: "exam", provider_uuid: provider.id, procedure_uuids: [proc.id] },
    });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({
      version: 2,
      note_type: "exam",
      provider: { uuid: provider.id },
      procedures: [{ uuid: proc.id }],
      content_edited: false,
      content: note.content,
    });
    const r2 = await t.request("PATCH", notes(orgA, `/${note.id}`), {
      token: writer.token,
      body: { base_version: 2, content: "Corrected: sensitivity on #4.", provider_uuid: null, case_id: "C-1" },
    });
    expect(r2.status).toBe(200);
    expect(r2.body).toMatchObject({
      version: 3,
      content: "Corrected: sensitivity on #4.",
      content_edited: true,
      provider: null,
      case_id: "C-1",
      status: "draft",
    });
    expect(await readNote(note.id)).toEqual(r2.body);
    const audit = await auditOf(t, orgA, note.id);
    expect(audit.map((a) => a.action)).toEqual(["clinical_note.created", "clinical_note.updated", "clinical_note.updated"]);
    expect(audit[2].before.content).toBe(note.content);
    expect(audit[2].after.content).toBe("Corrected: sensitivity on #4.");
    const ev = events.slice(before).filter((e) => e.type === "clinical_note.updated");
    expect(ev).toHaveLength(2);
    expect(ev[1]!.data).toEqual({ id: note.id, changed_fields: expect.arrayContaining(["content", "content_edited", "provider_id", "case_id"]) });
    expect(JSON.stringify(ev)).not.toContain("Corrected");
  });

  test("422 note_signed on a signed note (only addendums); nothing changed", async () => {
    const note = await create();
    const signed = await sign(note.id, 1);
    const before = await snapshot(t, orgA);
    const r = await t.request("PATCH", notes(orgA, `/${note.id}`), { token: admin, body: { base_version: signed.version, content: "rewrite history" } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "note_signed", detail: [{ loc: ["path", "note_uuid"] }] });
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await readNote(note.id)).content).toBe(note.content);
  });

  test("409 stale base_version; 422 for each schema rule, another patient's refs, an archived patient; nothing changed", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Arch", last_name: "Ived" });
    const goneNote = await create({ patient_uuid: gone.id });
    await archivePatient(t, orgA, gone.id);
    const note = await create();
    const before = await snapshot(t, orgA);
    const stale = await t.request("PATCH", notes(orgA, `/${note.id}`), { token: admin, body: { base_version: 2, content: "x" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    for (const [body, loc, type] of [
      [{ content: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 1, content: "" }, ["body", "content"], "out_of_range"],
      [{ base_version: 1, patient_uuid: other.id }, ["body", "patient_uuid"], "read_only"],
      [{ base_version: 1, status: "signed" }, ["body", "status"], "read_only"],
      [{ base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
      [{ base_version: 1, note_type: null }, ["body", "note_type"], "enum"],
      [{ base_version: 1, content: null }, ["body", "content"], "type_error"],
    ] as const) {
      const r = await t.request("PATCH", notes(orgA, `/${note.id}`), { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const bad = await t.request("PATCH", notes(orgA, `/${note.id}`), { token: admin, rawBody: "{", headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    const mismatch = await t.request("PATCH", notes(orgA, `/${note.id}`), { token: admin, body: { base_version: 1, procedure_uuids: [otherProc.id] } });
    expect(mismatch.body).toMatchObject({ code: "procedure_patient_mismatch" });
    const archived = await t.request("PATCH", notes(orgA, `/${goneNote.id}`), { token: admin, body: { base_version: 1, content: "x" } });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("401; 403 (read or sign key only); 404 missing, another org's note, a missing provider, a non-member; nothing changed", async () => {
    const note = await create();
    const theirNote = await create({ patient_uuid: theirs.id }, admin, orgB);
    const before = await snapshot(t, orgA);
    const body = { base_version: 1, content: "changed" };
    expect((await t.request("PATCH", notes(orgA, `/${note.id}`), { body })).status).toBe(401);
    for (const token of [reader, signer.token]) expect((await t.request("PATCH", notes(orgA, `/${note.id}`), { token, body })).status).toBe(403);
    for (const [path, token, b, detail] of [
      [notes(orgA, `/${MISSING}`), admin, body, "Clinical note not found"],
      [notes(orgA, `/${theirNote.id}`), admin, body, "Clinical note not found"],
      [notes(orgA, `/${note.id}`), admin, { base_version: 1, provider_uuid: theirProvider.id }, "Provider not found"],
      [notes(orgA, `/${note.id}`), memberOfB, body, "Organization not found"],
      [notes(orgB, `/${note.id}`), memberOfB, body, "Clinical note not found"],
    ] as const) {
      const r = await t.request("PATCH", path, { token, body: b });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await snapshot(t, orgB)).notes.find((n) => n.id === theirNote.id)).toMatchObject({ version: 1, content: BODY().content });
  });
});

describe("POST /clinical-notes/{note_uuid}/sign", () => {
  test("200: status signed, the signer is the caller, signed_at set; audited; event clinical_note.signed", async () => {
    const note = await create({}, writer.token);
    const before = events.length;
    const r = await t.request("POST", notes(orgA, `/${note.id}/sign`), { token: signer.token, body: { base_version: 1 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: "signed",
      version: 2,
      signed_by: { uuid: signer.userId, name: "Dr. Sam Signer" },
      signed_at: r.body.updated_at,
      author: { uuid: writer.userId, name: "Wendy Writer" },
      content: note.content,
    });
    const audit = await auditOf(t, orgA, note.id);
    expect(audit.at(-1)).toMatchObject({ action: "clinical_note.signed", actor_id: signer.userId });
    const ev = events.slice(before).find((e) => e.type === "clinical_note.signed")!;
    expect(ev.data).toEqual({ id: note.id, changed_fields: expect.arrayContaining(["status", "signed_at", "signed_by_id"]) });
  });

  test("a draft of an archived patient can still be signed", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Sig", last_name: "Late" });
    const note = await create({ patient_uuid: gone.id });
    await archivePatient(t, orgA, gone.id);
    expect((await sign(note.id, 1)).status).toBe("signed");
  });

  test("422 signing twice, missing or wrong base_version, unknown field; 409 stale; nothing changed", async () => {
    const note = await create();
    const stale = await t.request("POST", notes(orgA, `/${note.id}/sign`), { token: admin, body: { base_version: 3 } });
    expect(stale.status).toBe(409);
    const signed = await sign(note.id, 1);
    const before = await snapshot(t, orgA);
    const twice = await t.request("POST", notes(orgA, `/${note.id}/sign`), { token: signer.token, body: { base_version: signed.version } });
    expect(twice.status).toBe(422);
    expect(twice.body).toMatchObject({ code: "note_signed", detail: [{ msg: "The note is already signed" }] });
    for (const [body, loc, type] of [
      [{}, ["body", "base_version"], "missing"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 2, signed_at: "2026-01-01T00:00:00Z" }, ["body", "signed_at"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("POST", notes(orgA, `/${note.id}/sign`), { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await readNote(note.id)).signed_by).toEqual(signed.signed_by);
  });

  test("401; 403 without clinical.notes.sign (even with write); 404 missing, another org's note, non-member; nothing changed", async () => {
    const note = await create();
    const theirNote = await create({ patient_uuid: theirs.id }, admin, orgB);
    const before = await snapshot(t, orgA);
    const body = { base_version: 1 };
    expect((await t.request("POST", notes(orgA, `/${note.id}/sign`), { body })).status).toBe(401);
    for (const token of [writer.token, reader]) {
      const r = await t.request("POST", notes(orgA, `/${note.id}/sign`), { token, body });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    for (const [path, token] of [
      [notes(orgA, `/${MISSING}/sign`), admin],
      [notes(orgA, `/${theirNote.id}/sign`), admin],
      [notes(orgA, `/${note.id}/sign`), memberOfB],
      [notes(orgB, `/${note.id}/sign`), memberOfB],
    ] as const)
      expect((await t.request("POST", path, { token, body })).status).toBe(404);
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await snapshot(t, orgB)).notes.find((n) => n.id === theirNote.id)!.status).toBe("draft");
  });
});

describe("POST /clinical-notes/{note_uuid}/addendums", () => {
  test("201 on a signed note: appended oldest first with author and time; content untouched; version moves; audited; event without text", async () => {
    const note = await create();
    await sign(note.id, 1);
    const before = events.length;
    const r1 = await t.request("POST", notes(orgA, `/${note.id}/addendums`), { token: writer.token, body: { content: "Late entry: BP 120/80." } });
    expect(r1.status).toBe(201);
    const r2 = await t.request("POST", notes(orgA, `/${note.id}/addendums`), { token: admin, body: { content: "Lab result received." } });
    expect(r2.status).toBe(201);
    expect(r2.body).toMatchObject({ version: 4, status: "signed", content: note.content, content_edited: false });
    expect(r2.body.addendums).toEqual([
      {
        id: expect.any(String),
        content: "Late entry: BP 120/80.",
        author: { uuid: writer.userId, name: "Wendy Writer" },
        created_at: expect.stringMatching(/Z$/),
      },
      {
        id: expect.any(String),
        content: "Lab result received.",
        author: { uuid: expect.any(String), name: "Platform administrator" },
        created_at: expect.stringMatching(/Z$/),
      },
    ]);
    expect(r2.body.addendums[0].created_at <= r2.body.addendums[1].created_at).toBe(true);
    expect(await readNote(note.id)).toEqual(r2.body);
    const audit = (await auditOf(t, orgA, note.id)).filter((a) => a.action === "clinical_note.addendum_added");
    expect(audit).toHaveLength(2);
    expect(audit[0].after.addendum).toMatchObject({ content: "Late entry: BP 120/80.", author_id: writer.userId });
    const ev = events.slice(before).filter((e) => e.type === "clinical_note.addendum_added");
    expect(ev.map((e) => e.data)).toEqual([
      { id: note.id, addendum_id: r2.body.addendums[0].id, patient_id: pat.id },
      { id: note.id, addendum_id: r2.body.addendums[1].id, patient_id: pat.id },
    ]);
    expect(JSON.stringify(ev)).not.toContain("Lab");
  });

  test("an archived patient's signed note still takes addendums", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Add", last_name: "Late" });
    const note = await create({ patient_uuid: gone.id });
    await sign(note.id, 1);
    await archivePatient(t, orgA, gone.id);
    const r = await t.request("POST", notes(orgA, `/${note.id}/addendums`), { token: admin, body: { content: "Records request answered." } });
    expect(r.status).toBe(201);
  });

  test("422 note_not_signed on a draft; 422 schema rules and malformed JSON; nothing written", async () => {
    const draft = await create();
    const signed = await create();
    await sign(signed.id, 1);
    const before = await snapshot(t, orgA);
    const r = await t.request("POST", notes(orgA, `/${draft.id}/addendums`), { token: admin, body: { content: "x" } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "note_not_signed", detail: [{ loc: ["path", "note_uuid"] }] });
    for (const [body, loc, type] of [
      [{}, ["body", "content"], "missing"],
      [{ content: " " }, ["body", "content"], "out_of_range"],
      [{ content: ["x"] }, ["body", "content"], "type_error"],
      [{ content: "x", author: { uuid: MISSING } }, ["body", "author"], "read_only"],
      [{ content: "x", urgent: true }, ["body", "urgent"], "extra_forbidden"],
    ] as const) {
      const res = await t.request("POST", notes(orgA, `/${signed.id}/addendums`), { token: admin, body });
      expect(res.status).toBe(422);
      expect(res.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const bad = await t.request("POST", notes(orgA, `/${signed.id}/addendums`), { token: admin, rawBody: "{content", headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("401; 403; 404 missing, another org's note, non-member; addendums cannot be changed or deleted (405); nothing written", async () => {
    const note = await create();
    const signed = await sign(note.id, 1);
    const withOne = (await t.request("POST", notes(orgA, `/${note.id}/addendums`), { token: admin, body: { content: "First." } })).body;
    const addendumId = withOne.addendums[0].id;
    const theirNote = await create({ patient_uuid: theirs.id }, admin, orgB);
    const before = await snapshot(t, orgA);
    const body = { content: "More." };
    expect((await t.request("POST", notes(orgA, `/${note.id}/addendums`), { body })).status).toBe(401);
    for (const token of [reader, signer.token]) expect((await t.request("POST", notes(orgA, `/${note.id}/addendums`), { token, body })).status).toBe(403);
    for (const [path, token] of [
      [notes(orgA, `/${MISSING}/addendums`), admin],
      [notes(orgA, `/${theirNote.id}/addendums`), admin],
      [notes(orgA, `/${note.id}/addendums`), memberOfB],
      [notes(orgB, `/${note.id}/addendums`), memberOfB],
    ] as const)
      expect((await t.request("POST", path, { token, body })).status).toBe(404);
    for (const method of ["PATCH", "PUT", "DELETE"]) {
      const r = await t.request(method, notes(orgA, `/${note.id}/addendums/${addendumId}`), { token: admin, body: method === "DELETE" ? undefined : body });
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    }
    expect((await t.request("DELETE", notes(orgA, `/${note.id}/addendums/${addendumId}`), { token: memberOfB })).status).toBe(404);
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await readNote(note.id)).version).toBe(signed.version + 1);
  });
});

describe("DELETE /clinical-notes/{note_uuid}", () => {
  test("204 soft-deletes a draft: gone from GET and lists; audited; event clinical_note.deleted", async () => {
    const note = await create({ case_id: "DEL-1" });
    const before = events.length;
    const r = await t.request("DELETE", notes(orgA, `/${note.id}?base_version=1`), { token: writer.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await t.request("GET", notes(orgA, `/${note.id}`), { token: admin })).status).toBe(404);
    expect((await t.request("GET", notes(orgA, "?case_id=DEL-1"), { token: admin })).body.total).toBe(0);
    expect((await snapshot(t, orgA)).notes.find((n) => n.id === note.id)!.deleted_at).toEqual(expect.stringMatching(/Z$/));
    expect((await auditOf(t, orgA, note.id)).at(-1)).toMatchObject({ action: "clinical_note.deleted", actor_id: writer.userId });
    expect(events.slice(before).find((e) => e.type === "clinical_note.deleted")!.data).toEqual({ id: note.id, changed_fields: ["deleted_at"] });
  });

  test("422 for a signed note (never deleted), for a missing or bad base_version, an archived patient; 409 stale; nothing changed", async () => {
    const note = await create();
    const signedNote = await create();
    const signed = await sign(signedNote.id, 1);
    const gone = await newPatient(t, orgA, { first_name: "Del", last_name: "Gone" });
    const goneNote = await create({ patient_uuid: gone.id });
    await archivePatient(t, orgA, gone.id);
    const before = await snapshot(t, orgA);
    const s = await t.request("DELETE", notes(orgA, `/${signedNote.id}?base_version=${signed.version}`), { token: admin });
    expect(s.status).toBe(422);
    expect(s.body.code).toBe("note_signed");
    expect((await t.request("DELETE", notes(orgA, `/${note.id}?base_version=2`), { token: admin })).status).toBe(409);
    for (const [qs, loc, type] of [
      ["", ["query", "base_version"], "missing"],
      ["?base_version=abc", ["query", "base_version"], "type_error"],
      ["?base_version=1&force=true", ["query", "force"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("DELETE", notes(orgA, `/${note.id}${qs}`), { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const archived = await t.request("DELETE", notes(orgA, `/${goneNote.id}?base_version=1`), { token: admin });
    expect(archived.body.code).toBe("patient_archived");
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("401; 403; 404 missing, another org's note, non-member; nothing changed", async () => {
    const note = await create();
    const theirNote = await create({ patient_uuid: theirs.id }, admin, orgB);
    const before = await snapshot(t, orgA);
    expect((await t.request("DELETE", notes(orgA, `/${note.id}?base_version=1`))).status).toBe(401);
    for (const token of [reader, signer.token]) expect((await t.request("DELETE", notes(orgA, `/${note.id}?base_version=1`), { token })).status).toBe(403);
    for (const [path, token] of [
      [notes(orgA, `/${MISSING}?base_version=1`), admin],
      [notes(orgA, `/${theirNote.id}?base_version=1`), admin],
      [notes(orgA, `/${note.id}?base_version=1`), memberOfB],
      [notes(orgB, `/${note.id}?base_version=1`), memberOfB],
    ] as const)
      expect((await t.request("DELETE", path, { token })).status).toBe(404);
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await snapshot(t, orgB)).notes.find((n) => n.id === theirNote.id)!.deleted_at).toBeNull();
  });
});
