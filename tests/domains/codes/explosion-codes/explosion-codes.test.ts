import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string; // {P}/codes/explosion-codes of org A
let B: string;
let codesA: string; // {P}/codes/procedure-codes of org A
let codesB: string;
let reader: string; // codes.read only
let stranger: string; // a member of A without codes keys
let memberOfB: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    { reader: ["codes.read"], stranger: ["patients.read", "patients.write"], memberOfB: { org: "B", keys: ["codes.read", "codes.write"] } },
    { events: true },
  );
  ({ t, admin, orgA, events } = w);
  ({ reader, stranger, memberOfB } = w.tokens);
  A = `${w.pathA}/codes/explosion-codes`;
  B = `${w.pathB}/codes/explosion-codes`;
  codesA = `${w.pathA}/codes/procedure-codes`;
  codesB = `${w.pathB}/codes/procedure-codes`;
});
afterAll(() => t.close());

async function create(body: Record<string, unknown> = {}, P = A) {
  const r = await t.request("POST", P, { token: admin, body: { name: "Recall visit", ...body } });
  if (r.status !== 201) throw new Error(`create explosion code failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const total = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;
const codeId = async (code: string, P = codesA) => (await t.request("GET", `${P}?search=${code}`, { token: admin })).body.items[0].id as string;
let nc = 0;
async function customCode(body: Record<string, unknown> = {}, P = codesA) {
  const r = await t.request("POST", P, { token: admin, body: { code: `EXP-${nc++}`, short_name: "Custom", ...body } });
  if (r.status !== 201) throw new Error(`create procedure code failed: ${r.status} ${r.text}`);
  return r.body;
}
const explode = (id: string, context: Record<string, unknown>, token = reader, P = A) => t.request("POST", `${P}/${id}/explode`, { token, body: { context } });

// A new-patient visit: exam and films for everyone; a child cleaning and fluoride
// under 14, an adult cleaning from 14; bitewings only with back teeth present.
const NEW_PATIENT = {
  name: "New patient visit",
  description: "Exam, films and cleaning",
  entries: [
    { procedure_code: "D0150" },
    { procedure_code: "d0274", conditions: [{ field: "patient_age", op: "gte", value: 6 }] },
    { procedure_code: "D1120", conditions: [{ field: "patient_age", op: "lt", value: 14 }] },
    { procedure_code: "D1110", conditions: [{ field: "patient_age", op: "gte", value: 14 }] },
    { procedure_code: "D1206", quantity: 1, conditions: [{ field: "patient_age", op: "lt", value: 14 }] },
  ],
};

describe("POST /codes/explosion-codes", () => {
  test("201: entries resolve to the catalogue, defaults apply; audited; explosion_code.created", async () => {
    const before = events.length;
    const r = await t.request("POST", A, { token: admin, body: { ...NEW_PATIENT, conditions: [{ field: "patient_age", op: "lte", value: 120 }] } });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    const d1120 = await codeId("D1120");
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "New patient visit",
      description: "Exam, films and cleaning",
      conditions: [{ field: "patient_age", op: "lte", value: 120 }],
      entries: [
        {
          procedure_code: "D0150",
          procedure_code_ref: { uuid: await codeId("D0150"), name: "Comprehensive exam, new or returning patient" },
          quantity: 1,
          tooth_number: null,
          surfaces: null,
          conditions: [],
        },
        {
          procedure_code: "D0274",
          procedure_code_ref: { uuid: await codeId("D0274"), name: "Bitewing X-rays, four images" },
          quantity: 1,
          tooth_number: null,
          surfaces: null,
          conditions: [{ field: "patient_age", op: "gte", value: 6 }],
        },
        {
          procedure_code: "D1120",
          procedure_code_ref: { uuid: d1120, name: "Child cleaning" },
          quantity: 1,
          tooth_number: null,
          surfaces: null,
          conditions: [{ field: "patient_age", op: "lt", value: 14 }],
        },
        expect.objectContaining({ procedure_code: "D1110" }),
        expect.objectContaining({ procedure_code: "D1206", quantity: 1 }),
      ],
      status: "active",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => [a.action, a.resource_type, a.after.name, a.after.entries[2].procedure_code_id])).toEqual([
      ["explosion_code.created", "explosion_code", "New patient visit", d1120],
    ]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === r.body.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["explosion_code.created", { id: r.body.id }]]);
    const bare = await create({ name: "  Bare  " });
    expect(bare).toMatchObject({ name: "Bare", description: null, conditions: [], entries: [], status: "active" });
  });

  test("fixed tooth and surfaces are kept for codes that take them", async () => {
    const c = await create({
      entries: [
        { procedure_code: "D2391", tooth_number: "30", surfaces: "od", quantity: 2 },
        { procedure_code: "D3330", tooth_number: "30" },
      ],
    });
    expect(c.entries.map((e: any) => [e.procedure_code, e.tooth_number, e.surfaces, e.quantity])).toEqual([
      ["D2391", "30", "OD", 2],
      ["D3330", "30", null, 1],
    ]);
  });

  test("404 when an entry names a code that is unknown, archived or only another org's; nothing is written", async () => {
    const archived = await customCode();
    await t.request("POST", `${codesA}/${archived.id}/archive`, { token: admin });
    const foreign = await customCode({ code: "ONLY-B" }, codesB);
    const count = await total();
    for (const code of ["D0000", archived.code, foreign.code]) {
      const r = await t.request("POST", A, { token: admin, body: { name: "Bad", entries: [{ procedure_code: "D0150" }, { procedure_code: code }] } });
      expect({ code, status: r.status, body: r.body }).toEqual({
        code,
        status: 404,
        body: { detail: "Procedure code of entries[1] not found", code: "not_found" },
      });
    }
    expect(await total()).toBe(count);
  });

  test("422 for each rule, wrong types, unknown and read-only fields, malformed JSON; nothing is written", async () => {
    const count = await total();
    const ok = { name: "Fine" };
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [{}, ["body", "name"], "missing"],
      [{ name: "" }, ["body", "name"], "out_of_range"],
      [{ name: 3 }, ["body", "name"], "type_error"],
      [{ ...ok, description: 5 }, ["body", "description"], "type_error"],
      [{ ...ok, conditions: {} }, ["body", "conditions"], "type_error"],
      [{ ...ok, conditions: [{ field: "weather", op: "eq", value: "sunny" }] }, ["body", "conditions", 0, "field"], "enum"],
      [{ ...ok, conditions: [{ field: "arch", op: "lt", value: 1 }] }, ["body", "conditions", 0, "op"], "value_error"],
      [{ ...ok, conditions: [{ field: "patient_age", op: "gte", value: "18" }] }, ["body", "conditions", 0, "value"], "value_error"],
      [{ ...ok, conditions: [{ field: "arch", op: "eq", value: "upper", extra: 1 }] }, ["body", "conditions", 0, "extra"], "extra_forbidden"],
      [{ ...ok, conditions: Array(21).fill({ field: "arch", op: "eq", value: "upper" }) }, ["body", "conditions"], "out_of_range"],
      [{ ...ok, entries: [{}] }, ["body", "entries", 0, "procedure_code"], "missing"],
      [{ ...ok, entries: [{ procedure_code: "D0150", quantity: 0 }] }, ["body", "entries", 0, "quantity"], "out_of_range"],
      [{ ...ok, entries: [{ procedure_code: "D0150", quantity: 1.5 }] }, ["body", "entries", 0, "quantity"], "type_error"],
      [{ ...ok, entries: [{ procedure_code: "D2391", tooth_number: "33" }] }, ["body", "entries", 0, "tooth_number"], "enum"],
      [{ ...ok, entries: [{ procedure_code: "D2391", surfaces: "MXD" }] }, ["body", "entries", 0, "surfaces"], "format"],
      [{ ...ok, entries: [{ procedure_code: "D2391", surfaces: "MOM" }] }, ["body", "entries", 0, "surfaces"], "value_error"],
      [
        { ...ok, entries: [{ procedure_code: "D0150", conditions: [{ field: "tooth_type", op: "eq", value: "canine" }] }] },
        ["body", "entries", 0, "conditions", 0, "value"],
        "value_error",
      ],
      [{ ...ok, entries: [{ procedure_code: "D0150", tooth: "3" }] }, ["body", "entries", 0, "tooth"], "extra_forbidden"],
      [{ ...ok, entries: [{ procedure_code: "D0150", tooth_number: "3" }] }, ["body", "entries", 0, "tooth_number"], "value_error", "treatment_area_mismatch"],
      [{ ...ok, entries: [{ procedure_code: "D2740", surfaces: "MO" }] }, ["body", "entries", 0, "surfaces"], "value_error", "treatment_area_mismatch"],
      [{ ...ok, status: "inactive" }, ["body", "status"], "read_only"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, code: "X1" }, ["body", "code"], "extra_forbidden"],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await t.request("POST", A, { token: admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0], code: r.body.code }).toEqual({ body, first: { loc, msg: expect.any(String), type }, code });
    }
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name": [', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await total()).toBe(count);
  });

  test("401, 403 (a codes.read member too), 404 for a non-member or unknown org; nothing is written", async () => {
    const count = await total();
    const body = { name: "Nope" };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: stranger, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/codes/explosion-codes`, { token: admin, body })).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /codes/explosion-codes", () => {
  test("pages by name; search over name and description; status filter; archived and other orgs' codes are left out", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/codes/explosion-codes`;
    const b = await create({ name: "Bitewing recall", description: "Films for adults" }, P);
    const a = await create({ name: "Adult recall" }, P);
    const c = await create({ name: "Child recall", description: "Fluoride too" }, P);
    const gone = await create({ name: "Archived recall" }, P);
    await t.request("POST", `${P}/${gone.id}/archive`, { token: admin });
    const off = (await t.request("PATCH", `${P}/${c.id}`, { token: admin, body: { base_version: 1, status: "inactive" } })).body;
    const get = async (q: string) => {
      const r = await t.request("GET", `${P}?${q}`, { token: admin });
      expect(r.status).toBe(200);
      return r.body;
    };
    expect(await get("")).toEqual({ items: [a, b, off], page: 1, page_size: 50, total: 3 });
    expect((await get("page=2&page_size=2")).items.map((i: any) => i.id)).toEqual([c.id]);
    expect((await get("search=FLUORIDE")).items.map((i: any) => i.id)).toEqual([c.id]);
    expect((await get("search=adult")).items.map((i: any) => i.id)).toEqual([a.id, b.id]);
    expect((await get("status=active")).items.map((i: any) => i.id)).toEqual([a.id, b.id]);
    expect((await get("status=inactive")).items.map((i: any) => i.id)).toEqual([c.id]);
    expect((await t.request("GET", A, { token: admin })).body.items.map((i: any) => i.id)).not.toContain(a.id);
  });

  test("422 for bad parameters; 401; 403; 404 for a non-member", async () => {
    for (const [q, loc, type] of [
      ["status=archived", ["query", "status"], "enum"],
      ["page_size=0", ["query", "page_size"], "out_of_range"],
      ["name=x", ["query", "name"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${A}?${q}`, { token: admin });
      expect({ q, status: r.status, first: r.body.detail?.[0] }).toEqual({ q, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: stranger })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", A, { token: reader })).status).toBe(200);
  });
});

