import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, createMember, expectGuarded, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import { documentRow, fakeSha, insertDocument, insertPatient, insertVersion, patchDocument, signatureRows } from "@tests/support/documents/rows";

const MISSING = "01970000-0000-7000-8000-000000000000";
const PNG_PREFIX = "data:image/png;base64,";

let t: TestApp;
let signer: string; // documents.read + documents.sign
let signerId: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let patient: { id: string };
let png: string; // a real drawn signature

beforeAll(async () => {
  const w = await twoOrgApp({ signer: ["documents.read", "documents.sign"] }, { events: true });
  ({ t, orgA, orgB, events } = w);
  signer = w.tokens.signer;
  signerId = w.members.signer.userId;
  patient = await insertPatient(t, orgA, { first_name: "Sam", last_name: "Signer" });
  const bytes = await sharp({ create: { width: 120, height: 40, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0 } } })
    .png()
    .toBuffer();
  png = PNG_PREFIX + bytes.toString("base64");
});
afterAll(() => t.close());

const sigs = (docId: string, orgId = orgA) => `/api/v1/${orgId}/documents/${docId}/signatures`;
const request = (docId: string, signers: Record<string, unknown>[], token = signer) => t.request("POST", sigs(docId), { token, body: { signers } });
const list = (docId: string, token = signer) => t.request("GET", sigs(docId), { token });
const act = (docId: string, sigId: string, verb: "sign" | "decline" | "cancel", body?: unknown, token = signer) =>
  t.request("POST", `${sigs(docId)}/${sigId}/${verb}`, { token, body });
const typed = (text = "Sam Signer") => ({ signature_type: "typed", signature_text: text });

/** A document with pending signatures for `signers` (names, default orders). */
async function docWith(...names: string[]) {
  const doc = await insertDocument(t, orgA);
  const r = await request(
    doc.id,
    names.map((n) => ({ signer_name: n, signer_role: "patient" })),
  );
  if (r.status !== 201) throw new Error(`request failed: ${r.status} ${r.text}`);
  return { doc, items: r.body.items as any[] };
}

const PENDING = {
  id: expect.any(String),
  signer_email: null,
  signer_patient_uuid: null,
  signer_user_uuid: null,
  status: "pending",
  signature_type: null,
  signature_text: null,
  has_signature_image: false,
  signed_at: null,
  signed_version_number: null,
  signed_sha256: null,
  decline_reason: null,
  version: 1,
  created_at: expect.stringMatching(/Z$/),
  updated_at: expect.stringMatching(/Z$/),
};

