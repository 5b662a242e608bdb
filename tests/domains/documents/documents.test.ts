import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { count } from "drizzle-orm";
import { documents, documentVersions } from "@db/tenant/documents";
import { get } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, busDrained, twoOrgApp, startTestApp, type TestApp } from "@tests/helpers";
import {
  bitewingPng,
  CARD_FRONT_MEMBER_ID,
  cardFrontJpeg,
  dicomPanoramic,
  eobPdf,
  heicHeader,
  labPrescriptionTiff,
  panoramicJpeg,
} from "@tests/support/documents/fixtures";
import { documentRow, insertPatient, patchDocument } from "@tests/support/documents/rows";
import { postForm, runPipeline, runStepJob, type UploadFile } from "@tests/support/documents/upload";

// HTTP tests of every route in src/domains/documents/routes.ts. One app for the
// file; org A for most tests, org B as the foreign tenant, and an org of its
// own for the list (exact totals). The pipeline is run by hand only where a
// test needs a processed document (OCR costs ~0.5 s per image).

const MISSING = "01970000-0000-7000-8000-000000000000";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = { detail: "Document not found", code: "not_found" };

let t: TestApp;
let admin: string;
let writer: string; // documents.read + documents.write
let writerId: string;
let reader: string; // documents.read
let noDocs: string; // patients.read only
let outsider: string; // every documents key, in org B
let orgA: string;
let orgB: string;
let A: string; // {P}/documents of org A
let B: string;
let events: EventEnvelope[];
/** For each document.created event: the document row as read when the event arrived. */
const rowAtDelivery = new Map<string, Promise<unknown>>();
let patient: { id: string };
let foreignPatient: { id: string };
let orgCategory: { id: string; name: string };
let patientCategory: { id: string; name: string };

beforeAll(async () => {
  const w = await twoOrgApp({
    writer: ["documents.read", "documents.write"],
    reader: ["documents.read"],
    noDocs: ["patients.read"],
    outsider: { org: "B", keys: ["documents.read", "documents.write", "documents.sign", "documents.manage"] },
  });
  ({ t, admin, orgA, orgB } = w);
  ({ writer, reader, noDocs, outsider } = w.tokens);
  writerId = w.members.writer.userId;
  A = `${w.pathA}/documents`;
  B = `${w.pathB}/documents`;
  events = [];
  t.rt.events.subscribe(orgA, (e) => {
    events.push(e);
    if (e.type === "document.created") rowAtDelivery.set(e.resource_id, documentRow(t, orgA, e.resource_id));
  });
  patient = await insertPatient(t, orgA, { first_name: "Lena", last_name: "Lumen" });
  foreignPatient = await insertPatient(t, orgB, { first_name: "Otto", last_name: "Other" });
  orgCategory = await category(orgA, "Policies", "organization");
  patientCategory = await category(orgA, "Insurance cards", "patient");
});
afterAll(() => t.close());

// ---- helpers -----------------------------------------------------------------------------------

async function category(orgId: string, name: string, scope: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/documents/categories`, { token: admin, body: { name, scope } });
  if (r.status !== 201) throw new Error(`category: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string };
}

const pdf = async (name = "eob.pdf"): Promise<UploadFile> => ({ bytes: await eobPdf(), name, type: "application/pdf" });
const card = async (name = "card.jpg"): Promise<UploadFile> => ({ bytes: await cardFrontJpeg(), name, type: "image/jpeg" });
const png = async (name = "bitewing.png", type = "image/png"): Promise<UploadFile> => ({ bytes: await bitewingPng(), name, type });

/** An upload that must succeed (201); answers the Document. */
async function upload(fields: Record<string, string | string[]> = {}, file?: UploadFile, P = A, token = admin) {
  const r = await postForm(t, token, P, file ?? (await pdf()), fields);
  if (r.status !== 201) throw new Error(`upload failed: ${r.status} ${r.text}`);
  return r.body;
}

const read = (id: string, token = admin, P = A) => t.request("GET", `${P}/${id}`, { token });
const post = (path: string, token = admin) => t.request("POST", path, { token });
const patch = (id: string, body: Record<string, unknown>, token = admin) => t.request("PATCH", `${A}/${id}`, { token, body });

/** Every file under `dir`, relative paths, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => statSync(join(dir, p)).isFile()).sort();
}
const storedFiles = (app = t) => filesUnder(join(app.dir, "documents"));
const stagedFiles = (app = t) => filesUnder(join(app.dir, "tmp", "uploads"));

async function rowCounts(orgId = orgA, app = t) {
  const org = (await app.rt.access.org(orgId))!;
  const db = await app.rt.orgDbs.get(org.id, org.shard);
  return db.read(function* (d) {
    const docs = (yield* get(d.select({ n: count() }).from(documents)))!.n;
    const versions = (yield* get(d.select({ n: count() }).from(documentVersions)))!.n;
    return { docs, versions };
  });
}

/** What a refused upload must leave as it was: the rows, the stored files, no event. */
async function uploadState(orgId = orgA, app = t) {
  return { rows: await rowCounts(orgId, app), files: storedFiles(app), events: events.length };
}
async function expectNoTrace(before: Awaited<ReturnType<typeof uploadState>>, orgId = orgA, app = t) {
  await busDrained(app.rt.bus);
  expect(await uploadState(orgId, app)).toEqual(before);
  expect(stagedFiles(app)).toEqual([]);
}

/** Fetches a signed file URL through the app: status, bytes and the headers that matter. */
async function fetchFile(url: string) {
  const res = await t.handle(new Request(`http://localhost${url}`));
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    disposition: res.headers.get("content-disposition"),
    bytes: new Uint8Array(await res.arrayBuffer()) as Uint8Array,
  };
}

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

// ---- POST /documents ---------------------------------------------------------------------------

