import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { autoCodeApp, family, MISSING, rule, type Env } from "./fixtures";

let env: Env;
let F: string;
let R: string; // rules of org A
let families: Record<string, { id: string; display_name: string }>; // one family per selection_type in org A
let foreignFamily: { id: string };
let foreignRule: { id: string };

beforeAll(async () => {
  env = await autoCodeApp();
  F = `${env.A}/auto-code-families`;
  R = `${env.A}/auto-code-rules`;
  families = {};
  for (const type of ["age", "arch", "combined", "dentition", "material", "surface_count", "tooth_position", "tooth_type", "unit_count"]) {
    families[type] = await family(env, env.A, { selection_type: type, display_name: `By ${type}` });
  }
  foreignFamily = await family(env, env.B, { selection_type: "surface_count" });
  foreignRule = await rule(env, env.B, foreignFamily.id, { conditions: { count: 1 }, procedure_code: "D2140" });
});
afterAll(() => env.t.close());

const req = (method: string, path: string, opts: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) =>
  env.t.request(method, path, { ...opts, token: opts.token === null ? undefined : (opts.token ?? env.admin) });
const rulesOf = async (familyId: string, query = "") => (await req("GET", `${F}/${familyId}/rules?page_size=200${query}`)).body;
const countOf = async (familyId: string) => (await rulesOf(familyId)).total as number;
const readRule = async (id: string, P = R) => (await req("GET", `${P}/${id}`)).body;

const sub = (selection_type: string, c: Record<string, unknown>) => ({ selection_type, ...c });

describe("conditions per selection_type", () => {
  test.each([
    ["age", { min_age: 14 }],
    ["age", { max_age: 13 }],
    ["age", { min_age: 6, max_age: 12 }],
    ["arch", { arch: "upper" }],
    ["combined", { all: [sub("tooth_position", { tooth_position: "anterior" }), sub("surface_count", { count: 2 })] }],
    [
      "combined",
      { all: [sub("material", { material_family: ["pfm", "metal"] }), sub("dentition", { dentition: "permanent" }), sub("unit_count", { min_units: 3 })] },
    ],
    ["dentition", { dentition: "primary" }],
    ["material", { material_family: "zirconia" }],
    ["material", { material_family: ["pfm", "metal_high_noble"] }],
    ["surface_count", { count: 3 }],
    ["surface_count", { min_count: 2, max_count: 4 }],
    ["tooth_position", { tooth_position: "posterior" }],
    ["tooth_type", { tooth_type: "molar" }],
    ["tooth_type", { tooth_type: ["incisor", "canine"] }],
    ["unit_count", { min_units: 3 }],
    ["unit_count", { min_units: 2, max_units: 4 }],
  ])("%s accepts %j", async (type, conditions) => {
    const r = await req("POST", `${F}/${families[type]!.id}/rules`, { body: { conditions, procedure_code: "D0100" } });
    expect(r.status).toBe(201);
    expect(r.body.conditions).toEqual(conditions);
  });

  test.each([
    ["age", {}, ["body", "conditions"], "value_error"],
    ["age", { min_age: -1 }, ["body", "conditions", "min_age"], "out_of_range"],
    ["age", { max_age: 131 }, ["body", "conditions", "max_age"], "out_of_range"],
    ["age", { min_age: 20, max_age: 10 }, ["body", "conditions", "min_age"], "value_error"],
    ["age", { min_age: "10" }, ["body", "conditions", "min_age"], "type_error"],
    ["age", { material_family: "zirconia" }, ["body", "conditions", "material_family"], "extra_forbidden"],
    ["arch", {}, ["body", "conditions", "arch"], "missing"],
    ["arch", { arch: "middle" }, ["body", "conditions", "arch"], "enum"],
    ["arch", { arch: "upper", side: "left" }, ["body", "conditions", "side"], "extra_forbidden"],
    ["combined", { all: [sub("arch", { arch: "upper" })] }, ["body", "conditions", "all"], "out_of_range"],
    ["combined", { tooth_position: "anterior" }, ["body", "conditions", "all"], "missing"],
    ["combined", { all: [sub("arch", { arch: "x" }), sub("age", { min_age: 1 })] }, ["body", "conditions", "all", 0, "arch"], "enum"],
    ["combined", { all: [sub("arch", { arch: "upper" }), sub("age", {})] }, ["body", "conditions", "all", 1], "value_error"],
    ["combined", { all: [sub("arch", { arch: "upper" }), { arch: "lower" }] }, ["body", "conditions", "all", 1, "selection_type"], "missing"],
    ["combined", { all: [sub("arch", { arch: "upper" }), sub("combined", { all: [] })] }, ["body", "conditions", "all", 1, "selection_type"], "enum"],
    ["dentition", { dentition: "mixed" }, ["body", "conditions", "dentition"], "enum"],
    ["material", { material_family: "gold" }, ["body", "conditions", "material_family"], "enum"],
    ["material", { material_family: ["pfm", "gold"] }, ["body", "conditions", "material_family", 1], "enum"],
    ["material", { material_family: 7 }, ["body", "conditions", "material_family"], "enum"],
    ["material", { material_family: [] }, ["body", "conditions", "material_family"], "out_of_range"],
    ["surface_count", {}, ["body", "conditions"], "value_error"],
    ["surface_count", { count: 6 }, ["body", "conditions", "count"], "out_of_range"],
    ["surface_count", { count: 0 }, ["body", "conditions", "count"], "out_of_range"],
    ["surface_count", { count: 2, min_count: 1 }, ["body", "conditions", "count"], "value_error"],
    ["surface_count", { min_count: 4, max_count: 2 }, ["body", "conditions", "min_count"], "value_error"],
    ["surface_count", { count: 1.5 }, ["body", "conditions", "count"], "type_error"],
    ["tooth_position", { tooth_position: "molar" }, ["body", "conditions", "tooth_position"], "enum"],
    ["tooth_type", { tooth_type: "wisdom" }, ["body", "conditions", "tooth_type"], "enum"],
    ["unit_count", { min_units: 0 }, ["body", "conditions", "min_units"], "out_of_range"],
    ["unit_count", { min_units: 3, max_units: 2 }, ["body", "conditions", "min_units"], "value_error"],
    ["unit_count", { count: 2 }, ["body", "conditions", "count"], "extra_forbidden"],
  ])("%s refuses %j with 422 invalid_conditions; nothing is created", async (type, conditions, loc, kind) => {
    const id = families[type]!.id;
    const before = await countOf(id);
    const r = await req("POST", `${F}/${id}/rules`, { body: { conditions, procedure_code: "D0100" } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("invalid_conditions");
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type: kind }));
    expect(await countOf(id)).toBe(before);
  });
});

