import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { archivePatient, MISSING, newPatient } from "./fixtures";
import { withoutIdsAndTimes } from "@tests/support/secrets";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let reader: string; // patients.read only
let commsOnly: string; // no patients keys
let memberOfB: string;

type P = { id: string; first_name: string; last_name: string };
const path = (orgId: string, pid: string, what: "dependents" | "family") => `/api/v1/${orgId}/patients/${pid}/${what}`;
const get = async (pid: string, what: "dependents" | "family", qs = "") => t.request("GET", `${path(orgA, pid, what)}${qs}`, { token: admin });

async function relate(from: P, to: P, relationship_type: string, is_guardian = false) {
  const r = await t.request("POST", `/api/v1/${orgA}/patients/${from.id}/relationships`, {
    token: admin,
    body: { to_patient_uuid: to.id, relationship_type, is_guardian },
  });
  if (r.status !== 201) throw new Error(`relate failed: ${r.status} ${r.text}`);
  return r.body;
}

beforeAll(async () => {
  const w = await twoOrgApp({
    reader: ["patients.read"],
    commsOnly: ["patients.communications.read"],
    memberOfB: { org: "B", keys: ["patients.read", "patients.write"] },
  });
  ({ t, admin, orgA, orgB } = w);
  ({ reader, commsOnly, memberOfB } = w.tokens);
});
afterAll(() => t.close());

