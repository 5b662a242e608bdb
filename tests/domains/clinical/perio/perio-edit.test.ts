import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { perioExams } from "@db/tenant/perio";
import { run } from "@/platform/db/work";
import { auditOf, busDrained, expectGuarded, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { createExam, DEPTHS, exams, perioWorld } from "@tests/domains/clinical/perio/fixtures";
import { archivePatient, examRows, MISSING, newPatient, newProvider, ofPatient } from "@tests/domains/clinical/tooth-chart/fixtures";

// PATCH, DELETE and the summary of perio exams (docs/clinical/tooth-chart.md, "Perio exams").

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let reader: string;
let writer: { userId: string; token: string };
let memberOfB: string;
let provider: string;
let events: EventEnvelope[];

type P = { id: string };
let pat: P, other: P, theirs: P;

const NO_SITES = { plaque_sites: [], suppuration_sites: [] };

const create = (pid: string, body: Record<string, unknown> = {}, orgId = orgA) => createExam(t, admin, orgId, pid, body);
const rowOf = async (id: string, orgId = orgA) => (await examRows(t, orgId)).find((r) => r.id === id);

beforeAll(async () => {
  const w = await perioWorld();
  ({ t, admin, orgA, orgB, events, locationId, provider, pat, other, theirs } = w);
  writer = w.members.writer;
  ({ reader, memberOfB } = w.tokens);
});
afterAll(() => t.close());

describe("PATCH .../perio-exams/:exam_uuid", () => {
  test("200: fields replaced, teeth replaced whole (chart order, defaults); version 2; audited; event with ids and changed fields", async () => {
    const exam = await create(pat.id, {
      provider_uuid: provider,
      note: "first",
      teeth: [
        { tooth_number: "3", pocket_depths: DEPTHS },
        { tooth_number: "14", pocket_depths: DEPTHS },
      ],
    });
    const before = events.length;
    const r = await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), {
      token: writer.token,
      body: {
        base_version: 1,
        exam_date: "2025-02-20",
        provider_uuid: null,
        note: "re-probed",
        teeth: [
          {
            tooth_number: "30",
            mobility: 1,
            pocket_depths: { ...DEPTHS, dl: 6 },
            bleeding_sites: ["dl"],
            plaque_sites: ["b", "mb"],
            suppuration_sites: ["dl"],
          },
          { tooth_number: "2", pocket_depths: DEPTHS },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...exam,
      exam_date: "2025-02-20",
      provider: null,
      note: "re-probed",
      teeth: [
        { tooth_number: "2", mobility: null, furcation: null, pocket_depths: DEPTHS, recession: null, bleeding_sites: [], ...NO_SITES },
        {
          tooth_number: "30",
          mobility: 1,
          furcation: null,
          pocket_depths: { ...DEPTHS, dl: 6 },
          recession: null,
          bleeding_sites: ["dl"],
          plaque_sites: ["b", "mb"],
          suppuration_sites: ["dl"],
        },
      ],
      version: 2,
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await t.request("GET", exams(orgA, pat.id, `/${exam.id}`), { token: reader })).body).toEqual(r.body);
    expect((await auditOf(t, orgA, exam.id)).map((a) => [a.action, a.actor_id])).toEqual([
      ["perio_exam.created", expect.any(String)],
      ["perio_exam.updated", writer.userId],
    ]);
    await busDrained(t.rt.bus);
    const ev = events.slice(before).filter((e) => e.type.startsWith("perio_exam."));
    expect(ev.map((e) => e.type)).toEqual(["perio_exam.updated"]);
    expect(ev[0]).toMatchObject({ resource_id: exam.id, practice_id: locationId });
    expect(ev[0]!.data).toEqual({ id: exam.id, patient_id: pat.id, changed_fields: expect.any(Array) });
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(["exam_date", "note", "provider", "teeth"]);
  });

  test("a partial patch keeps the other fields; a patch that changes nothing keeps the version", async () => {
    const exam = await create(pat.id, { provider_uuid: provider, teeth: [{ tooth_number: "8", pocket_depths: DEPTHS, plaque_sites: ["l"] }] });
    const r = await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), { token: writer.token, body: { base_version: 1, note: "only the note" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...exam, note: "only the note", version: 2, updated_at: expect.any(String) });
    expect(r.body.teeth[0].plaque_sites).toEqual(["l"]);
    const same = await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), {
      token: writer.token,
      body: { base_version: 2, note: "only the note", provider_uuid: provider },
    });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(r.body);
    expect((await auditOf(t, orgA, exam.id)).map((a) => a.action)).toEqual(["perio_exam.created", "perio_exam.updated"]);
  });

  test("an unchanged provider archived since is kept; a newly named archived provider is 404", async () => {
    const old = (await newProvider(t, orgA, "Old", "Hand")).id;
    const exam = await create(pat.id, { provider_uuid: old });
    expect((await t.request("POST", `/api/v1/${orgA}/providers/${old}/archive`, { token: admin })).status).toBe(200);
    const kept = await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), {
      token: writer.token,
      body: { base_version: 1, provider_uuid: old, note: "kept" },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.provider).toEqual({ uuid: old, name: "Old Hand" });
    const other2 = await create(pat.id);
    const before = await rowOf(other2.id);
    const r = await t.request("PATCH", exams(orgA, pat.id, `/${other2.id}`), { token: writer.token, body: { base_version: 1, provider_uuid: old } });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Provider not found", code: "not_found" });
    expect(await rowOf(other2.id)).toEqual(before);
  });

  test("409 version_conflict for a stale base_version; nothing changed", async () => {
    const exam = await create(pat.id);
    expect((await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), { token: admin, body: { base_version: 1, note: "v2" } })).status).toBe(200);
    const before = await rowOf(exam.id);
    const r = await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), { token: admin, body: { base_version: 1, note: "stale" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect(await rowOf(exam.id)).toEqual(before);
    expect(before!.note).toBe("v2");
  });

  test("404 for a missing exam, another patient's, another org's, a deleted one, a missing patient, another org's patient; nothing changed", async () => {
    const others = await create(other.id);
    const foreign = await create(theirs.id, {}, orgB);
    const gone = await create(pat.id);
    expect((await t.request("DELETE", exams(orgA, pat.id, `/${gone.id}?base_version=1`), { token: admin })).status).toBe(204);
    const beforeA = await examRows(t, orgA);
    const beforeB = await examRows(t, orgB);
    for (const [path, detail] of [
      [exams(orgA, pat.id, `/${MISSING}`), "Perio exam not found"],
      [exams(orgA, pat.id, `/${others.id}`), "Perio exam not found"],
      [exams(orgA, pat.id, `/${foreign.id}`), "Perio exam not found"],
      [exams(orgA, pat.id, `/${gone.id}`), "Perio exam not found"],
      [exams(orgA, MISSING, `/${others.id}`), "Patient not found"],
      [exams(orgA, theirs.id, `/${foreign.id}`), "Patient not found"],
    ] as const) {
      const r = await t.request("PATCH", path, { token: admin, body: { base_version: 1, note: "x" } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await examRows(t, orgA)).toEqual(beforeA);
    expect(await examRows(t, orgB)).toEqual(beforeB);
  });

  const future = Temporal.Now.plainDateISO("America/Chicago").add({ days: 2 }).toString();
  const tooth = (patch: Record<string, unknown>) => ({ teeth: [{ tooth_number: "3", pocket_depths: DEPTHS, ...patch }] });
  test.each([
    ["missing base_version", { base_version: undefined }, ["body", "base_version"], "missing"],
    ["base_version 0", { base_version: 0 }, ["body", "base_version"], "out_of_range"],
    ["base_version a string", { base_version: "1" }, ["body", "base_version"], "type_error"],
    ["exam_date not a date", { exam_date: "2025/03/01" }, ["body", "exam_date"], "format"],
    ["exam_date null", { exam_date: null }, ["body", "exam_date"], "type_error"],
    ["exam_date in the future", { exam_date: future }, ["body", "exam_date"], "value_error"],
    ["no teeth", { teeth: [] }, ["body", "teeth"], "out_of_range"],
    [
      "tooth twice",
      {
        teeth: [
          { tooth_number: "3", pocket_depths: DEPTHS },
          { tooth_number: "3", pocket_depths: DEPTHS },
        ],
      },
      ["body", "teeth", 1, "tooth_number"],
      "value_error",
    ],
    ["depth 16", tooth({ pocket_depths: { ...DEPTHS, mb: 16 } }), ["body", "teeth", 0, "pocket_depths", "mb"], "out_of_range"],
    ["plaque site unknown", tooth({ plaque_sites: ["mid"] }), ["body", "teeth", 0, "plaque_sites", 0], "enum"],
    ["suppuration site twice", tooth({ suppuration_sites: ["b", "b"] }), ["body", "teeth", 0, "suppuration_sites"], "value_error"],
    ["unknown tooth field", tooth({ calculus_sites: [] }), ["body", "teeth", 0, "calculus_sites"], "extra_forbidden"],
    ["provider_uuid not a uuid", { provider_uuid: "dr-who" }, ["body", "provider_uuid"], "format"],
    ["note too long", { note: "n".repeat(5001) }, ["body", "note"], "out_of_range"],
    ["unknown field", { score: 3 }, ["body", "score"], "extra_forbidden"],
    ["read-only version", { version: 5 }, ["body", "version"], "read_only"],
    ["read-only patient", { patient: { uuid: MISSING } }, ["body", "patient"], "read_only"],
  ])("422 %s; nothing changed", async (_n, patch, loc, type) => {
    const exam = await create(pat.id);
    const before = await rowOf(exam.id);
    const r = await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), { token: admin, body: { base_version: 1, ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await rowOf(exam.id)).toEqual(before);
  });

  test("422 patient_archived; 401, 403 without clinical.write, 404 for a non-member; nothing changed", async () => {
    const gp = await newPatient(t, orgA, { first_name: "Arch", last_name: "Ived" });
    const exam = await create(gp.id);
    await archivePatient(t, orgA, gp.id);
    const before = await rowOf(exam.id);
    const path = exams(orgA, gp.id, `/${exam.id}`);
    const r = await t.request("PATCH", path, { token: admin, body: { base_version: 1, note: "x" } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("patient_archived");
    const live = await create(pat.id);
    const liveBefore = await rowOf(live.id);
    await expectGuarded(t, orgA, orgB, "PATCH", exams(orgA, pat.id, `/${live.id}`), "clinical.write", { base_version: 1, note: "x" });
    expect((await t.request("PATCH", exams(orgA, pat.id, `/${live.id}`), { token: reader, body: { base_version: 1, note: "x" } })).status).toBe(403);
    expect(await rowOf(exam.id)).toEqual(before);
    expect(await rowOf(live.id)).toEqual(liveBefore);
  });
});

describe("DELETE .../perio-exams/:exam_uuid", () => {
  test("204; afterwards GET and the summary are 404, the list and the tooth indicators leave it out; audited; event", async () => {
    const dp = await newPatient(t, orgA, { first_name: "Del", last_name: "Eted", location_uuid: locationId });
    const keep = await create(dp.id, { exam_date: "2025-01-01" });
    const exam = await create(dp.id, { exam_date: "2025-02-01", teeth: [{ tooth_number: "3", mobility: 3, pocket_depths: DEPTHS }] });
    const before = events.length;
    const r = await t.request("DELETE", exams(orgA, dp.id, `/${exam.id}?base_version=1`), { token: writer.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await rowOf(exam.id))!.deleted_at).toEqual(expect.stringMatching(/Z$/));
    for (const path of [exams(orgA, dp.id, `/${exam.id}`), exams(orgA, dp.id, `/${exam.id}/summary`)]) {
      const g = await t.request("GET", path, { token: reader });
      expect(g.status).toBe(404);
      expect(g.body).toEqual({ detail: "Perio exam not found", code: "not_found" });
    }
    const list = await t.request("GET", exams(orgA, dp.id), { token: reader });
    expect(list.body).toMatchObject({ total: 1 });
    expect(list.body.items.map((x: any) => x.id)).toEqual([keep.id]);
    const ind = await t.request("GET", ofPatient(orgA, dp.id, "/tooth-indicators"), { token: reader });
    expect(ind.body.items.map((x: any) => [x.tooth_number, x.perio_exam.uuid, x.mobility])).toEqual([["3", keep.id, null]]);
    expect((await auditOf(t, orgA, exam.id)).map((a) => [a.action, a.actor_id])).toEqual([
      ["perio_exam.created", expect.any(String)],
      ["perio_exam.deleted", writer.userId],
    ]);
    await busDrained(t.rt.bus);
    const ev = events.slice(before).filter((e) => e.type.startsWith("perio_exam."));
    expect(ev.map((e) => e.type)).toEqual(["perio_exam.deleted"]);
    expect(ev[0]).toMatchObject({ resource_id: exam.id, practice_id: locationId });
    expect(ev[0]!.data).toEqual({ id: exam.id, patient_id: dp.id });
    // a second delete: the exam is gone
    const again = await t.request("DELETE", exams(orgA, dp.id, `/${exam.id}?base_version=2`), { token: writer.token });
    expect(again.status).toBe(404);
  });

  test("409 version_conflict for a stale base_version; nothing changed", async () => {
    const exam = await create(pat.id);
    expect((await t.request("PATCH", exams(orgA, pat.id, `/${exam.id}`), { token: admin, body: { base_version: 1, note: "v2" } })).status).toBe(200);
    const before = await rowOf(exam.id);
    const r = await t.request("DELETE", exams(orgA, pat.id, `/${exam.id}?base_version=1`), { token: admin });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect(await rowOf(exam.id)).toEqual(before);
    expect((await t.request("GET", exams(orgA, pat.id, `/${exam.id}`), { token: reader })).status).toBe(200);
  });

  test("404 for a missing exam, another patient's, another org's, a missing patient, another org's patient; nothing changed", async () => {
    const others = await create(other.id);
    const foreign = await create(theirs.id, {}, orgB);
    const beforeA = await examRows(t, orgA);
    const beforeB = await examRows(t, orgB);
    for (const [path, detail] of [
      [exams(orgA, pat.id, `/${MISSING}`), "Perio exam not found"],
      [exams(orgA, pat.id, `/${others.id}`), "Perio exam not found"],
      [exams(orgA, pat.id, `/${foreign.id}`), "Perio exam not found"],
      [exams(orgA, MISSING, `/${others.id}`), "Patient not found"],
      [exams(orgA, theirs.id, `/${foreign.id}`), "Patient not found"],
    ] as const) {
      const r = await t.request("DELETE", `${path}?base_version=1`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await examRows(t, orgA)).toEqual(beforeA);
    expect(await examRows(t, orgB)).toEqual(beforeB);
  });

  test.each([
    ["", ["query", "base_version"], "missing"],
    ["?base_version=0", ["query", "base_version"], "out_of_range"],
    ["?base_version=one", ["query", "base_version"], "type_error"],
    ["?base_version=1&force=true", ["query", "force"], "extra_forbidden"],
  ])("422 for query %s; nothing changed", async (qs, loc, type) => {
    const exam = await create(pat.id);
    const before = await rowOf(exam.id);
    const r = await t.request("DELETE", exams(orgA, pat.id, `/${exam.id}${qs}`), { token: admin });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await rowOf(exam.id)).toEqual(before);
  });

  test("422 patient_archived; 401, 403 without clinical.write, 404 for a non-member; nothing changed", async () => {
    const gp = await newPatient(t, orgA, { first_name: "Arch", last_name: "Del" });
    const exam = await create(gp.id);
    await archivePatient(t, orgA, gp.id);
    const before = await rowOf(exam.id);
    const r = await t.request("DELETE", exams(orgA, gp.id, `/${exam.id}?base_version=1`), { token: admin });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("patient_archived");
    expect(await rowOf(exam.id)).toEqual(before);
    const live = await create(pat.id);
    const liveBefore = await rowOf(live.id);
    await expectGuarded(t, orgA, orgB, "DELETE", exams(orgA, pat.id, `/${live.id}?base_version=1`), "clinical.write");
    expect((await t.request("DELETE", exams(orgA, pat.id, `/${live.id}?base_version=1`), { token: reader })).status).toBe(403);
    expect(await rowOf(live.id)).toEqual(liveBefore);
  });
});

describe("GET .../perio-exams/:exam_uuid/summary", () => {
  let sp: P;
  const made: Record<string, any> = {};
  const T3_BEFORE = { mb: 3, b: 2, db: 5, ml: 4, l: 2, dl: 6 };
  beforeAll(async () => {
    sp = await newPatient(t, orgA, { first_name: "Sum", last_name: "Mary" });
    made.a1 = await create(sp.id, { exam_date: "2025-01-10", teeth: [{ tooth_number: "3", pocket_depths: { mb: 3, b: 3, db: 3, ml: 3, l: 3, dl: 3 } }] });
    // same date, recorded later (the larger id): the previous exam of later ones
    made.a2 = await create(sp.id, {
      exam_date: "2025-01-10",
      teeth: [
        { tooth_number: "3", pocket_depths: T3_BEFORE, bleeding_sites: ["db", "dl"], plaque_sites: ["b"] },
        { tooth_number: "14", pocket_depths: { mb: 2, b: 2, db: 2, ml: 2, l: 2, dl: 2 }, plaque_sites: ["mb", "b"] },
      ],
    });
    made.b = await create(sp.id, {
      exam_date: "2025-06-10",
      teeth: [
        // mb +2 (deeper), db -2 (shallower), l and dl +1 (neither)
        {
          tooth_number: "3",
          pocket_depths: { mb: 5, b: 2, db: 3, ml: 4, l: 3, dl: 7 },
          bleeding_sites: ["mb", "db", "dl"],
          plaque_sites: ["b", "l", "mb"],
          suppuration_sites: ["mb"],
        },
        // not in the previous exam: counted in this exam's figures, not in deeper/shallower
        { tooth_number: "19", pocket_depths: { mb: 6, b: 4, db: 3, ml: 2, l: 2, dl: 3 }, bleeding_sites: ["b"], suppuration_sites: ["mb"] },
      ],
    });
    made.c = await create(sp.id, { exam_date: "2025-06-10" }); // same date as b: b is not its previous
    await create(other.id, { exam_date: "2025-03-01" }); // another patient's exam is never previous
  });

  test("figures, previous (the latest exam dated before, ties by id) and the change", async () => {
    const r = await t.request("GET", exams(orgA, sp.id, `/${made.b.id}/summary`), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      exam_uuid: made.b.id,
      exam_date: "2025-06-10",
      teeth_charted: 2,
      sites_charted: 12,
      sites_4mm_or_more: 5,
      sites_6mm_or_more: 2,
      bleeding_sites: 4,
      bleeding_percentage: 33.3,
      plaque_sites: 3,
      plaque_percentage: 25,
      suppuration_sites: 2,
      previous: { exam_uuid: made.a2.id, exam_date: "2025-01-10" },
      change: { sites_4mm_or_more: 2, sites_6mm_or_more: 1, bleeding_percentage: 16.6, plaque_percentage: 0, deeper_sites: 1, shallower_sites: 1 },
    });
    const a2 = await t.request("GET", exams(orgA, sp.id, `/${made.a2.id}/summary`), { token: reader });
    expect(a2.body).toMatchObject({
      sites_4mm_or_more: 3,
      sites_6mm_or_more: 1,
      bleeding_sites: 2,
      bleeding_percentage: 16.7,
      plaque_percentage: 25,
      previous: null,
      change: null,
    });
    const c = await t.request("GET", exams(orgA, sp.id, `/${made.c.id}/summary`), { token: reader });
    expect(c.body.previous).toEqual({ exam_uuid: made.a2.id, exam_date: "2025-01-10" });
  });

  test("the first exam: no previous, no change, zero figures; a deleted exam is no longer previous", async () => {
    const first = await t.request("GET", exams(orgA, sp.id, `/${made.a1.id}/summary`), { token: reader });
    expect(first.body).toEqual({
      exam_uuid: made.a1.id,
      exam_date: "2025-01-10",
      teeth_charted: 1,
      sites_charted: 6,
      sites_4mm_or_more: 0,
      sites_6mm_or_more: 0,
      bleeding_sites: 0,
      bleeding_percentage: 0,
      plaque_sites: 0,
      plaque_percentage: 0,
      suppuration_sites: 0,
      previous: null,
      change: null,
    });
    const dp = await newPatient(t, orgA, { first_name: "Prev", last_name: "Gone" });
    const old = await create(dp.id, { exam_date: "2024-01-10", teeth: [{ tooth_number: "3", pocket_depths: T3_BEFORE }] });
    const gone = await create(dp.id, { exam_date: "2024-05-10" });
    const now = await create(dp.id, { exam_date: "2025-01-10", teeth: [{ tooth_number: "3", pocket_depths: { ...T3_BEFORE, mb: 1, dl: 9 } }] });
    expect((await t.request("GET", exams(orgA, dp.id, `/${now.id}/summary`), { token: reader })).body.previous.exam_uuid).toBe(gone.id);
    expect((await t.request("DELETE", exams(orgA, dp.id, `/${gone.id}?base_version=1`), { token: admin })).status).toBe(204);
    const r = await t.request("GET", exams(orgA, dp.id, `/${now.id}/summary`), { token: reader });
    expect(r.body.previous).toEqual({ exam_uuid: old.id, exam_date: "2024-01-10" });
    // mb 3 -> 1 (shallower), dl 6 -> 9 (deeper)
    expect(r.body.change).toEqual({
      sites_4mm_or_more: 0,
      sites_6mm_or_more: 0,
      bleeding_percentage: 0,
      plaque_percentage: 0,
      deeper_sites: 1,
      shallower_sites: 1,
    });
  });

  test("an exam stored before plaque and suppuration were charted reads them as [] (answers and summary)", async () => {
    const lp = await newPatient(t, orgA, { first_name: "Leg", last_name: "Acy" });
    const exam = await create(lp.id, { teeth: [{ tooth_number: "3", pocket_depths: DEPTHS, bleeding_sites: ["b"] }] });
    const db = await orgDb(t, orgA);
    const legacy = [{ tooth_number: "3", mobility: null, furcation: null, pocket_depths: DEPTHS, recession: null, bleeding_sites: ["b" as const] }];
    await db.write(function* (tx) {
      yield* run(tx.update(perioExams).set({ teeth: legacy }).where(eq(perioExams.id, exam.id)));
    });
    expect((await t.request("GET", exams(orgA, lp.id, `/${exam.id}`), { token: reader })).body.teeth[0]).toMatchObject(NO_SITES);
    const s = await t.request("GET", exams(orgA, lp.id, `/${exam.id}/summary`), { token: reader });
    expect(s.body).toMatchObject({ bleeding_sites: 1, bleeding_percentage: 16.7, plaque_sites: 0, suppuration_sites: 0 });
  });

  test("404 for a missing exam, another patient's, another org's, a missing patient, another org's patient; 422 for a query parameter", async () => {
    const others = await create(other.id);
    const foreign = await create(theirs.id, {}, orgB);
    for (const [path, token, detail] of [
      [exams(orgA, sp.id, `/${MISSING}/summary`), reader, "Perio exam not found"],
      [exams(orgA, sp.id, `/${others.id}/summary`), reader, "Perio exam not found"],
      [exams(orgA, sp.id, `/${foreign.id}/summary`), reader, "Perio exam not found"],
      [exams(orgA, MISSING, `/${made.b.id}/summary`), reader, "Patient not found"],
      [exams(orgA, theirs.id, `/${foreign.id}/summary`), reader, "Patient not found"],
      [exams(orgB, sp.id, `/${made.b.id}/summary`), memberOfB, "Patient not found"],
    ] as const) {
      const r = await t.request("GET", path, { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    const q = await t.request("GET", exams(orgA, sp.id, `/${made.b.id}/summary?compare_to=${made.a1.id}`), { token: reader });
    expect(q.status).toBe(422);
    expect(q.body.detail).toContainEqual(expect.objectContaining({ loc: ["query", "compare_to"], type: "extra_forbidden" }));
  });

  test("401, 403 without clinical.read, 404 for a non-member", async () => {
    const token = await expectGuarded(t, orgA, orgB, "GET", exams(orgA, sp.id, `/${made.b.id}/summary`), "clinical.read");
    expect((await t.request("GET", exams(orgA, sp.id, `/${made.b.id}/summary`), { token })).status).toBe(200);
  });
});
