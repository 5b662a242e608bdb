import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { starterProcedureCodes } from "@db/seeds/procedure-codes";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string; // {P}/codes/procedure-codes of org A
let B: string;
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
  A = `${w.pathA}/codes/procedure-codes`;
  B = `${w.pathB}/codes/procedure-codes`;
});
afterAll(() => t.close());

let n = 0;
const nextCode = () => `X${String(n++).padStart(4, "0")}`;
async function create(body: Record<string, unknown> = {}, P = A) {
  const r = await t.request("POST", P, { token: admin, body: { code: nextCode(), short_name: "Custom service", ...body } });
  if (r.status !== 201) throw new Error(`create procedure code failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const total = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;
const list = async (query: string, P = A) => {
  const r = await t.request("GET", `${P}?${query}`, { token: admin });
  expect(r.status).toBe(200);
  return r.body;
};

const FULL = {
  code: "D9999",
  short_name: "Unlisted adjunctive service",
  description: "Anything the catalogue does not name.",
  category: "adjunctive",
  code_type: "cdt",
  code_in_claims: "D9998",
  default_billing_order: "DM",
  default_fee: 125.5,
  service_type: "28",
  treatment_area: "tooth",
  apply_sales_tax: true,
  icd_code_mandatory: true,
  is_ortho: true,
  provider_mandatory: true,
  smart_code_logic: true,
  under_eighteen_only: true,
  effective_date: "2025-01-01",
  termination_date: "2025-12-31",
  label: "Misc",
  provider_type: "specialist",
  status: "inactive",
};

describe("the starter catalogue", () => {
  test("a new org answers search=crown and search=D2740 out of the box", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/codes/procedure-codes`;
    const crowns = await list("search=crown&page_size=200", P);
    const codes = crowns.items.map((i: any) => i.code);
    expect(codes).toEqual(expect.arrayContaining(["D2740", "D2750", "D2751", "D2752", "D2790", "D2792", "D6058", "D6740"]));
    expect(crowns.items.every((i: any) => /crown/i.test(`${i.short_name} ${i.description}`))).toBe(true);
    // ranked: every code whose short name says "crown" comes before those that only mention it in the description
    const inName = crowns.items.map((i: any) => /crown/i.test(i.short_name));
    expect(inName.indexOf(false)).toBe(inName.lastIndexOf(true) + 1);
    expect(inName[0]).toBe(true);
    // a code prefix ranks the codes it starts before any text match, in code order
    const byCode = (await list("search=D27&page_size=200", P)).items.map((i: any) => i.code);
    const prefixed = byCode.filter((c: string) => c.startsWith("D27"));
    expect(prefixed.length).toBeGreaterThan(5);
    expect(byCode.slice(0, prefixed.length)).toEqual([...prefixed].sort());
    const one = await list("search=D2740", P);
    expect(one.total).toBe(1);
    expect(one.items[0]).toMatchObject({
      code: "D2740",
      short_name: "Crown, porcelain/ceramic",
      category: "restorative",
      code_type: "cdt",
      default_fee: "1250.00",
      treatment_area: "tooth",
      service_type: "25",
      default_billing_order: "D",
      status: "active",
      version: 1,
      deleted_at: null,
    });
  });

  test("covers the common services with categories, fees and treatment areas; no audit rows", async () => {
    const rows = starterProcedureCodes(new Date().toISOString());
    expect(rows.length).toBeGreaterThanOrEqual(120);
    expect(new Set(rows.map((r) => r.code)).size).toBe(rows.length);
    expect(rows.every((r) => /^D\d{4}$/.test(r.code) && r.default_fee_cents >= 0 && r.short_name.length > 0 && r.description.length > 0)).toBe(true);
    const byCode = new Map(rows.map((r) => [r.code, r]));
    for (const code of [
      "D0120",
      "D0140",
      "D0150",
      "D0180",
      "D0210",
      "D0220",
      "D0230",
      "D0272",
      "D0274",
      "D0330",
      "D1110",
      "D1120",
      "D1206",
      "D1208",
      "D1351",
      "D2140",
      "D2150",
      "D2160",
      "D2161",
      "D2330",
      "D2331",
      "D2332",
      "D2335",
      "D2391",
      "D2392",
      "D2393",
      "D2394",
      "D2740",
      "D2750",
      "D2751",
      "D2752",
      "D2790",
      "D2792",
      "D2950",
      "D3310",
      "D3320",
      "D3330",
      "D3346",
      "D4341",
      "D4342",
      "D4355",
      "D4910",
      "D7140",
      "D7210",
      "D7220",
      "D7230",
      "D7240",
      "D6010",
      "D6056",
      "D6058",
      "D6065",
      "D5110",
      "D5120",
      "D5211",
      "D5212",
      "D8080",
      "D8090",
      "D8670",
      "D9110",
    ]) {
      expect({ code, present: byCode.has(code) }).toEqual({ code, present: true });
    }
    expect(byCode.get("D2391")).toMatchObject({ category: "restorative", treatment_area: "surface", smart_code_logic: true });
    expect(byCode.get("D2740")).toMatchObject({ smart_code_logic: true, treatment_area: "tooth" });
    expect(byCode.get("D2950")).toMatchObject({ smart_code_logic: false });
    expect(byCode.get("D1110")).toMatchObject({ category: "preventive", provider_type: "hygienist", service_type: "41" });
    expect(byCode.get("D4341")).toMatchObject({ category: "periodontics", treatment_area: "quadrant" });
    expect(byCode.get("D5110")).toMatchObject({ category: "prosthodontics_removable", treatment_area: "arch" });
    expect(byCode.get("D8080")).toMatchObject({ category: "orthodontics", is_ortho: true, under_eighteen_only: true });
    expect(new Set(rows.map((r) => r.category))).toEqual(
      new Set([
        "diagnostic",
        "preventive",
        "restorative",
        "endodontics",
        "periodontics",
        "prosthodontics_removable",
        "maxillofacial_prosthetics",
        "implant_services",
        "prosthodontics_fixed",
        "oral_surgery",
        "orthodontics",
        "adjunctive",
      ]),
    );
    // a new org holds exactly the catalogue, and seeding wrote no audit rows
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/codes/procedure-codes`;
    expect(await total(P)).toBe(rows.length);
    const d0150 = (await list("search=D0150", P)).items[0];
    expect(d0150).toMatchObject({ code: "D0150", category: "diagnostic", treatment_area: "mouth", default_fee: "95.00" });
    expect(await auditOf(t, org, d0150.id)).toEqual([]);
  });
});

describe("GET /codes/procedure-codes", () => {
  test("pages in code order; filters by status, category, code_type and search (code prefix or text)", async () => {
    const fresh = `/api/v1/${(await t.createOrg()).id}/codes/procedure-codes`;
    const page1 = await list("", fresh);
    expect(page1.page).toBe(1);
    expect(page1.page_size).toBe(50);
    expect(page1.items).toHaveLength(50);
    expect(page1.items[0].code).toBe("D0120");
    const page2 = await list("page=2&page_size=50", fresh);
    expect(page2.items[0].code > page1.items[49].code).toBe(true);
    expect((await list("page=5&page_size=50", fresh)).items).toEqual([]);
    const all = await list("page_size=200", fresh);
    const codes = all.items.map((i: any) => i.code);
    expect(codes).toEqual([...codes].sort());

    const prefix = await list("search=d27&page_size=200");
    expect(prefix.items.map((i: any) => i.code)).toEqual(["D2710", "D2740", "D2750", "D2751", "D2752", "D2780", "D2790", "D2791", "D2792", "D2794"]);
    expect((await list("search=ROOT%20CANAL")).items.map((i: any) => i.code)).toEqual(["D3310", "D3320", "D3330", "D3346", "D3347", "D3348"]);
    expect((await list("search=%25")).total).toBe(0); // % is literal
    const ortho = await list("category=orthodontics&page_size=200");
    expect(ortho.total).toBe(15);
    expect(ortho.items.every((i: any) => i.category === "orthodontics" && i.is_ortho)).toBe(true);
    expect((await list("category=periodontics&search=deep%20clean")).items.map((i: any) => i.code)).toEqual(["D4341", "D4342"]);

    const custom = await create({ code: "tooth-wash", short_name: "Whitening rinse", status: "inactive" });
    expect((await list("code_type=custom")).items.map((i: any) => i.id)).toContain(custom.id);
    expect((await list("code_type=custom")).items.every((i: any) => i.code_type === "custom")).toBe(true);
    expect((await list("status=inactive")).items.map((i: any) => i.id)).toEqual(expect.arrayContaining([custom.id]));
    expect((await list("status=inactive")).items.every((i: any) => i.status === "inactive")).toBe(true);
    expect((await list("status=active&code_type=custom")).items.map((i: any) => i.id)).not.toContain(custom.id);
    expect((await list("search=whitening%20RINSE")).items.map((i: any) => i.id)).toEqual([custom.id]);
  });

  test("archived codes leave the list; another org's codes never show", async () => {
    const gone = await create({ short_name: "Soon archived zzyzx" });
    await create({ short_name: "Other org zzyzx" }, B);
    expect((await list("search=zzyzx")).items.map((i: any) => i.id)).toEqual([gone.id]);
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    expect((await list("search=zzyzx")).total).toBe(0);
  });

  test("422 for bad paging, enums and unknown parameters", async () => {
    for (const [q, loc, type] of [
      ["page=0", ["query", "page"], "out_of_range"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["page_size=abc", ["query", "page_size"], "type_error"],
      ["status=archived", ["query", "status"], "enum"],
      ["category=cosmetic", ["query", "category"], "enum"],
      ["code_type=icd", ["query", "code_type"], "enum"],
      ["search=", ["query", "search"], "out_of_range"],
      ["org_uuid=x", ["query", "org_uuid"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${A}?${q}`, { token: admin });
      expect({ q, status: r.status, first: r.body.detail?.[0] }).toEqual({ q, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
  });

  test("401 without a token, 403 without codes.read, 404 for a non-member or unknown org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: stranger })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/${MISSING}/codes/procedure-codes`, { token: admin })).status).toBe(404);
    expect((await t.request("GET", A, { token: reader })).status).toBe(200);
  });
});

