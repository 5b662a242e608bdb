import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { duplicateMatch, editDistance, nameSimilarity, normalizeName } from "@/domains/patients/record/duplicates";
import { phoneDigits } from "@/domains/patients/record/search";
import { newPatient } from "./record-helpers";

describe("the duplicate rule (pure)", () => {
  test.each([
    ["kitten", "sitting", 3],
    ["jon", "john", 1],
    ["", "abc", 3],
    ["same", "same", 0],
  ])("editDistance(%s, %s) = %d", (x, y, d) => expect(editDistance(x, y)).toBe(d));

  test("normalizeName drops case, accents and punctuation", () => {
    expect(normalizeName("O'Brien-Núñez")).toBe("obriennunez");
  });

  const who = (first_name: string, last_name: string) => ({ first_name, last_name });
  test.each([
    [who("John", "Smith"), who("john", "SMITH"), "same_name"],
    [who("José", "Núñez"), who("Jose", "Nunez"), "same_name"],
    [who("Jon", "Smith"), who("John", "Smith"), "similar_name"], // one edit
    [who("Jo", "Smith"), who("Johanna", "Smith"), "similar_name"], // prefix
    [who("J", "Smith"), who("John", "Smith"), "similar_name"], // initial
    [who("Stephen", "Smith"), who("Steven", "Smith"), "similar_name"], // two edits, long names
    [who("John", "Smyth"), who("John", "Smith"), "similar_name"], // last-name typo
    [who("Smith", "John"), who("John", "Smith"), "similar_name"], // swapped
    [who("Al", "Smith"), who("Ed", "Smith"), null], // short names need to be equal or prefixes
    [who("Jane", "Smith"), who("John", "Smith"), null],
    [who("John", "Smith"), who("John", "Jones"), null],
  ])("nameSimilarity(%j, %j) = %s", (x, y, expected) => {
    expect(nameSimilarity(x, y)).toBe(expected as any);
    expect(nameSimilarity(y, x)).toBe(expected as any);
  });

  const person = (first_name: string, last_name: string, date_of_birth: string | null, ...phones: string[]) => ({
    id: Math.random().toString(),
    first_name,
    last_name,
    date_of_birth,
    phone_digits: phoneDigits(...phones),
  });
  test.each([
    ["same DOB, same name", person("Ann", "Lee", "1990-01-01"), person("Ann", "Lee", "1990-01-01"), ["same_date_of_birth", "same_name"], 70],
    ["same DOB, similar name", person("Anne", "Lee", "1990-01-01"), person("Ann", "Lee", "1990-01-01"), ["same_date_of_birth", "similar_name"], 55],
    [
      "shared phone (national vs +1), no DOBs",
      person("Ann", "Lee", null, "+1 217 555 0100"),
      person("Ann", "Lee", null, "(217) 555-0100"),
      ["same_phone", "same_name"],
      60,
    ],
    [
      "everything",
      person("Ann", "Lee", "1990-01-01", "2175550100"),
      person("Anne", "Lee", "1990-01-01", "217-555-0100"),
      ["same_date_of_birth", "same_phone", "similar_name"],
      85,
    ],
    [
      "one DOB unknown, shared phone",
      person("Ann", "Lee", "1990-01-01", "2175550100"),
      person("Ann", "Lee", null, "2175550100"),
      ["same_phone", "same_name"],
      60,
    ],
    [
      "different DOBs rule it out (parent and child)",
      person("Ann", "Lee", "1960-01-01", "2175550100"),
      person("Ann", "Lee", "1990-01-01", "2175550100"),
      null,
      0,
    ],
    ["same DOB, different people", person("Ann", "Lee", "1990-01-01"), person("Bob", "Lee", "1990-01-01"), null, 0],
    ["same name only", person("Ann", "Lee", null), person("Ann", "Lee", null), null, 0],
    ["short numbers are not phones", person("Ann", "Lee", null, "5550"), person("Ann", "Lee", null, "5550"), null, 0],
  ])("duplicateMatch: %s", (_name, x, y, reasons, score) => {
    const m = duplicateMatch(x, y);
    expect(m).toEqual(reasons ? { reasons: reasons as any, score } : null);
  });
});