describe("POST and GET /documents/{id}/signatures", () => {
  test("201 with the requested signers in the order given; default orders follow the highest; audited; events carry ids only", async () => {
    const doc = await insertDocument(t, orgA);
    const before = events.length;
    const r = await request(doc.id, [
      { signer_name: "  Sam Signer ", signer_role: "patient", signer_email: "sam@example.com", signer_patient_uuid: patient.id.toUpperCase() },
      { signer_name: "Dr. Ada Molar", signer_role: "provider" },
      { signer_name: "Wanda Witness", signer_role: "witness", signing_order: 7 },
      { signer_name: "Gail Guardian", signer_role: "guardian" },
    ]);
    expect(r.status).toBe(201);
    const common = { ...PENDING, document_uuid: doc.id, requested_by: signerId };
    expect(r.body).toEqual({
      items: [
        { ...common, signer_name: "Sam Signer", signer_role: "patient", signer_email: "sam@example.com", signer_patient_uuid: patient.id, signing_order: 1 },
        { ...common, signer_name: "Dr. Ada Molar", signer_role: "provider", signing_order: 2 },
        { ...common, signer_name: "Wanda Witness", signer_role: "witness", signing_order: 7 },
        { ...common, signer_name: "Gail Guardian", signer_role: "guardian", signing_order: 8 },
      ],
    });
    // a later request continues after the highest order so far
    const more = await request(doc.id, [{ signer_name: "Stu Staff", signer_role: "staff" }]);
    expect(more.body.items[0].signing_order).toBe(9);
    expect((await list(doc.id)).body).toEqual({ items: [...r.body.items, ...more.body.items] });
    const ids = [...r.body.items, ...more.body.items].map((s: any) => s.id);
    expect(events.slice(before).map((e) => [e.type, e.resource_type, e.resource_id, e.data])).toEqual(
      ids.map((id) => ["document_signature.created", "document_signature", id, { id, document_uuid: doc.id }]),
    );
    expect((await auditOf(t, orgA, ids[0])).map((a) => a.action)).toEqual(["document_signature.created"]);
    // requesting signatures does not change the document
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ version: 1, is_signed: false, is_locked: false });
  });

  test("the list is ordered by signing_order, then created_at, whatever the request order; a reader may list", async () => {
    const doc = await insertDocument(t, orgA);
    const a = (await request(doc.id, [{ signer_name: "Third", signer_role: "other", signing_order: 3 }])).body.items[0];
    const b = (await request(doc.id, [{ signer_name: "First", signer_role: "other", signing_order: 1 }])).body.items[0];
    const c = (await request(doc.id, [{ signer_name: "Also third", signer_role: "other", signing_order: 3 }])).body.items[0];
    const reader = (await createMember(t, orgA, ["documents.read"])).token;
    expect((await list(doc.id, reader)).body.items.map((s: any) => s.id)).toEqual([b.id, a.id, c.id]);
    expect((await list((await insertDocument(t, orgA)).id, reader)).body).toEqual({ items: [] });
  });

  test("422 for bad shapes and for a signer patient that is not a live patient of this org; nothing is written", async () => {
    const doc = await insertDocument(t, orgA);
    const theirs = await insertPatient(t, orgB);
    const archived = await insertPatient(t, orgA, { deleted_at: new Date().toISOString() });
    const ok = { signer_name: "Sam", signer_role: "patient" };
    await expectValidationCases(t, "POST", sigs(doc.id), signer, [
      [{}, ["body", "signers"], "missing"],
      [{ signers: [] }, ["body", "signers"], "out_of_range"],
      [{ signers: Array.from({ length: 11 }, () => ok) }, ["body", "signers"], "out_of_range"],
      [{ signers: ok }, ["body", "signers"], "type_error"],
      [{ signers: [{ signer_role: "patient" }] }, ["body", "signers", 0, "signer_name"], "missing"],
      [{ signers: [{ ...ok, signer_name: "  " }] }, ["body", "signers", 0, "signer_name"], "out_of_range"],
      [{ signers: [ok, { signer_name: "X" }] }, ["body", "signers", 1, "signer_role"], "missing"],
      [{ signers: [{ ...ok, signer_role: "notary" }] }, ["body", "signers", 0, "signer_role"], "enum"],
      [{ signers: [{ ...ok, signer_email: "not-an-email" }] }, ["body", "signers", 0, "signer_email"], "format"],
      [{ signers: [{ ...ok, signing_order: 0 }] }, ["body", "signers", 0, "signing_order"], "out_of_range"],
      [{ signers: [{ ...ok, signing_order: 1.5 }] }, ["body", "signers", 0, "signing_order"], "type_error"],
      [{ signers: [{ ...ok, signing_order: "1" }] }, ["body", "signers", 0, "signing_order"], "type_error"],
      [{ signers: [{ ...ok, signer_patient_uuid: "x" }] }, ["body", "signers", 0, "signer_patient_uuid"], "format"],
      [{ signers: [{ ...ok, status: "signed" }] }, ["body", "signers", 0, "status"], "extra_forbidden"],
      [{ signers: [ok], document_uuid: doc.id }, ["body", "document_uuid"], "extra_forbidden"],
      [{ signers: [{ ...ok, id: MISSING }] }, ["body", "signers", 0, "id"], "read_only"],
      [{ signers: [ok, { ...ok, signer_patient_uuid: theirs.id }] }, ["body", "signers", 1, "signer_patient_uuid"], "value_error"],
      [{ signers: [{ ...ok, signer_patient_uuid: archived.id }] }, ["body", "signers", 0, "signer_patient_uuid"], "value_error"],
      [{ signers: [{ ...ok, signer_patient_uuid: MISSING }] }, ["body", "signers", 0, "signer_patient_uuid"], "value_error"],
    ]);
    expect(await signatureRows(t, orgA, doc.id)).toEqual([]);
  });

  test("422 document_not_ready without a confirmed version or when not active; 422 document_locked on a locked document; nothing is written", async () => {
    const body = [{ signer_name: "Sam", signer_role: "patient" }];
    const processing = await insertDocument(t, orgA, { status: "processing", confirmed_version: null, ocr_status: "pending" });
    const quarantined = await insertDocument(t, orgA, { status: "quarantined" });
    const unconfirmed = await insertDocument(t, orgA, { confirmed_version: null });
    for (const doc of [processing, quarantined, unconfirmed]) {
      const r = await request(doc.id, body);
      expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "document_not_ready", ["path", "document_uuid"]]);
      expect(await signatureRows(t, orgA, doc.id)).toEqual([]);
    }
    const locked = await insertDocument(t, orgA, { is_locked: true });
    const r = await request(locked.id, body);
    expect([r.status, r.body.code]).toEqual([422, "document_locked"]);
    expect(await signatureRows(t, orgA, locked.id)).toEqual([]);
  });

  test("404 for a missing, archived or another org's document; nothing is written", async () => {
    const archived = await insertDocument(t, orgA, { deleted_at: new Date().toISOString(), status: "archived" });
    const theirs = await insertDocument(t, orgB);
    for (const id of [MISSING, archived.id, theirs.id]) {
      const g = await list(id);
      expect([g.status, g.body.code]).toEqual([404, "not_found"]);
      expect((await request(id, [{ signer_name: "Sam", signer_role: "patient" }])).status).toBe(404);
    }
    expect(await signatureRows(t, orgA, archived.id)).toEqual([]);
    expect(await signatureRows(t, orgB, theirs.id)).toEqual([]);
  });

  test("401, 403 without the key (documents.write is not enough), 404 for another org's member", async () => {
    const doc = await insertDocument(t, orgA);
    await expectGuarded(t, orgA, orgB, "GET", sigs(doc.id), "documents.read");
    const body = { signers: [{ signer_name: "Sam", signer_role: "patient" }] };
    const writerOnly = (await createMember(t, orgA, ["documents.read", "documents.write"])).token;
    expect((await t.request("POST", sigs(doc.id), { token: writerOnly, body })).status).toBe(403);
    const holder = await expectGuarded(t, orgA, orgB, "POST", sigs(doc.id), "documents.sign", body);
    expect(await signatureRows(t, orgA, doc.id)).toEqual([]);
    expect((await t.request("POST", sigs(doc.id), { token: holder, body })).status).toBe(201);
  });
});

