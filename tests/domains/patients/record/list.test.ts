import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import { insertProvider, insertTag, tagPatient } from "./fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let P: string;
let loc1: string;
let loc2: string;
let prov1: string;
let prov2: string;
let tag: string;
const ids: Record<string, string> = {};

// A small, fully known org: every list answer below can be stated exactly.
const PEOPLE: [key: string, body: Record<string, unknown>][] = [
  [
    "john",
    {
      first_name: "John",
      last_name: "Smith",
      date_of_birth: "1980-02-03",
      mobile_phone: "(217) 555-1234",
      email: "john.smith@example.com",
      chart_number: "C-100",
    },
  ],
  [
    "jane",
    {
      first_name: "Jane",
      last_name: "Smithers",
      preferred_name: "Janie",
      date_of_birth: "1975-07-04",
      home_phone: "312.555.9876",
      email: "JANE@Mail.org",
      chart_number: "C-200",
    },
  ],
  ["jose", { first_name: "José", last_name: "O'Brien", date_of_birth: "1990-12-31", work_phone: "+1 415 555 0000", chart_number: "c-300" }],
  ["anna", { first_name: "Anna", last_name: "Van Der Berg", date_of_birth: "2001-01-15", status: "prospective" }],
  ["bob", { first_name: "Bob", last_name: "Adams", status: "inactive", chart_number: "C-050" }],
  ["smithy", { first_name: "Smith", last_name: "Johnson", date_of_birth: "1980-02-03" }],
  ["twin1", { first_name: "Sam", last_name: "Twin" }],
  ["twin2", { first_name: "Sam", last_name: "Twin" }],
  ["gone", { first_name: "Archie", last_name: "Smith" }],
];

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  P = `/api/v1/${orgId}/patients`;
  loc1 = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "East", timezone: "UTC" } })).body.id;
  loc2 = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "West", timezone: "UTC" } })).body.id;
  prov1 = await insertProvider(t, orgId, { first_name: "Ada", last_name: "Lovelace" });
  prov2 = await insertProvider(t, orgId, { first_name: "Alan", last_name: "Turing" });
  tag = await insertTag(t, orgId, "VIP");
  for (const [key, body] of PEOPLE) {
    const extra = ["john", "jane", "gone"].includes(key)
      ? { location_uuid: loc1, primary_provider_uuid: prov1 }
      : key === "jose"
        ? { location_uuid: loc2, primary_provider_uuid: prov2 }
        : {};
    const r = await t.request("POST", P, { token, body: { ...body, ...extra } });
    if (r.status !== 201) throw new Error(`create failed: ${r.text}`);
    ids[r.body.id] = key;
    ids[key] = r.body.id;
  }
  await t.request("POST", `${P}/${ids.gone}/archive`, { token });
  await tagPatient(t, orgId, ids.jane!, tag);
  await tagPatient(t, orgId, ids.bob!, tag);
  await tagPatient(t, orgId, ids.gone!, tag);
  // another org's patients never show up here
  await t.request("POST", `/api/v1/${otherOrg}/patients`, { token, body: { first_name: "John", last_name: "Smith" } });
});
afterAll(() => t.close());

const list = async (query: string) => {
  const r = await t.request("GET", `${P}?${query}`, { token });
  if (r.status !== 200) throw new Error(`list failed: ${r.status} ${r.text}`);
  return r.body;
};
const keys = async (query: string) => (await list(query)).items.map((p: { id: string }) => ids[p.id]);
const q = (s: string) => `search=${encodeURIComponent(s)}`;

