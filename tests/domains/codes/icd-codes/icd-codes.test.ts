import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import { starterIcdCodes } from "@db/seeds/icd-codes";
import { ICD_CATEGORIES } from "@db/tenant/codes";

let t: TestApp;
let admin: string;
let orgA: string;
let A: string; // {P}/codes/icd-codes of org A
let B: string;
let reader: string;
let stranger: string;
let memberOfB: string;
const MISSING = "01970000-0000-7000-8000-000000000000";
const CATALOGUE = starterIcdCodes(new Date().toISOString());

beforeAll(async () => {
  const w = await twoOrgApp({ reader: ["codes.read"], stranger: ["patients.read"], memberOfB: { org: "B", keys: ["codes.read", "codes.write"] } });
  ({ t, admin, orgA } = w);
  ({ reader, stranger, memberOfB } = w.tokens);
  A = `${w.pathA}/codes/icd-codes`;
  B = `${w.pathB}/codes/icd-codes`;
});
afterAll(() => t.close());

const list = async (query: string, P = A) => {
  const r = await t.request("GET", `${P}?${query}`, { token: P === A ? reader : admin });
  expect({ query, status: r.status }).toEqual({ query, status: 200 });
  return r.body;
};
const codesOf = (page: { items: { code: string }[] }) => page.items.map((i) => i.code);

describe("the seeded ICD-10-CM catalogue", () => {
  test("holds the dental codes, well formed and unique, in every category; seeding wrote no audit rows", async () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(80);
    const codes = CATALOGUE.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.every((c) => /^[A-Z]\d{2}(\.[0-9A-Z]{1,4})?$/.test(c))).toBe(true);
    expect(codes).toEqual(
      expect.arrayContaining([
        "K02.51",
        "K02.52",
        "K02.53",
        "K02.61",
        "K02.62",
        "K03.81",
        "K04.7",
        "K05.00",
        "K05.10",
        "K05.211",
        "K05.311",
        "K05.321",
        "K08.109",
        "K08.419",
        "K12.0",
        "K13.70",
        "Z01.20",
        "Z01.21",
        "Z98.810",
        "S02.5XXA",
        "M26.4",
        "R68.84",
        "G47.63",
      ]),
    );
    expect(new Set(CATALOGUE.map((c) => c.category))).toEqual(new Set(ICD_CATEGORIES));
    const all = await list("page_size=200");
    expect(all.total).toBe(CATALOGUE.length);
    expect(codesOf(all)).toEqual([...codes].sort());
    expect(await auditOf(t, orgA, all.items[0].id)).toEqual([]);
  });
});

describe("GET /codes/icd-codes", () => {
  test("pages by code (50 by default); search by code prefix (dot optional) or description; category filter", async () => {
    const page1 = await list("");
    expect([page1.page, page1.page_size, page1.items.length, page1.total]).toEqual([1, 50, 50, CATALOGUE.length]);
    expect(page1.items[0]).toEqual({
      id: expect.any(String),
      code: "B37.0",
      description: "Oral thrush (candida)",
      category: "oral_mucosa",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const page2 = await list("page=2");
    expect(page2.items.length).toBe(Math.min(50, CATALOGUE.length - 50));
    expect(page2.items[0].code > page1.items[49].code).toBe(true);

    expect(codesOf(await list("search=K02.5"))).toEqual(["K02.51", "K02.52", "K02.53"]);
    expect(codesOf(await list("search=k0252"))).toEqual(["K02.52"]);
    expect(codesOf(await list("search=s02.5xxa"))).toEqual(["S02.5XXA"]);
    expect(codesOf(await list("search=DRY%20socket"))).toEqual(["M27.3"]);
    expect(codesOf(await list("search=decay&category=tooth_loss"))).toEqual(["K08.139", "K08.439"]);
    expect(codesOf(await list("category=tmj"))).toEqual(["M26.601", "M26.602", "M26.603", "M26.621", "M26.622", "M26.623", "M26.633", "M26.69", "R68.84"]);
    expect((await list("category=encounter")).items.every((i: any) => i.category === "encounter")).toBe(true);
    expect((await list("search=_")).total).toBe(0); // _ is literal
  });

  test("422 for bad paging, an unknown category and unknown parameters", async () => {
    for (const [q, loc, type] of [
      ["page=0", ["query", "page"], "out_of_range"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["category=teeth", ["query", "category"], "enum"],
      ["search=", ["query", "search"], "out_of_range"],
      ["code=K02", ["query", "code"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${A}?${q}`, { token: admin });
      expect({ q, status: r.status, first: r.body.detail?.[0] }).toEqual({ q, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
  });

  test("401, 403 without codes.read, 404 for a non-member or unknown org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: stranger })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/${MISSING}/codes/icd-codes`, { token: admin })).status).toBe(404);
  });
});

describe("GET /codes/icd-codes/{id}", () => {
  test("200 (no version, no ETag); 404 for missing, malformed and another org's ids; 401; 403", async () => {
    const k0252 = (await list("search=K02.52")).items[0];
    const r = await t.request("GET", `${A}/${k0252.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...k0252, description: "Decay in pits and fissures, into dentin", category: "dental_caries" });
    expect(r.headers.get("etag")).toBeNull();
    // each org has its own rows: org B's K02.52 is not reachable through org A
    const theirs = (await list("search=K02.52", B)).items[0];
    expect(theirs.id).not.toBe(k0252.id);
    for (const path of [`${A}/${theirs.id}`, `${B}/${k0252.id}`, `${A}/${MISSING}`, `${A}/K02.52`]) {
      const nf = await t.request("GET", path, { token: admin });
      expect({ path, status: nf.status, body: nf.body }).toEqual({ path, status: 404, body: { detail: "ICD code not found", code: "not_found" } });
    }
    expect((await t.request("GET", `${A}/${k0252.id}`, { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", `${A}/${k0252.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${k0252.id}`, { token: stranger })).status).toBe(403);
  });

  test("the catalogue is read-only: no write routes", async () => {
    const k0252 = (await list("search=K02.52")).items[0];
    expect((await t.request("POST", A, { token: admin, body: { code: "K99.9", description: "x", category: "other" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${k0252.id}`, { token: admin, body: { description: "x" } })).status).toBe(404);
    expect((await t.request("POST", `${A}/${k0252.id}/archive`, { token: admin })).status).toBe(404);
    expect((await list("page_size=1")).total).toBe(CATALOGUE.length);
    expect((await t.request("GET", `${A}/${k0252.id}`, { token: admin })).body).toEqual(k0252);
  });
});