describe("GET .../dependents", () => {
  test("the patient's own is_guardian records, each dependent as to_patient; archived records and archived dependents left out", async () => {
    const mom = await newPatient(t, orgA, { first_name: "Mia", last_name: "Mom" });
    const [kid1, kid2, kid3, dad] = [
      await newPatient(t, orgA, { first_name: "Kai", last_name: "Mom" }),
      await newPatient(t, orgA, { first_name: "Lia", last_name: "Mom" }),
      await newPatient(t, orgA, { first_name: "Max", last_name: "Mom" }),
      await newPatient(t, orgA, { first_name: "Don", last_name: "Dad" }),
    ];
    const g1 = await relate(mom, kid1, "parent", true);
    const g2 = await relate(mom, kid2, "parent", true);
    await relate(mom, dad, "spouse"); // not a guardian record
    await relate(dad, kid1, "parent", true); // dad's, not mom's
    await relate(kid3, mom, "child", true); // incoming to mom: kid3 is not her dependent
    const archivedRel = await relate(mom, kid3, "guardian", true);
    await t.request("POST", `/api/v1/${orgA}/patients/${mom.id}/relationships/${archivedRel.id}/archive`, { token: admin });
    const kid4 = await newPatient(t, orgA, { first_name: "Ned", last_name: "Mom" });
    await relate(mom, kid4, "foster_child", true);
    await archivePatient(t, orgA, kid4.id);

    const r = await t.request("GET", path(orgA, mom.id, "dependents"), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [g1, g2], total: 2 });
    expect(r.body.items.map((x: any) => x.to_patient_name)).toEqual(["Kai Mom", "Lia Mom"]);
    expect((await get(kid1.id, "dependents")).body).toEqual({ items: [], total: 0 });
  });

  test("422 for any query parameter; 401; 403 without patients.read; 404 missing, another org's patient, non-member", async () => {
    const p = await newPatient(t, orgA, { first_name: "Solo", last_name: "Dep" });
    const q = await get(p.id, "dependents", "?page=1");
    expect(q.status).toBe(422);
    expect(q.body.detail[0]).toMatchObject({ loc: ["query", "page"], type: "extra_forbidden" });
    expect((await t.request("GET", path(orgA, p.id, "dependents"))).status).toBe(401);
    expect((await t.request("GET", path(orgA, p.id, "dependents"), { token: commsOnly })).status).toBe(403);
    expect((await get(MISSING, "dependents")).status).toBe(404);
    const theirs = await newPatient(t, orgB, { first_name: "Their", last_name: "Dep" });
    expect((await get(theirs.id, "dependents")).body).toEqual({ detail: "Patient not found", code: "not_found" });
    expect((await t.request("GET", path(orgA, p.id, "dependents"), { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", path(orgB, p.id, "dependents"), { token: memberOfB })).status).toBe(404);
  });
});

describe("GET .../family", () => {
  let gina: P, hank: P, ida: P, jay: P, kat: P, lou: P;
  beforeAll(async () => {
    gina = await newPatient(t, orgA, { first_name: "Gina", last_name: "Guar", date_of_birth: "1980-01-02", social_security_number: "123-45-6789" });
    const own = await t.request("PATCH", `/api/v1/${orgA}/patients/${gina.id}`, { token: admin, body: { base_version: 1, responsible_party_uuid: gina.id } });
    expect(own.body.responsible_party).toEqual({ uuid: gina.id, name: "Gina Guar" }); // her own guarantor
    hank = await newPatient(t, orgA, { first_name: "Hank", last_name: "Guar", responsible_party_uuid: gina.id, status: "inactive" });
    ida = await newPatient(t, orgA, {
      first_name: "Ida",
      last_name: "Alpha",
      responsible_party_uuid: gina.id,
      preferred_name: "Idie",
      date_of_birth: "2015-06-07",
    });
    jay = await newPatient(t, orgA, { first_name: "Jay", last_name: "Guar", responsible_party_uuid: gina.id });
    kat = await newPatient(t, orgA, { first_name: "Kat", last_name: "Guar", responsible_party_uuid: gina.id });
    lou = await newPatient(t, orgA, { first_name: "Lou", last_name: "Guar", responsible_party_uuid: gina.id });
    await archivePatient(t, orgA, lou.id);
    await newPatient(t, orgA, { first_name: "Zoe", last_name: "Elsewhere" }); // unrelated
    await relate(gina, ida, "parent", true); // inverse read: Ida is Gina's child
    await relate(hank, gina, "spouse");
    await relate(jay, gina, "stepchild"); // Jay's own record wins over the inverse
    await relate(gina, jay, "guardian");
    await relate(gina, kat, "caregiver"); // no inverse in the enum
  });

  const member = (p: P, extra: Record<string, unknown>) => ({
    id: p.id,
    uuid: p.id,
    first_name: p.first_name,
    last_name: p.last_name,
    preferred_name: null,
    date_of_birth: null,
    status: "active",
    is_guarantor: false,
    relationship_to_guarantor: null,
    ...extra,
  });

  test("the guarantor first, then members by name; relationship to the guarantor when recorded; archived left out; no SSN", async () => {
    const r = await t.request("GET", path(orgA, ida.id, "family"), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      guarantor: { uuid: gina.id, name: "Gina Guar" },
      items: [
        member(gina, { date_of_birth: "1980-01-02", is_guarantor: true }),
        member(ida, { preferred_name: "Idie", date_of_birth: "2015-06-07", relationship_to_guarantor: "child" }),
        member(hank, { status: "inactive", relationship_to_guarantor: "spouse" }),
        member(jay, { relationship_to_guarantor: "stepchild" }),
        member(kat, {}),
      ],
      total: 5,
    });
    expect(withoutIdsAndTimes(r.text)).not.toContain("6789");
    // the same family from the guarantor and from any member
    expect((await get(gina.id, "family")).body).toEqual(r.body);
    expect((await get(kat.id, "family")).body).toEqual(r.body);
  });

  test("a patient without a responsible party is its own guarantor: alone, or with those who name it", async () => {
    const solo = await newPatient(t, orgA, { first_name: "Sol", last_name: "Alone" });
    expect((await get(solo.id, "family")).body).toEqual({
      guarantor: { uuid: solo.id, name: "Sol Alone" },
      items: [member(solo, { is_guarantor: true })],
      total: 1,
    });
    const dep = await newPatient(t, orgA, { first_name: "Dee", last_name: "Alone", responsible_party_uuid: solo.id });
    expect((await get(solo.id, "family")).body.items.map((x: any) => x.id)).toEqual([solo.id, dep.id]);
  });

  test("an archived patient still has a family view (without itself); an archived guarantor is left out but named", async () => {
    expect((await get(lou.id, "family")).body.items.map((x: any) => x.id)).toEqual([gina.id, ida.id, hank.id, jay.id, kat.id]);
    const boss = await newPatient(t, orgA, { first_name: "Bea", last_name: "Boss" });
    const kid = await newPatient(t, orgA, { first_name: "Cy", last_name: "Boss", responsible_party_uuid: boss.id });
    await archivePatient(t, orgA, boss.id);
    expect((await get(kid.id, "family")).body).toEqual({ guarantor: { uuid: boss.id, name: "Bea Boss" }, items: [member(kid, {})], total: 1 });
  });

  test("422 for any query parameter; 401; 403 without patients.read; 404 missing, another org's patient, non-member", async () => {
    const q = await get(gina.id, "family", "?include_archived=true");
    expect(q.status).toBe(422);
    expect(q.body.detail[0]).toMatchObject({ loc: ["query", "include_archived"], type: "extra_forbidden" });
    expect((await t.request("GET", path(orgA, gina.id, "family"))).status).toBe(401);
    expect((await t.request("GET", path(orgA, gina.id, "family"), { token: commsOnly })).status).toBe(403);
    expect((await get(MISSING, "family")).status).toBe(404);
    const theirs = await newPatient(t, orgB, { first_name: "Their", last_name: "Fam" });
    expect((await get(theirs.id, "family")).body).toEqual({ detail: "Patient not found", code: "not_found" });
    expect((await t.request("GET", path(orgA, gina.id, "family"), { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", path(orgB, gina.id, "family"), { token: memberOfB })).status).toBe(404);
  });
});
