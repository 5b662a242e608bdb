import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { autoCodeApp, family, MISSING, rule, type Env } from "./fixtures";
import { toothOf } from "@/domains/codes/dental-vocabulary";

let env: Env;
let resolvePath: string;
beforeAll(async () => {
  env = await autoCodeApp();
  resolvePath = `${env.A}/resolve`;
});
afterAll(() => env.t.close());

const resolve = (body: unknown, token: string | null = env.admin, path = resolvePath) => env.t.request("POST", path, { token: token ?? undefined, body });
const sub = (selection_type: string, c: Record<string, unknown>) => ({ selection_type, ...c });

describe("Universal tooth numbering", () => {
  test("every permanent and primary tooth has its arch, dentition, type and position", () => {
    const permanent = "MMMPPCIIIICPPMMM".split(""); // 1-16 and, mirrored, 17-32
    for (let n = 1; n <= 32; n++) {
      const kind = permanent[(n - 1) % 16]!;
      const type = { M: "molar", P: "premolar", C: "canine", I: "incisor" }[kind];
      expect(toothOf(n)).toEqual({
        tooth: String(n),
        dentition: "permanent",
        arch: n <= 16 ? "upper" : "lower",
        tooth_type: type as never,
        tooth_position: kind === "I" || kind === "C" ? "anterior" : "posterior",
      });
    }
    const primary = "MMCIIIICMM".split(""); // A-J and K-T
    for (let i = 0; i < 20; i++) {
      const letter = String.fromCharCode(65 + i);
      const kind = primary[i % 10]!;
      expect(toothOf(letter.toLowerCase())).toEqual({
        tooth: letter,
        dentition: "primary",
        arch: i < 10 ? "upper" : "lower",
        tooth_type: ({ M: "molar", C: "canine", I: "incisor" } as const)[kind as "M"],
        tooth_position: kind === "M" ? "posterior" : "anterior",
      });
    }
    for (const bad of [0, 33, "U", "1.5", 1.5, "", "AA", "08"]) expect(toothOf(bad)).toBeNull();
  });
});

