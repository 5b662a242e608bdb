import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, createMember, expectGuarded, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import {
  documentRow,
  insertAppointment,
  insertChartedProcedure,
  insertDocument,
  insertInsuranceDraft,
  insertPatient,
  insertTreatmentPlan,
  linkRows,
} from "@tests/support/documents/rows";

const MISSING = "01970000-0000-7000-8000-000000000000";

let t: TestApp;
let writer: string; // documents.read + documents.write
let writerId: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let patient: { id: string };

beforeAll(async () => {
  const w = await twoOrgApp({ writer: ["documents.read", "documents.write"] }, { events: true });
  ({ t, orgA, orgB, events } = w);
  writer = w.tokens.writer;
  writerId = w.members.writer.userId;
  patient = await insertPatient(t, orgA, { first_name: "Lena", last_name: "Lumen" });
});
afterAll(() => t.close());

const links = (orgId: string, docId: string) => `/api/v1/${orgId}/documents/${docId}/links`;
const link = (docId: string, body: Record<string, unknown>, token = writer, orgId = orgA) => t.request("POST", links(orgId, docId), { token, body });
const list = (docId: string, token = writer, orgId = orgA) => t.request("GET", links(orgId, docId), { token });
const remove = (docId: string, linkId: string, v: number | null = 1, token = writer, orgId = orgA) =>
  t.request("DELETE", `${links(orgId, docId)}/${linkId}${v === null ? "" : `?base_version=${v}`}`, { token });

const LINK_SHAPE = {
  id: expect.any(String),
  note: null,
  version: 1,
  created_at: expect.stringMatching(/Z$/),
  updated_at: expect.stringMatching(/Z$/),
};

