import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { coverageCategories, coverageSpans } from "@db/tenant/insurance";
import { all, get } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, expectValidationCases, unique, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { created, insertPlan, insuranceWorld, JSON_HEADERS, MISSING, storedRow } from "@tests/domains/insurance/carriers/fixtures";

let t: TestApp;
let admin: string;
let reader: string; // insurance.read only
let outsider: string; // a member of A without insurance keys
let orgA: string;
let orgB: string;
let A: string; // {P}/insurance/coverage-categories of org A
let B: string;
let events: EventEnvelope[];

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events } = await insuranceWorld());
  A = `/api/v1/${orgA}/insurance/coverage-categories`;
  B = `/api/v1/${orgB}/insurance/coverage-categories`;
});
afterAll(() => t.close());

const create = (body: Record<string, unknown> = {}, P = A) => created(t, admin, P, { category_name: unique("Category"), ...body });
const read = (id: string, qs = "", P = A) => t.request("GET", `${P}/${id}${qs}`, { token: admin });
const stored = (id: string, org = orgA) => storedRow(t, org, coverageCategories, id);
const archive = (id: string, v = 1, P = A) => t.request("POST", `${P}/${id}/archive?base_version=${v}`, { token: admin });
const spanCount = async (org = orgA) => (await (await orgDb(t, org)).read((d) => get<{ n: number }>(d.select({ n: count() }).from(coverageSpans))))!.n;
const categoryCount = async (org = orgA) => (await (await orgDb(t, org)).read((d) => get<{ n: number }>(d.select({ n: count() }).from(coverageCategories))))!.n;
const spanOf = (from_code: string, to_code: string, is_exclusion = false, item_order = 0) => ({
  id: expect.any(String),
  from_code,
  to_code,
  is_exclusion,
  item_order,
  created_at: expect.stringMatching(/Z$/),
  updated_at: expect.stringMatching(/Z$/),
});

const SYSTEM: [string, string, [string, string][]][] = [
  ["diagnostic", "Diagnostic", [["D0100", "D0999"]]],
  ["preventive", "Preventive", [["D1000", "D1999"]]],
  ["restorative", "Restorative", [["D2000", "D2999"]]],
  ["endodontics", "Endodontics", [["D3000", "D3999"]]],
  ["periodontics", "Periodontics", [["D4000", "D4999"]]],
  [
    "prosthodontics",
    "Prosthodontics",
    [
      ["D5000", "D5999"],
      ["D6000", "D6999"],
    ],
  ],
  ["oral_surgery", "Oral surgery", [["D7000", "D7999"]]],
  ["orthodontics", "Orthodontics", [["D8000", "D8999"]]],
  ["adjunctive", "Adjunctive general services", [["D9000", "D9999"]]],
];