describe("GET /patients: listing", () => {
  test("default: not archived, by last name then first name then id, page 1 of 50, full records with booking fields", async () => {
    const page = await list("");
    expect(page).toMatchObject({ page: 1, page_size: 50, total: 8 });
    const order = page.items.map((p: { id: string }) => ids[p.id]);
    expect(order).toEqual(["bob", "smithy", "jose", "john", "jane", "twin1", "twin2", "anna"]);
    const john = page.items.find((p: { id: string }) => p.id === ids.john);
    expect(john).toMatchObject({
      uuid: ids.john,
      first_name: "John",
      last_name: "Smith",
      date_of_birth: "1980-02-03",
      primary_phone: "(217) 555-1234",
      email: "john.smith@example.com",
      preferred_provider_uuid: prov1,
      location: { uuid: loc1, name: "East" },
      primary_provider: { uuid: prov1, name: "Ada Lovelace" },
      balance_total: "0.00",
      scheduling_restricted: false,
      potential_duplicates: [],
    });
  });

  test("twins with the same name keep a stable order (id breaks the tie), in both directions", async () => {
    const [a, b] = [ids.twin1!, ids.twin2!].sort();
    expect((await list("search=twin")).items.map((p: { id: string }) => p.id)).toEqual([a, b]);
    expect((await list("search=twin&sort_dir=desc")).items.map((p: { id: string }) => p.id)).toEqual([b, a]);
  });

  test("paging: page_size, page, totals, and a page beyond the end", async () => {
    const all = await keys("page_size=200");
    const p2 = await list("page=2&page_size=3");
    expect(p2).toMatchObject({ page: 2, page_size: 3, total: 8 });
    expect(p2.items.map((p: { id: string }) => ids[p.id])).toEqual(all.slice(3, 6));
    const beyond = await list("page=4&page_size=3");
    expect(beyond).toMatchObject({ items: [], page: 4, total: 8 });
    const searchBeyond = await list(`${q("smi")}&page=4&page_size=1`);
    expect(searchBeyond).toMatchObject({ items: [], page: 4, total: 3 });
  });

  test.each([
    ["first_name", "asc", ["anna", "bob", "jane", "john", "jose", "twin1", "twin2", "smithy"]],
    ["date_of_birth", "asc", ["bob", "twin1", "twin2", "jane", "john", "smithy", "jose", "anna"]],
    ["date_of_birth", "desc", ["anna", "jose", "smithy", "john", "jane", "twin2", "twin1", "bob"]],
    ["chart_number", "asc", ["anna", "smithy", "twin1", "twin2", "bob", "john", "jane", "jose"]],
    ["status", "asc", ["smithy", "jose", "john", "jane", "twin1", "twin2", "bob", "anna"]],
    ["last_name", "desc", ["anna", "twin2", "twin1", "jane", "john", "jose", "smithy", "bob"]],
  ])("sort_by=%s sort_dir=%s", async (by, dir, expected) => {
    const got = await keys(`sort_by=${by}&sort_dir=${dir}`);
    // the twins tie on every key: their relative order is by id
    const twins = [ids.twin1!, ids.twin2!].sort().map((id) => ids[id]);
    const fixTwins = (xs: string[]) => {
      const i = xs.indexOf("twin1") < xs.indexOf("twin2") ? xs.indexOf("twin1") : xs.indexOf("twin2");
      const out = xs.filter((x) => !x.startsWith("twin"));
      out.splice(i, 0, ...(dir === "asc" ? twins : [...twins].reverse()));
      return out;
    };
    expect(got).toEqual(fixTwins(expected as string[]));
  });

  test("sort_by=created_at follows creation order", async () => {
    expect(await keys("sort_by=created_at")).toEqual(PEOPLE.map(([k]) => k).filter((k) => k !== "gone"));
    expect(await keys("sort_by=created_at&sort_dir=desc")).toEqual(
      PEOPLE.map(([k]) => k)
        .filter((k) => k !== "gone")
        .reverse(),
    );
  });

  test("status filter; archived only with status=archived", async () => {
    expect(await keys("status=inactive")).toEqual(["bob"]);
    expect(await keys("status=prospective")).toEqual(["anna"]);
    expect(await keys("status=archived")).toEqual(["gone"]);
    expect(await keys("status=deceased")).toEqual([]);
    expect((await list("status=active")).total).toBe(6);
  });

  test("primary_provider_uuid, location_uuid, dob_from/dob_to, tag_definition_uuid, combined", async () => {
    expect(await keys(`primary_provider_uuid=${prov1}`)).toEqual(["john", "jane"]);
    expect(await keys(`location_uuid=${loc2}`)).toEqual(["jose"]);
    expect(await keys(`location_uuid=${loc1}&status=archived`)).toEqual(["gone"]);
    expect(await keys("dob_from=1980-02-03&dob_to=1990-12-31")).toEqual(["smithy", "jose", "john"]);
    expect(await keys("dob_from=1990-01-01")).toEqual(["jose", "anna"]);
    expect(await keys("dob_to=1979-12-31")).toEqual(["jane"]);
    expect(await keys(`tag_definition_uuid=${tag}`)).toEqual(["bob", "jane"]);
    expect(await keys(`tag_definition_uuid=${tag}&status=inactive`)).toEqual(["bob"]);
    expect(await keys(`tag_definition_uuid=${tag}&${q("smith")}&location_uuid=${loc1}&dob_to=1999-01-01`)).toEqual(["jane"]);
    // archived reference records still filter (the patients keep pointing at them)
    const formerDoc = await insertProvider(t, orgId, { first_name: "Former", last_name: "Doc", deleted: true });
    expect((await list(`primary_provider_uuid=${formerDoc}`)).total).toBe(0);
  });

  test("404 when a referenced provider, location or tag definition does not exist (or is another org's)", async () => {
    const ghost = "01a1fe29-0000-7000-8000-00000000dead";
    const foreignLoc = (await t.request("POST", `/api/v1/${otherOrg}/locations`, { token, body: { name: "Far", timezone: "UTC" } })).body.id;
    for (const [param, value, label] of [
      ["primary_provider_uuid", ghost, "Provider"],
      ["location_uuid", ghost, "Location"],
      ["location_uuid", foreignLoc, "Location"],
      ["tag_definition_uuid", ghost, "Tag definition"],
    ]) {
      const r = await t.request("GET", `${P}?${param}=${value}`, { token });
      expect({ param, status: r.status, body: r.body }).toEqual({ param, status: 404, body: { detail: `${label} not found`, code: "not_found" } });
    }
  });

  test.each([
    ["page=0", ["query", "page"], "out_of_range"],
    ["page=x", ["query", "page"], "type_error"],
    ["page_size=201", ["query", "page_size"], "out_of_range"],
    ["page_size=0", ["query", "page_size"], "out_of_range"],
    ["sort_by=email", ["query", "sort_by"], "enum"],
    ["sort_dir=up", ["query", "sort_dir"], "enum"],
    ["status=gone", ["query", "status"], "enum"],
    ["dob_from=1980-13-01", ["query", "dob_from"], "format"],
    ["dob_to=yesterday", ["query", "dob_to"], "format"],
    ["dob_from=1990-01-01&dob_to=1980-01-01", ["query", "dob_to"], "value_error"],
    ["location_uuid=nope", ["query", "location_uuid"], "format"],
    ["search=a&search=b", ["query", "search"], "type_error"],
  ])("422 for %s", async (query, loc, type) => {
    const r = await t.request("GET", `${P}?${query}`, { token });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("unknown query parameters are 422, so a misspelt filter never returns everyone", async () => {
    const r = await t.request("GET", `${P}?primary_provider_id=x`, { token });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ["query", "primary_provider_id"], msg: "Unknown field", type: "extra_forbidden" }]);
  });

  test("401 without a token; 404 for a non-member; 403 without patients.read", async () => {
    expect((await t.request("GET", P)).status).toBe(401);
    const outsider = await createMember(t, otherOrg, ["patients.read"]);
    expect((await t.request("GET", P, { token: outsider.token })).status).toBe(404);
    const noKey = await createMember(t, orgId, ["patients.write"]);
    expect((await t.request("GET", P, { token: noKey.token })).status).toBe(403);
  });
});