describe("POST /codes/procedure-codes", () => {
  test("201 with every field; audited; procedure_code.created carries id and code", async () => {
    const before = events.length;
    const r = await t.request("POST", A, { token: admin, body: FULL });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      ...FULL,
      default_fee: "125.50",
      id: expect.any(String),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => [a.action, a.resource_type, a.after.code, a.after.default_fee])).toEqual([
      ["procedure_code.created", "procedure_code", "D9999", "125.50"],
    ]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === r.body.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["procedure_code.created", { id: r.body.id, code: "D9999" }]]);
  });

  test("only code and short_name are required; defaults follow the code and category", async () => {
    const cdt = await create({ code: " d9997 ", short_name: " Teeth check " });
    expect(cdt).toMatchObject({
      code: "D9997",
      short_name: "Teeth check",
      description: "Teeth check",
      category: "other",
      code_type: "cdt",
      code_in_claims: null,
      default_billing_order: "D",
      default_fee: "0.00",
      service_type: "35",
      treatment_area: "mouth",
      apply_sales_tax: false,
      icd_code_mandatory: false,
      is_ortho: false,
      provider_mandatory: false,
      smart_code_logic: false,
      under_eighteen_only: false,
      effective_date: null,
      termination_date: null,
      label: null,
      provider_type: null,
      status: "active",
    });
    expect(await create({ code: "Ex-1.a", short_name: "Custom" })).toMatchObject({ code: "EX-1.A", code_type: "custom", default_billing_order: "D" });
    expect(await create({ code: "70355", code_type: "cpt", short_name: "Panorex (medical)" })).toMatchObject({ code: "70355", default_billing_order: "M" });
    expect(await create({ code: "g0330", code_type: "hcpcs", short_name: "Facility service", category: "diagnostic" })).toMatchObject({
      code: "G0330",
      default_billing_order: "M",
      service_type: "23",
    });
    expect((await create({ default_fee: 0.1 })).default_fee).toBe("0.10");
    expect((await create({ default_fee: 19.99 })).default_fee).toBe("19.99");
  });

  test("409 duplicate for a live code of any status and spelling; archiving frees it; codes are per org", async () => {
    const count = await total();
    for (const code of ["D2740", "d2740", " D2740"]) {
      const r = await t.request("POST", A, { token: admin, body: { code, short_name: "Another crown" } });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: "Another procedure code already uses this code", code: "duplicate" });
    }
    const inactive = await create({ code: "ZZ-DUP", status: "inactive" });
    expect((await t.request("POST", A, { token: admin, body: { code: "zz-dup", short_name: "Again" } })).status).toBe(409);
    expect(await total()).toBe(count + 1);
    await t.request("POST", `${A}/${inactive.id}/archive`, { token: admin });
    expect((await create({ code: "ZZ-DUP" })).code).toBe("ZZ-DUP");
    expect((await create({ code: "ZZ-DUP" }, B)).code).toBe("ZZ-DUP");
  });

  test("422 for each rule, wrong types, unknown and read-only fields; nothing is written", async () => {
    const count = await total();
    const ok = { code: "Q1", short_name: "Fine" };
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [{ short_name: "X" }, ["body", "code"], "missing"],
      [{ code: "Q2" }, ["body", "short_name"], "missing"],
      [{ ...ok, code: "" }, ["body", "code"], "out_of_range"],
      [{ ...ok, code: "X".repeat(16) }, ["body", "code"], "out_of_range"],
      [{ ...ok, code: 2740 }, ["body", "code"], "type_error"],
      [{ ...ok, short_name: "  " }, ["body", "short_name"], "out_of_range"],
      [{ ...ok, code: "D274", code_type: "cdt" }, ["body", "code"], "format", "invalid_code_format"],
      [{ ...ok, code: "D27400", code_type: "cdt" }, ["body", "code"], "format", "invalid_code_format"],
      [{ ...ok, code: "X2740", code_type: "cdt" }, ["body", "code"], "format", "invalid_code_format"],
      [{ ...ok, code: "D2740", code_type: "cpt" }, ["body", "code"], "format", "invalid_code_format"],
      [{ ...ok, code: "12345", code_type: "hcpcs" }, ["body", "code"], "format", "invalid_code_format"],
      [{ ...ok, code: "A B" }, ["body", "code"], "format", "invalid_code_format"],
      [{ ...ok, code_type: "icd" }, ["body", "code_type"], "enum"],
      [{ ...ok, category: "cosmetic" }, ["body", "category"], "enum"],
      [{ ...ok, treatment_area: "root" }, ["body", "treatment_area"], "enum"],
      [{ ...ok, default_billing_order: "X" }, ["body", "default_billing_order"], "enum"],
      [{ ...ok, provider_type: "robot" }, ["body", "provider_type"], "enum"],
      [{ ...ok, status: "archived" }, ["body", "status"], "enum"],
      [{ ...ok, default_fee: -1 }, ["body", "default_fee"], "out_of_range"],
      [{ ...ok, default_fee: 10.005 }, ["body", "default_fee"], "value_error"],
      [{ ...ok, default_fee: "125.00" }, ["body", "default_fee"], "type_error"],
      [{ ...ok, default_fee: 1_000_001 }, ["body", "default_fee"], "out_of_range"],
      [{ ...ok, service_type: "dental" }, ["body", "service_type"], "format"],
      [{ ...ok, effective_date: "2025-13-01" }, ["body", "effective_date"], "format"],
      [{ ...ok, termination_date: "31/12/2025" }, ["body", "termination_date"], "format"],
      [{ ...ok, effective_date: "2025-06-02", termination_date: "2025-06-01" }, ["body", "termination_date"], "value_error", "invalid_date_range"],
      [{ ...ok, is_ortho: "yes" }, ["body", "is_ortho"], "type_error"],
      [{ ...ok, under_eighteen_only: 1 }, ["body", "under_eighteen_only"], "type_error"],
      [{ ...ok, colour: "red" }, ["body", "colour"], "extra_forbidden"],
      [{ ...ok, default_fee_cents: 100 }, ["body", "default_fee_cents"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, version: 2 }, ["body", "version"], "read_only"],
      [{ ...ok, deleted_at: null }, ["body", "deleted_at"], "read_only"],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await t.request("POST", A, { token: admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
      expect({ body, code: r.body.code }).toEqual({ body, code });
    }
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"code": ', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await t.request("POST", A, { token: admin, rawBody: "code=D1", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect(await total()).toBe(count);
  });

  test("401, 403 (a codes.read member too), 404 for a non-member or unknown org; nothing is written", async () => {
    const count = await total();
    const body = { code: "NOPE", short_name: "Nope" };
    const anon = await t.request("POST", A, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: stranger, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/codes/procedure-codes`, { token: admin, body })).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /codes/procedure-codes/{id}", () => {
  test("200 with ETag; 404 for missing, malformed, archived and another org's ids; 401; 403", async () => {
    const c = await create();
    const r = await t.request("GET", `${A}/${c.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(c);
    expect(r.headers.get("etag")).toBe('"1"');
    for (const path of [`${A}/${MISSING}`, `${A}/not-a-uuid`, `${B}/${c.id}`]) {
      const nf = await t.request("GET", path, { token: admin });
      expect({ path, status: nf.status, body: nf.body }).toEqual({ path, status: 404, body: { detail: "Procedure code not found", code: "not_found" } });
    }
    expect((await t.request("GET", `${A}/${c.id}`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `${A}/${c.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${c.id}`, { token: stranger })).status).toBe(403);
    await t.request("POST", `${A}/${c.id}/archive`, { token: admin });
    expect((await t.request("GET", `${A}/${c.id}`, { token: admin })).status).toBe(404);
  });
});

describe("PATCH /codes/procedure-codes/{id}", () => {
  test("200: changes only the given fields, bumps the version; audited; procedure_code.updated names the changed fields", async () => {
    const c = await create({ code: "P-100", default_fee: 50, effective_date: "2025-01-01" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${c.id}`, {
      token: admin,
      body: { base_version: 1, default_fee: 75.25, short_name: "Renamed", effective_date: null, label: "L" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({ ...c, default_fee: "75.25", short_name: "Renamed", effective_date: null, label: "L", version: 2, updated_at: expect.any(String) });
    expect(await read(c.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, c.id);
    expect(audit.map((a) => a.action)).toEqual(["procedure_code.created", "procedure_code.updated"]);
    expect([audit[1].before.default_fee, audit[1].after.default_fee]).toEqual(["50.00", "75.25"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => e.type)).toEqual(["procedure_code.updated"]);
    expect([...(mine[0].data.changed_fields as string[])].sort()).toEqual(["default_fee_cents", "effective_date", "label", "short_name"]);
    // the code itself may change (to a free one), and to its own value
    const renamed = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, code: "p-101" } });
    expect(renamed.body).toMatchObject({ code: "P-101", version: 3 });
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 3, code: "P-101", status: "inactive" } })).body).toMatchObject({
      code: "P-101",
      status: "inactive",
      version: 4,
    });
  });

  test("409 for a stale base_version and for a code another live record uses; nothing changes", async () => {
    const c = await create({ code: "P-200" });
    const stale = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 2, short_name: "Stale" } });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ detail: "The record is at version 1; reload and retry", code: "version_conflict" });
    const dup = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 1, code: "D2740" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    expect(await read(c.id)).toEqual(c);
  });

  test("422: rules are judged on the record as it will be (code_type vs code, dates against stored dates); nothing changes", async () => {
    const c = await create({ code: "P-300", effective_date: "2025-03-01" });
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [{ short_name: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 1, code_type: "cdt" }, ["body", "code"], "format", "invalid_code_format"],
      [{ base_version: 1, termination_date: "2025-02-28" }, ["body", "termination_date"], "value_error", "invalid_date_range"],
      [{ base_version: 1, default_fee: 1.234 }, ["body", "default_fee"], "value_error"],
      [{ base_version: 1, short_name: null }, ["body", "short_name"], "type_error"],
      [{ base_version: 1, status: "deleted" }, ["body", "status"], "enum"],
      [{ base_version: 1, created_at: "2020-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
      [{ base_version: 1, nickname: "x" }, ["body", "nickname"], "extra_forbidden"],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await t.request("PATCH", `${A}/${c.id}`, { token: admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0], code: r.body.code }).toEqual({ body, first: { loc, msg: expect.any(String), type }, code });
    }
    const bad = await t.request("PATCH", `${A}/${c.id}`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(await read(c.id)).toEqual(c);
    // a valid combination passes: cdt type together with a cdt code; a termination date after the stored start
    expect(
      (await t.request("PATCH", `${A}/${c.id}`, { token: admin, body: { base_version: 1, code_type: "cdt", code: "D9990", termination_date: "2025-03-01" } }))
        .body,
    ).toMatchObject({ code: "D9990", code_type: "cdt", termination_date: "2025-03-01", version: 2 });
  });

  test("404 for missing, archived and another org's ids; 401; 403; nothing changes", async () => {
    const c = await create();
    const body = { base_version: 1, short_name: "Hijack" };
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body })).status).toBe(404);
    expect((await t.request("PATCH", `${B}/${c.id}`, { token: admin, body })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${c.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: reader, body })).status).toBe(403);
    expect(await read(c.id)).toEqual(c);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    expect((await t.request("PATCH", `${A}/${gone.id}`, { token: admin, body: { base_version: 2, short_name: "Back" } })).status).toBe(404);
  });
});

describe("POST /codes/procedure-codes/{id}/archive", () => {
  test("200 sets deleted_at; audited; procedure_code.archived; then 404 everywhere", async () => {
    const c = await create();
    const before = events.length;
    const r = await t.request("POST", `${A}/${c.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["procedure_code.created", "procedure_code.archived"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === c.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["procedure_code.archived", { id: c.id, changed_fields: ["deleted_at"] }]]);
    expect((await t.request("POST", `${A}/${c.id}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("GET", `${A}/${c.id}`, { token: admin })).status).toBe(404);
  });

  test("404 for missing and another org's ids; 401; 403; nothing changes", async () => {
    const c = await create();
    expect((await t.request("POST", `${A}/${MISSING}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${B}/${c.id}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/archive`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("POST", `${A}/${c.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${c.id}/archive`, { token: reader })).status).toBe(403);
    expect(await read(c.id)).toEqual(c);
  });
});