describe("POST /auto-code-families/{family_uuid}/rules", () => {
  test("201 with every field (code upper-cased), defaults; family ref; audited and published", async () => {
    const f = families.surface_count!;
    const r = await req("POST", `${F}/${f.id}/rules`, { body: { conditions: { count: 4 }, procedure_code: " d2161 ", priority: 7, is_active: false } });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      family: { uuid: f.id, name: "By surface_count" },
      conditions: { count: 4 },
      priority: 7,
      procedure_code: "D2161",
      is_active: false,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await readRule(r.body.id)).toEqual(r.body);
    expect(await rule(env, env.A, f.id, { conditions: { count: 1 }, procedure_code: "D2140" })).toMatchObject({ priority: 0, is_active: true });
    expect((await auditOf(env.t, env.orgA, r.body.id)).map((a) => [a.action, a.after.family_id, a.after.procedure_code])).toEqual([
      ["auto_code_rule.created", f.id, "D2161"],
    ]);
    expect(env.events.filter((e) => e.resource_id === r.body.id).map((e) => [e.type, e.data])).toEqual([
      ["auto_code_rule.created", { id: r.body.id, family_id: f.id }],
    ]);
  });

  test.each([
    ["conditions missing", { conditions: undefined }, ["body", "conditions"], "missing"],
    ["conditions not an object", { conditions: "count=1" }, ["body", "conditions"], "type_error"],
    ["conditions an array", { conditions: [{ count: 1 }] }, ["body", "conditions"], "type_error"],
    ["procedure_code missing", { procedure_code: undefined }, ["body", "procedure_code"], "missing"],
    ["procedure_code blank", { procedure_code: " " }, ["body", "procedure_code"], "out_of_range"],
    ["procedure_code with a space", { procedure_code: "D 2140" }, ["body", "procedure_code"], "format"],
    ["priority fractional", { priority: 1.5 }, ["body", "priority"], "type_error"],
    ["priority too high", { priority: 10_001 }, ["body", "priority"], "out_of_range"],
    ["is_active not boolean", { is_active: "no" }, ["body", "is_active"], "type_error"],
    ["family_uuid (from the path)", { family_uuid: MISSING }, ["body", "family_uuid"], "read_only"],
    ["version", { version: 1 }, ["body", "version"], "read_only"],
    ["unknown field", { note: "x" }, ["body", "note"], "extra_forbidden"],
  ])("422 %s; nothing is created", async (_n, fields, loc, type) => {
    const id = families.surface_count!.id;
    const before = await countOf(id);
    const r = await req("POST", `${F}/${id}/rules`, { body: { conditions: { count: 1 }, procedure_code: "D2140", ...fields } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await countOf(id)).toBe(before);
  });

  test("404 when the family is missing, archived or another org's; 422 malformed JSON; 401; 403; 404 non-member — nothing is created", async () => {
    const gone = await family(env, env.A);
    await req("POST", `${F}/${gone.id}/archive`);
    const body = { conditions: { count: 1 }, procedure_code: "D2140" };
    for (const id of [MISSING, gone.id, foreignFamily.id]) {
      expect((await req("POST", `${F}/${id}/rules`, { body })).body).toEqual({ detail: "Auto-code family not found", code: "not_found" });
    }
    expect((await rulesOf(foreignFamily.id)).total).toBeUndefined(); // 404 through org A's path
    const id = families.surface_count!.id;
    const before = await countOf(id);
    expect((await req("POST", `${F}/${id}/rules`, { rawBody: '{"conditions":', headers: { "content-type": "application/json" } })).body.detail[0].type).toBe(
      "json_invalid",
    );
    expect((await req("POST", `${F}/${id}/rules`, { token: null, body })).status).toBe(401);
    expect((await req("POST", `${F}/${id}/rules`, { token: env.reader, body })).status).toBe(403);
    expect((await req("POST", `${F}/${id}/rules`, { token: env.memberOfB, body })).status).toBe(404);
    expect(await countOf(id)).toBe(before);
    expect((await req("GET", `${env.B}/auto-code-families/${foreignFamily.id}/rules`, { token: env.memberOfB })).body.total).toBe(1);
  });
});