describe("potential_duplicates on the patient record", () => {
  let t: TestApp;
  let token: string;
  let a: string;
  let b: string;
  let P: string;
  beforeAll(async () => {
    ({ t, admin: token, orgA: a, orgB: b } = await twoOrgApp());
    P = `/api/v1/${a}/patients`;
  });
  afterAll(() => t.close());
  const read = async (id: string) => (await t.request("GET", `${P}/${id}`, { token })).body;
  const dupIds = async (id: string) => (await read(id)).potential_duplicates.map((d: any) => d.uuid);

  test("computed on create, in both directions, with reasons and score; other orgs never match", async () => {
    const john = await newPatient(t, a, { first_name: "John", last_name: "Doeling", date_of_birth: "1980-05-05" });
    await newPatient(t, b, { first_name: "John", last_name: "Doeling", date_of_birth: "1980-05-05" });
    expect(john.potential_duplicates).toEqual([]);
    const jon = await newPatient(t, a, { first_name: "Jon", last_name: "Doeling", date_of_birth: "1980-05-05" });
    expect(jon.potential_duplicates).toEqual([
      { uuid: john.id, first_name: "John", last_name: "Doeling", date_of_birth: "1980-05-05", reasons: ["same_date_of_birth", "similar_name"], score: 55 },
    ]);
    const back = await read(john.id);
    expect(back.potential_duplicates).toEqual([
      { uuid: jon.id, first_name: "Jon", last_name: "Doeling", date_of_birth: "1980-05-05", reasons: ["same_date_of_birth", "similar_name"], score: 55 },
    ]);
    expect(back.version).toBe(1); // derived: the other record is not bumped
  });

  test("by shared phone; highest score first; lists carry them too", async () => {
    const m1 = await newPatient(t, a, { first_name: "Maria", last_name: "Quintero", mobile_phone: "+1 (312) 555-0147" });
    const m2 = await newPatient(t, a, { first_name: "Maria", last_name: "Quintero", home_phone: "312.555.0147", date_of_birth: "1975-03-03" });
    const m3 = await newPatient(t, a, { first_name: "Mari", last_name: "Quintero", work_phone: "3125550147", date_of_birth: "1975-03-03" });
    expect((await read(m2.id)).potential_duplicates.map((d: any) => [d.uuid, d.reasons, d.score])).toEqual([
      [m3.id, ["same_date_of_birth", "same_phone", "similar_name"], 85],
      [m1.id, ["same_phone", "same_name"], 60],
    ]);
    const listed = (await t.request("GET", `${P}?search=Quintero`, { token })).body.items;
    const byId = new Map(listed.map((p: any) => [p.id, p.potential_duplicates.map((d: any) => d.uuid)]));
    expect(byId.get(m1.id)).toEqual([m2.id, m3.id]);
    expect(byId.get(m3.id)).toEqual([m2.id, m1.id]);
  });

  test("a different date of birth with a shared phone is a family member, not a duplicate", async () => {
    const parent = await newPatient(t, a, { first_name: "Robert", last_name: "Famil", date_of_birth: "1960-01-01", home_phone: "2175550999" });
    const child = await newPatient(t, a, { first_name: "Robert", last_name: "Famil", date_of_birth: "1995-01-01", home_phone: "2175550999" });
    expect(child.potential_duplicates).toEqual([]);
    expect(await dupIds(parent.id)).toEqual([]);
  });

  test("archived patients drop out and come back on restore", async () => {
    const x = await newPatient(t, a, { first_name: "Archie", last_name: "Vist", date_of_birth: "1970-07-07" });
    const y = await newPatient(t, a, { first_name: "Archie", last_name: "Vist", date_of_birth: "1970-07-07" });
    expect(await dupIds(x.id)).toEqual([y.id]);
    await t.request("POST", `${P}/${y.id}/archive`, { token });
    expect(await dupIds(x.id)).toEqual([]);
    expect(await dupIds(y.id)).toEqual([x.id]); // the archived record itself still shows its candidates
    await t.request("POST", `${P}/${y.id}/restore`, { token });
    expect(await dupIds(x.id)).toEqual([y.id]);
  });

  test("recomputed when names, date of birth or phones change (both directions)", async () => {
    const x = await newPatient(t, a, { first_name: "Petra", last_name: "Changer", date_of_birth: "1988-08-08" });
    const y = await newPatient(t, a, { first_name: "Petra", last_name: "Changer", date_of_birth: "1988-08-08" });
    const moved = await t.request("PATCH", `${P}/${y.id}`, { token, body: { base_version: 1, date_of_birth: "1988-08-09" } });
    expect(moved.body.potential_duplicates).toEqual([]);
    expect(await dupIds(x.id)).toEqual([]);
    const phoned = await t.request("PATCH", `${P}/${y.id}`, { token, body: { base_version: 2, date_of_birth: null, mobile_phone: "217 555 0888" } });
    expect(phoned.body.potential_duplicates).toEqual([]);
    const xPhone = await t.request("PATCH", `${P}/${x.id}`, { token, body: { base_version: 1, work_phone: "+12175550888" } });
    expect(xPhone.body.potential_duplicates.map((d: any) => [d.uuid, d.reasons])).toEqual([[y.id, ["same_phone", "same_name"]]]);
    const renamed = await t.request("PATCH", `${P}/${y.id}`, { token, body: { base_version: 3, first_name: "Quentin" } });
    expect(renamed.body.potential_duplicates).toEqual([]);
    expect(await dupIds(x.id)).toEqual([]);
    // a change of an unrelated field keeps the pairs
    await t.request("PATCH", `${P}/${y.id}`, { token, body: { base_version: 4, first_name: "Petra" } });
    await t.request("PATCH", `${P}/${y.id}`, { token, body: { base_version: 5, city: "Springfield" } });
    expect(await dupIds(x.id)).toEqual([y.id]);
  });
});