describe("system coverage categories", () => {
  test("a new org has the nine system categories, in order, with their CDT spans", async () => {
    const org = (await t.createOrg()).id;
    const r = await t.request("GET", `/api/v1/${org}/insurance/coverage-categories?include_spans=true&include_hidden=true`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(9);
    expect(r.body.items.map((c: any) => [c.system_key, c.category_name, c.is_system, c.is_hidden, c.item_order, c.version, c.deleted_at])).toEqual(
      SYSTEM.map(([key, name], i) => [key, name, true, false, (i + 1) * 10, 1, null]),
    );
    expect(r.body.items.map((c: any) => c.spans.map((s: any) => [s.from_code, s.to_code, s.is_exclusion]))).toEqual(
      SYSTEM.map(([, , spans]) => spans.map(([f, to]) => [f, to, false])),
    );
    expect(r.body.items[0].description).toBe("Exams, radiographs and tests (D0100-D0999)");
  });
});

describe("POST /insurance/coverage-categories", () => {
  test("201 with every field and initial spans; audited per category and per span; published with ids only", async () => {
    const before = events.length;
    const body = {
      category_name: "  Implant services ",
      description: "Implant bodies, abutments and implant crowns",
      is_hidden: true,
      item_order: 55,
      spans: [
        { from_code: "d6010", to_code: "D6199" },
        { to_code: "D6104", is_exclusion: true },
        { from_code: "D0367", to_code: "D0367", item_order: 7 },
      ],
    };
    const r = await t.request("POST", A, { token: admin, body });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      category_name: "Implant services",
      description: "Implant bodies, abutments and implant crowns",
      is_hidden: true,
      is_system: false,
      system_key: null,
      item_order: 55,
      spans: [spanOf("D6010", "D6199", false, 0), spanOf("D6104", "D6104", true, 1), spanOf("D0367", "D0367", false, 7)],
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await read(r.body.id)).body).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["coverage_category.created"]);
    for (const span of r.body.spans) {
      const entries = await auditOf(t, orgA, span.id);
      expect(entries.map((a) => [a.action, a.resource_type, a.after.category_id, a.after.from_code])).toEqual([
        ["coverage_span.created", "coverage_span", r.body.id, span.from_code],
      ]);
    }
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([["coverage_category.created", "coverage_category", { id: r.body.id, span_count: 3 }]]);
  });

  test("only category_name is required: visible, after the last live category (+10), no spans", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/insurance/coverage-categories`;
    const c = await create({ category_name: "Cosmetic" }, P);
    expect(c).toMatchObject({ description: null, is_hidden: false, is_system: false, system_key: null, item_order: 100, spans: [] });
    expect((await create({}, P)).item_order).toBe(110);
  });

  test("409 duplicate for a name a live category has (any case, system ones too); archived names are reusable; other orgs don't count", async () => {
    const n = await categoryCount();
    for (const name of ["preventive", " PREVENTIVE "]) {
      const r = await t.request("POST", A, { token: admin, body: { category_name: name, spans: [{ to_code: "D1110" }] } });
      expect([r.status, r.body]).toEqual([409, { detail: "Another coverage category already has this name", code: "duplicate" }]);
    }
    const name = unique("Sealants");
    const old = await create({ category_name: name });
    expect((await t.request("POST", A, { token: admin, body: { category_name: name.toUpperCase() } })).status).toBe(409);
    expect(await categoryCount()).toBe(n + 1);
    await archive(old.id);
    expect((await create({ category_name: name })).category_name).toBe(name);
    expect((await create({ category_name: name }, B)).category_name).toBe(name);
  });

  test("422 for missing, blank, wrong-typed, bad CDT codes, a reversed range, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const [n, spans] = [await categoryCount(), await spanCount()];
    await expectValidationCases(t, "POST", A, admin, [
      [{}, ["body", "category_name"], "missing"],
      [{ category_name: "  " }, ["body", "category_name"], "out_of_range"],
      [{ category_name: "x".repeat(101) }, ["body", "category_name"], "out_of_range"],
      [{ category_name: 3 }, ["body", "category_name"], "type_error"],
      [{ category_name: "A", item_order: -1 }, ["body", "item_order"], "out_of_range"],
      [{ category_name: "A", item_order: 1.5 }, ["body", "item_order"], "type_error"],
      [{ category_name: "A", spans: [{ from_code: "D0100" }] }, ["body", "spans", 0, "to_code"], "missing"],
      [{ category_name: "A", spans: [{ to_code: "D012" }] }, ["body", "spans", 0, "to_code"], "format"],
      [{ category_name: "A", spans: [{ to_code: "0120" }] }, ["body", "spans", 0, "to_code"], "format"],
      [{ category_name: "A", spans: [{ to_code: "D01200" }] }, ["body", "spans", 0, "to_code"], "format"],
      [{ category_name: "A", spans: [{ to_code: "D0120", colour: "red" }] }, ["body", "spans", 0, "colour"], "extra_forbidden"],
      [{ category_name: "A", spans: [{ to_code: "D0120" }, { from_code: "D2999", to_code: "D2000" }] }, ["body", "spans", 1, "from_code"], "value_error"],
      [{ category_name: "A", spans: "D0100-D0999" }, ["body", "spans"], "type_error"],
      [{ category_name: "A", is_system: true }, ["body", "is_system"], "read_only"],
      [{ category_name: "A", system_key: "implants" }, ["body", "system_key"], "read_only"],
      [{ category_name: "A", id: MISSING }, ["body", "id"], "read_only"],
      [{ category_name: "A", percent: 80 }, ["body", "percent"], "extra_forbidden"],
    ]);
    const reversed = await t.request("POST", A, { token: admin, body: { category_name: "A", spans: [{ from_code: "D2999", to_code: "D2000" }] } });
    expect(reversed.body.code).toBe("invalid_range");
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"category_name": ', headers: JSON_HEADERS });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect([await categoryCount(), await spanCount()]).toEqual([n, spans]);
  });

  test("401, 403 without insurance.write, 404 for a non-member or unknown org; nothing is written", async () => {
    const n = await categoryCount();
    const body = { category_name: unique("Nope") };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", B, { token: reader, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/insurance/coverage-categories`, { token: admin, body })).status).toBe(404);
    expect(await categoryCount()).toBe(n);
  });
});