// One family per selection_type: its rules [conditions, code, priority?], base code, and cases [context, code, source, missing_context?].
type Case = [Record<string, unknown>, string | null, "rule" | "base" | "none", string[]?];
const TABLE: { type: string; rules: [Record<string, unknown>, string][]; base?: string; cases: Case[] }[] = [
  {
    type: "age",
    rules: [
      [{ min_age: 14 }, "D1110"],
      [{ min_age: 6, max_age: 13 }, "D1120"],
    ],
    base: "D1999",
    cases: [
      [{ patient_age: 14 }, "D1110", "rule"],
      [{ patient_age: 130 }, "D1110", "rule"],
      [{ patient_age: 13 }, "D1120", "rule"],
      [{ patient_age: 6 }, "D1120", "rule"],
      [{ patient_age: 5 }, "D1999", "base"],
      [{ tooth: 3 }, "D1999", "base", ["patient_age"]],
    ],
  },
  {
    type: "arch",
    rules: [
      [{ arch: "upper" }, "D5110"],
      [{ arch: "lower" }, "D5120"],
    ],
    cases: [
      [{ tooth: 3 }, "D5110", "rule"],
      [{ tooth: 16 }, "D5110", "rule"],
      [{ tooth: 17 }, "D5120", "rule"],
      [{ tooth: "A" }, "D5110", "rule"],
      [{ tooth: "k" }, "D5120", "rule"],
      [{ arch: "lower" }, "D5120", "rule"],
      [{ tooth: 30, arch: "lower" }, "D5120", "rule"],
      [{}, null, "none", ["tooth"]],
    ],
  },
  {
    type: "combined",
    rules: [
      ...["D2330", "D2331", "D2332"].map((code, i): [Record<string, unknown>, string] => [
        { all: [sub("tooth_position", { tooth_position: "anterior" }), sub("surface_count", { count: i + 1 })] },
        code,
      ]),
      [{ all: [sub("tooth_position", { tooth_position: "anterior" }), sub("surface_count", { min_count: 4 })] }, "D2335"],
      [{ all: [sub("tooth_type", { tooth_type: "molar" }), sub("surface_count", { count: 1 }), sub("dentition", { dentition: "permanent" })] }, "D2391"],
      [{ all: [sub("tooth_position", { tooth_position: "posterior" }), sub("surface_count", { min_count: 2, max_count: 3 })] }, "D2392"],
    ],
    cases: [
      [{ tooth: 8, surfaces: "M" }, "D2330", "rule"],
      [{ tooth: 9, surfaces: "MI" }, "D2331", "rule"],
      [{ tooth: 22, surfaces: "MID" }, "D2332", "rule"],
      [{ tooth: 7, surfaces: "MIDF" }, "D2335", "rule"],
      [{ tooth: 3, surfaces: "O" }, "D2391", "rule"],
      [{ tooth: "A", surfaces: "O" }, null, "none"],
      [{ tooth: 5, surfaces: "O" }, null, "none"],
      [{ tooth: 30, surfaces: "mod" }, "D2392", "rule"],
      [{ tooth: 8 }, null, "none", ["surfaces"]],
      [{ surfaces: "MO" }, null, "none", ["tooth"]],
    ],
  },
  {
    type: "dentition",
    rules: [
      [{ dentition: "permanent" }, "P1"],
      [{ dentition: "primary" }, "P0"],
    ],
    cases: [
      [{ tooth: 14 }, "P1", "rule"],
      [{ tooth: "14" }, "P1", "rule"],
      [{ tooth: "T" }, "P0", "rule"],
      [{ tooth: "t" }, "P0", "rule"],
      [{ patient_age: 4 }, null, "none", ["tooth"]],
    ],
  },
  {
    type: "material",
    rules: [
      [{ material_family: ["porcelain", "zirconia"] }, "D2740"],
      [{ material_family: "pfm_high_noble" }, "D2750"],
    ],
    cases: [
      [{ material_family: "zirconia" }, "D2740", "rule"],
      [{ material_family: "porcelain", tooth: 8 }, "D2740", "rule"],
      [{ material_family: "pfm_high_noble" }, "D2750", "rule"],
      [{ material_family: "amalgam" }, null, "none"],
      [{ tooth: 8 }, null, "none", ["material_family"]],
    ],
  },
  {
    type: "surface_count",
    rules: [
      [{ count: 1 }, "D2140"],
      [{ count: 2 }, "D2150"],
      [{ min_count: 3, max_count: 4 }, "D2160"],
    ],
    base: "D2161",
    cases: [
      [{ surfaces: "O" }, "D2140", "rule"],
      [{ surfaces: "MO" }, "D2150", "rule"],
      [{ surfaces: "mod" }, "D2160", "rule"],
      [{ surfaces: "MODB" }, "D2160", "rule"],
      [{ surfaces: "MODBL" }, "D2161", "base"],
      [{ tooth: 30 }, "D2161", "base", ["surfaces"]],
    ],
  },
  {
    type: "tooth_position",
    rules: [
      [{ tooth_position: "anterior" }, "ANT"],
      [{ tooth_position: "posterior" }, "POST"],
    ],
    cases: [
      [{ tooth: 6 }, "ANT", "rule"],
      [{ tooth: 11 }, "ANT", "rule"],
      [{ tooth: 27 }, "ANT", "rule"],
      [{ tooth: 4 }, "POST", "rule"],
      [{ tooth: 32 }, "POST", "rule"],
      [{ tooth: "C" }, "ANT", "rule"],
      [{ tooth: "B" }, "POST", "rule"],
      [{ tooth: "D" }, "ANT", "rule"],
      [{ surfaces: "O" }, null, "none", ["tooth"]],
    ],
  },
  {
    type: "tooth_type",
    rules: [
      [{ tooth_type: ["incisor", "canine"] }, "D3310"],
      [{ tooth_type: "premolar" }, "D3320"],
      [{ tooth_type: "molar" }, "D3330"],
    ],
    cases: [
      [{ tooth: 8 }, "D3310", "rule"],
      [{ tooth: 6 }, "D3310", "rule"],
      [{ tooth: 5 }, "D3320", "rule"],
      [{ tooth: 12 }, "D3320", "rule"],
      [{ tooth: 20 }, "D3320", "rule"],
      [{ tooth: 29 }, "D3320", "rule"],
      [{ tooth: 1 }, "D3330", "rule"],
      [{ tooth: 19 }, "D3330", "rule"],
      [{ tooth: 32 }, "D3330", "rule"],
      [{ tooth: "A" }, "D3330", "rule"],
      [{ tooth: "E" }, "D3310", "rule"],
      [{}, null, "none", ["tooth"]],
    ],
  },
  {
    type: "unit_count",
    rules: [
      [{ min_units: 1, max_units: 2 }, "U2"],
      [{ min_units: 3 }, "U3"],
    ],
    cases: [
      [{ unit_count: 1 }, "U2", "rule"],
      [{ unit_count: 2 }, "U2", "rule"],
      [{ unit_count: 3 }, "U3", "rule"],
      [{ unit_count: 32 }, "U3", "rule"],
      [{ tooth: 3 }, null, "none", ["unit_count"]],
    ],
  },
];

