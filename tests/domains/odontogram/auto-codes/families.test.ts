import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { autoCodeApp, family, MISSING, rule, type Env } from "./fixtures";

let env: Env;
let F: string; // families of org A
let FB: string;
beforeAll(async () => {
  env = await autoCodeApp();
  F = `${env.A}/auto-code-families`;
  FB = `${env.B}/auto-code-families`;
});
afterAll(() => env.t.close());

const req = (method: string, path: string, opts: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) =>
  env.t.request(method, path, { ...opts, token: opts.token === null ? undefined : (opts.token ?? env.admin) });
const read = async (id: string, P = F) => (await req("GET", `${P}/${id}`)).body;
const total = async () => (await req("GET", `${F}?page_size=1`)).body.total as number;

const SEEDED = ["amalgam", "complete_denture", "composite", "crown", "extraction", "prophylaxis", "root_canal", "sealant"];

describe("seeded families", () => {
  test("a new org has the classic families with their rules; only crown needs material_family", async () => {
    const org = (await env.t.createOrg()).id;
    const P = `/api/v1/${org}/odontogram/auto-codes/auto-code-families`;
    const page = (await req("GET", P)).body;
    expect(page.total).toBe(SEEDED.length);
    const byName = Object.fromEntries(page.items.map((f: { family_name: string }) => [f.family_name, f]));
    expect(Object.keys(byName).sort()).toEqual(SEEDED);
    expect(byName.composite).toMatchObject({
      selection_type: "combined",
      base_procedure_code: null,
      is_active: true,
      requires_material_family: false,
      version: 1,
    });
    expect(byName.crown).toMatchObject({ selection_type: "material", requires_material_family: true });
    expect(byName.extraction).toMatchObject({ selection_type: "dentition", base_procedure_code: "D7140" });
    expect(
      page.items.filter((f: { requires_material_family: boolean }) => f.requires_material_family).map((f: { family_name: string }) => f.family_name),
    ).toEqual(["crown"]);
    const codes = async (name: string) =>
      (await req("GET", `${P}/${byName[name].id}/rules`)).body.items.map((r: { procedure_code: string }) => r.procedure_code);
    expect(await codes("composite")).toEqual(["D2330", "D2331", "D2332", "D2335", "D2391", "D2392", "D2393", "D2394"]);
    expect(await codes("amalgam")).toEqual(["D2140", "D2150", "D2160", "D2161"]);
    expect(await codes("root_canal")).toEqual(["D3310", "D3320", "D3330"]);
    expect(await codes("crown")).toEqual(expect.arrayContaining(["D2740", "D2750", "D2790"]));
    expect(await codes("sealant")).toEqual(["D1351", "D1351"]);
    expect(await codes("extraction")).toEqual([]);
  });
});