describe("GET /insurance/coverage-categories", () => {
  let org: string;
  let P: string;
  let ids: Record<string, string>;
  let system: Record<string, string>;
  beforeAll(async () => {
    org = (await t.createOrg()).id;
    P = `/api/v1/${org}/insurance/coverage-categories`;
    const seeded = (await t.request("GET", `${P}?page_size=20`, { token: admin })).body.items;
    system = Object.fromEntries(seeded.map((c: any) => [c.system_key, c.id]));
    const implants = await create(
      { category_name: "implants", item_order: 60, description: "Carved out of prosthodontics", spans: [{ from_code: "D6010", to_code: "D6199" }] },
      P,
    );
    const cosmetic = await create({ category_name: "Cosmetic", item_order: 5 }, P);
    const hidden = await create({ category_name: "Hidden bleaching", item_order: 5, is_hidden: true }, P);
    const gone = await create({ category_name: "Gone", item_order: 1 }, P);
    await archive(gone.id, 1, P);
    ids = { implants: implants.id, cosmetic: cosmetic.id, hidden: hidden.id, gone: gone.id };
  });
  const list = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${P}?${qs}`, { token });
    expect([qs, r.status]).toEqual([qs, 200]);
    return r.body;
  };
  const idsOf = async (qs: string) => (await list(qs)).items.map((c: any) => c.id);

  test("ordered by item_order, then name (any case); hidden and archived left out; no spans by default", async () => {
    const body = await list("");
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 11 });
    expect(body.items.map((c: any) => c.id)).toEqual([
      ids.cosmetic,
      system.diagnostic,
      system.preventive,
      system.restorative,
      system.endodontics,
      system.periodontics,
      ids.implants, // 60, "implants" before "Prosthodontics" (any case)
      system.prosthodontics,
      system.oral_surgery,
      system.orthodontics,
      system.adjunctive,
    ]);
    expect(body.items.every((c: any) => !("spans" in c))).toBe(true);
    const p2 = await list("page=2&page_size=4");
    expect([p2.total, p2.items.map((c: any) => c.id)]).toEqual([11, [system.endodontics, system.periodontics, ids.implants, system.prosthodontics]]);
  });

  test("include_hidden, include_spans and search (name or description, any case)", async () => {
    expect((await idsOf("include_hidden=true")).slice(0, 2)).toEqual([ids.cosmetic, ids.hidden]);
    const withSpans = await list("search=IMPLANT&include_spans=true");
    // prosthodontics' seeded description mentions implants too
    expect(withSpans.items.map((c: any) => [c.id, c.spans.map((s: any) => s.from_code)])).toEqual([
      [ids.implants, ["D6010"]],
      [system.prosthodontics, ["D5000", "D6000"]],
    ]);
    expect(await idsOf("search=carved%20OUT")).toEqual([ids.implants]);
    expect(await idsOf("search=bleaching")).toEqual([]);
    expect(await idsOf("search=bleaching&include_hidden=1")).toEqual([ids.hidden]);
    expect((await list("include_spans=false")).items.every((c: any) => !("spans" in c))).toBe(true);
  });

  test("422 for malformed query parameters", async () => {
    for (const [qs, loc, type] of [
      ["include_spans=yes", ["query", "include_spans"], "enum"],
      ["include_hidden=2", ["query", "include_hidden"], "enum"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["sort_by=name", ["query", "sort_by"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${P}?${qs}`, { token: admin });
      expect([qs, r.status]).toEqual([qs, 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
  });

  test("401, 403 without insurance.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", B, { token: reader })).status).toBe(404);
    expect((await t.request("GET", A, { token: reader })).status).toBe(200);
  });
});