describe("GET /codes/explosion-codes/{id}", () => {
  test("200 with ETag; 404 for missing, archived and another org's ids; 401; 403", async () => {
    const c = await create(NEW_PATIENT);
    const r = await t.request("GET", `${A}/${c.id}`, { token: reader });
    expect([r.status, r.headers.get("etag")]).toEqual([200, '"1"']);
    expect(r.body).toEqual(c);
    for (const path of [`${A}/${MISSING}`, `${B}/${c.id}`, `${A}/nope`]) {
      const nf = await t.request("GET", path, { token: admin });
      expect({ path, status: nf.status, body: nf.body }).toEqual({ path, status: 404, body: { detail: "Explosion code not found", code: "not_found" } });
    }
    expect((await t.request("GET", `${A}/${c.id}`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `${A}/${c.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${c.id}`, { token: stranger })).status).toBe(403);
  });

  test("entries follow a renamed procedure code and keep showing an archived one", async () => {
    const mine = await customCode({ short_name: "Before" });
    const c = await create({ entries: [{ procedure_code: mine.code }] });
    await t.request("PATCH", `${codesA}/${mine.id}`, { token: admin, body: { base_version: 1, code: "RENAMED-1", short_name: "After" } });
    expect((await read(c.id)).entries[0]).toMatchObject({ procedure_code: "RENAMED-1", procedure_code_ref: { uuid: mine.id, name: "After" } });
    await t.request("POST", `${codesA}/${mine.id}/archive`, { token: admin });
    expect((await read(c.id)).entries[0]).toMatchObject({ procedure_code: "RENAMED-1", procedure_code_ref: { uuid: mine.id, name: "After" } });
  });
});