describe("POST .../signatures/{id}/sign", () => {
  test("typed then drawn: each records what was signed; the last one signs and locks the document, audited, with document.signed", async () => {
    const { doc, items } = await docWith("Sam Signer", "Dr. Ada Molar");
    const before = events.length;
    const first = await act(doc.id, items[0].id, "sign", { ...typed("  Sam Signer "), base_version: 1 });
    expect(first.status).toBe(200);
    expect(first.headers.get("etag")).toBe('"2"');
    expect(first.body).toEqual({
      ...items[0],
      status: "signed",
      signature_type: "typed",
      signature_text: "Sam Signer",
      has_signature_image: false,
      signed_at: expect.stringMatching(/Z$/),
      signed_version_number: 1,
      signed_sha256: doc.sha256,
      signer_user_uuid: signerId,
      version: 2,
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(first.body.signed_sha256).toMatch(/^[0-9a-f]{64}$/);
    // one signature still pending: the document is not signed yet
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ is_signed: false, is_locked: false, version: 1 });

    const second = await act(doc.id, items[1].id, "sign", { signature_type: "drawn", signature_image: png });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: "signed", signature_type: "drawn", signature_text: null, has_signature_image: true, signed_version_number: 1 });
    expect(JSON.stringify(second.body)).not.toContain("base64");
    const stored = (await signatureRows(t, orgA, doc.id)).find((s) => s.id === items[1].id)!;
    expect(stored.signature_image).toBe(png);
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ is_signed: true, is_locked: true, version: 2 });
    expect((await list(doc.id)).body.items).toEqual([first.body, second.body]);

    expect(events.slice(before).map((e) => [e.type, e.resource_id, e.data])).toEqual([
      ["document_signature.signed", items[0].id, { id: items[0].id, document_uuid: doc.id, signed_version_number: 1 }],
      ["document_signature.signed", items[1].id, { id: items[1].id, document_uuid: doc.id, signed_version_number: 1 }],
      ["document.signed", doc.id, { id: doc.id, signature_count: 2 }],
    ]);
    const docAudit = await auditOf(t, orgA, doc.id);
    expect(docAudit.map((a) => a.action).sort()).toEqual(["document.created", "document.signed"]);
    const sigAudit = await auditOf(t, orgA, items[1].id);
    expect(sigAudit.map((a) => a.action).sort()).toEqual(["document_signature.created", "document_signature.signed"]);
    // the drawn image is not copied into the audit trail
    expect(JSON.stringify(sigAudit)).not.toContain("base64");

    // a signed (locked) document takes no more signature requests
    const more = await request(doc.id, [{ signer_name: "Late", signer_role: "other" }]);
    expect([more.status, more.body.code]).toEqual([422, "document_locked"]);
  });

  test("the confirmed version is what is signed: its number and its file's hash", async () => {
    const doc = await insertDocument(t, orgA);
    const r = await request(doc.id, [{ signer_name: "Sam", signer_role: "patient" }]);
    const v2 = fakeSha("version two");
    await insertVersion(t, orgA, doc.id, 2, v2);
    await insertVersion(t, orgA, doc.id, 3, fakeSha("version three, still scanning"), "processing");
    await patchDocument(t, orgA, doc.id, { current_version: 3, confirmed_version: 2 });
    const s = await act(doc.id, r.body.items[0].id, "sign", typed());
    expect(s.body).toMatchObject({ signed_version_number: 2, signed_sha256: v2 });
  });

  test("422 signing_out_of_order while a lower order is pending; equal orders sign in any order; declined and canceled ones no longer hold back", async () => {
    const doc = await insertDocument(t, orgA);
    const items = (
      await request(doc.id, [
        { signer_name: "A", signer_role: "patient", signing_order: 1 },
        { signer_name: "B", signer_role: "guardian", signing_order: 1 },
        { signer_name: "C", signer_role: "provider", signing_order: 2 },
        { signer_name: "D", signer_role: "witness", signing_order: 3 },
        { signer_name: "E", signer_role: "staff", signing_order: 4 },
      ])
    ).body.items;
    const [a, b, c, d, e] = items;
    const before = await signatureRows(t, orgA, doc.id);
    const early = await act(doc.id, c.id, "sign", typed());
    expect([early.status, early.body.code, early.body.detail[0].loc]).toEqual([422, "signing_out_of_order", ["path", "signature_uuid"]]);
    expect(await signatureRows(t, orgA, doc.id)).toEqual(before);
    expect((await act(doc.id, b.id, "sign", typed("B"))).status).toBe(200);
    expect((await act(doc.id, c.id, "sign", typed())).body.code).toBe("signing_out_of_order");
    expect((await act(doc.id, a.id, "decline", { reason: "Wants to read it at home" })).status).toBe(200);
    expect((await act(doc.id, c.id, "sign", typed("C"))).status).toBe(200);
    expect((await act(doc.id, d.id, "cancel")).status).toBe(200);
    expect((await documentRow(t, orgA, doc.id))!.is_signed).toBe(false);
    const last = events.length;
    expect((await act(doc.id, e.id, "sign", typed("E"))).status).toBe(200);
    // every request that was neither declined nor canceled is signed: the document is signed (3 signatures)
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ is_signed: true, is_locked: true });
    expect(events.slice(last).find((ev) => ev.type === "document.signed")!.data).toEqual({ id: doc.id, signature_count: 3 });
  });

  test("409 signature_not_pending for signing twice or signing a declined or canceled one; 409 on a stale base_version; nothing changes", async () => {
    const { doc, items } = await docWith("One", "Two", "Three", "Four");
    await act(doc.id, items[0].id, "sign", typed());
    await act(doc.id, items[1].id, "decline", { reason: "No" });
    await act(doc.id, items[2].id, "cancel");
    const before = await signatureRows(t, orgA, doc.id);
    const docBefore = await documentRow(t, orgA, doc.id);
    for (const s of items.slice(0, 3)) {
      const r = await act(doc.id, s.id, "sign", typed());
      expect([r.status, r.body.code]).toEqual([409, "signature_not_pending"]);
    }
    const stale = await act(doc.id, items[3].id, "sign", { ...typed(), base_version: 2 });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect(await signatureRows(t, orgA, doc.id)).toEqual(before);
    expect(await documentRow(t, orgA, doc.id)).toEqual(docBefore);
  });

  test("422 for bad bodies: type, typed without text, drawn without a real PNG of at most 200 KB, misplaced or unknown fields; nothing changes", async () => {
    const { doc, items } = await docWith("Sam");
    const path = `${sigs(doc.id)}/${items[0].id}/sign`;
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .jpeg()
      .toBuffer();
    const realPng = Buffer.from(png.slice(PNG_PREFIX.length), "base64");
    const tooBig = Buffer.concat([realPng, Buffer.alloc(200 * 1024)]);
    await expectValidationCases(t, "POST", path, signer, [
      [{}, ["body", "signature_type"], "missing"],
      [{ signature_type: "stamped", signature_text: "x" }, ["body", "signature_type"], "enum"],
      [{ signature_type: "typed" }, ["body", "signature_text"], "missing"],
      [{ signature_type: "typed", signature_text: "   " }, ["body", "signature_text"], "out_of_range"],
      [{ signature_type: "typed", signature_text: "x".repeat(201) }, ["body", "signature_text"], "out_of_range"],
      [{ signature_type: "typed", signature_text: 7 }, ["body", "signature_text"], "type_error"],
      [{ signature_type: "typed", signature_text: "Sam", signature_image: png }, ["body", "signature_image"], "value_error"],
      [{ signature_type: "drawn" }, ["body", "signature_image"], "missing"],
      [{ signature_type: "drawn", signature_image: png, signature_text: "Sam" }, ["body", "signature_text"], "value_error"],
      [{ signature_type: "drawn", signature_image: PNG_PREFIX + jpeg.toString("base64") }, ["body", "signature_image"], "value_error"],
      [{ signature_type: "drawn", signature_image: `data:image/jpeg;base64,${jpeg.toString("base64")}` }, ["body", "signature_image"], "value_error"],
      [{ signature_type: "drawn", signature_image: png.slice(PNG_PREFIX.length) }, ["body", "signature_image"], "value_error"],
      [{ signature_type: "drawn", signature_image: `${PNG_PREFIX}!!!notbase64` }, ["body", "signature_image"], "value_error"],
      [{ signature_type: "drawn", signature_image: PNG_PREFIX }, ["body", "signature_image"], "value_error"],
      [
        { signature_type: "drawn", signature_image: PNG_PREFIX + Buffer.from("not a png at all, just text").toString("base64") },
        ["body", "signature_image"],
        "value_error",
      ],
      [{ signature_type: "drawn", signature_image: PNG_PREFIX + tooBig.toString("base64") }, ["body", "signature_image"], "value_error"],
      [{ signature_type: "drawn", signature_image: 5 }, ["body", "signature_image"], "type_error"],
      [{ ...typed(), base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ ...typed(), signed_at: "2026-01-01T00:00:00Z" }, ["body", "signed_at"], "extra_forbidden"],
      [{ ...typed(), version: 1 }, ["body", "version"], "read_only"],
    ]);
    expect((await signatureRows(t, orgA, doc.id))[0]).toMatchObject({ status: "pending", version: 1, signature_image: null, signature_text: null });
  });

  test("422 document_not_ready when the document is no longer active with a confirmed version; nothing changes", async () => {
    const { doc, items } = await docWith("Sam");
    await patchDocument(t, orgA, doc.id, { status: "processing", current_version: 2 });
    const r = await act(doc.id, items[0].id, "sign", typed());
    expect([r.status, r.body.code]).toEqual([422, "document_not_ready"]);
    expect((await signatureRows(t, orgA, doc.id))[0]).toMatchObject({ status: "pending", version: 1 });
  });

  test("404 for a signature of another document, a missing signature, and a missing, archived or another org's document; nothing changes", async () => {
    const { doc, items } = await docWith("Sam");
    const other = await docWith("Otto");
    const theirs = await insertDocument(t, orgB);
    const archived = await insertDocument(t, orgA);
    const archivedSig = (await request(archived.id, [{ signer_name: "Arch", signer_role: "other" }])).body.items[0];
    await patchDocument(t, orgA, archived.id, { deleted_at: new Date().toISOString(), status: "archived" });
    const cases: [string, string][] = [
      [other.doc.id, items[0].id],
      [doc.id, other.items[0].id],
      [doc.id, MISSING],
      [MISSING, items[0].id],
      [theirs.id, items[0].id],
      [archived.id, archivedSig.id],
    ];
    for (const [docId, sigId] of cases) {
      for (const [verb, body] of [
        ["sign", typed()],
        ["decline", { reason: "x" }],
        ["cancel", undefined],
      ] as const) {
        const r = await act(docId, sigId, verb, body);
        expect({ docId, sigId, verb, status: r.status, code: r.body.code }).toEqual({ docId, sigId, verb, status: 404, code: "not_found" });
      }
    }
    expect((await signatureRows(t, orgA, doc.id))[0]).toMatchObject({ status: "pending", version: 1 });
    expect((await signatureRows(t, orgA, archived.id))[0]).toMatchObject({ status: "pending", version: 1 });
  });

  test("401, 403 without documents.sign, 404 for another org's member; nothing changes", async () => {
    const { doc, items } = await docWith("Sam");
    const path = `${sigs(doc.id)}/${items[0].id}`;
    await expectGuarded(t, orgA, orgB, "POST", `${path}/decline`, "documents.sign", { reason: "x" });
    await expectGuarded(t, orgA, orgB, "POST", `${path}/cancel`, "documents.sign");
    const holder = await expectGuarded(t, orgA, orgB, "POST", `${path}/sign`, "documents.sign", typed());
    expect((await signatureRows(t, orgA, doc.id))[0]).toMatchObject({ status: "pending", version: 1 });
    expect((await act(doc.id, items[0].id, "sign", typed(), holder)).status).toBe(200);
  });
});