describe("POST and GET /documents/{id}/links", () => {
  test("each target type links with exact values; the list is oldest first with readable target names; audited; events carry ids only", async () => {
    const doc = await insertDocument(t, orgA);
    const appt = await insertAppointment(t, orgA, patient.id, "2026-03-09T09:00:00");
    const proc = await insertChartedProcedure(t, orgA, patient.id);
    const plan = await insertTreatmentPlan(t, orgA, patient.id, { name: "Upper arch plan" });
    const draft = await insertInsuranceDraft(t, orgA, patient.id);
    const before = events.length;
    const targets = [
      ["patient", patient.id, "Lena Lumen"],
      ["appointment", appt.id, "2026-03-09T09:00:00"],
      ["charted_procedure", proc.id, proc.procedure_code],
      ["treatment_plan", plan.id, "Upper arch plan"],
      ["insurance_draft", draft.id, null],
    ] as const;
    const made = [];
    for (const [type, id, name] of targets) {
      const r = await link(doc.id, { target_type: type, target_uuid: id.toUpperCase(), note: type === "patient" ? "  Signed at check-in " : undefined });
      expect(r.status).toBe(201);
      expect(r.headers.get("etag")).toBe('"1"');
      expect(r.body).toEqual({
        ...LINK_SHAPE,
        document_uuid: doc.id,
        target_type: type,
        target_uuid: id,
        target_name: name,
        note: type === "patient" ? "Signed at check-in" : null,
        created_by: writerId,
      });
      made.push(r.body);
    }
    const r = await list(doc.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: made });
    expect((await auditOf(t, orgA, made[0].id)).map((a) => a.action)).toEqual(["document_link.created"]);
    const mine = events.slice(before).filter((e) => e.resource_type === "document_link");
    expect(mine.map((e) => [e.type, e.resource_id, e.data])).toEqual(
      made.map((m) => ["document_link.created", m.id, { id: m.id, document_uuid: doc.id, target_type: m.target_type, target_uuid: m.target_uuid }]),
    );
    // linking is not the document's content: its own version is unchanged
    expect((await documentRow(t, orgA, doc.id))!.version).toBe(1);
  });

  test("a reader (documents.read) lists; a document without links answers an empty list", async () => {
    const doc = await insertDocument(t, orgA);
    const reader = (await createMember(t, orgA, ["documents.read"])).token;
    expect((await list(doc.id, reader)).body).toEqual({ items: [] });
  });

  test("a locked (signed) document may still be linked and unlinked", async () => {
    const doc = await insertDocument(t, orgA, { is_locked: true, is_signed: true });
    const r = await link(doc.id, { target_type: "patient", target_uuid: patient.id });
    expect(r.status).toBe(201);
    expect((await remove(doc.id, r.body.id)).status).toBe(204);
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ is_locked: true, version: 1 });
  });

  test("422 for bad shapes and for targets that are not live records of this org of that type; nothing is written", async () => {
    const doc = await insertDocument(t, orgA);
    const other = await insertPatient(t, orgB, { first_name: "Otto", last_name: "Other" });
    const archived = await insertPatient(t, orgA, { deleted_at: new Date().toISOString() });
    const archivedPlan = await insertTreatmentPlan(t, orgA, patient.id, { deleted_at: new Date().toISOString() });
    await expectValidationCases(t, "POST", links(orgA, doc.id), writer, [
      [{ target_uuid: patient.id }, ["body", "target_type"], "missing"],
      [{ target_type: "patient" }, ["body", "target_uuid"], "missing"],
      [{ target_type: "provider", target_uuid: patient.id }, ["body", "target_type"], "enum"],
      [{ target_type: 3, target_uuid: patient.id }, ["body", "target_type"], "enum"],
      [{ target_type: "patient", target_uuid: "not-a-uuid" }, ["body", "target_uuid"], "format"],
      [{ target_type: "patient", target_uuid: 42 }, ["body", "target_uuid"], "type_error"],
      [{ target_type: "patient", target_uuid: patient.id, note: 5 }, ["body", "note"], "type_error"],
      [{ target_type: "patient", target_uuid: patient.id, note: "x".repeat(1001) }, ["body", "note"], "out_of_range"],
      [{ target_type: "patient", target_uuid: patient.id, label: "x" }, ["body", "label"], "extra_forbidden"],
      [{ target_type: "patient", target_uuid: patient.id, id: MISSING }, ["body", "id"], "read_only"],
      [{ target_type: "patient", target_uuid: MISSING }, ["body", "target_uuid"], "value_error"],
      [{ target_type: "patient", target_uuid: other.id }, ["body", "target_uuid"], "value_error"],
      [{ target_type: "patient", target_uuid: archived.id }, ["body", "target_uuid"], "value_error"],
      [{ target_type: "treatment_plan", target_uuid: archivedPlan.id }, ["body", "target_uuid"], "value_error"],
      [{ target_type: "appointment", target_uuid: patient.id }, ["body", "target_uuid"], "value_error"],
      [{ target_type: "insurance_draft", target_uuid: MISSING }, ["body", "target_uuid"], "value_error"],
    ]);
    const bad = await t.request("POST", links(orgA, doc.id), { token: writer, rawBody: '{"target_type": ', headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(await linkRows(t, orgA, doc.id)).toEqual([]);
  });

  test("409 duplicate for a second live link to the same target; after the link is removed it may be made again", async () => {
    const doc = await insertDocument(t, orgA);
    const first = await link(doc.id, { target_type: "patient", target_uuid: patient.id });
    const before = await linkRows(t, orgA, doc.id);
    const again = await link(doc.id, { target_type: "patient", target_uuid: patient.id, note: "again" });
    expect([again.status, again.body.code]).toEqual([409, "duplicate"]);
    expect(await linkRows(t, orgA, doc.id)).toEqual(before);
    // the same target on another document is fine
    expect((await link((await insertDocument(t, orgA)).id, { target_type: "patient", target_uuid: patient.id })).status).toBe(201);
    expect((await remove(doc.id, first.body.id)).status).toBe(204);
    const relinked = await link(doc.id, { target_type: "patient", target_uuid: patient.id });
    expect(relinked.status).toBe(201);
    expect((await list(doc.id)).body.items.map((l: any) => l.id)).toEqual([relinked.body.id]);
  });

  test("404 for a missing, archived or another org's document; nothing is written", async () => {
    const archived = await insertDocument(t, orgA, { deleted_at: new Date().toISOString(), status: "archived" });
    const theirs = await insertDocument(t, orgB);
    const theirPatient = await insertPatient(t, orgB);
    for (const id of [MISSING, archived.id, theirs.id, "nope"]) {
      const g = await list(id);
      expect([g.status, g.body.code]).toEqual([404, "not_found"]);
      expect((await link(id, { target_type: "patient", target_uuid: patient.id })).status).toBe(404);
    }
    // org B's own document with org B's patient, asked through org A's path
    expect((await link(theirs.id, { target_type: "patient", target_uuid: theirPatient.id })).status).toBe(404);
    expect(await linkRows(t, orgA, archived.id)).toEqual([]);
    expect(await linkRows(t, orgB, theirs.id)).toEqual([]);
  });

  test("401, 403 without the key, 404 for another org's member (GET documents.read, POST documents.write)", async () => {
    const doc = await insertDocument(t, orgA);
    await expectGuarded(t, orgA, orgB, "GET", links(orgA, doc.id), "documents.read");
    const holder = await expectGuarded(t, orgA, orgB, "POST", links(orgA, doc.id), "documents.write", { target_type: "patient", target_uuid: patient.id });
    expect(await linkRows(t, orgA, doc.id)).toEqual([]);
    expect((await link(doc.id, { target_type: "patient", target_uuid: patient.id }, holder)).status).toBe(201);
  });
});

