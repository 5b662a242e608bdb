import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { BODY, createExam, DEPTHS, exams, perioWorld } from "@tests/domains/clinical/perio/fixtures";
import { archivePatient, examRows, JSON_HEADERS, MISSING, newPatient, newProvider, ofPatient } from "@tests/domains/clinical/tooth-chart/fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let reader: string;
let writer: { userId: string; token: string };
let patientsOnly: string;
let memberOfB: string;
let provider: string;
let events: EventEnvelope[];

type P = { id: string };
let pat: P, other: P, theirs: P;

const indicators = (orgId: string, pid: string) => ofPatient(orgId, pid, "/tooth-indicators");

const create = (pid: string, body: Record<string, unknown>, orgId = orgA) => createExam(t, admin, orgId, pid, body);

beforeAll(async () => {
  const w = await perioWorld();
  ({ t, admin, orgA, orgB, events, locationId, provider, pat, other, theirs } = w);
  writer = w.members.writer;
  ({ reader, patientsOnly, memberOfB } = w.tokens);
});
afterAll(() => t.close());

describe("POST .../perio-exams", () => {
  test("201 with the exam, teeth in chart order and defaults; audited; event with ids only", async () => {
    const before = events.length;
    const r = await t.request("POST", exams(orgA, pat.id), {
      token: writer.token,
      body: {
        exam_date: "2025-02-10",
        provider_uuid: provider,
        note: "Generalized inflammation",
        teeth: [
          {
            tooth_number: "30",
            mobility: 2,
            furcation: 1,
            pocket_depths: { mb: 5, b: 4, db: 6, ml: 5, l: 4, dl: 7 },
            recession: { mb: 1, b: 2, db: 1, ml: 0, l: 0, dl: 1 },
            bleeding_sites: ["db", "dl"],
            plaque_sites: ["b", "l"],
            suppuration_sites: ["dl"],
          },
          { tooth_number: "a", pocket_depths: DEPTHS },
          { tooth_number: "3", mobility: 0, furcation: 0, pocket_depths: DEPTHS },
        ],
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      patient: { uuid: pat.id, name: "Gina Gum" },
      exam_date: "2025-02-10",
      provider: { uuid: provider, name: "Perry Odont" },
      note: "Generalized inflammation",
      teeth: [
        { tooth_number: "3", mobility: 0, furcation: 0, pocket_depths: DEPTHS, recession: null, bleeding_sites: [], plaque_sites: [], suppuration_sites: [] },
        {
          tooth_number: "30",
          mobility: 2,
          furcation: 1,
          pocket_depths: { mb: 5, b: 4, db: 6, ml: 5, l: 4, dl: 7 },
          recession: { mb: 1, b: 2, db: 1, ml: 0, l: 0, dl: 1 },
          bleeding_sites: ["db", "dl"],
          plaque_sites: ["b", "l"],
          suppuration_sites: ["dl"],
        },
        {
          tooth_number: "A",
          mobility: null,
          furcation: null,
          pocket_depths: DEPTHS,
          recession: null,
          bleeding_sites: [],
          plaque_sites: [],
          suppuration_sites: [],
        },
      ],
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await auditOf(t, orgA, r.body.id)).toEqual([
      expect.objectContaining({ action: "perio_exam.created", resource_type: "perio_exam", actor_id: writer.userId }),
    ]);
    await busDrained(t.rt.bus); // exactly one event: every event of the write has arrived
    const ev = events.slice(before).filter((e) => e.type === "perio_exam.created");
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ resource_id: r.body.id, practice_id: locationId, data: { id: r.body.id, patient_id: pat.id } });
    expect(Object.keys(ev[0]!.data).sort()).toEqual(["id", "patient_id"]);
  });

  test("404 for a missing, archived or another org's provider; nothing written", async () => {
    const archived = (await newProvider(t, orgA, "Old", "Timer")).id;
    expect((await t.request("POST", `/api/v1/${orgA}/providers/${archived}/archive`, { token: admin })).status).toBe(200);
    const foreign = (await newProvider(t, orgB, "For", "Eign")).id;
    const before = await examRows(t, orgA);
    for (const id of [MISSING, archived, foreign]) {
      const r = await t.request("POST", exams(orgA, pat.id), { token: admin, body: { ...BODY, provider_uuid: id } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Provider not found", code: "not_found" });
    }
    expect(await examRows(t, orgA)).toEqual(before);
  });

  const tooth = (patch: Record<string, unknown>) => ({ teeth: [{ tooth_number: "3", pocket_depths: DEPTHS, ...patch }] });
  const future = Temporal.Now.plainDateISO("America/Chicago").add({ days: 2 }).toString();
  test.each([
    ["missing exam_date", { exam_date: undefined }, ["body", "exam_date"], "missing"],
    ["exam_date not a date", { exam_date: "03/01/2025" }, ["body", "exam_date"], "format"],
    ["exam_date in the future", { exam_date: future }, ["body", "exam_date"], "value_error"],
    ["missing teeth", { teeth: undefined }, ["body", "teeth"], "missing"],
    ["no teeth", { teeth: [] }, ["body", "teeth"], "out_of_range"],
    ["teeth not an array", { teeth: "3" }, ["body", "teeth"], "type_error"],
    ["tooth 33", tooth({ tooth_number: "33" }), ["body", "teeth", 0, "tooth_number"], "value_error"],
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
    ["mobility 4", tooth({ mobility: 4 }), ["body", "teeth", 0, "mobility"], "out_of_range"],
    ["mobility 1.5", tooth({ mobility: 1.5 }), ["body", "teeth", 0, "mobility"], "type_error"],
    ["furcation -1", tooth({ furcation: -1 }), ["body", "teeth", 0, "furcation"], "out_of_range"],
    ["furcation 4", tooth({ furcation: 4 }), ["body", "teeth", 0, "furcation"], "out_of_range"],
    ["missing pocket_depths", tooth({ pocket_depths: undefined }), ["body", "teeth", 0, "pocket_depths"], "missing"],
    ["a site missing", tooth({ pocket_depths: { mb: 3, b: 2, db: 3, ml: 3, l: 2 } }), ["body", "teeth", 0, "pocket_depths", "dl"], "missing"],
    ["depth 16", tooth({ pocket_depths: { ...DEPTHS, b: 16 } }), ["body", "teeth", 0, "pocket_depths", "b"], "out_of_range"],
    ["depth -1", tooth({ pocket_depths: { ...DEPTHS, l: -1 } }), ["body", "teeth", 0, "pocket_depths", "l"], "out_of_range"],
    ["unknown site", tooth({ pocket_depths: { ...DEPTHS, x: 3 } }), ["body", "teeth", 0, "pocket_depths", "x"], "extra_forbidden"],
    ["recession 16", tooth({ recession: { ...DEPTHS, mb: 16 } }), ["body", "teeth", 0, "recession", "mb"], "out_of_range"],
    ["bleeding site unknown", tooth({ bleeding_sites: ["mid"] }), ["body", "teeth", 0, "bleeding_sites", 0], "enum"],
    ["bleeding site twice", tooth({ bleeding_sites: ["b", "b"] }), ["body", "teeth", 0, "bleeding_sites"], "value_error"],
    ["plaque site unknown", tooth({ plaque_sites: ["mid"] }), ["body", "teeth", 0, "plaque_sites", 0], "enum"],
    ["plaque site twice", tooth({ plaque_sites: ["l", "l"] }), ["body", "teeth", 0, "plaque_sites"], "value_error"],
    ["plaque_sites not a list", tooth({ plaque_sites: "b" }), ["body", "teeth", 0, "plaque_sites"], "type_error"],
    ["suppuration site unknown", tooth({ suppuration_sites: ["x"] }), ["body", "teeth", 0, "suppuration_sites", 0], "enum"],
    ["suppuration site twice", tooth({ suppuration_sites: ["db", "db"] }), ["body", "teeth", 0, "suppuration_sites"], "value_error"],
    ["unknown tooth field", tooth({ plaque: true }), ["body", "teeth", 0, "plaque"], "extra_forbidden"],
    ["provider_uuid not a uuid", { provider_uuid: "dr-who" }, ["body", "provider_uuid"], "format"],
    ["note too long", { note: "n".repeat(5001) }, ["body", "note"], "out_of_range"],
    ["unknown field", { score: 3 }, ["body", "score"], "extra_forbidden"],
    ["read-only id", { id: MISSING }, ["body", "id"], "read_only"],
  ])("422 %s; nothing written", async (_n, patch, loc, type) => {
    const before = await examRows(t, orgA);
    const r = await t.request("POST", exams(orgA, pat.id), { token: admin, body: { ...BODY, ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await examRows(t, orgA)).toEqual(before);
  });

  test("422 malformed JSON and patient_archived; 401; 403 without clinical.write; 404 missing patient, another org's patient, non-member; nothing written", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Gone", last_name: "Perio" });
    await archivePatient(t, orgA, gone.id);
    const before = await examRows(t, orgA);
    const bad = await t.request("POST", exams(orgA, pat.id), { token: admin, rawBody: '{"exam_date":', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    const archived = await t.request("POST", exams(orgA, gone.id), { token: admin, body: BODY });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect((await t.request("POST", exams(orgA, pat.id), { body: BODY })).status).toBe(401);
    for (const token of [reader, patientsOnly]) expect((await t.request("POST", exams(orgA, pat.id), { token, body: BODY })).status).toBe(403);
    for (const [path, token, detail] of [
      [exams(orgA, MISSING), admin, "Patient not found"],
      [exams(orgA, theirs.id), admin, "Patient not found"],
      [exams(orgA, pat.id), memberOfB, "Organization not found"],
      [exams(orgB, pat.id), memberOfB, "Patient not found"],
    ] as const) {
      const r = await t.request("POST", path, { token, body: BODY });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await examRows(t, orgA)).toEqual(before);
    expect(await examRows(t, orgB)).toEqual([]);
  });
});

describe("GET .../perio-exams and .../perio-exams/:exam_uuid", () => {
  let lp: P;
  const made: Record<string, any> = {};
  beforeAll(async () => {
    lp = await newPatient(t, orgA, { first_name: "Lisa", last_name: "List" });
    made.feb = await create(lp.id, { exam_date: "2025-02-01" });
    made.jan = await create(lp.id, { exam_date: "2025-01-01", provider_uuid: provider });
    made.mar = await create(lp.id, { exam_date: "2025-03-01" });
    made.mar2 = await create(lp.id, { exam_date: "2025-03-01" }); // same day, recorded later
    made.others = await create(other.id, {});
  });

  test("paged, newest exam_date first (then the later recording); only this patient's exams", async () => {
    const r = await t.request("GET", exams(orgA, lp.id), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(r.body.items.map((x: any) => x.id)).toEqual([made.mar2.id, made.mar.id, made.feb.id, made.jan.id]);
    expect(r.body.items[3]).toEqual(made.jan);
    const p2 = await t.request("GET", exams(orgA, lp.id, "?page=2&page_size=3"), { token: reader });
    expect(p2.body).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(p2.body.items.map((x: any) => x.id)).toEqual([made.jan.id]);
  });

  test("get one: 200; 404 for another patient's exam, a missing exam and another org's", async () => {
    const r = await t.request("GET", exams(orgA, lp.id, `/${made.jan.id}`), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(made.jan);
    const foreign = await create(theirs.id, {}, orgB);
    for (const [path, token, detail] of [
      [exams(orgA, lp.id, `/${made.others.id}`), reader, "Perio exam not found"],
      [exams(orgA, lp.id, `/${MISSING}`), reader, "Perio exam not found"],
      [exams(orgA, lp.id, `/${foreign.id}`), reader, "Perio exam not found"],
      [exams(orgA, theirs.id, `/${foreign.id}`), reader, "Patient not found"],
      [exams(orgB, lp.id, `/${made.jan.id}`), memberOfB, "Patient not found"],
      [exams(orgA, lp.id, `/${made.jan.id}`), memberOfB, "Organization not found"],
    ] as const) {
      const res = await t.request("GET", path, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail, code: "not_found" });
    }
  });

  test.each([
    ["?page_size=0", ["query", "page_size"], "out_of_range"],
    ["?page_size=201", ["query", "page_size"], "out_of_range"],
    ["?page=x", ["query", "page"], "type_error"],
    ["?exam_date=2025-01-01", ["query", "exam_date"], "extra_forbidden"],
  ])("list 422 for %s", async (qs, loc, type) => {
    const r = await t.request("GET", exams(orgA, lp.id, qs), { token: reader });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401; 403 without clinical.read; 404 missing patient, another org's patient, non-member", async () => {
    for (const path of [exams(orgA, lp.id), exams(orgA, lp.id, `/${made.jan.id}`)]) {
      expect((await t.request("GET", path)).status).toBe(401);
      expect((await t.request("GET", path, { token: patientsOnly })).status).toBe(403);
      expect((await t.request("GET", path, { token: memberOfB })).status).toBe(404);
    }
    for (const path of [exams(orgA, MISSING), exams(orgA, theirs.id), exams(orgB, lp.id)]) {
      expect((await t.request("GET", path, { token: admin })).status).toBe(404);
    }
  });
});

describe("GET .../tooth-indicators", () => {
  test("per tooth, the newest exam that examined it: mobility, furcation, deepest pocket, bleeding sites; chart order", async () => {
    const ip = await newPatient(t, orgA, { first_name: "Ind", last_name: "Icator" });
    expect((await t.request("GET", indicators(orgA, ip.id), { token: reader })).body).toEqual({ items: [] });
    const full = await create(ip.id, {
      exam_date: "2025-01-10",
      teeth: [
        { tooth_number: "19", mobility: 1, furcation: 2, pocket_depths: { mb: 4, b: 3, db: 5, ml: 4, l: 3, dl: 6 }, bleeding_sites: ["dl"] },
        { tooth_number: "3", mobility: 0, furcation: 1, pocket_depths: DEPTHS },
        { tooth_number: "8", pocket_depths: DEPTHS },
      ],
    });
    // a later partial exam re-measures tooth 19 only
    const partial = await create(ip.id, {
      exam_date: "2025-06-10",
      teeth: [{ tooth_number: "19", mobility: 3, furcation: 3, pocket_depths: { mb: 9, b: 7, db: 8, ml: 6, l: 5, dl: 7 }, bleeding_sites: ["mb", "b", "db"] }],
    });
    // an older exam recorded afterwards does not override
    await create(ip.id, { exam_date: "2024-06-10", teeth: [{ tooth_number: "3", mobility: 3, pocket_depths: DEPTHS }] });
    await create(other.id, { teeth: [{ tooth_number: "4", mobility: 2, pocket_depths: DEPTHS }] });
    const r = await t.request("GET", indicators(orgA, ip.id), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        {
          tooth_number: "3",
          source: "perio",
          perio_exam: { uuid: full.id, name: "2025-01-10" },
          exam_date: "2025-01-10",
          mobility: 0,
          furcation: 1,
          max_pocket_depth: 4,
          bleeding_site_count: 0,
        },
        {
          tooth_number: "8",
          source: "perio",
          perio_exam: { uuid: full.id, name: "2025-01-10" },
          exam_date: "2025-01-10",
          mobility: null,
          furcation: null,
          max_pocket_depth: 4,
          bleeding_site_count: 0,
        },
        {
          tooth_number: "19",
          source: "perio",
          perio_exam: { uuid: partial.id, name: "2025-06-10" },
          exam_date: "2025-06-10",
          mobility: 3,
          furcation: 3,
          max_pocket_depth: 9,
          bleeding_site_count: 3,
        },
      ],
    });
  });

  test("401; 403 without clinical.read; 404 missing patient, another org's patient, non-member; 422 for a query parameter", async () => {
    expect((await t.request("GET", indicators(orgA, pat.id))).status).toBe(401);
    expect((await t.request("GET", indicators(orgA, pat.id), { token: patientsOnly })).status).toBe(403);
    for (const [path, token] of [
      [indicators(orgA, MISSING), admin],
      [indicators(orgA, theirs.id), admin],
      [indicators(orgA, pat.id), memberOfB],
      [indicators(orgB, pat.id), memberOfB],
    ] as const) {
      expect((await t.request("GET", path, { token })).status).toBe(404);
    }
    const q = await t.request("GET", `${indicators(orgA, pat.id)}?source=perio`, { token: reader });
    expect(q.status).toBe(422);
    expect(q.body.detail).toContainEqual(expect.objectContaining({ loc: ["query", "source"], type: "extra_forbidden" }));
  });
});