describe("POST /documents (upload)", () => {
  test("201 with every field: processing, pending OCR, queued; size and sniffed type; title = file name; org-scoped without owner", async () => {
    const file = await card("front of card.jpg");
    const r = await postForm(t, writer, A, { ...file, type: "" });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      version: 1,
      created_at: expect.stringMatching(ISO),
      updated_at: r.body.created_at,
      title: "front of card.jpg",
      file_name: "front of card.jpg",
      file_size: file.bytes.length,
      mime_type: "image/jpeg",
      document_type: "other",
      category: null,
      description: null,
      document_date: null,
      expiration_date: null,
      ai_classification: null,
      ai_confidence: null,
      has_thumbnail: false,
      is_locked: false,
      is_org_scoped: true,
      is_signed: false,
      is_starred: false,
      legal_hold: false,
      link_targets: [],
      ocr_status: "pending",
      owner_type: null,
      owner_uuid: null,
      page_count: null,
      processing_status: "queued",
      status: "processing",
      tags: [],
      uploaded_by: writerId,
      current_version: 1,
      deleted_at: null,
    });
    expect((await read(r.body.id)).body).toEqual(r.body);
    const stored = await documentRow(t, orgA, r.body.id);
    expect(stored?.ocr_text).toBeNull();
    // the file is in storage under the org's prefix, and the staging area is empty
    expect(storedFiles()).toContain(join(orgA, "documents", r.body.id, "v1"));
    expect(stagedFiles()).toEqual([]);
    const versions = await t.request("GET", `${A}/${r.body.id}/versions`, { token: reader });
    expect(versions.body.items).toEqual([
      {
        id: expect.stringMatching(UUID),
        document_uuid: r.body.id,
        version_number: 1,
        file_name: "front of card.jpg",
        file_size: file.bytes.length,
        mime_type: "image/jpeg",
        sha256: sha256(file.bytes),
        status: "processing",
        has_thumbnail: false,
        page_count: null,
        comment: null,
        uploaded_by: writerId,
        created_at: r.body.created_at,
      },
    ]);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => [a.action, a.actor_id])).toEqual([["document.created", writerId]]);
  });

  test("201 with an owner patient and every metadata field; the category of the patient scope; is_org_scoped false", async () => {
    const r = await postForm(t, admin, A, await pdf("scan-0001.PDF"), {
      title: "  Delta Dental EOB  ",
      document_type: "eob",
      owner_type: "patient",
      owner_uuid: patient.id.toUpperCase(),
      category_uuid: patientCategory.id,
      description: "March claim",
      document_date: "2025-03-14",
      expiration_date: "2026-03-14",
      tags: ["insurance", "claims", "insurance"],
      is_org_scoped: "false",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      title: "Delta Dental EOB",
      file_name: "scan-0001.PDF",
      file_size: (await eobPdf()).length,
      mime_type: "application/pdf",
      document_type: "eob",
      category: { uuid: patientCategory.id, name: "Insurance cards" },
      description: "March claim",
      document_date: "2025-03-14",
      expiration_date: "2026-03-14",
      is_org_scoped: false,
      owner_type: "patient",
      owner_uuid: patient.id,
      tags: ["insurance", "claims"],
      status: "processing",
    });
  });

  test("tags as repeated fields, a JSON array or a comma-separated list (trimmed, duplicates dropped); an org category without owner", async () => {
    const json = await upload({ tags: '["x-ray", "2025", "x-ray"]', category_uuid: orgCategory.id });
    expect([json.tags, json.category, json.is_org_scoped]).toEqual([["x-ray", "2025"], { uuid: orgCategory.id, name: "Policies" }, true]);
    expect((await upload({ tags: " a, b ,,a" })).tags).toEqual(["a", "b"]);
    expect((await upload({ tags: ["one", "two, three"] })).tags).toEqual(["one", "two", "three"]);
    expect((await upload({ is_org_scoped: "true" })).is_org_scoped).toBe(true);
  });

  test("the file name keeps only its last path segment", async () => {
    for (const [name, kept] of [
      ["../../etc/scan.pdf", "scan.pdf"],
      ["C:\\fakepath\\referral.pdf", "referral.pdf"],
    ]) {
      const doc = await upload({}, await pdf(name));
      expect([doc.file_name, doc.title]).toEqual([kept, kept]);
    }
  });

  test("a staged file left by a stopped process (over an hour old) is removed by the next upload; a recent one is kept", async () => {
    const dir = join(t.dir, "tmp", "uploads");
    const stale = join(dir, "left-by-a-crash");
    const recent = join(dir, "in-flight-elsewhere");
    writeFileSync(stale, "x");
    writeFileSync(recent, "y");
    const hoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(stale, hoursAgo, hoursAgo);
    await upload({}, await pdf());
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    rmSync(recent);
  });

  // busboy reads part file names as latin1 unless told (multipart.ts passes defParamCharset utf8)
  test("a non-ASCII file name is kept as sent", async () => {
    const doc = await upload({}, await pdf("résumé 牙片.pdf"));
    expect([doc.file_name, doc.title]).toEqual(["résumé 牙片.pdf", "résumé 牙片.pdf"]);
  });

  test("Idempotency-Key: the same form again replays the first answer (one document); another file or field with the key is 409", async () => {
    const key = { "idempotency-key": `upload-${Bun.randomUUIDv7()}` };
    const file = await pdf("once.pdf");
    const path = `/api/v1/${orgA}/documents`;
    const first = await postForm(t, admin, path, file, { title: "Once" }, { headers: key });
    expect(first.status).toBe(201);
    const again = await postForm(t, admin, path, file, { title: "Once" }, { headers: key });
    expect([again.status, again.body]).toEqual([201, first.body]);
    const otherTitle = await postForm(t, admin, path, file, { title: "Twice" }, { headers: key });
    expect([otherTitle.status, otherTitle.body.code]).toEqual([409, "idempotency_conflict"]);
    const otherFile = await postForm(t, admin, path, { ...file, bytes: new Uint8Array([...file.bytes, 0x0a]) }, { title: "Once" }, { headers: key });
    expect([otherFile.status, otherFile.body.code]).toEqual([409, "idempotency_conflict"]);
    const listed = await t.request("GET", `${path}?include_org_scoped=true&search=Once&page_size=200`, { token: admin });
    expect(listed.body.items.filter((d: { title: string }) => d.title === "Once").map((d: { id: string }) => d.id)).toEqual([first.body.id]);
  });

  test("document.created and document.uploaded go out after the commit, with ids and enums only", async () => {
    const from = events.length;
    const doc = await upload({ owner_type: "patient", owner_uuid: patient.id, document_type: "eob", title: "Secret title" });
    await busDrained(t.rt.bus);
    const mine = events.slice(from).filter((e) => e.resource_id === doc.id);
    const data = { id: doc.id, version_number: 1, document_type: "eob", owner_type: "patient", owner_uuid: patient.id };
    expect(mine.map((e) => [e.type, e.resource_type, e.org_id, e.practice_id, e.data])).toEqual([
      ["document.created", "document", orgA, null, data],
      ["document.uploaded", "document", orgA, null, data],
    ]);
    // the row was committed when the event arrived
    expect(((await rowAtDelivery.get(doc.id)) as { id: string } | undefined)?.id).toBe(doc.id);
    expect(JSON.stringify(mine)).not.toContain("Secret title");
  });

  test("an owner location: not org-scoped, and its events carry the location as practice_id", async () => {
    const loc = await t.request("POST", `/api/v1/${orgA}/locations`, { token: admin, body: { name: "Main St", timezone: "America/New_York" } });
    expect(loc.status).toBe(201);
    const from = events.length;
    const doc = await upload({ owner_type: "location", owner_uuid: loc.body.id, document_type: "fire_inspection" });
    expect([doc.owner_type, doc.owner_uuid, doc.is_org_scoped]).toEqual(["location", loc.body.id, false]);
    await busDrained(t.rt.bus);
    expect(
      events
        .slice(from)
        .filter((e) => e.resource_id === doc.id)
        .map((e) => [e.type, e.practice_id]),
    ).toEqual([
      ["document.created", loc.body.id],
      ["document.uploaded", loc.body.id],
    ]);
    expect((await t.request("GET", `${A}?owner_type=location`, { token: reader })).body.items.map((x: any) => x.id)).toEqual([doc.id]);
  });

  test("422 for a missing, empty or misplaced file, a type not allowed and a type contradicting the bytes; nothing is left behind", async () => {
    const before = await uploadState();
    const cases: [UploadFile | null, Record<string, string>, { fileField?: string }, (string | number)[], string][] = [
      [null, { title: "No file" }, {}, ["body", "file"], "missing"],
      [{ bytes: new Uint8Array(0), name: "empty.pdf", type: "application/pdf" }, {}, {}, ["body", "file"], "value_error"],
      [await pdf(), {}, { fileField: "document" }, ["body", "document"], "value_error"],
      [{ bytes: new TextEncoder().encode("plain notes\n"), name: "notes.txt", type: "text/plain" }, {}, {}, ["body", "file"], "file_type_not_allowed"],
      [await png("bitewing.jpg", "image/jpeg"), {}, {}, ["body", "file"], "file_type_mismatch"],
      [await png("bitewing.png", "image/jpeg"), {}, {}, ["body", "file"], "file_type_mismatch"],
      [await png("bitewing.pdf", ""), {}, {}, ["body", "file"], "file_type_mismatch"],
    ];
    for (const [file, fields, opts, loc, type] of cases) {
      const r = await postForm(t, admin, A, file, fields, opts);
      expect({ name: file?.name, status: r.status, first: r.body.detail?.[0] }).toEqual({
        name: file?.name,
        status: 422,
        first: { loc, msg: expect.any(String), type },
      });
    }
    const raw = (body: BodyInit, headers: Record<string, string> = {}) =>
      t.handle(new Request(`http://localhost${A}`, { method: "POST", headers: { authorization: `Bearer ${admin}`, ...headers }, body }));
    const boundary = { "content-type": "multipart/form-data; boundary=xyz" };
    const garbage = await raw("not a multipart body", boundary);
    expect([garbage.status, ((await garbage.json()) as any).detail[0]]).toEqual([422, { loc: ["body"], msg: expect.any(String), type: "multipart_invalid" }]);
    const truncated = await raw(
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 cut',
      boundary,
    );
    expect([truncated.status, ((await truncated.json()) as any).detail[0].type]).toEqual([422, "multipart_invalid"]);
    const two = new FormData();
    for (const name of ["a.pdf", "b.pdf"]) two.append("file", new Blob([(await pdf()).bytes as Uint8Array<ArrayBuffer>], { type: "application/pdf" }), name);
    const twoFiles = await raw(two);
    expect([twoFiles.status, ((await twoFiles.json()) as any).detail[0]]).toEqual([422, { loc: ["body"], msg: expect.any(String), type: "limit_exceeded" }]);
    await expectNoTrace(before);
  });

  test("422 for bad form fields and references: unknown field, enum, owner pairs, missing or foreign owner, category scope, dates, tags", async () => {
    const file = await pdf();
    const before = await uploadState();
    const foreignCategory = await category(orgB, "Theirs", "organization");
    const cases: [Record<string, string | string[]>, (string | number)[], string, string?][] = [
      [{ color: "red" }, ["body", "color"], "extra_forbidden"],
      [{ document_type: "selfie" }, ["body", "document_type"], "enum"],
      [{ owner_type: "pet", owner_uuid: patient.id }, ["body", "owner_type"], "enum"],
      [{ owner_type: "patient" }, ["body", "owner_uuid"], "value_error"],
      [{ owner_uuid: patient.id }, ["body", "owner_type"], "value_error"],
      [{ owner_type: "patient", owner_uuid: "not-a-uuid" }, ["body", "owner_uuid"], "format"],
      [{ owner_type: "patient", owner_uuid: MISSING }, ["body", "owner_uuid"], "value_error", "reference_not_found"],
      [{ owner_type: "patient", owner_uuid: foreignPatient.id }, ["body", "owner_uuid"], "value_error", "reference_not_found"],
      [{ owner_type: "provider", owner_uuid: patient.id }, ["body", "owner_uuid"], "value_error", "reference_not_found"],
      [{ owner_type: "patient", owner_uuid: patient.id, is_org_scoped: "true" }, ["body", "is_org_scoped"], "value_error"],
      [{ is_org_scoped: "false" }, ["body", "is_org_scoped"], "value_error"],
      [{ is_org_scoped: "maybe" }, ["body", "is_org_scoped"], "enum"],
      // a patient-scope category for an org-scoped document, and the other way round
      [{ category_uuid: patientCategory.id }, ["body", "category_uuid"], "value_error", "reference_not_found"],
      [{ owner_type: "patient", owner_uuid: patient.id, category_uuid: orgCategory.id }, ["body", "category_uuid"], "value_error", "reference_not_found"],
      [{ category_uuid: foreignCategory.id }, ["body", "category_uuid"], "value_error", "reference_not_found"],
      [{ category_uuid: MISSING }, ["body", "category_uuid"], "value_error", "reference_not_found"],
      [{ document_date: "2025-03-14", expiration_date: "2025-03-13" }, ["body", "expiration_date"], "value_error"],
      [{ document_date: "2025-02-30" }, ["body", "document_date"], "format"],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ["body", "tags"], "out_of_range"],
      [{ tags: JSON.stringify(Array.from({ length: 21 }, (_, i) => `t${i}`)) }, ["body", "tags"], "out_of_range"],
      [{ tags: "x".repeat(51) }, ["body", "tags", 0], "out_of_range"],
      [{ tags: "[1, 2]" }, ["body", "tags"], "value_error"],
      [{ title: "   " }, ["body", "title"], "out_of_range"],
      [{ title: "x".repeat(201) }, ["body", "title"], "out_of_range"],
    ];
    for (const [fields, loc, type, code] of cases) {
      const r = await postForm(t, admin, A, file, fields);
      expect({ fields, status: r.status, first: r.body.detail?.[0], code: r.body.code }).toEqual({
        fields,
        status: 422,
        first: { loc, msg: expect.any(String), type },
        code,
      });
    }
    await expectNoTrace(before);
  });

  test("415 for a JSON body; 401; 403 without documents.write; 404 for a non-member or unknown org; nothing is written", async () => {
    const file = await pdf();
    const before = await uploadState();
    const json = await t.request("POST", A, { token: admin, body: { title: "JSON" } });
    expect([json.status, json.body.code]).toEqual([415, "unsupported_media_type"]);
    const anon = await postForm(t, null, A, file);
    expect([anon.status, anon.headers.get("www-authenticate"), anon.body.code]).toEqual([401, "Bearer", "unauthorized"]);
    expect([(await postForm(t, reader, A, file)).status, (await postForm(t, noDocs, A, file)).body.code]).toEqual([403, "forbidden"]);
    expect((await postForm(t, outsider, A, file)).status).toBe(404);
    expect((await postForm(t, admin, `/api/v1/${MISSING}/documents`, file)).status).toBe(404);
    await expectNoTrace(before);
  });

  test("413 past UPLOAD_LIMIT_BYTES (declared length or streamed); a file under the limit is taken", async () => {
    const small = await startTestApp({ UPLOAD_LIMIT_BYTES: "1000" });
    try {
      const token = await small.adminToken();
      const org = (await small.createOrg()).id;
      const P = `/api/v1/${org}/documents`;
      const before = await uploadState(org, small);
      const big = await pdf();
      const declared = await postForm(small, token, P, big);
      expect([declared.status, declared.body.code]).toEqual([413, "payload_too_large"]);
      // without Content-Length the multipart reader cuts the file off at the limit
      const form = new FormData();
      form.append("title", "Streamed");
      form.append("file", new Blob([big.bytes as Uint8Array<ArrayBuffer>], { type: "application/pdf" }), "big.pdf");
      const built = new Request("http://localhost/", { method: "POST", body: form });
      const contentType = built.headers.get("content-type")!;
      const bytes = new Uint8Array(await built.arrayBuffer());
      const chunked = new Request(`http://localhost${P}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": contentType },
        body: new Blob([bytes]).stream(),
        duplex: "half",
      } as RequestInit);
      expect(chunked.headers.get("content-length")).toBeNull();
      const streamed = await small.handle(chunked);
      expect([streamed.status, ((await streamed.json()) as { code: string }).code]).toEqual([413, "payload_too_large"]);
      const after = { rows: await rowCounts(org, small), files: storedFiles(small) };
      expect(after).toEqual({ rows: before.rows, files: before.files });
      expect(stagedFiles(small)).toEqual([]);
      const heic = heicHeader();
      const ok = await postForm(small, token, P, { bytes: heic, name: "photo.heic", type: "image/heic" });
      expect([ok.status, ok.body.mime_type, ok.body.file_size]).toEqual([201, "image/heic", heic.length]);
    } finally {
      await small.close();
    }
  });
});

// ---- GET /documents ----------------------------------------------------------------------------

describe("GET /documents", () => {
  let C: string;
  let orgC: string;
  const d: Record<string, any> = {};
  let p1: { id: string };
  let p2: { id: string };
  let cat: { id: string };
  beforeAll(async () => {
    orgC = (await t.createOrg()).id;
    C = `/api/v1/${orgC}/documents`;
    p1 = await insertPatient(t, orgC, { first_name: "Ada", last_name: "One" });
    p2 = await insertPatient(t, orgC, { first_name: "Bea", last_name: "Two" });
    cat = await category(orgC, "X-rays", "patient");
    const of = (p: { id: string }) => ({ owner_type: "patient", owner_uuid: p.id });
    d.bitewing = await upload(
      { ...of(p1), title: "Alpha bitewing", document_type: "bitewing", document_date: "2025-01-10", category_uuid: cat.id },
      await png(),
      C,
    );
    d.lab = await upload({ ...of(p1), title: "beta lab slip", document_type: "lab_prescription" }, { bytes: await labPrescriptionTiff(), name: "lab.tif" }, C);
    d.pano = await upload(
      { ...of(p2), title: "Gamma panoramic", document_type: "panoramic", document_date: "2024-05-01" },
      { bytes: await panoramicJpeg(), name: "pano.jpg" },
      C,
    );
    d.policy = await upload({ title: "Delta privacy policy", document_type: "privacy_policy", document_date: "2023-01-01" }, await pdf("policy.pdf"), C);
    d.card = await upload({ ...of(p1), title: "Insurance card", document_type: "insurance_card_front" }, await card(), C);
    d.gone = await upload({ ...of(p2), title: "Alpha archived" }, await pdf(), C);
    expect((await post(`${C}/${d.gone.id}/archive`)).status).toBe(200);
    await runPipeline(t, orgC, d.card.id);
    // another org's document with the same words is never listed here
    await upload({ title: "Alpha bitewing Insurance card" }, await card(), A);
  });

  const list = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${C}?${qs}`, { token });
    expect([qs, r.status]).toEqual([qs, 200]);
    return r.body;
  };
  const ids = async (qs: string) => (await list(qs)).items.map((x: any) => x.id);

  test("default: newest first, org-scoped and archived left out, page 1 of 50; items equal the by-id answers", async () => {
    const body = await list("");
    expect([body.page, body.page_size, body.total]).toEqual([1, 50, 4]);
    expect(body.items.map((x: any) => x.id)).toEqual([d.card.id, d.pano.id, d.lab.id, d.bitewing.id]);
    expect(body.items[3]).toEqual((await read(d.bitewing.id, admin, C)).body);
    expect(body.items[3].category).toEqual({ uuid: cat.id, name: "X-rays" });
    expect(body.items[0]).toMatchObject({ status: "active", processing_status: "completed", ocr_status: "completed", has_thumbnail: true });
  });

  test("include_org_scoped, owner_type, owner_uuid, document_type, category_uuid and status filters", async () => {
    expect(await ids("include_org_scoped=true")).toEqual([d.card.id, d.policy.id, d.pano.id, d.lab.id, d.bitewing.id]);
    expect(await ids("include_org_scoped=false")).toEqual([d.card.id, d.pano.id, d.lab.id, d.bitewing.id]);
    expect(await ids("owner_type=patient&include_org_scoped=true")).toEqual([d.card.id, d.pano.id, d.lab.id, d.bitewing.id]);
    expect(await ids("owner_type=provider&include_org_scoped=true")).toEqual([]);
    expect(await ids(`owner_uuid=${p2.id}`)).toEqual([d.pano.id]);
    expect(await ids(`owner_uuid=${p1.id.toUpperCase()}&owner_type=patient`)).toEqual([d.card.id, d.lab.id, d.bitewing.id]);
    expect(await ids("document_type=panoramic")).toEqual([d.pano.id]);
    expect(await ids("document_type=privacy_policy")).toEqual([]);
    expect(await ids("document_type=privacy_policy&include_org_scoped=true")).toEqual([d.policy.id]);
    expect(await ids(`category_uuid=${cat.id}`)).toEqual([d.bitewing.id]);
    expect(await ids("status=active")).toEqual([d.card.id]);
    expect(await ids("status=processing")).toEqual([d.pano.id, d.lab.id, d.bitewing.id]);
    expect(await ids("status=archived")).toEqual([]);
  });

  test("sort by each column, asc and desc; empty values last; ties by creation", async () => {
    const all = "include_org_scoped=true";
    expect(await ids(`${all}&order=asc`)).toEqual([d.bitewing.id, d.lab.id, d.pano.id, d.policy.id, d.card.id]);
    expect(await ids(`${all}&sort=title`)).toEqual([d.card.id, d.pano.id, d.policy.id, d.lab.id, d.bitewing.id]);
    expect(await ids(`${all}&sort=title&order=asc`)).toEqual([d.bitewing.id, d.lab.id, d.policy.id, d.pano.id, d.card.id]);
    expect(await ids(`${all}&sort=document_date&order=asc`)).toEqual([d.policy.id, d.pano.id, d.bitewing.id, d.lab.id, d.card.id]);
    expect(await ids(`${all}&sort=document_date`)).toEqual([d.bitewing.id, d.pano.id, d.policy.id, d.card.id, d.lab.id]);
    expect(await ids(`${all}&sort=document_type&order=asc`)).toEqual([d.bitewing.id, d.card.id, d.lab.id, d.pano.id, d.policy.id]);
    const bySize = [d.bitewing, d.lab, d.pano, d.policy, d.card].sort((x, y) => x.file_size - y.file_size).map((x) => x.id);
    expect(new Set(bySize.map((id) => [d.bitewing, d.lab, d.pano, d.policy, d.card].find((x) => x.id === id).file_size)).size).toBe(5);
    expect(await ids(`${all}&sort=file_size&order=asc`)).toEqual(bySize);
    expect(await ids(`${all}&sort=file_size&order=desc`)).toEqual([...bySize].reverse());
    // the card was last changed (by the pipeline)
    expect((await ids(`${all}&sort=updated_at`))[0]).toBe(d.card.id);
  });

  test("paging: totals and pages", async () => {
    const p1Body = await list("include_org_scoped=true&page_size=2");
    expect([p1Body.total, p1Body.page, p1Body.page_size, p1Body.items.map((x: any) => x.id)]).toEqual([5, 1, 2, [d.card.id, d.policy.id]]);
    const p3 = await list("include_org_scoped=true&page_size=2&page=3");
    expect([p3.total, p3.page, p3.items.map((x: any) => x.id)]).toEqual([5, 3, [d.bitewing.id]]);
    const p9 = await list("include_org_scoped=true&page_size=2&page=9");
    expect([p9.total, p9.items]).toEqual([5, []]);
  });

  test("search: a word OCR read on the card and a prefix of it, title words (any case, all of them), no match", async () => {
    expect(await ids(`search=${CARD_FRONT_MEMBER_ID}`)).toEqual([d.card.id]);
    expect(await ids(`search=${CARD_FRONT_MEMBER_ID.slice(0, 6).toLowerCase()}`)).toEqual([d.card.id]);
    expect(await ids("search=DELTA")).toEqual([d.card.id]);
    expect(await ids("search=alpha%20BITE")).toEqual([d.bitewing.id]);
    expect(await ids("search=alpha")).toEqual([d.bitewing.id]);
    expect(await ids("search=alpha&include_org_scoped=true&status=processing")).toEqual([d.bitewing.id]);
    expect(await ids("search=privacy&include_org_scoped=true")).toEqual([d.policy.id]);
    expect(await ids("search=alpha%20gamma")).toEqual([]);
    expect(await ids("search=zebra")).toEqual([]);
    expect(await ids("search=%2A%2A")).toEqual([]);
  });

  test("422 for a bad sort, order, status, enum, id, paging or unknown parameter", async () => {
    for (const [qs, loc, type] of [
      ["sort=owner", ["query", "sort"], "enum"],
      ["sort=title;drop", ["query", "sort"], "enum"],
      ["order=up", ["query", "order"], "enum"],
      ["status=deleted", ["query", "status"], "enum"],
      ["owner_type=pet", ["query", "owner_type"], "enum"],
      ["document_type=selfie", ["query", "document_type"], "enum"],
      ["include_org_scoped=yes", ["query", "include_org_scoped"], "enum"],
      ["owner_uuid=nope", ["query", "owner_uuid"], "format"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["page=0", ["query", "page"], "out_of_range"],
      ["search=x&q=y", ["query", "q"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${C}?${qs}`, { token: admin });
      expect([qs, r.status, r.body.detail?.[0]]).toEqual([qs, 422, { loc, msg: expect.any(String), type }]);
    }
  });

  test("401, 403 without documents.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: noDocs })).status).toBe(403);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(404);
  });
});

// ---- GET, PATCH /documents/{id} ----------------------------------------------------------------

describe("GET /documents/{id}", () => {
  test("200 exact with ETag; upper-case id; 404 missing, malformed, archived, another org's", async () => {
    const doc = await upload({ owner_type: "patient", owner_uuid: patient.id, title: "Readable" });
    const r = await read(doc.id, reader);
    expect([r.status, r.body, r.headers.get("etag")]).toEqual([200, doc, '"1"']);
    expect((await read(doc.id.toUpperCase(), reader)).body).toEqual(doc);
    const gone = await upload();
    expect((await post(`${A}/${gone.id}/archive`)).status).toBe(200);
    const foreign = await upload({}, await pdf(), B);
    for (const id of [MISSING, "not-a-uuid", gone.id, foreign.id]) {
      const miss = await read(id);
      expect([id, miss.status, miss.body]).toEqual([id, 404, NOT_FOUND]);
    }
    expect((await read(foreign.id, outsider, B)).status).toBe(200);
    expect((await t.request("GET", `${A}/${doc.id}`)).status).toBe(401);
    expect((await read(doc.id, noDocs)).status).toBe(403);
    expect((await read(doc.id, outsider)).status).toBe(404);
  });
});

describe("PATCH /documents/{id}", () => {
  const full = () =>
    upload({
      owner_type: "patient",
      owner_uuid: patient.id,
      title: "Consent",
      document_type: "general_consent",
      category_uuid: patientCategory.id,
      description: "Signed at the desk",
      document_date: "2025-01-01",
      expiration_date: "2026-01-01",
      tags: ["consent"],
    });

  test("200 changes only the fields given and bumps the version; audited; document.updated names the fields", async () => {
    const doc = await full();
    const from = events.length;
    const search = async (word: string) => (await t.request("GET", `${A}?search=${word}`, { token: reader })).body.items.map((x: any) => x.id);
    expect(await search("quokka")).toEqual([]);
    const r = await patch(
      doc.id,
      { base_version: 1, title: "  Quokka consent ", tags: [" consent", "signed", "consent "], document_type: "procedure_consent" },
      writer,
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...doc,
      title: "Quokka consent",
      tags: ["consent", "signed"],
      document_type: "procedure_consent",
      version: 2,
      updated_at: expect.stringMatching(ISO),
    });
    expect(r.body.updated_at >= doc.updated_at).toBe(true);
    expect((await read(doc.id)).body).toEqual(r.body);
    // the search index follows the new title
    expect(await search("QUOKKA")).toEqual([doc.id]);
    expect((await auditOf(t, orgA, doc.id)).map((a) => a.action).sort()).toEqual(["document.created", "document.updated"]);
    await busDrained(t.rt.bus);
    const mine = events.slice(from).filter((e) => e.resource_id === doc.id);
    expect(mine.map((e) => [e.type, (e.data.changed_fields as string[]).sort()])).toEqual([["document.updated", ["document_type", "tags", "title"]]]);
  });

  test("null clears description, dates and category; a category of the owner's scope is set", async () => {
    const doc = await full();
    const r = await patch(doc.id, { base_version: 1, description: null, document_date: null, expiration_date: null, category_uuid: null });
    expect([r.status, r.body.version]).toEqual([200, 2]);
    expect([r.body.description, r.body.document_date, r.body.expiration_date, r.body.category, r.body.title]).toEqual([null, null, null, null, "Consent"]);
    const other = await category(orgA, "Consents", "patient");
    const again = await patch(doc.id, { base_version: 2, category_uuid: other.id, expiration_date: "2020-01-01" });
    expect([again.status, again.body.category, again.body.expiration_date, again.body.version]).toEqual([
      200,
      { uuid: other.id, name: "Consents" },
      "2020-01-01",
      3,
    ]);
  });

  test("409 on a stale base_version; 422 when locked, expiration before date, unknown or read-only fields, a category of another scope; nothing changes", async () => {
    const doc = await full();
    const stale = await patch(doc.id, { base_version: 2, title: "Stale" });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    for (const [body, loc, type, code] of [
      [{ base_version: 1, expiration_date: "2024-12-31" }, ["body", "expiration_date"], "value_error", undefined],
      [{ base_version: 1, document_date: "2026-01-02" }, ["body", "expiration_date"], "value_error", undefined],
      [{ base_version: 1, color: "red" }, ["body", "color"], "extra_forbidden", undefined],
      [{ base_version: 1, status: "active" }, ["body", "status"], "extra_forbidden", undefined],
      [{ base_version: 1, is_locked: true }, ["body", "is_locked"], "extra_forbidden", undefined],
      [{ base_version: 1, owner_uuid: MISSING }, ["body", "owner_uuid"], "extra_forbidden", undefined],
      [{ base_version: 1, title: null }, ["body", "title"], "type_error", undefined],
      [{ base_version: 1, document_type: "selfie" }, ["body", "document_type"], "enum", undefined],
      [{ base_version: 1, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ["body", "tags"], "out_of_range", undefined],
      [{ title: "No version" }, ["body", "base_version"], "missing", undefined],
      [{ base_version: 1, category_uuid: orgCategory.id }, ["body", "category_uuid"], "value_error", "reference_not_found"],
      [{ base_version: 1, category_uuid: MISSING }, ["body", "category_uuid"], "value_error", "reference_not_found"],
    ] as const) {
      const r = await patch(doc.id, body);
      expect({ body, status: r.status, first: r.body.detail?.[0], code: r.body.code }).toEqual({
        body,
        status: 422,
        first: { loc, msg: expect.any(String), type },
        code,
      });
    }
    expect((await read(doc.id)).body).toEqual(doc);
    const locked = (await post(`${A}/${doc.id}/lock`)).body;
    const refused = await patch(doc.id, { base_version: 2, title: "Locked" });
    expect([refused.status, refused.body.code, refused.body.detail[0].loc]).toEqual([422, "document_locked", ["path", "document_uuid"]]);
    expect((await read(doc.id)).body).toEqual(locked);
    expect((await auditOf(t, orgA, doc.id)).map((a) => a.action).sort()).toEqual(["document.created", "document.locked"]);
  });

  test("404 for a missing, archived or another org's document; 401, 403, 404 for a non-member", async () => {
    const doc = await upload();
    const gone = await upload();
    await post(`${A}/${gone.id}/archive`);
    const foreign = await upload({}, await pdf(), B);
    for (const id of [MISSING, "nope", gone.id, foreign.id]) {
      const r = await patch(id, { base_version: 1, title: "X" });
      expect([id, r.status, r.body]).toEqual([id, 404, NOT_FOUND]);
    }
    expect((await t.request("PATCH", `${A}/${doc.id}`, { body: { base_version: 1, title: "X" } })).status).toBe(401);
    expect((await patch(doc.id, { base_version: 1, title: "X" }, reader)).status).toBe(403);
    expect((await patch(doc.id, { base_version: 1, title: "X" }, outsider)).status).toBe(404);
    expect((await read(doc.id)).body).toEqual(doc);
    expect((await read(foreign.id, outsider, B)).body).toEqual(foreign);
  });
});

// ---- flags and archive -------------------------------------------------------------------------

describe("star, lock, legal hold, archive", () => {
  test("star/unstar: 200 with the flag; a repeat keeps the version; base_version checked (409)", async () => {
    const doc = await upload();
    const star = await post(`${A}/${doc.id}/star`, writer);
    expect([star.status, star.body.is_starred, star.body.version]).toEqual([200, true, 2]);
    expect(star.body).toEqual({ ...doc, is_starred: true, version: 2, updated_at: expect.stringMatching(ISO) });
    const again = await post(`${A}/${doc.id}/star`, writer);
    expect([again.status, again.body]).toEqual([200, star.body]);
    const stale = await post(`${A}/${doc.id}/unstar?base_version=1`, writer);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await read(doc.id)).body).toEqual(star.body);
    const unstar = await post(`${A}/${doc.id}/unstar?base_version=2`, writer);
    expect([unstar.status, unstar.body.is_starred, unstar.body.version]).toEqual([200, false, 3]);
    expect((await post(`${A}/${doc.id}/unstar`, writer)).body.version).toBe(3);
    expect((await auditOf(t, orgA, doc.id)).map((a) => a.action).sort()).toEqual(["document.created", "document.starred", "document.unstarred"]);
    const bad = await post(`${A}/${doc.id}/star?base_version=zero`, writer);
    expect([bad.status, bad.body.detail[0].loc]).toEqual([422, ["query", "base_version"]]);
    expect((await post(`${A}/${doc.id}/star?foo=1`, writer)).status).toBe(422);
  });

  test("lock/unlock: 200 with the flag, repeats keep the version; a signed document cannot be unlocked (422 document_signed)", async () => {
    const doc = await upload();
    const lock = await post(`${A}/${doc.id}/lock`, writer);
    expect([lock.status, lock.body.is_locked, lock.body.version]).toEqual([200, true, 2]);
    expect((await post(`${A}/${doc.id}/lock`, writer)).body).toEqual(lock.body);
    // a locked document can still be starred (a flag, not content)
    expect((await post(`${A}/${doc.id}/star`, writer)).body.version).toBe(3);
    const unlock = await post(`${A}/${doc.id}/unlock?base_version=3`, writer);
    expect([unlock.status, unlock.body.is_locked, unlock.body.version]).toEqual([200, false, 4]);
    expect((await post(`${A}/${doc.id}/unlock`, writer)).body.version).toBe(4);

    const signed = await upload();
    await patchDocument(t, orgA, signed.id, { is_signed: true, is_locked: true });
    const before = (await read(signed.id)).body;
    expect([before.is_signed, before.is_locked]).toEqual([true, true]);
    const refused = await post(`${A}/${signed.id}/unlock`, writer);
    expect([refused.status, refused.body.code, refused.body.detail[0].loc]).toEqual([422, "document_signed", ["path", "document_uuid"]]);
    expect((await read(signed.id)).body).toEqual(before);
  });

  test("legal hold: documents.manage; place and release are idempotent; archive under hold 422 legal_hold", async () => {
    const doc = await upload();
    const refused = await post(`${A}/${doc.id}/legal-hold`, writer);
    expect([refused.status, refused.body.code]).toEqual([403, "forbidden"]);
    expect((await post(`${A}/${doc.id}/legal-hold/release`, writer)).status).toBe(403);
    expect((await read(doc.id)).body).toEqual(doc);
    const held = await post(`${A}/${doc.id}/legal-hold`);
    expect([held.status, held.body.legal_hold, held.body.version]).toEqual([200, true, 2]);
    expect((await post(`${A}/${doc.id}/legal-hold`)).body).toEqual(held.body);
    const archive = await post(`${A}/${doc.id}/archive`, writer);
    expect([archive.status, archive.body.code, archive.body.detail[0].loc]).toEqual([422, "legal_hold", ["path", "document_uuid"]]);
    expect((await read(doc.id)).body).toEqual(held.body);
    const stale = await post(`${A}/${doc.id}/legal-hold/release?base_version=1`);
    expect(stale.status).toBe(409);
    const released = await post(`${A}/${doc.id}/legal-hold/release?base_version=2`);
    expect([released.status, released.body.legal_hold, released.body.version]).toEqual([200, false, 3]);
    expect((await post(`${A}/${doc.id}/legal-hold/release`)).body.version).toBe(3);
    expect((await auditOf(t, orgA, doc.id)).map((a) => a.action).sort()).toEqual([
      "document.created",
      "document.legal_hold_placed",
      "document.legal_hold_released",
    ]);
    expect((await post(`${A}/${doc.id}/archive?base_version=3`, writer)).status).toBe(200);
  });

  test("archive: 200 archived with deleted_at; then 404 on every route and out of lists; 409 stale; files stay", async () => {
    const doc = await upload({ owner_type: "patient", owner_uuid: patient.id, category_uuid: patientCategory.id, title: "To archive" });
    const stale = await post(`${A}/${doc.id}/archive?base_version=2`, writer);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const from = events.length;
    const r = await post(`${A}/${doc.id}/archive?base_version=1`, writer);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...doc,
      status: "archived",
      processing_status: "completed",
      deleted_at: expect.stringMatching(ISO),
      version: 2,
      updated_at: r.body.deleted_at,
    });
    await busDrained(t.rt.bus);
    expect(
      events
        .slice(from)
        .filter((e) => e.resource_id === doc.id)
        .map((e) => e.type),
    ).toEqual(["document.archived"]);
    for (const [method, path] of [
      ["GET", ""],
      ["PATCH", ""],
      ["POST", "/archive"],
      ["POST", "/star"],
      ["POST", "/unstar"],
      ["POST", "/lock"],
      ["POST", "/unlock"],
      ["POST", "/legal-hold"],
      ["POST", "/legal-hold/release"],
      ["GET", "/audit"],
      ["GET", "/download"],
      ["GET", "/preview"],
      ["GET", "/thumbnail"],
      ["GET", "/processing-status"],
      ["GET", "/versions"],
      ["GET", "/versions/1/download"],
    ] as const) {
      const res = await t.request(method, `${A}/${doc.id}${path}`, { token: admin, body: method === "PATCH" ? { base_version: 2, title: "X" } : undefined });
      expect([method, path, res.status, res.body]).toEqual([method, path, 404, NOT_FOUND]);
    }
    const v = await postForm(t, admin, `${A}/${doc.id}/versions`, await pdf());
    expect([v.status, v.body]).toEqual([404, NOT_FOUND]);
    const listed = await t.request("GET", `${A}?owner_uuid=${patient.id}&page_size=200`, { token: admin });
    expect(listed.body.items.map((x: any) => x.id)).not.toContain(doc.id);
    expect(storedFiles()).toContain(join(orgA, "documents", doc.id, "v1"));
    expect((await documentRow(t, orgA, doc.id))?.status).toBe("archived");
  });

  test("401, 403 and 404 (non-member, another org's document) on the flag and archive routes; nothing changes", async () => {
    const doc = await upload();
    const foreign = await upload({}, await pdf(), B);
    for (const [path, lacking] of [
      ["/star", reader],
      ["/unstar", reader],
      ["/lock", reader],
      ["/unlock", reader],
      ["/archive", reader],
      ["/legal-hold", writer],
      ["/legal-hold/release", writer],
    ] as const) {
      expect([path, (await t.request("POST", `${A}/${doc.id}${path}`)).status]).toEqual([path, 401]);
      expect([path, (await post(`${A}/${doc.id}${path}`, lacking)).status]).toEqual([path, 403]);
      expect([path, (await post(`${A}/${doc.id}${path}`, outsider)).status]).toEqual([path, 404]);
      expect([path, (await post(`${A}/${foreign.id}${path}`)).body]).toEqual([path, NOT_FOUND]);
    }
    expect((await read(doc.id)).body).toEqual(doc);
    expect((await read(foreign.id, outsider, B)).body).toEqual(foreign);
  });
});

// ---- a processed document: audit, processing status, file URLs -----------------------------------

describe("a document through the pipeline", () => {
  let doc: any;
  let bytes: Uint8Array;
  let before: { status: any; download: any; preview: any; thumbnail: any; audit: any };
  beforeAll(async () => {
    bytes = await cardFrontJpeg();
    doc = await upload({ owner_type: "patient", owner_uuid: patient.id, title: "Card front" }, await card("IMG_0042.jpg"));
    const get = (p: string) => t.request("GET", `${A}/${doc.id}${p}`, { token: reader });
    before = {
      status: await get("/processing-status"),
      download: await get("/download"),
      preview: await get("/preview"),
      thumbnail: await get("/thumbnail"),
      audit: await get("/audit"),
    };
    const out = await runPipeline(t, orgA, doc.id);
    expect(Object.values(out).map((o) => o.outcome)).toEqual(["completed", "completed", "completed", "completed"]);
  });

  test("before the pipeline: processing-status all pending, no file URLs (404)", () => {
    expect(before.status.status).toBe(200);
    expect(before.status.body).toEqual({
      document_uuid: doc.id,
      version_number: 1,
      overall_progress: "0 of 4 steps done",
      processing_status: "queued",
      steps: ["scan", "ocr", "classify", "thumbnail"].map((step, i) => ({
        step,
        label: ["Virus scan", "OCR", "AI classification", "Thumbnail"][i],
        status: "pending",
        attempts: 0,
        started_at: null,
        finished_at: null,
        message: null,
      })),
    });
    for (const r of [before.download, before.preview, before.thumbnail]) {
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    expect(before.audit.body.items.map((a: any) => a.action)).toEqual(["document.created"]);
  });

  test("after: the document is active with OCR, classification, page count and thumbnail; processing-status all completed", async () => {
    const r = await read(doc.id);
    expect(r.body).toMatchObject({
      status: "active",
      processing_status: "completed",
      ocr_status: "completed",
      page_count: 1,
      has_thumbnail: true,
      ai_classification: "insurance_card_front",
      document_type: "other",
      version: expect.any(Number),
    });
    expect(r.body.ai_confidence).toBeGreaterThan(0.5);
    const s = await t.request("GET", `${A}/${doc.id}/processing-status`, { token: reader });
    expect(s.body.overall_progress).toBe("4 of 4 steps done");
    expect(s.body.processing_status).toBe("completed");
    expect(s.body.steps.map((x: any) => [x.step, x.status, x.attempts])).toEqual([
      ["scan", "completed", 1],
      ["ocr", "completed", 1],
      ["classify", "completed", 1],
      ["thumbnail", "completed", 1],
    ]);
    for (const x of s.body.steps) expect([x.started_at <= x.finished_at, x.finished_at]).toEqual([true, expect.stringMatching(ISO)]);
  });

  test("download and preview: expires_in 300 and a signed URL serving the exact bytes, attachment and inline", async () => {
    const dl = await t.request("GET", `${A}/${doc.id}/download`, { token: reader });
    expect([dl.status, dl.body.expires_in, Object.keys(dl.body).sort()]).toEqual([200, 300, ["download_url", "expires_in"]]);
    expect(await fetchFile(dl.body.download_url)).toEqual({
      status: 200,
      type: "image/jpeg",
      disposition: 'attachment; filename="IMG_0042.jpg"',
      bytes,
    });
    const pv = await t.request("GET", `${A}/${doc.id}/preview`, { token: reader });
    expect([pv.status, pv.body.expires_in]).toEqual([200, 300]);
    expect(await fetchFile(pv.body.download_url)).toEqual({ status: 200, type: "image/jpeg", disposition: 'inline; filename="IMG_0042.jpg"', bytes });
    // a tampered URL is refused
    const forged = await fetchFile(dl.body.download_url.replace("d=attachment", "d=inline"));
    expect(forged.status).toBe(403);
  });

  test("thumbnail: a JPEG served inline", async () => {
    const th = await t.request("GET", `${A}/${doc.id}/thumbnail`, { token: reader });
    expect([th.status, th.body.expires_in]).toEqual([200, 300]);
    const f = await fetchFile(th.body.download_url);
    expect([f.status, f.type, f.disposition, f.bytes[0], f.bytes[1]]).toEqual([200, "image/jpeg", 'inline; filename="IMG_0042.jpg.thumbnail.jpg"', 0xff, 0xd8]);
    expect(f.bytes.length).toBeLessThan(bytes.length);
  });

  test("audit: newest first with each processing step; paged; the OCR text never appears", async () => {
    const r = await t.request("GET", `${A}/${doc.id}/audit`, { token: reader });
    expect(r.status).toBe(200);
    const actions = r.body.items.map((a: any) => a.action);
    expect(actions).toEqual([
      "document.processed",
      "document.thumbnail_done",
      "document.classify_done",
      "document.ocr_done",
      "document.ocr_started",
      "document.scanned",
      "document.created",
    ]);
    expect([r.body.total, r.body.page, r.body.page_size]).toEqual([7, 1, 50]);
    const created = r.body.items.at(-1);
    expect(created).toEqual({
      id: expect.stringMatching(UUID),
      action: "document.created",
      resource_type: "document",
      resource_id: doc.id,
      actor_id: expect.any(String),
      actor_type: "user",
      actor_display_name: expect.any(String),
      request_id: expect.any(String),
      created_at: doc.created_at,
      before: null,
      after: expect.objectContaining({ id: doc.id, title: "Card front", status: "processing" }),
    });
    expect(r.body.items[0]).toMatchObject({ actor_type: "system", before: { status: "processing" }, after: { status: "active" } });
    const times = r.body.items.map((a: any) => a.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    // OCR read the member id (search finds it), but no snapshot holds the text
    expect((await documentRow(t, orgA, doc.id))?.ocr_text).toContain(CARD_FRONT_MEMBER_ID);
    expect(JSON.stringify(r.body)).not.toContain(CARD_FRONT_MEMBER_ID);
    expect(JSON.stringify(r.body)).not.toContain("ocr_text");
    const page2 = await t.request("GET", `${A}/${doc.id}/audit?page=2&page_size=3`, { token: reader });
    expect([page2.body.total, page2.body.page, page2.body.page_size, page2.body.items.map((a: any) => a.action)]).toEqual([7, 2, 3, actions.slice(3, 6)]);
    for (const [qs, loc] of [
      ["page=0", ["query", "page"]],
      ["page_size=201", ["query", "page_size"]],
      ["action=x", ["query", "action"]],
    ] as const) {
      const bad = await t.request("GET", `${A}/${doc.id}/audit?${qs}`, { token: reader });
      expect([qs, bad.status, bad.body.detail[0].loc]).toEqual([qs, 422, loc]);
    }
  });

  test("a DICOM document: OCR and thumbnail skipped, downloadable, thumbnail 404", async () => {
    const dicom = await dicomPanoramic();
    const d = await upload({ title: "Pano DICOM", document_type: "panoramic" }, { bytes: dicom, name: "pano.dcm", type: "application/dicom" });
    expect(d.mime_type).toBe("application/dicom");
    await runPipeline(t, orgA, d.id);
    const after = (await read(d.id)).body;
    expect([after.status, after.ocr_status, after.has_thumbnail]).toEqual(["active", "skipped", false]);
    const s = await t.request("GET", `${A}/${d.id}/processing-status`, { token: reader });
    expect(s.body.steps.map((x: any) => [x.step, x.status])).toEqual([
      ["scan", "completed"],
      ["ocr", "completed"],
      ["classify", "completed"],
      ["thumbnail", "skipped"],
    ]);
    const th = await t.request("GET", `${A}/${d.id}/thumbnail`, { token: reader });
    expect([th.status, th.body]).toEqual([404, { detail: "Document thumbnail not found", code: "not_found" }]);
    const dl = await t.request("GET", `${A}/${d.id}/download`, { token: reader });
    expect(await fetchFile(dl.body.download_url)).toEqual({
      status: 200,
      type: "application/dicom",
      disposition: 'attachment; filename="pano.dcm"',
      bytes: dicom,
    });
  });

  test("401, 403, 404 (non-member, missing, another org's) on the read routes", async () => {
    const foreign = await upload({}, await pdf(), B);
    for (const path of ["/audit", "/download", "/preview", "/thumbnail", "/processing-status", "/versions", "/versions/1/download"]) {
      expect([path, (await t.request("GET", `${A}/${doc.id}${path}`)).status]).toEqual([path, 401]);
      expect([path, (await t.request("GET", `${A}/${doc.id}${path}`, { token: noDocs })).status]).toEqual([path, 403]);
      expect([path, (await t.request("GET", `${A}/${doc.id}${path}`, { token: outsider })).status]).toEqual([path, 404]);
      expect([path, (await t.request("GET", `${A}/${MISSING}${path}`, { token: admin })).body]).toEqual([path, NOT_FOUND]);
      expect([path, (await t.request("GET", `${A}/${foreign.id}${path}`, { token: admin })).body]).toEqual([path, NOT_FOUND]);
    }
  });
});

// ---- versions ----------------------------------------------------------------------------------

describe("versions", () => {
  let doc: any;
  let v1: Uint8Array;
  beforeAll(async () => {
    v1 = await eobPdf();
    doc = await upload({ title: "EOB", owner_type: "patient", owner_uuid: patient.id }, await pdf("eob-v1.pdf"));
    await runPipeline(t, orgA, doc.id);
  });
  const versions = (id = doc.id) => t.request("GET", `${A}/${id}/versions`, { token: reader });
  const download = async (path: string) => {
    const r = await t.request("GET", `${A}/${doc.id}${path}`, { token: reader });
    return r.status === 200 ? { status: 200, file: await fetchFile(r.body.download_url) } : { status: r.status, body: r.body };
  };

  test("v2 upload: 201 processing; the document is at version 2 and processing; downloads serve v1 until v2 passes its scan", async () => {
    const current = (await read(doc.id)).body;
    expect(current.status).toBe("active");
    const v2 = await png("bitewing-v2.png");
    const from = events.length;
    const r = await postForm(t, writer, `${A}/${doc.id}/versions`, v2, { comment: " rescanned ", base_version: String(current.version) });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(UUID),
      document_uuid: doc.id,
      version_number: 2,
      file_name: "bitewing-v2.png",
      file_size: v2.bytes.length,
      mime_type: "image/png",
      sha256: sha256(v2.bytes),
      status: "processing",
      has_thumbnail: false,
      page_count: null,
      comment: "rescanned",
      uploaded_by: writerId,
      created_at: expect.stringMatching(ISO),
    });
    await busDrained(t.rt.bus);
    expect(
      events
        .slice(from)
        .filter((e) => e.resource_id === doc.id)
        .map((e) => [e.type, e.data.version_number]),
    ).toEqual([["document.uploaded", 2]]);
    const after = (await read(doc.id)).body;
    expect(after).toMatchObject({
      current_version: 2,
      status: "processing",
      processing_status: "queued",
      ocr_status: "pending",
      file_name: "bitewing-v2.png",
      file_size: v2.bytes.length,
      mime_type: "image/png",
      has_thumbnail: false,
      page_count: null,
      ai_classification: null,
      version: current.version + 1,
      title: "EOB",
    });
    const list = await versions();
    expect(list.body.items.map((v: any) => [v.version_number, v.status, v.has_thumbnail])).toEqual([
      [2, "processing", false],
      [1, "confirmed", true],
    ]);
    expect(list.body.items[0]).toEqual(r.body);
    const ps = await t.request("GET", `${A}/${doc.id}/processing-status`, { token: reader });
    expect([ps.body.version_number, ps.body.overall_progress]).toEqual([2, "0 of 4 steps done"]);

    // v1 still served; v2 not until its scan
    const pdfFile = { status: 200, type: "application/pdf", bytes: v1 };
    expect(await download("/download")).toEqual({ status: 200, file: { ...pdfFile, disposition: 'attachment; filename="eob-v1.pdf"' } });
    expect(await download("/preview")).toEqual({ status: 200, file: { ...pdfFile, disposition: 'inline; filename="eob-v1.pdf"' } });
    expect((await download("/thumbnail")).status).toBe(200);
    expect(await download("/versions/1/download")).toEqual({ status: 200, file: { ...pdfFile, disposition: 'attachment; filename="eob-v1.pdf"' } });
    expect(await download("/versions/2/download")).toEqual({ status: 404, body: { detail: "Confirmed document version not found", code: "not_found" } });

    await runStepJob(t, orgA, "scan", { document_id: doc.id, version_number: 2 });
    const pngFile = { status: 200, type: "image/png", bytes: v2.bytes, disposition: 'attachment; filename="bitewing-v2.png"' };
    expect(await download("/versions/2/download")).toEqual({ status: 200, file: pngFile });
    expect(await download("/download")).toEqual({ status: 200, file: pngFile });
    expect(await download("/versions/1/download")).toEqual({ status: 200, file: { ...pdfFile, disposition: 'attachment; filename="eob-v1.pdf"' } });
    expect((await versions()).body.items.map((v: any) => [v.version_number, v.status])).toEqual([
      [2, "confirmed"],
      [1, "confirmed"],
    ]);
    const audit = await t.request("GET", `${A}/${doc.id}/audit?page_size=3`, { token: reader });
    expect(audit.body.items.map((a: any) => a.action)).toEqual(["document.scanned", "document.version_uploaded", "document.processed"]);
    expect(audit.body.items[1]).toMatchObject({ actor_id: writerId, before: { current_version: 1 }, after: { current_version: 2 } });
  });

  test("a version that does not exist is 404, a malformed number 422", async () => {
    expect(await download("/versions/9/download")).toEqual({ status: 404, body: { detail: "Document version not found", code: "not_found" } });
    for (const n of ["abc", "0", "-1", "1.5"]) {
      const r = await t.request("GET", `${A}/${doc.id}/versions/${n}/download`, { token: reader });
      expect([n, r.status, r.body.detail?.[0]?.loc]).toEqual([n, 422, ["path", "version_number"]]);
    }
  });

  test("a version uploaded before v1 was scanned: nothing is downloadable until a scan passes", async () => {
    const fresh = await upload({}, await pdf());
    const r = await postForm(t, admin, `${A}/${fresh.id}/versions`, await png());
    expect([r.status, r.body.version_number]).toEqual([201, 2]);
    const dl = await t.request("GET", `${A}/${fresh.id}/download`, { token: reader });
    expect(dl.status).toBe(404);
    // v1's jobs stop: a newer version superseded it
    expect((await runStepJob(t, orgA, "scan", { document_id: fresh.id, version_number: 1 })).outcome).toBe("stopped");
    expect((await t.request("GET", `${A}/${fresh.id}/versions/1/download`, { token: reader })).status).toBe(404);
  });

  test("422 on a locked document, 409 on a stale base_version, 422 for bad files and fields; nothing is left behind", async () => {
    const target = await upload({}, await pdf());
    const file = await png();
    const state = async () => ({ upload: await uploadState(), doc: (await read(target.id)).body, versions: (await versions(target.id)).body });
    let before = await state();
    for (const [fields, f, status, check] of [
      [{ base_version: "2" }, file, 409, (b: any) => expect(b.code).toBe("version_conflict")],
      [{ base_version: "0" }, file, 422, (b: any) => expect(b.detail[0].loc).toEqual(["body", "base_version"])],
      [{ color: "red" }, file, 422, (b: any) => expect(b.detail[0]).toMatchObject({ loc: ["body", "color"], type: "extra_forbidden" })],
      [{ title: "No" }, file, 422, (b: any) => expect(b.detail[0].loc).toEqual(["body", "title"])],
      [{}, null, 422, (b: any) => expect(b.detail[0]).toMatchObject({ loc: ["body", "file"], type: "missing" })],
      [{}, await png("x.jpg", "image/png"), 422, (b: any) => expect(b.detail[0].type).toBe("file_type_mismatch")],
      [{}, { bytes: new TextEncoder().encode("hello"), name: "a.txt" }, 422, (b: any) => expect(b.detail[0].type).toBe("file_type_not_allowed")],
    ] as const) {
      const r = await postForm(t, writer, `${A}/${target.id}/versions`, f, fields as Record<string, string>);
      expect([fields, r.status]).toEqual([fields, status]);
      check(r.body);
    }
    expect((await t.request("POST", `${A}/${target.id}/versions`, { token: writer, body: { comment: "json" } })).status).toBe(415);
    await expectNoTrace(before.upload);
    expect(await state()).toEqual(before);

    await post(`${A}/${target.id}/lock`, writer);
    before = await state();
    const locked = await postForm(t, writer, `${A}/${target.id}/versions`, file, { base_version: "2" });
    expect([locked.status, locked.body.code, locked.body.detail[0].loc]).toEqual([422, "document_locked", ["path", "document_uuid"]]);
    await expectNoTrace(before.upload);
    expect(await state()).toEqual(before);
  });

  test("401, 403 without documents.write, 404 for a non-member, a missing or another org's document", async () => {
    const foreign = await upload({}, await pdf(), B);
    const file = await png();
    const before = { upload: await uploadState(), versions: (await versions()).body };
    expect((await postForm(t, null, `${A}/${doc.id}/versions`, file)).status).toBe(401);
    expect((await postForm(t, reader, `${A}/${doc.id}/versions`, file)).status).toBe(403);
    expect((await postForm(t, outsider, `${A}/${doc.id}/versions`, file)).status).toBe(404);
    for (const id of [MISSING, "nope", foreign.id]) {
      const r = await postForm(t, admin, `${A}/${id}/versions`, file);
      expect([id, r.status, r.body]).toEqual([id, 404, NOT_FOUND]);
    }
    await expectNoTrace(before.upload);
    expect((await versions()).body).toEqual(before.versions);
    expect((await versions(foreign.id)).status).toBe(404);
  });
});