describe("GET /insurance/coverage-categories/{id}", () => {
  test("200 with spans by default, without when include_spans=false; 404 for a missing, archived or another org's category; 401, 403, 404 non-member", async () => {
    const c = await create({ spans: [{ from_code: "D9310", to_code: "D9311" }] });
    const r = await t.request("GET", `${A}/${c.id}`, { token: reader });
    expect([r.status, r.body, r.headers.get("etag")]).toEqual([200, c, '"1"']);
    const { spans: _, ...bare } = c;
    expect((await read(c.id, "?include_spans=false")).body).toEqual(bare);
    expect((await read(c.id, "?include_spans=true")).body).toEqual(c);
    expect((await read(c.id, "?include_spans=no")).status).toBe(422);
    const gone = await create();
    await archive(gone.id);
    const foreign = await create({}, B);
    for (const id of [MISSING, gone.id, foreign.id]) {
      const miss = await read(id);
      expect([miss.status, miss.body]).toEqual([404, { detail: "Coverage category not found", code: "not_found" }]);
    }
    expect((await t.request("GET", `${A}/${c.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${c.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/${c.id}`, { token: reader })).status).toBe(404);
  });
});

describe("PATCH /insurance/coverage-categories/{id}", () => {
  test("changes the given fields, bumps the version, answers with spans; audited and published with changed field names", async () => {
    const c = await create({ spans: [{ to_code: "D2962" }] });
    const before = events.length;
    const name = unique("Veneers");
    const r = await t.request("PATCH", `${A}/${c.id}`, {
      token: admin,
      body: { base_version: 1, category_name: name, description: "Labial veneers", is_hidden: true, item_order: 3 },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...c,
      category_name: name,
      description: "Labial veneers",
      is_hidden: true,
      item_order: 3,
      version: 2,
      updated_at: expect.any(String),
    });
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["coverage_category.created", "coverage_category.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([
      ["coverage_category.updated", { id: c.id, changed_fields: ["category_name", "description", "is_hidden", "item_order"] }],
    ]);
    // its own name in another case is not a duplicate
    const same = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, category_name: name.toUpperCase() } });
    expect([same.status, same.body.category_name]).toEqual([200, name.toUpperCase()]);
  });

  test("a system category may be renamed, hidden and reordered; it stays a system category", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/insurance/coverage-categories`;
    const ortho = (await t.request("GET", `${P}?search=orthodontics`, { token: admin })).body.items[0];
    const r = await t.request("PATCH", `${P}/${ortho.id}`, { token: admin, body: { base_version: 1, category_name: "Ortho", is_hidden: true, item_order: 1 } });
    expect(r.body).toMatchObject({ category_name: "Ortho", is_hidden: true, item_order: 1, is_system: true, system_key: "orthodontics", version: 2 });
  });

  test("409 duplicate name, 409 stale base_version, 422 bad or read-only input; the row is unchanged", async () => {
    const taken = await create();
    const c = await create();
    const rowBefore = await stored(c.id);
    const dup = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 1, category_name: ` ${taken.category_name.toLowerCase()} ` } });
    expect([dup.status, dup.body.code]).toEqual([409, "duplicate"]);
    const stale = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, category_name: "Fresh" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    await expectValidationCases(t, "PATCH", `${A}/${c.id}`, admin, [
      [{ category_name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, category_name: null }, ["body", "category_name"], "type_error"],
      [{ base_version: 1, is_hidden: "no" }, ["body", "is_hidden"], "type_error"],
      [{ base_version: 1, spans: [{ to_code: "D0120" }] }, ["body", "spans"], "read_only"],
      [{ base_version: 1, is_system: true }, ["body", "is_system"], "read_only"],
      [{ base_version: 1, version: 3 }, ["body", "version"], "read_only"],
    ]);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: admin, rawBody: "{", headers: JSON_HEADERS })).status).toBe(422);
    expect(await stored(c.id)).toEqual(rowBefore);
  });

  test("404 for a missing, archived or another org's category; 401, 403, 404 non-member; nothing changes", async () => {
    const gone = await create();
    await archive(gone.id);
    const foreign = await create({}, B);
    for (const [id, v] of [
      [MISSING, 1],
      [gone.id, 2],
      [foreign.id, 1],
    ] as const) {
      const r = await t.request("PATCH", `${A}/${id}`, { token: admin, body: { base_version: v, category_name: unique("Z") } });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    expect((await stored(foreign.id, orgB)).version).toBe(1);
    const c = await create();
    const body = { base_version: 1, category_name: unique("Y") };
    expect((await t.request("PATCH", `${A}/${c.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/${c.id}`, { token: reader, body })).status).toBe(404);
    expect((await stored(c.id)).version).toBe(1);
  });
});

describe("POST /insurance/coverage-categories/{id}/archive", () => {
  test("answers the archived record with its spans; it leaves lists and GET; audited and published", async () => {
    const c = await create({ spans: [{ to_code: "D9944" }] });
    const before = events.length;
    const r = await archive(c.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await read(c.id)).status).toBe(404);
    expect((await t.request("GET", `${A}?search=${c.category_name}&include_hidden=true`, { token: admin })).body.total).toBe(0);
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["coverage_category.created", "coverage_category.archived"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["coverage_category.archived", { id: c.id, changed_fields: ["deleted_at"] }]]);
  });

  test("422 system_category for a system category; nothing changes", async () => {
    const preventive = (await t.request("GET", `${A}?search=preventive`, { token: admin })).body.items[0];
    const rowBefore = await stored(preventive.id);
    const r = await archive(preventive.id, preventive.version);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      detail: [{ loc: ["path", "category_uuid"], msg: "System coverage categories cannot be archived; hide it instead", type: "value_error" }],
      code: "system_category",
    });
    expect(await stored(preventive.id)).toEqual(rowBefore);
    expect((await read(preventive.id)).status).toBe(200);
  });

  test("422 category_in_use while a live plan names it (coverage, deductible categories, waiting periods); allowed once the plan is archived", async () => {
    const carrier = (await created(t, admin, `/api/v1/${orgA}/insurance/carriers`, { carrier_name: "Guardian" })).id;
    const other = await create();
    const usedBy = [
      { coverage: [{ category_id: "", percent: 80 }] },
      { deductible_category_ids: [""] },
      { waiting_periods: [{ category_id: "", months: 12 }] },
    ];
    for (const rules of usedBy) {
      const c = await create();
      const filled = JSON.parse(JSON.stringify(rules).replaceAll('""', JSON.stringify(c.id)));
      await insertPlan(t, orgA, carrier, { ...filled, coverage: [...(filled.coverage ?? []), { category_id: other.id, percent: 50 }] });
      const rowBefore = await stored(c.id);
      const r = await archive(c.id);
      expect([JSON.stringify(rules), r.status, r.body.code]).toEqual([JSON.stringify(rules), 422, "category_in_use"]);
      expect(await stored(c.id)).toEqual(rowBefore);
    }
    const freed = await create();
    await insertPlan(t, orgA, carrier, { deleted: true, coverage: [{ category_id: freed.id, percent: 100 }] });
    expect((await archive(freed.id)).status).toBe(200);
  });

  test("409 stale, 422 without base_version, 404 missing / archived / another org's, 401, 403; nothing changes", async () => {
    const c = await create();
    const stale = await archive(c.id, 2);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const noVersion = await t.request("POST", `${A}/${c.id}/archive`, { token: admin });
    expect(noVersion.status).toBe(422);
    expect(noVersion.body.detail[0]).toMatchObject({ loc: ["query", "base_version"], type: "missing" });
    const gone = await create();
    await archive(gone.id);
    const foreign = await create({}, B);
    for (const [id, v] of [
      [MISSING, 1],
      [gone.id, 2],
      [foreign.id, 1],
    ] as const) {
      expect((await archive(id, v)).status).toBe(404);
    }
    expect((await stored(foreign.id, orgB)).deleted_at).toBeNull();
    expect((await t.request("POST", `${A}/${c.id}/archive?base_version=1`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${c.id}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${B}/${c.id}/archive?base_version=1`, { token: reader })).status).toBe(404);
    const row = await stored(c.id);
    expect([row.version, row.deleted_at]).toEqual([1, null]);
  });
});