describe("POST .../signatures/{id}/decline and /cancel", () => {
  test("decline records the reason and who recorded it; the event carries ids only; the document stays unsigned", async () => {
    const { doc, items } = await docWith("Sam");
    const before = events.length;
    const r = await act(doc.id, items[0].id, "decline", { reason: "  Disagrees with the fee  ", base_version: 1 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...items[0],
      status: "declined",
      decline_reason: "Disagrees with the fee",
      signer_user_uuid: signerId,
      version: 2,
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(events.slice(before).map((e) => [e.type, e.resource_id, e.data])).toEqual([
      ["document_signature.declined", items[0].id, { id: items[0].id, document_uuid: doc.id }],
    ]);
    expect((await auditOf(t, orgA, items[0].id)).map((a) => a.action).sort()).toEqual(["document_signature.created", "document_signature.declined"]);
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ is_signed: false, is_locked: false, version: 1 });
    const again = await act(doc.id, items[0].id, "decline", { reason: "again" });
    expect([again.status, again.body.code]).toEqual([409, "signature_not_pending"]);
  });

  test("decline: 422 without a reason or with unknown fields; nothing changes", async () => {
    const { doc, items } = await docWith("Sam");
    await expectValidationCases(t, "POST", `${sigs(doc.id)}/${items[0].id}/decline`, signer, [
      [{}, ["body", "reason"], "missing"],
      [{ reason: "  " }, ["body", "reason"], "out_of_range"],
      [{ reason: "x".repeat(1001) }, ["body", "reason"], "out_of_range"],
      [{ reason: 3 }, ["body", "reason"], "type_error"],
      [{ reason: "x", status: "declined" }, ["body", "status"], "extra_forbidden"],
    ]);
    expect((await signatureRows(t, orgA, doc.id))[0]).toMatchObject({ status: "pending", version: 1, decline_reason: null });
  });

  test("cancel without a body or with base_version; the event carries ids only; only pending; stale is 409", async () => {
    const { doc, items } = await docWith("Sam", "Sue");
    const before = events.length;
    const r = await act(doc.id, items[0].id, "cancel");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...items[0], status: "canceled", version: 2, updated_at: expect.stringMatching(/Z$/) });
    const stale = await act(doc.id, items[1].id, "cancel", { base_version: 3 });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const bad = await act(doc.id, items[1].id, "cancel", { reason: "x" });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "extra_forbidden"]);
    expect((await act(doc.id, items[1].id, "cancel", { base_version: 1 })).body.status).toBe("canceled");
    expect(events.slice(before).map((e) => [e.type, e.resource_id, e.data])).toEqual([
      ["document_signature.canceled", items[0].id, { id: items[0].id, document_uuid: doc.id }],
      ["document_signature.canceled", items[1].id, { id: items[1].id, document_uuid: doc.id }],
    ]);
    const again = await act(doc.id, items[0].id, "cancel");
    expect([again.status, again.body.code]).toEqual([409, "signature_not_pending"]);
    const signAfter = await act(doc.id, items[0].id, "sign", typed());
    expect([signAfter.status, signAfter.body.code]).toEqual([409, "signature_not_pending"]);
    // canceling every request never signs the document
    expect((await documentRow(t, orgA, doc.id))!).toMatchObject({ is_signed: false, is_locked: false });
  });
});

describe("a signing round covers one version of the file", () => {
  test("POST .../versions is 422 signatures_pending while a request is pending; once it is signed (or canceled) a new version is taken", async () => {
    const { postForm } = await import("@tests/support/documents/upload");
    const { eobPdf } = await import("@tests/support/documents/fixtures");
    const admin = await t.adminToken();
    const file = { bytes: await eobPdf(), name: "consent-v2.pdf", type: "application/pdf" };
    const { doc, items } = await docWith("Pat");
    const versions = `/api/v1/${orgA}/documents/${doc.id}/versions`;
    const refused = await postForm(t, admin, versions, file);
    expect([refused.status, refused.body.code, refused.body.detail[0].loc]).toEqual([422, "signatures_pending", ["path", "document_uuid"]]);
    expect((await documentRow(t, orgA, doc.id))?.current_version).toBe(1);
    expect((await act(doc.id, items[0].id, "cancel")).status).toBe(200);
    const taken = await postForm(t, admin, versions, file);
    expect([taken.status, taken.body.version_number]).toEqual([201, 2]);
  });
});