describe("GET /auto-code-families/{family_uuid}/rules", () => {
  test("ordered by priority descending, ties in creation order; is_active filter; paged; archived rules excluded", async () => {
    const f = await family(env, env.A, { selection_type: "tooth_type" });
    const low = await rule(env, env.A, f.id, { conditions: { tooth_type: "molar" }, procedure_code: "D0001", priority: -5 });
    const tie1 = await rule(env, env.A, f.id, { conditions: { tooth_type: "molar" }, procedure_code: "D0002", priority: 3 });
    const high = await rule(env, env.A, f.id, { conditions: { tooth_type: "molar" }, procedure_code: "D0003", priority: 9, is_active: false });
    const tie2 = await rule(env, env.A, f.id, { conditions: { tooth_type: "molar" }, procedure_code: "D0004", priority: 3 });
    const gone = await rule(env, env.A, f.id, { conditions: { tooth_type: "molar" }, procedure_code: "D0005", priority: 100 });
    await req("POST", `${R}/${gone.id}/archive`);
    const page = (await req("GET", `${F}/${f.id}/rules`, { token: env.reader })).body;
    expect(page).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(page.items.map((r: { id: string }) => r.id)).toEqual([high.id, tie1.id, tie2.id, low.id]);
    expect((await rulesOf(f.id, "&is_active=false")).items.map((r: { id: string }) => r.id)).toEqual([high.id]);
    expect((await req("GET", `${F}/${f.id}/rules?page=2&page_size=2`)).body.items.map((r: { id: string }) => r.id)).toEqual([tie2.id, low.id]);
  });

  test("404 missing or another org's family; 422 paging and unknown parameters; 401; 403", async () => {
    for (const id of [MISSING, foreignFamily.id]) expect((await req("GET", `${F}/${id}/rules`)).status).toBe(404);
    const id = families.age!.id;
    expect((await req("GET", `${F}/${id}/rules?page_size=201`)).body.detail[0]).toMatchObject({ loc: ["query", "page_size"], type: "out_of_range" });
    expect((await req("GET", `${F}/${id}/rules?priority=1`)).body.detail[0]).toMatchObject({ loc: ["query", "priority"], type: "extra_forbidden" });
    expect((await req("GET", `${F}/${id}/rules`, { token: null })).status).toBe(401);
    expect((await req("GET", `${F}/${id}/rules`, { token: env.outsider })).status).toBe(403);
    expect((await req("GET", `${F}/${id}/rules`, { token: env.memberOfB })).status).toBe(404);
  });
});