describe("POST /insurance/coverage-categories/reorder", () => {
  test("sets the named categories' item_order; unchanged ones keep their version; answers detail and the categories; audited and published", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/insurance/coverage-categories`;
    const seeded = (await t.request("GET", `${P}`, { token: admin })).body.items;
    const byKey = Object.fromEntries(seeded.map((c: any) => [c.system_key, c]));
    const mine = await create({ category_name: "Implants", item_order: 200 }, P);
    const orgEvents: EventEnvelope[] = [];
    t.rt.events.subscribe(org, (e) => orgEvents.push(e));
    const items = [
      { category_uuid: mine.id.toUpperCase(), item_order: 55 },
      { category_uuid: byKey.adjunctive.id, item_order: 0 },
      { category_uuid: byKey.diagnostic.id, item_order: 10 }, // unchanged
    ];
    const r = await t.request("POST", `${P}/reorder`, { token: admin, body: { items } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      detail: "reordered",
      items: [
        { ...mine, item_order: 55, version: 2, updated_at: expect.any(String) },
        { ...byKey.adjunctive, item_order: 0, version: 2, updated_at: expect.any(String) },
        byKey.diagnostic,
      ].map(({ spans: _, ...c }) => c),
    });
    const order = (await t.request("GET", `${P}`, { token: admin })).body.items.map((c: any) => c.system_key ?? c.category_name);
    expect(order).toEqual([
      "adjunctive",
      "diagnostic",
      "preventive",
      "restorative",
      "endodontics",
      "periodontics",
      "Implants",
      "prosthodontics",
      "oral_surgery",
      "orthodontics",
    ]);
    expect((await auditOf(t, org, mine.id)).map((a) => a.action)).toEqual(["coverage_category.created", "coverage_category.reordered"]);
    expect(orgEvents.map((e) => [e.type, e.resource_id, e.data.changed_fields])).toEqual([
      ["coverage_category.reordered", mine.id, ["item_order"]],
      ["coverage_category.reordered", byKey.adjunctive.id, ["item_order"]],
    ]);
  });

  test("404 naming every missing, archived or another org's category, and nothing is reordered", async () => {
    const a = await create({ item_order: 500 });
    const gone = await create();
    await archive(gone.id);
    const foreign = await create({}, B);
    const r = await t.request("POST", `${A}/reorder`, {
      token: admin,
      body: {
        items: [
          { category_uuid: a.id, item_order: 1 },
          { category_uuid: MISSING, item_order: 2 },
          { category_uuid: gone.id, item_order: 3 },
          { category_uuid: foreign.id, item_order: 4 },
        ],
      },
    });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: `Coverage category not found: ${MISSING}, ${gone.id}, ${foreign.id}; no category was reordered`, code: "not_found" });
    expect(await stored(a.id)).toMatchObject({ item_order: 500, version: 1 });
    expect(await stored(foreign.id, orgB)).toMatchObject({ version: 1 });
  });

  test("422 for an empty list, a repeated category, a bad id or order; 401, 403, 404 non-member; nothing changes", async () => {
    const a = await create({ item_order: 700 });
    await expectValidationCases(t, "POST", `${A}/reorder`, admin, [
      [{}, ["body", "items"], "missing"],
      [{ items: [] }, ["body", "items"], "out_of_range"],
      [
        {
          items: [
            { category_uuid: a.id, item_order: 1 },
            { category_uuid: a.id.toUpperCase(), item_order: 2 },
          ],
        },
        ["body", "items"],
        "value_error",
      ],
      [{ items: [{ category_uuid: "x", item_order: 1 }] }, ["body", "items", 0, "category_uuid"], "format"],
      [{ items: [{ category_uuid: a.id }] }, ["body", "items", 0, "item_order"], "missing"],
      [{ items: [{ category_uuid: a.id, item_order: -3 }] }, ["body", "items", 0, "item_order"], "out_of_range"],
    ]);
    const body = { items: [{ category_uuid: a.id, item_order: 1 }] };
    expect((await t.request("POST", `${A}/reorder`, { body })).status).toBe(401);
    expect((await t.request("POST", `${A}/reorder`, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", `${B}/reorder`, { token: reader, body })).status).toBe(404);
    expect(await stored(a.id)).toMatchObject({ item_order: 700, version: 1 });
  });
});

describe("coverage spans", () => {
  test("GET lists a category's spans by item_order then from_code, paged by 100", async () => {
    const c = await create({
      spans: [
        { from_code: "D2140", to_code: "D2161", item_order: 2 },
        { from_code: "D2330", to_code: "D2394", item_order: 1 },
        { from_code: "D2000", to_code: "D2099", item_order: 1 },
      ],
    });
    const r = await t.request("GET", `${A}/${c.id}/spans`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [spanOf("D2000", "D2099", false, 1), spanOf("D2330", "D2394", false, 1), spanOf("D2140", "D2161", false, 2)],
      page: 1,
      page_size: 100,
      total: 3,
    });
    const p2 = await t.request("GET", `${A}/${c.id}/spans?page=2&page_size=2`, { token: admin });
    expect([p2.body.total, p2.body.items.map((s: any) => s.from_code)]).toEqual([3, ["D2140"]]);
    for (const qs of ["page_size=201", "page=0", "from_code=D2000"])
      expect((await t.request("GET", `${A}/${c.id}/spans?${qs}`, { token: admin })).status).toBe(422);
  });

  test("POST adds a span (201): the category gets a new version; overlapping spans of live categories, this one included, come back as a warning", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/insurance/coverage-categories`;
    const orgEvents: EventEnvelope[] = [];
    t.rt.events.subscribe(org, (e) => orgEvents.push(e));
    const prostho = (await t.request("GET", `${P}?search=prosthodontics&include_spans=true`, { token: admin })).body.items[0];
    const implants = await create({ category_name: "Implants", spans: [{ from_code: "D6000", to_code: "D6009" }] }, P);
    const gone = await create({ category_name: "Old implants", spans: [{ from_code: "D6010", to_code: "D6199" }] }, P);
    await archive(gone.id, 1, P);
    const r = await t.request("POST", `${P}/${implants.id}/spans`, { token: admin, body: { from_code: "d6005", to_code: "D6199" } });
    expect(r.status).toBe(201);
    expect(r.body.span).toEqual(spanOf("D6005", "D6199", false, 1));
    expect(r.body.overlapping_spans).toEqual([
      { ...prostho.spans[1], category: { uuid: prostho.id, name: "Prosthodontics" } },
      { ...implants.spans[0], category: { uuid: implants.id, name: "Implants" } },
    ]);
    const after = (await t.request("GET", `${P}/${implants.id}`, { token: admin })).body;
    expect([after.version, after.spans.map((s: any) => [s.from_code, s.to_code])]).toEqual([
      2,
      [
        ["D6000", "D6009"],
        ["D6005", "D6199"],
      ],
    ]);
    expect((await auditOf(t, org, implants.id)).map((a) => a.action)).toEqual(["coverage_category.created", "coverage_category.span_added"]);
    expect((await auditOf(t, org, r.body.span.id)).map((a) => a.action)).toEqual(["coverage_span.created"]);
    expect(orgEvents.filter((e) => e.resource_id === implants.id).map((e) => [e.type, e.data])).toEqual([
      ["coverage_category.created", { id: implants.id, span_count: 1 }],
      ["coverage_category.span_added", { id: implants.id, span_id: r.body.span.id, is_exclusion: false, changed_fields: ["spans"] }],
    ]);

    // a single code (from_code defaults to to_code), an exclusion, an explicit order; no overlap: an empty warning
    const excl = await t.request("POST", `${P}/${prostho.id}/spans`, { token: admin, body: { to_code: "D5999", is_exclusion: true, item_order: 9 } });
    expect(excl.status).toBe(201);
    expect(excl.body.span).toEqual(spanOf("D5999", "D5999", true, 9));
    expect(excl.body.overlapping_spans.map((s: any) => [s.category.name, s.from_code])).toEqual([["Prosthodontics", "D5000"]]);
    const lone = await t.request("POST", `${P}/${implants.id}/spans`, { token: admin, body: { from_code: "D0000", to_code: "D0099" } });
    expect([lone.status, lone.body.overlapping_spans, lone.body.span.item_order]).toEqual([201, [], 2]);
  });

  test("422 for a missing or malformed code, a reversed range, unknown fields; nothing is written", async () => {
    const c = await create();
    const [n, row] = [await spanCount(), await stored(c.id)];
    await expectValidationCases(t, "POST", `${A}/${c.id}/spans`, admin, [
      [{}, ["body", "to_code"], "missing"],
      [{ from_code: "D0100" }, ["body", "to_code"], "missing"],
      [{ to_code: "D99999" }, ["body", "to_code"], "format"],
      [{ to_code: "X0120" }, ["body", "to_code"], "format"],
      [{ from_code: 120, to_code: "D0120" }, ["body", "from_code"], "type_error"],
      [{ to_code: "D0120", is_exclusion: "yes" }, ["body", "is_exclusion"], "type_error"],
      [{ to_code: "D0120", category_uuid: c.id }, ["body", "category_uuid"], "extra_forbidden"],
      [{ from_code: "D0999", to_code: "D0100" }, ["body", "from_code"], "value_error"],
    ]);
    const reversed = await t.request("POST", `${A}/${c.id}/spans`, { token: admin, body: { from_code: "D0999", to_code: "D0100" } });
    expect(reversed.body.code).toBe("invalid_range");
    expect([await spanCount(), await stored(c.id)]).toEqual([n, row]);
  });

  test("404 for a missing, archived or another org's category (GET and POST); 401, 403, 404 non-member; nothing is written", async () => {
    const gone = await create();
    await archive(gone.id);
    const foreign = await create({}, B);
    const n = await spanCount();
    for (const id of [MISSING, gone.id, foreign.id]) {
      expect((await t.request("GET", `${A}/${id}/spans`, { token: admin })).status).toBe(404);
      const r = await t.request("POST", `${A}/${id}/spans`, { token: admin, body: { to_code: "D0120" } });
      expect([r.status, r.body]).toEqual([404, { detail: "Coverage category not found", code: "not_found" }]);
    }
    const c = await create();
    const body = { to_code: "D0120" };
    expect((await t.request("GET", `${A}/${c.id}/spans`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${c.id}/spans`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${B}/${c.id}/spans`, { token: reader })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/spans`, { body })).status).toBe(401);
    expect((await t.request("POST", `${A}/${c.id}/spans`, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", `${B}/${c.id}/spans`, { token: reader, body })).status).toBe(404);
    expect(await spanCount()).toBe(n);
    expect(await (await orgDb(t, orgB)).read((d) => all(d.select().from(coverageSpans).where(eq(coverageSpans.category_id, foreign.id))))).toEqual([]);
  });
});