describe("PATCH /codes/explosion-codes/{id}", () => {
  test("200: replaces entries as a whole, changes status; audited; explosion_code.updated names the changed fields", async () => {
    const c = await create(NEW_PATIENT);
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${c.id}`, {
      token: admin,
      body: { base_version: 1, entries: [{ procedure_code: "D0120", quantity: 2 }], description: null, status: "inactive" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...c,
      description: null,
      status: "inactive",
      version: 2,
      updated_at: expect.any(String),
      entries: [
        {
          procedure_code: "D0120",
          procedure_code_ref: { uuid: await codeId("D0120"), name: "Periodic exam" },
          quantity: 2,
          tooth_number: null,
          surfaces: null,
          conditions: [],
        },
      ],
    });
    expect(await read(c.id)).toEqual(r.body);
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["explosion_code.created", "explosion_code.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => e.type)).toEqual(["explosion_code.updated"]);
    expect([...(mine[0].data.changed_fields as string[])].sort()).toEqual(["description", "entries", "status"]);
    const renamed = await t.request("PATCH", `${A}/${c.id}`, {
      token: admin,
      body: { base_version: 2, name: "Renamed", conditions: [{ field: "arch", op: "eq", value: "lower" }] },
    });
    expect(renamed.body).toMatchObject({ name: "Renamed", conditions: [{ field: "arch", op: "eq", value: "lower" }], entries: r.body.entries, version: 3 });
  });

  test("409 stale; 404 missing, archived, another org's id and unknown entry code; 422; 401; 403; nothing changes", async () => {
    const c = await create(NEW_PATIENT);
    const stale = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, name: "Stale" } });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const unknown = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 1, entries: [{ procedure_code: "D0000" }] } });
    expect([unknown.status, unknown.body]).toEqual([404, { detail: "Procedure code of entries[0] not found", code: "not_found" }]);
    for (const [body, loc, type] of [
      [{ name: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, status: "archived" }, ["body", "status"], "enum"],
      [{ base_version: 1, name: "" }, ["body", "name"], "out_of_range"],
      [{ base_version: 1, entries: [{ procedure_code: "D0150", quantity: 100 }] }, ["body", "entries", 0, "quantity"], "out_of_range"],
      [{ base_version: 1, conditions: [{ field: "dentition", op: "eq", value: "mixed" }] }, ["body", "conditions", 0, "value"], "value_error"],
      [{ base_version: 1, version: 5 }, ["body", "version"], "read_only"],
      [{ base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body });
      expect({ body, status: r.status, first: r.body.detail?.[0] }).toEqual({ body, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    const body = { base_version: 1, name: "Hijack" };
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body })).status).toBe(404);
    expect((await t.request("PATCH", `${B}/${c.id}`, { token: admin, body })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${c.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: reader, body })).status).toBe(403);
    expect(await read(c.id)).toEqual(c);
    expect((await auditOf(t, orgA, c.id)).length).toBe(1);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    expect((await t.request("PATCH", `${A}/${gone.id}`, { token: admin, body: { base_version: 2, name: "Back" } })).status).toBe(404);
  });
});

describe("POST /codes/explosion-codes/{id}/archive", () => {
  test("200 sets deleted_at; audited; explosion_code.archived; then 404; 404 for missing and another org's ids; 401; 403", async () => {
    const c = await create();
    const other = await create();
    expect((await t.request("POST", `${A}/${MISSING}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${B}/${c.id}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/archive`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${c.id}/archive`, { token: reader })).status).toBe(403);
    expect(await read(c.id)).toEqual(c);
    const before = events.length;
    const r = await t.request("POST", `${A}/${c.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["explosion_code.created", "explosion_code.archived"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === c.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["explosion_code.archived", { id: c.id, changed_fields: ["deleted_at"] }]]);
    expect((await t.request("GET", `${A}/${c.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/explode`, { token: admin, body: { context: {} } })).status).toBe(404);
    expect(await read(other.id)).toEqual(other);
  });
});

describe("POST /codes/explosion-codes/{id}/explode", () => {
  test("table: the entries whose conditions hold for each context, in entry order", async () => {
    const c = await create(NEW_PATIENT);
    for (const [context, expected] of [
      [{ patient_age: 4 }, ["D0150", "D1120", "D1206"]],
      [{ patient_age: 6 }, ["D0150", "D0274", "D1120", "D1206"]],
      [{ patient_age: 13 }, ["D0150", "D0274", "D1120", "D1206"]],
      [{ patient_age: 14 }, ["D0150", "D0274", "D1110"]],
      [{ patient_age: 70 }, ["D0150", "D0274", "D1110"]],
      [{}, ["D0150"]], // no age: no age-bound entry applies
    ] as const) {
      const r = await explode(c.id, context);
      expect({ context, status: r.status, codes: r.body.procedures?.map((p: any) => p.procedure_code) }).toEqual({
        context,
        status: 200,
        codes: [...expected],
      });
      expect(r.body).toMatchObject({ explosion_code: { uuid: c.id, name: "New patient visit" }, applies: true, unmet_conditions: [] });
    }
    const adult = (await explode(c.id, { patient_age: 30 })).body.procedures;
    expect(adult[2]).toEqual({
      entry_index: 3,
      procedure_code: "D1110",
      procedure_code_uuid: await codeId("D1110"),
      short_name: "Adult cleaning",
      treatment_area: "mouth",
      default_fee: "105.00",
      quantity: 1,
      tooth_number: null,
      surfaces: null,
      arch: null,
      quadrant: null,
    });
  });

  test("tooth facts drive conditions; tooth, surfaces, arch and quadrant are placed by each code's treatment area", async () => {
    const c = await create({
      name: "Root canal and crown",
      conditions: [{ field: "dentition", op: "eq", value: "permanent" }],
      entries: [
        { procedure_code: "D3310", conditions: [{ field: "tooth_type", op: "eq", value: "anterior" }] },
        { procedure_code: "D3320", conditions: [{ field: "tooth_type", op: "eq", value: "premolar" }] },
        { procedure_code: "D3330", conditions: [{ field: "tooth_type", op: "eq", value: "molar" }] },
        { procedure_code: "D2950" },
        { procedure_code: "D2392", conditions: [{ field: "surface_count", op: "eq", value: 2 }] },
        { procedure_code: "D2393", surfaces: "MOD", conditions: [{ field: "surface_count", op: "gte", value: 3 }] },
        { procedure_code: "D4341", conditions: [{ field: "quadrant", op: "in", value: ["UR", "LR"] }] },
        { procedure_code: "D5110", conditions: [{ field: "arch", op: "eq", value: "upper" }] },
        { procedure_code: "D1351", tooth_number: "19", conditions: [{ field: "arch", op: "eq", value: "lower" }] },
      ],
    });
    const shape = (ps: any[]) => ps.map((p) => [p.procedure_code, p.tooth_number, p.surfaces, p.arch, p.quadrant]);
    expect(shape((await explode(c.id, { tooth_number: "8" })).body.procedures)).toEqual([
      ["D3310", "8", null, null, null],
      ["D2950", "8", null, null, null],
      ["D4341", null, null, null, "UR"],
      ["D5110", null, null, "upper", null],
    ]);
    expect(shape((await explode(c.id, { tooth_number: "3", surfaces: "od" })).body.procedures)).toEqual([
      ["D3330", "3", null, null, null],
      ["D2950", "3", null, null, null],
      ["D2392", "3", "OD", null, null],
      ["D4341", null, null, null, "UR"],
      ["D5110", null, null, "upper", null],
    ]);
    expect(shape((await explode(c.id, { tooth_number: "20", surfaces: "B" })).body.procedures)).toEqual([
      ["D3320", "20", null, null, null],
      ["D2950", "20", null, null, null],
      ["D1351", "19", null, null, null],
    ]);
    expect(shape((await explode(c.id, { tooth_number: "30", surfaces: "MODB" })).body.procedures)).toEqual([
      ["D3330", "30", null, null, null],
      ["D2950", "30", null, null, null],
      ["D2393", "30", "MOD", null, null],
      ["D4341", null, null, null, "LR"],
      ["D1351", "19", null, null, null],
    ]);
    // without a tooth only the entries without tooth conditions and whose facts are given apply
    expect(shape((await explode(c.id, { dentition: "permanent", arch: "upper" })).body.procedures)).toEqual([
      ["D2950", null, null, null, null],
      ["D5110", null, null, "upper", null],
    ]);
  });

  test("applies false (no procedures) when the code's own conditions fail or lack their fact", async () => {
    const c = await create({
      ...NEW_PATIENT,
      conditions: [
        { field: "patient_age", op: "gte", value: 18 },
        { field: "dentition", op: "eq", value: "permanent" },
      ],
    });
    const young = await explode(c.id, { patient_age: 12, tooth_number: "3" });
    expect(young.status).toBe(200);
    expect(young.body).toEqual({
      explosion_code: { uuid: c.id, name: "New patient visit" },
      applies: false,
      unmet_conditions: [{ field: "patient_age", op: "gte", value: 18 }],
      procedures: [],
    });
    const nothing = await explode(c.id, {});
    expect(nothing.body.unmet_conditions).toEqual(c.conditions);
    expect((await explode(c.id, { patient_age: 18, dentition: "permanent" })).body).toMatchObject({ applies: true, procedures: expect.any(Array) });
  });

  test("422: inactive code, an archived or inactive procedure code in an applying entry, a contradicting or malformed context", async () => {
    const mine = await customCode({ code: "EXP-ARCH" });
    const c = await create({
      entries: [{ procedure_code: "D0150" }, { procedure_code: mine.code, conditions: [{ field: "patient_age", op: "gte", value: 18 }] }],
    });
    expect((await explode(c.id, { patient_age: 10 })).status).toBe(200);
    await t.request("PATCH", `${codesA}/${mine.id}`, { token: admin, body: { base_version: 1, status: "inactive" } });
    const inactiveCode = await explode(c.id, { patient_age: 30 });
    expect([inactiveCode.status, inactiveCode.body.code]).toEqual([422, "procedure_code_unavailable"]);
    await t.request("POST", `${codesA}/${mine.id}/archive`, { token: admin });
    const unavailable = await explode(c.id, { patient_age: 30 });
    expect(unavailable.status).toBe(422);
    expect(unavailable.body).toEqual({
      detail: [{ loc: ["path", "explosion_code_uuid"], msg: "The procedure code of entries[1] is archived or inactive", type: "value_error" }],
      code: "procedure_code_unavailable",
    });
    expect((await explode(c.id, { patient_age: 10 })).status).toBe(200); // the entry does not apply

    const off = await create(NEW_PATIENT);
    await t.request("PATCH", `${A}/${off.id}`, { token: admin, body: { base_version: 1, status: "inactive" } });
    const inactive = await explode(off.id, { patient_age: 30 });
    expect([inactive.status, inactive.body.code, inactive.body.detail[0].loc]).toEqual([422, "explosion_code_inactive", ["path", "explosion_code_uuid"]]);

    const ok = await create(NEW_PATIENT);
    for (const [body, loc, type, code] of [
      [{ context: { tooth_number: "3", arch: "lower" } }, ["body", "context", "arch"], "value_error", "context_mismatch"],
      [{}, ["body", "context"], "missing", undefined],
      [{ context: { patient_age: -1 } }, ["body", "context", "patient_age"], "out_of_range", undefined],
      [{ context: { patient_age: "12" } }, ["body", "context", "patient_age"], "type_error", undefined],
      [{ context: { tooth_number: "0" } }, ["body", "context", "tooth_number"], "enum", undefined],
      [{ context: { surfaces: "XYZ" } }, ["body", "context", "surfaces"], "format", undefined],
      [{ context: { tooth: "3" } }, ["body", "context", "tooth"], "extra_forbidden", undefined],
      [{ context: {}, dry_run: true }, ["body", "dry_run"], "extra_forbidden", undefined],
    ] as const) {
      const r = await t.request("POST", `${A}/${ok.id}/explode`, { token: reader, body });
      expect({ body, status: r.status, first: r.body.detail?.[0], code: r.body.code }).toEqual({
        body,
        status: 422,
        first: { loc: [...loc], msg: expect.any(String), type },
        code,
      });
    }
    const bad = await t.request("POST", `${A}/${ok.id}/explode`, { token: reader, rawBody: "{context", headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
  });

  test("404 for missing and another org's codes; 401; 403 without codes.read; explode writes nothing", async () => {
    const c = await create(NEW_PATIENT);
    expect((await explode(MISSING, {}, admin)).status).toBe(404);
    expect((await explode(c.id, {}, admin, B)).status).toBe(404);
    expect((await explode(c.id, {}, memberOfB)).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/explode`, { body: { context: {} } })).status).toBe(401);
    expect((await explode(c.id, {}, stranger)).status).toBe(403);
    expect((await explode(c.id, { patient_age: 30 })).status).toBe(200);
    expect(await read(c.id)).toEqual(c);
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["explosion_code.created"]);
  });
});