describe("GET /auto-code-rules/{rule_uuid}", () => {
  test("200 with ETag; 404 missing, archived or another org's; 401; 403", async () => {
    const r0 = await rule(env, env.A, families.arch!.id, { conditions: { arch: "lower" }, procedure_code: "D5120" });
    const r = await req("GET", `${R}/${r0.id}`, { token: env.reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(r0);
    const gone = await rule(env, env.A, families.arch!.id, { conditions: { arch: "upper" }, procedure_code: "D5110" });
    await req("POST", `${R}/${gone.id}/archive`);
    for (const id of [MISSING, gone.id, foreignRule.id])
      expect((await req("GET", `${R}/${id}`)).body).toEqual({ detail: "Auto-code rule not found", code: "not_found" });
    expect((await req("GET", `${R}/${r0.id}`, { token: null })).status).toBe(401);
    expect((await req("GET", `${R}/${r0.id}`, { token: env.outsider })).status).toBe(403);
    expect((await req("GET", `${R}/${r0.id}`, { token: env.memberOfB })).status).toBe(404);
  });
});

describe("PATCH /auto-code-rules/{rule_uuid}", () => {
  test("200 changes conditions (checked against the family), code, priority and is_active; audited and published", async () => {
    const r0 = await rule(env, env.A, families.dentition!.id, { conditions: { dentition: "primary" }, procedure_code: "D1351" });
    const r = await req("PATCH", `${R}/${r0.id}`, {
      body: { base_version: 1, conditions: { dentition: "permanent" }, procedure_code: "d1352", priority: 4, is_active: false },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toMatchObject({
      conditions: { dentition: "permanent" },
      procedure_code: "D1352",
      priority: 4,
      is_active: false,
      version: 2,
      family: r0.family,
    });
    expect(await readRule(r0.id)).toEqual(r.body);
    expect((await auditOf(env.t, env.orgA, r0.id)).map((a) => a.action)).toEqual(["auto_code_rule.created", "auto_code_rule.updated"]);
    const ev = env.events.find((e) => e.resource_id === r0.id && e.type === "auto_code_rule.updated")!;
    expect([...(ev.data.changed_fields as string[])].sort()).toEqual(["conditions", "is_active", "priority", "procedure_code"]);
  });

  test("422 invalid conditions for the family, read-only family, bad fields; 409 stale; 404 other org; 401; 403 — unchanged", async () => {
    const r0 = await rule(env, env.A, families.dentition!.id, { conditions: { dentition: "primary" }, procedure_code: "D1351" });
    const path = `${R}/${r0.id}`;
    const bad = await req("PATCH", path, { body: { base_version: 1, conditions: { arch: "upper" } } });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("invalid_conditions");
    expect(bad.body.detail).toContainEqual(expect.objectContaining({ loc: ["body", "conditions", "arch"], type: "extra_forbidden" }));
    for (const [body, loc, type] of [
      [{ base_version: 1, family_uuid: families.arch!.id }, ["body", "family_uuid"], "read_only"],
      [{ base_version: 1, family: null }, ["body", "family"], "read_only"],
      [{ conditions: { dentition: "primary" } }, ["body", "base_version"], "missing"],
      [{ base_version: 1, priority: "high" }, ["body", "priority"], "type_error"],
      [{ base_version: 1, procedure_code: "" }, ["body", "procedure_code"], "out_of_range"],
    ] as const) {
      const r = await req("PATCH", path, { body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await req("PATCH", path, { rawBody: "{", headers: { "content-type": "application/json" } })).status).toBe(422);
    expect(await readRule(r0.id)).toEqual(r0);
    await req("PATCH", path, { body: { base_version: 1, priority: 2 } });
    const stale = await req("PATCH", path, { body: { base_version: 1, priority: 3 } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect(await readRule(r0.id)).toMatchObject({ priority: 2, version: 2 });
    for (const id of [MISSING, foreignRule.id]) expect((await req("PATCH", `${R}/${id}`, { body: { base_version: 1, priority: 9 } })).status).toBe(404);
    expect((await req("PATCH", path, { token: null, body: { base_version: 2, priority: 9 } })).status).toBe(401);
    expect((await req("PATCH", path, { token: env.reader, body: { base_version: 2, priority: 9 } })).status).toBe(403);
    expect((await req("PATCH", path, { token: env.memberOfB, body: { base_version: 2, priority: 9 } })).status).toBe(404);
    expect(await readRule(r0.id)).toMatchObject({ priority: 2, version: 2 });
    expect(await readRule(foreignRule.id, `${env.B}/auto-code-rules`)).toEqual(foreignRule);
  });
});

describe("POST /auto-code-rules/{rule_uuid}/archive", () => {
  test("200 sets deleted_at; audited and published; 404 afterwards, for missing and for another org's; 401; 403", async () => {
    const r0 = await rule(env, env.A, families.unit_count!.id, { conditions: { min_units: 3 }, procedure_code: "D6240" });
    const kept = await rule(env, env.A, families.unit_count!.id, { conditions: { min_units: 2 }, procedure_code: "D6245" });
    expect((await req("POST", `${R}/${kept.id}/archive`, { token: null })).status).toBe(401);
    expect((await req("POST", `${R}/${kept.id}/archive`, { token: env.reader })).status).toBe(403);
    expect((await req("POST", `${R}/${kept.id}/archive`, { token: env.memberOfB })).status).toBe(404);
    for (const id of [MISSING, foreignRule.id]) expect((await req("POST", `${R}/${id}/archive`)).status).toBe(404);
    expect(await readRule(kept.id)).toEqual(kept);
    expect(await readRule(foreignRule.id, `${env.B}/auto-code-rules`)).toEqual(foreignRule);
    const r = await req("POST", `${R}/${r0.id}/archive`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: r0.id, version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(env.t, env.orgA, r0.id)).map((a) => a.action)).toEqual(["auto_code_rule.created", "auto_code_rule.archived"]);
    expect(env.events.filter((e) => e.resource_id === r0.id).map((e) => e.type)).toEqual(["auto_code_rule.created", "auto_code_rule.archived"]);
    expect((await req("POST", `${R}/${r0.id}/archive`)).status).toBe(404);
    expect((await rulesOf(families.unit_count!.id)).items.map((x: { id: string }) => x.id)).not.toContain(r0.id);
  });
});

describe("requires_material_family (derived)", () => {
  test("true while an active rule (or a combined rule's part) needs material_family", async () => {
    const f = await family(env, env.A, { selection_type: "combined" });
    const flag = async () => (await req("GET", `${F}/${f.id}`)).body.requires_material_family;
    await rule(env, env.A, f.id, {
      conditions: { all: [sub("arch", { arch: "upper" }), sub("dentition", { dentition: "permanent" })] },
      procedure_code: "D0001",
    });
    expect(await flag()).toBe(false);
    const m = await rule(env, env.A, f.id, {
      conditions: { all: [sub("arch", { arch: "upper" }), sub("material", { material_family: "zirconia" })] },
      procedure_code: "D2740",
    });
    expect(await flag()).toBe(true);
    expect((await req("GET", `${F}?search=${f.family_name}`)).body.items[0].requires_material_family).toBe(true);
    await req("PATCH", `${R}/${m.id}`, { body: { base_version: 1, is_active: false } });
    expect(await flag()).toBe(false);
    await req("PATCH", `${R}/${m.id}`, { body: { base_version: 2, is_active: true } });
    expect(await flag()).toBe(true);
    await req("POST", `${R}/${m.id}/archive`);
    expect(await flag()).toBe(false);
  });
});