describe("GET /auto-code-families", () => {
  test("pages (default 50) and filters by is_active, selection_type and search over family and display name", async () => {
    const off = await family(env, env.A, { family_name: "zz_off", display_name: "Quiet family", is_active: false, selection_type: "unit_count" });
    const page = (await req("GET", F)).body;
    expect(page).toMatchObject({ page: 1, page_size: 50, total: SEEDED.length + 1 });
    const names = page.items.map((f: { display_name: string }) => f.display_name);
    expect(names).toEqual([...names].sort());
    expect((await req("GET", `${F}?is_active=false`)).body.items.map((f: { id: string }) => f.id)).toEqual([off.id]);
    expect((await req("GET", `${F}?is_active=true`)).body.total).toBe(SEEDED.length);
    expect((await req("GET", `${F}?selection_type=unit_count`)).body.items.map((f: { id: string }) => f.id)).toEqual([off.id]);
    expect((await req("GET", `${F}?search=QUIET`)).body.items.map((f: { id: string }) => f.id)).toEqual([off.id]);
    expect((await req("GET", `${F}?search=root_`)).body.items.map((f: { family_name: string }) => f.family_name)).toEqual(["root_canal"]);
    const p2 = (await req("GET", `${F}?page=2&page_size=3`)).body;
    expect(p2.items.map((f: { id: string }) => f.id)).toEqual(page.items.slice(3, 6).map((f: { id: string }) => f.id));
    // another org's families never appear
    const foreign = await family(env, env.B, { display_name: "Foreign" });
    expect((await req("GET", `${F}?page_size=200`)).body.items.map((f: { id: string }) => f.id)).not.toContain(foreign.id);
  });

  test.each([
    ["page_size above 200", "page_size=201", ["query", "page_size"], "out_of_range"],
    ["page 0", "page=0", ["query", "page"], "out_of_range"],
    ["is_active not boolean", "is_active=yes", ["query", "is_active"], "enum"],
    ["unknown selection_type", "selection_type=colour", ["query", "selection_type"], "enum"],
    ["unknown parameter", "status=active", ["query", "status"], "extra_forbidden"],
  ])("422 %s", async (_n, query, loc, type) => {
    const r = await req("GET", `${F}?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401, 403 without odontogram.read, 404 for a non-member", async () => {
    expect((await req("GET", F, { token: null })).status).toBe(401);
    expect((await req("GET", F, { token: env.outsider })).status).toBe(403);
    expect((await req("GET", F, { token: env.memberOfB })).status).toBe(404);
    expect((await req("GET", F, { token: env.reader })).status).toBe(200);
  });
});

describe("POST /auto-code-families", () => {
  test("201 with every field; defaults; audited and published", async () => {
    const r = await req("POST", F, {
      body: {
        family_name: " onlay ",
        display_name: "Onlay",
        selection_type: "material",
        description: "Indirect restorations",
        base_procedure_code: "d2542",
        is_active: false,
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      family_name: "onlay",
      display_name: "Onlay",
      selection_type: "material",
      description: "Indirect restorations",
      base_procedure_code: "D2542",
      is_active: false,
      requires_material_family: false,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const min = await family(env, env.A, { display_name: "Minimal" });
    expect(min).toMatchObject({ description: null, base_procedure_code: null, is_active: true, requires_material_family: false });
    expect((await auditOf(env.t, env.orgA, r.body.id)).map((a) => [a.action, a.resource_type, a.after.family_name])).toEqual([
      ["auto_code_family.created", "auto_code_family", "onlay"],
    ]);
    expect(env.events.filter((e) => e.resource_id === r.body.id).map((e) => [e.type, e.data])).toEqual([
      ["auto_code_family.created", { id: r.body.id, selection_type: "material" }],
    ]);
  });

  test("409 duplicate family_name (ignoring case) among live families; an archived family frees the name; names are per org", async () => {
    const first = await family(env, env.A, { family_name: "inlay" });
    const count = await total();
    for (const name of ["inlay", "INLAY", " Inlay "]) {
      const r = await req("POST", F, { body: { family_name: name, display_name: "Dup", selection_type: "material" } });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: "An auto-code family with this family_name already exists", code: "duplicate" });
    }
    expect(await total()).toBe(count);
    expect((await family(env, env.B, { family_name: "inlay" })).family_name).toBe("inlay");
    await req("POST", `${F}/${first.id}/archive`);
    expect((await family(env, env.A, { family_name: "Inlay" })).family_name).toBe("Inlay");
  });

  test.each([
    ["family_name missing", { family_name: undefined }, ["body", "family_name"], "missing"],
    ["family_name blank", { family_name: "  " }, ["body", "family_name"], "out_of_range"],
    ["family_name too long", { family_name: "x".repeat(101) }, ["body", "family_name"], "out_of_range"],
    ["display_name missing", { display_name: undefined }, ["body", "display_name"], "missing"],
    ["display_name not a string", { display_name: 3 }, ["body", "display_name"], "type_error"],
    ["selection_type missing", { selection_type: undefined }, ["body", "selection_type"], "missing"],
    ["selection_type unknown", { selection_type: "colour" }, ["body", "selection_type"], "enum"],
    ["base_procedure_code with spaces", { base_procedure_code: "D 2391" }, ["body", "base_procedure_code"], "format"],
    ["base_procedure_code too long", { base_procedure_code: "D".repeat(21) }, ["body", "base_procedure_code"], "out_of_range"],
    ["is_active not boolean", { is_active: "true" }, ["body", "is_active"], "type_error"],
    ["description too long", { description: "x".repeat(2001) }, ["body", "description"], "out_of_range"],
    ["derived requires_material_family", { requires_material_family: true }, ["body", "requires_material_family"], "read_only"],
    ["id", { id: MISSING }, ["body", "id"], "read_only"],
    ["unknown field", { rules: [] }, ["body", "rules"], "extra_forbidden"],
  ])("422 %s; nothing is created", async (_n, fields, loc, type) => {
    const count = await total();
    const r = await req("POST", F, { body: { family_name: "valid_name", display_name: "Valid", selection_type: "age", ...fields } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await total()).toBe(count);
  });

  test("422 malformed JSON; 401; 403 without odontogram.write; 404 for a non-member; nothing is created", async () => {
    const count = await total();
    const body = { family_name: "nope", display_name: "Nope", selection_type: "age" };
    expect((await req("POST", F, { rawBody: "{nope", headers: { "content-type": "application/json" } })).body.detail[0].type).toBe("json_invalid");
    expect((await req("POST", F, { token: null, body })).status).toBe(401);
    expect((await req("POST", F, { token: env.reader, body })).status).toBe(403);
    expect((await req("POST", F, { token: env.outsider, body })).status).toBe(403);
    expect((await req("POST", F, { token: env.memberOfB, body })).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /auto-code-families/{family_uuid}", () => {
  test("200 with ETag; 404 missing, archived, another org's; 401; 403", async () => {
    const f = await family(env, env.A);
    const r = await req("GET", `${F}/${f.id}`, { token: env.reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(f);
    const foreign = await family(env, env.B);
    const gone = await family(env, env.A);
    await req("POST", `${F}/${gone.id}/archive`);
    for (const id of [MISSING, foreign.id, gone.id])
      expect((await req("GET", `${F}/${id}`)).body).toEqual({ detail: "Auto-code family not found", code: "not_found" });
    expect((await req("GET", `${F}/${f.id}`, { token: null })).status).toBe(401);
    expect((await req("GET", `${F}/${f.id}`, { token: env.outsider })).status).toBe(403);
    expect((await req("GET", `${F}/${f.id}`, { token: env.memberOfB })).status).toBe(404);
  });
});

describe("PATCH /auto-code-families/{family_uuid}", () => {
  test("200 changes display fields, base code and is_active; audited and published with changed fields", async () => {
    const f = await family(env, env.A, { display_name: "Before" });
    const r = await req("PATCH", `${F}/${f.id}`, {
      body: { base_version: 1, display_name: "After", description: "Now described", base_procedure_code: "D9999", is_active: false },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toMatchObject({
      family_name: f.family_name,
      display_name: "After",
      description: "Now described",
      base_procedure_code: "D9999",
      is_active: false,
      version: 2,
    });
    expect(await read(f.id)).toEqual(r.body);
    expect((await auditOf(env.t, env.orgA, f.id)).map((a) => a.action)).toEqual(["auto_code_family.created", "auto_code_family.updated"]);
    const ev = env.events.find((e) => e.resource_id === f.id && e.type === "auto_code_family.updated")!;
    expect([...(ev.data.changed_fields as string[])].sort()).toEqual(["base_procedure_code", "description", "display_name", "is_active"]);
    expect((await req("PATCH", `${F}/${f.id}`, { body: { base_version: 2, base_procedure_code: null } })).body.base_procedure_code).toBeNull();
  });

  test.each([
    ["family_name (immutable)", { base_version: 1, family_name: "renamed" }, ["body", "family_name"], "read_only"],
    ["selection_type (immutable)", { base_version: 1, selection_type: "age" }, ["body", "selection_type"], "read_only"],
    ["requires_material_family (derived)", { base_version: 1, requires_material_family: true }, ["body", "requires_material_family"], "read_only"],
    ["base_version missing", { display_name: "X" }, ["body", "base_version"], "missing"],
    ["display_name blank", { base_version: 1, display_name: "" }, ["body", "display_name"], "out_of_range"],
    ["is_active wrong type", { base_version: 1, is_active: 1 }, ["body", "is_active"], "type_error"],
    ["unknown field", { base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
  ])("422 %s; unchanged", async (_n, body, loc, type) => {
    const f = await family(env, env.A);
    const r = await req("PATCH", `${F}/${f.id}`, { body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await read(f.id)).toEqual(f);
  });

  test("409 stale base_version; 404 missing or another org's; 401; 403; malformed JSON — unchanged", async () => {
    const f = await family(env, env.A);
    await req("PATCH", `${F}/${f.id}`, { body: { base_version: 1, display_name: "One" } });
    const stale = await req("PATCH", `${F}/${f.id}`, { body: { base_version: 1, display_name: "Two" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const foreign = await family(env, env.B);
    for (const id of [MISSING, foreign.id]) expect((await req("PATCH", `${F}/${id}`, { body: { base_version: 1, display_name: "X" } })).status).toBe(404);
    expect((await req("PATCH", `${F}/${f.id}`, { token: null, body: { base_version: 2, display_name: "X" } })).status).toBe(401);
    expect((await req("PATCH", `${F}/${f.id}`, { token: env.reader, body: { base_version: 2, display_name: "X" } })).status).toBe(403);
    expect((await req("PATCH", `${F}/${f.id}`, { token: env.memberOfB, body: { base_version: 2, display_name: "X" } })).status).toBe(404);
    expect((await req("PATCH", `${F}/${f.id}`, { rawBody: "[", headers: { "content-type": "application/json" } })).status).toBe(422);
    expect(await read(f.id)).toMatchObject({ display_name: "One", version: 2 });
    expect(await read(foreign.id, FB)).toEqual(foreign);
  });
});

describe("POST /auto-code-families/{family_uuid}/archive", () => {
  test("soft-deletes the family and all its rules, each audited; they leave every read", async () => {
    const f = await family(env, env.A, { selection_type: "surface_count" });
    const r1 = await rule(env, env.A, f.id, { conditions: { count: 1 }, procedure_code: "D0001" });
    const r2 = await rule(env, env.A, f.id, { conditions: { count: 2 }, procedure_code: "D0002" });
    const r = await req("POST", `${F}/${f.id}/archive`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: f.id, version: 2, deleted_at: expect.stringMatching(/Z$/) });
    for (const id of [r1.id, r2.id]) {
      expect((await req("GET", `${env.A}/auto-code-rules/${id}`)).status).toBe(404);
      expect((await auditOf(env.t, env.orgA, id)).map((a) => a.action)).toEqual(["auto_code_rule.created", "auto_code_rule.archived"]);
      expect(env.events.filter((e) => e.resource_id === id).map((e) => e.type)).toEqual(["auto_code_rule.created", "auto_code_rule.archived"]);
    }
    expect((await auditOf(env.t, env.orgA, f.id)).map((a) => a.action)).toEqual(["auto_code_family.created", "auto_code_family.archived"]);
    expect((await req("GET", `${F}/${f.id}/rules`)).status).toBe(404);
    expect((await req("GET", `${F}/${f.id}`)).status).toBe(404);
    expect((await req("POST", `${env.A}/resolve`, { body: { family_uuid: f.id, context: {} } })).status).toBe(404);
    expect((await req("POST", `${F}/${f.id}/archive`)).status).toBe(404);
  });

  test("404 missing or another org's; 401; 403 — the family and its rules are unchanged", async () => {
    const f = await family(env, env.A);
    const kept = await rule(env, env.A, f.id, { conditions: { count: 3 }, procedure_code: "D0003" });
    const foreign = await family(env, env.B);
    const foreignRule = await rule(env, env.B, foreign.id, { conditions: { count: 1 }, procedure_code: "D0001" });
    for (const id of [MISSING, foreign.id]) expect((await req("POST", `${F}/${id}/archive`)).status).toBe(404);
    expect((await req("POST", `${F}/${f.id}/archive`, { token: null })).status).toBe(401);
    expect((await req("POST", `${F}/${f.id}/archive`, { token: env.reader })).status).toBe(403);
    expect((await req("POST", `${F}/${f.id}/archive`, { token: env.memberOfB })).status).toBe(404);
    expect(await read(f.id)).toEqual(f);
    expect((await req("GET", `${env.A}/auto-code-rules/${kept.id}`)).body).toEqual(kept);
    expect(await read(foreign.id, FB)).toEqual(foreign);
    expect((await req("GET", `${env.B}/auto-code-rules/${foreignRule.id}`)).body).toEqual(foreignRule);
  });
});