describe("GET /patients: search", () => {
  test.each([
    ["smi", ["smithy", "john", "jane"]],
    ["SMITH", ["smithy", "john", "jane"]],
    ["Smith, Jo", ["john"]],
    ["smith,", ["john", "jane"]],
    ["Smithers, Janie", ["jane"]],
    ["John Smith", ["smithy", "john"]],
    ["jo smi", ["smithy", "john"]],
    ["Van Der Berg, An", ["anna"]],
    ["berg", ["anna"]],
    ["jose", ["jose"]],
    ["José O'Brien", ["jose"]],
    ["o'bri", ["jose"]],
    ["jan", ["jane"]],
    ["zed", []],
  ])("name %p", async (term, expected) => {
    expect(await keys(q(term))).toEqual(expected);
  });

  test.each([
    ["217-555-1234", ["john"]],
    ["(217) 555 1234", ["john"]],
    ["2175551234", ["john"]],
    ["+1 217 555 1234", ["john"]],
    ["555-1234", ["john"]],
    ["1234", ["john"]],
    ["555", ["jose", "john", "jane"]],
    ["4155550000", ["jose"]],
    ["14155550000", ["jose"]],
    ["312-555-9876", ["jane"]],
    ["999-0000", []],
  ])("phone %p", async (term, expected) => {
    expect(await keys(q(term))).toEqual(expected);
  });

  test.each([
    ["john.smith@example.com", ["john"]],
    ["jane@mail.org", ["jane"]],
    ["@example", ["john"]],
    ["mail.org", ["jane"]],
  ])("email %p", async (term, expected) => {
    expect(await keys(q(term))).toEqual(expected);
  });

  test.each([
    ["C-100", ["john"]],
    ["c-100", ["john"]],
    ["C-300", ["jose"]],
    ["C-", []],
  ])("chart number %p (exact)", async (term, expected) => {
    expect(await keys(q(term))).toEqual(expected);
  });

  test.each([
    ["1980-02-03", ["smithy", "john"]],
    ["02/03/1980", ["smithy", "john"]],
    ["2/3/1980", ["smithy", "john"]],
    ["12/31/1990", ["jose"]],
    ["1980-02-30", []],
  ])("date of birth %p", async (term, expected) => {
    expect(await keys(q(term))).toEqual(expected);
  });

  test("FTS syntax in a search is taken literally", async () => {
    for (const term of ['"', '"smi', "smi*", "smi OR jane", "NEAR(smi jane)", "smi AND", "-smi", "(smi", "^smi", "{last_name}: smi", "a'b\"c", "100%", "_"]) {
      const r = await t.request("GET", `${P}?${q(term)}`, { token });
      expect({ term, status: r.status }).toEqual({ term, status: 200 });
    }
    expect(await keys(q("smi*"))).toEqual(["smithy", "john", "jane"]);
    expect(await keys(q("smi OR jane"))).toEqual([]);
    expect(await keys(q('"smi'))).toEqual(["smithy", "john", "jane"]);
  });

  test("query is an alias of search; archived patients match only with status=archived; search combines with status", async () => {
    expect(await keys(`query=${encodeURIComponent("Smith, John")}`)).toEqual(["john"]);
    expect(await keys(`${q("archie")}`)).toEqual([]);
    expect(await keys(`${q("archie")}&status=archived`)).toEqual(["gone"]);
    expect(await keys(`${q("a")}&status=inactive`)).toEqual(["bob"]);
    expect((await list(`${q("smi")}&page_size=1`)).total).toBe(3);
  });

  test("search follows renames and phone changes (the indexes stay in step)", async () => {
    const org = (await t.createOrg()).id;
    const base = `/api/v1/${org}/patients`;
    const r = await t.request("POST", base, { token, body: { first_name: "Rena", last_name: "Mee", mobile_phone: "630-555-4444", email: "rena@old.example" } });
    const id = r.body.id;
    const found = async (term: string) => (await t.request("GET", `${base}?${q(term)}`, { token })).body.items.map((p: { id: string }) => p.id);
    expect(await found("mee")).toEqual([id]);
    await t.request("PATCH", `${base}/${id}`, {
      token,
      body: { base_version: 1, last_name: "Moved", mobile_phone: "630-555-7777", email: "rena@new.example" },
    });
    expect(await found("mee")).toEqual([]);
    expect(await found("moved")).toEqual([id]);
    expect(await found("5554444")).toEqual([]);
    expect(await found("5557777")).toEqual([id]);
    expect(await found("old.example")).toEqual([]);
    expect(await found("new.example")).toEqual([id]);
    await t.request("PATCH", `${base}/${id}`, { token, body: { base_version: 2, preferred_name: "Ree" } });
    expect(await found("ree")).toEqual([id]);
  });
});