describe("POST /auto-codes/resolve: every selection_type", () => {
  for (const row of TABLE) {
    test(`${row.type}: ${row.cases.length} contexts`, async () => {
      const f = await family(env, env.A, { selection_type: row.type, base_procedure_code: row.base ?? null });
      const ids = [];
      for (const [conditions, procedure_code] of row.rules) ids.push((await rule(env, env.A, f.id, { conditions, procedure_code })).id);
      for (const [context, code, source, missing] of row.cases) {
        const r = await resolve({ family_uuid: f.id, context });
        const ruleId = source === "rule" ? ids[row.rules.findIndex(([, c]) => c === code)] : null;
        expect({ context, status: r.status, body: r.body }).toEqual({
          context,
          status: 200,
          body: {
            procedure_code: code,
            matched: source === "rule",
            source,
            rule_uuid: ruleId,
            family_uuid: f.id,
            family_name: f.family_name,
            missing_context: missing ?? [],
          },
        });
      }
    });
  }
});

describe("POST /auto-codes/resolve: evaluation order", () => {
  test("highest priority first, ties in creation order; inactive and archived rules are skipped; missing_context names what earlier rules lacked", async () => {
    const f = await family(env, env.A, { selection_type: "combined", base_procedure_code: "BASE" });
    const molar = sub("tooth_type", { tooth_type: "molar" });
    await rule(env, env.A, f.id, { conditions: { all: [molar, sub("surface_count", { count: 1 })] }, procedure_code: "LOW", priority: 1 });
    const tieFirst = await rule(env, env.A, f.id, {
      conditions: { all: [molar, sub("dentition", { dentition: "permanent" })] },
      procedure_code: "TIE1",
      priority: 5,
    });
    await rule(env, env.A, f.id, { conditions: { all: [molar, sub("dentition", { dentition: "permanent" })] }, procedure_code: "TIE2", priority: 5 });
    const off = await rule(env, env.A, f.id, {
      conditions: { all: [molar, sub("arch", { arch: "upper" })] },
      procedure_code: "OFF",
      priority: 50,
      is_active: false,
    });
    const gone = await rule(env, env.A, f.id, { conditions: { all: [molar, sub("arch", { arch: "upper" })] }, procedure_code: "GONE", priority: 60 });
    await env.t.request("POST", `${env.A}/auto-code-rules/${gone.id}/archive`, { token: env.admin });
    const material = await rule(env, env.A, f.id, {
      conditions: { all: [molar, sub("material", { material_family: "zirconia" })] },
      procedure_code: "ZIR",
      priority: 10,
    });

    expect((await resolve({ family_uuid: f.id, context: { tooth: 3, surfaces: "O" } })).body).toMatchObject({
      procedure_code: "TIE1",
      rule_uuid: tieFirst.id,
      missing_context: ["material_family"],
    });
    expect((await resolve({ family_uuid: f.id, context: { tooth: 3, material_family: "zirconia" } })).body).toMatchObject({
      procedure_code: "ZIR",
      rule_uuid: material.id,
      missing_context: [],
    });
    // the primary molar fails the permanent rules and the surface rule lacks surfaces: the base code answers
    expect((await resolve({ family_uuid: f.id, context: { tooth: "A" } })).body).toMatchObject({
      procedure_code: "BASE",
      source: "base",
      matched: false,
      missing_context: ["material_family", "surfaces"],
    });
    // turning the inactive rule on puts it first
    await env.t.request("PATCH", `${env.A}/auto-code-rules/${off.id}`, { token: env.admin, body: { base_version: 1, is_active: true } });
    expect((await resolve({ family_uuid: f.id, context: { tooth: 3 } })).body).toMatchObject({ procedure_code: "OFF", rule_uuid: off.id });
  });

  test("an inactive family checks no rules: its base code or null", async () => {
    const f = await family(env, env.A, { selection_type: "arch", base_procedure_code: "D5000", is_active: false });
    await rule(env, env.A, f.id, { conditions: { arch: "upper" }, procedure_code: "D5110" });
    expect((await resolve({ family_uuid: f.id, context: { tooth: 3 } })).body).toMatchObject({
      procedure_code: "D5000",
      source: "base",
      matched: false,
      rule_uuid: null,
    });
    await env.t.request("PATCH", `${env.A}/auto-code-families/${f.id}`, { token: env.admin, body: { base_version: 1, base_procedure_code: null } });
    expect((await resolve({ family_uuid: f.id, context: { tooth: 3 } })).body).toMatchObject({ procedure_code: null, source: "none", matched: false });
    await env.t.request("PATCH", `${env.A}/auto-code-families/${f.id}`, { token: env.admin, body: { base_version: 2, is_active: true } });
    expect((await resolve({ family_uuid: f.id, context: { tooth: 3 } })).body).toMatchObject({ procedure_code: "D5110", source: "rule", matched: true });
  });
});