describe("DELETE /documents/{id}/links/{link_id}", () => {
  test("204 soft delete with ?base_version=: the link leaves the list; audited; event document_link.deleted with ids only", async () => {
    const doc = await insertDocument(t, orgA);
    const keep = (await link(doc.id, { target_type: "patient", target_uuid: patient.id })).body;
    const plan = await insertTreatmentPlan(t, orgA, patient.id);
    const gone = (await link(doc.id, { target_type: "treatment_plan", target_uuid: plan.id })).body;
    const before = events.length;
    const r = await remove(doc.id, gone.id);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await list(doc.id)).body.items).toEqual([keep]);
    const row = (await linkRows(t, orgA, doc.id)).find((l) => l.id === gone.id)!;
    expect(row).toMatchObject({ version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(t, orgA, gone.id)).map((a) => a.action).sort()).toEqual(["document_link.created", "document_link.deleted"]);
    expect(events.slice(before).map((e) => [e.type, e.resource_type, e.resource_id, e.data])).toEqual([
      ["document_link.deleted", "document_link", gone.id, { id: gone.id, document_uuid: doc.id, target_type: "treatment_plan", target_uuid: plan.id }],
    ]);
    // a deleted link is gone: a repeat is 404
    expect((await remove(doc.id, gone.id, 2)).status).toBe(404);
  });

  test("409 on a stale base_version, 422 without one; nothing changes", async () => {
    const doc = await insertDocument(t, orgA);
    const l = (await link(doc.id, { target_type: "patient", target_uuid: patient.id })).body;
    const before = await linkRows(t, orgA, doc.id);
    const stale = await remove(doc.id, l.id, 2);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const none = await remove(doc.id, l.id, null);
    expect([none.status, none.body.detail[0].loc, none.body.detail[0].type]).toEqual([422, ["query", "base_version"], "missing"]);
    expect(await linkRows(t, orgA, doc.id)).toEqual(before);
  });

  test("404 for a link of another document, a missing link, and a missing or another org's document; nothing changes", async () => {
    const doc = await insertDocument(t, orgA);
    const otherDoc = await insertDocument(t, orgA);
    const l = (await link(doc.id, { target_type: "patient", target_uuid: patient.id })).body;
    const theirs = await insertDocument(t, orgB);
    const before = await linkRows(t, orgA, doc.id);
    for (const [docId, linkId] of [
      [otherDoc.id, l.id],
      [doc.id, MISSING],
      [MISSING, l.id],
      [theirs.id, l.id],
    ]) {
      const r = await remove(docId!, linkId!);
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    expect(await linkRows(t, orgA, doc.id)).toEqual(before);
  });

  test("401, 403 without documents.write, 404 for another org's member; nothing changes", async () => {
    const doc = await insertDocument(t, orgA);
    const l = (await link(doc.id, { target_type: "patient", target_uuid: patient.id })).body;
    const path = `${links(orgA, doc.id)}/${l.id}?base_version=1`;
    const reader = (await createMember(t, orgA, ["documents.read", "documents.sign"])).token;
    expect((await t.request("DELETE", path, { token: reader })).status).toBe(403);
    const holder = await expectGuarded(t, orgA, orgB, "DELETE", path, "documents.write");
    expect((await list(doc.id)).body.items).toEqual([l]);
    expect((await t.request("DELETE", path, { token: holder })).status).toBe(204);
  });
});