describe("POST /auto-codes/resolve: the seeded families of a new org", () => {
  let seededPath: string;
  beforeAll(async () => {
    seededPath = `/api/v1/${(await env.t.createOrg()).id}/odontogram/auto-codes/resolve`;
  });
  test.each([
    ["composite", { tooth: 9, surfaces: "MI" }, "D2331"],
    ["COMPOSITE", { tooth: 8, surfaces: "MIDFL" }, "D2335"],
    ["composite", { tooth: 30, surfaces: "MOD" }, "D2393"],
    ["composite", { tooth: 3, surfaces: "MODBL" }, "D2394"],
    ["composite", { tooth: 4, surfaces: "O" }, "D2391"],
    ["amalgam", { tooth: 30, surfaces: "MOD" }, "D2160"],
    ["amalgam", { tooth: 19, surfaces: "MODB" }, "D2161"],
    ["crown", { tooth: 8, material_family: "zirconia" }, "D2740"],
    ["crown", { tooth: 8, material_family: "lithium_disilicate" }, "D2740"],
    ["crown", { tooth: 30, material_family: "pfm" }, "D2750"],
    ["crown", { tooth: 30, material_family: "pfm_base_metal" }, "D2751"],
    ["crown", { tooth: 3, material_family: "metal_high_noble" }, "D2790"],
    ["crown", { tooth: 3, material_family: "titanium" }, "D2794"],
    ["crown", { tooth: 3 }, null],
    ["root_canal", { tooth: 8 }, "D3310"],
    ["root_canal", { tooth: 13 }, "D3320"],
    ["root_canal", { tooth: 3 }, "D3330"],
    ["extraction", { tooth: 1 }, "D7140"],
    ["sealant", { tooth: 30 }, "D1351"],
    ["sealant", { tooth: "S" }, "D1351"],
    ["prophylaxis", { patient_age: 10 }, "D1120"],
    ["prophylaxis", { patient_age: 40 }, "D1110"],
    ["complete_denture", { arch: "upper" }, "D5110"],
    ["complete_denture", { arch: "lower" }, "D5120"],
  ])("%s %j -> %s", async (name, context, code) => {
    const r = await resolve({ family_name: name, context }, env.admin, seededPath);
    expect(r.status).toBe(200);
    expect(r.body.procedure_code).toBe(code);
    expect(r.body.family_name).toBe(name.toLowerCase());
    if (name === "crown" && code === null) expect(r.body.missing_context).toEqual(["material_family"]);
    if (name === "extraction") expect(r.body).toMatchObject({ source: "base", matched: false });
  });
});

describe("POST /auto-codes/resolve: errors", () => {
  test("404 for an unknown family name or uuid, an archived family and another org's family", async () => {
    const foreign = await family(env, env.B, { family_name: "only_in_b" });
    const gone = await family(env, env.A, { family_name: "gone_family" });
    await env.t.request("POST", `${env.A}/auto-code-families/${gone.id}/archive`, { token: env.admin });
    for (const body of [
      { family_name: "nope" },
      { family_uuid: MISSING },
      { family_uuid: foreign.id },
      { family_name: "only_in_b" },
      { family_uuid: gone.id },
      { family_name: "gone_family" },
    ]) {
      expect((await resolve({ ...body, context: { tooth: 3 } })).body).toEqual({ detail: "Auto-code family not found", code: "not_found" });
    }
    expect((await resolve({ family_uuid: foreign.id, context: {} }, env.memberOfB, `${env.B}/resolve`)).status).toBe(200);
  });

  test.each([
    ["no family named", { context: {} }, ["body"], "value_error"],
    ["both family_uuid and family_name", { family_uuid: MISSING, family_name: "composite", context: {} }, ["body"], "value_error"],
    ["family_uuid malformed", { family_uuid: "composite", context: {} }, ["body", "family_uuid"], "format"],
    ["family_name blank", { family_name: " ", context: {} }, ["body", "family_name"], "out_of_range"],
    ["context missing", { family_name: "composite" }, ["body", "context"], "missing"],
    ["context not an object", { family_name: "composite", context: "tooth 3" }, ["body", "context"], "type_error"],
    ["tooth 33", { family_name: "composite", context: { tooth: 33 } }, ["body", "context", "tooth"], "value_error"],
    ["tooth 0", { family_name: "composite", context: { tooth: 0 } }, ["body", "context", "tooth"], "value_error"],
    ["tooth U", { family_name: "composite", context: { tooth: "U" } }, ["body", "context", "tooth"], "value_error"],
    ["tooth fractional", { family_name: "composite", context: { tooth: 1.5 } }, ["body", "context", "tooth"], "value_error"],
    ["tooth boolean", { family_name: "composite", context: { tooth: true } }, ["body", "context", "tooth"], "value_error"],
    ["surfaces with an unknown letter", { family_name: "composite", context: { surfaces: "MOX" } }, ["body", "context", "surfaces"], "format"],
    ["surfaces repeated", { family_name: "composite", context: { surfaces: "MMO" } }, ["body", "context", "surfaces"], "value_error"],
    ["six surfaces", { family_name: "composite", context: { surfaces: "MODBLF" } }, ["body", "context", "surfaces"], "format"],
    ["surfaces empty", { family_name: "composite", context: { surfaces: "" } }, ["body", "context", "surfaces"], "format"],
    ["patient_age negative", { family_name: "composite", context: { patient_age: -1 } }, ["body", "context", "patient_age"], "out_of_range"],
    ["patient_age a string", { family_name: "composite", context: { patient_age: "12" } }, ["body", "context", "patient_age"], "type_error"],
    ["material_family unknown", { family_name: "composite", context: { material_family: "gold" } }, ["body", "context", "material_family"], "enum"],
    ["unit_count 0", { family_name: "composite", context: { unit_count: 0 } }, ["body", "context", "unit_count"], "out_of_range"],
    ["arch unknown", { family_name: "composite", context: { arch: "left" } }, ["body", "context", "arch"], "enum"],
    ["arch disagrees with the tooth", { family_name: "composite", context: { tooth: 3, arch: "lower" } }, ["body", "context", "arch"], "value_error"],
    ["unknown context field", { family_name: "composite", context: { quadrant: 1 } }, ["body", "context", "quadrant"], "extra_forbidden"],
    ["unknown body field", { family_name: "composite", context: {}, dry_run: true }, ["body", "dry_run"], "extra_forbidden"],
  ])("422 %s", async (_n, body, loc, type) => {
    const r = await resolve(body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("422 malformed JSON; 401; 403 without odontogram.read; 404 for a non-member; a reader may resolve", async () => {
    const body = { family_name: "composite", context: { tooth: 8, surfaces: "M" } };
    const bad = await env.t.request("POST", resolvePath, { token: env.admin, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await resolve(body, null)).status).toBe(401);
    expect((await resolve(body, env.outsider)).status).toBe(403);
    expect((await resolve(body, env.memberOfB)).status).toBe(404);
    expect((await resolve(body, env.reader)).body.procedure_code).toBe("D2330");
  });
});
