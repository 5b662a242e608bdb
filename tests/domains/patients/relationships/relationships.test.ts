import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { archivePatient, JSON_HEADERS, MISSING, newLocation, newPatient, relationshipRows } from "./fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let reader: string; // patients.read only
let commsOnly: string; // communications keys, no patients keys
let memberOfB: string; // every patients key, in org B only
let events: EventEnvelope[];

type P = { id: string; first_name: string; last_name: string };
let ann: P, bob: P, cat: P, dan: P, other: P; // other: a patient of org B

const rel = (orgId: string, pid: string, rest = "") => `/api/v1/${orgId}/patients/${pid}/relationships${rest}`;

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["patients.read"],
      commsOnly: ["patients.communications.read", "patients.communications.write"],
      memberOfB: { org: "B", keys: ["patients.read", "patients.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  ({ reader, commsOnly, memberOfB } = w.tokens);
  locationId = await newLocation(t, orgA);
  ann = await newPatient(t, orgA, { first_name: "Ann", last_name: "Able", location_uuid: locationId });
  bob = await newPatient(t, orgA, { first_name: "Bob", last_name: "Able" });
  cat = await newPatient(t, orgA, { first_name: "Cat", last_name: "Able" });
  dan = await newPatient(t, orgA, { first_name: "Dan", last_name: "Dune" });
  other = await newPatient(t, orgB, { first_name: "Oscar", last_name: "Other" });
});
afterAll(() => t.close());

async function create(from: P, body: Record<string, unknown>) {
  const r = await t.request("POST", rel(orgA, from.id), { token: admin, body });
  if (r.status !== 201) throw new Error(`create relationship failed: ${r.status} ${r.text}`);
  return r.body;
}
const list = async (pid: string, qs = "") => t.request("GET", `${rel(orgA, pid)}${qs}`, { token: admin });

describe("POST .../relationships", () => {
  test("201 with every spec field; one-directional; audited; published with ids only", async () => {
    const before = events.length;
    const r = await t.request("POST", rel(orgA, ann.id), {
      token: admin,
      body: { to_patient_uuid: bob.id, relationship_type: "spouse", is_guardian: false, note: "Married 2001" },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: r.body.created_at,
      deleted_at: null,
      from_patient: { uuid: ann.id, name: "Ann Able" },
      from_patient_name: "Ann Able",
      to_patient: { uuid: bob.id, name: "Bob Able" },
      to_patient_name: "Bob Able",
      relationship_type: "spouse",
      is_guardian: false,
      note: "Married 2001",
    });
    // the inverse is not created: Bob has no outgoing record, one incoming
    expect((await list(bob.id)).body.total).toBe(0);
    expect((await list(bob.id, "?direction=incoming")).body.items.map((x: any) => x.id)).toEqual([r.body.id]);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: "patient_relationship.created", resource_type: "patient_relationship", before: null });
    expect(audit[0].after).toMatchObject({ from_patient_id: ann.id, to_patient_id: bob.id, relationship_type: "spouse" });
    const ev = events.slice(before).find((e) => e.type === "patient_relationship.created")!;
    expect(ev).toMatchObject({ resource_id: r.body.id, practice_id: locationId, data: { id: r.body.id, from_patient_id: ann.id, to_patient_id: bob.id } });
    expect(Object.keys(ev.data).sort()).toEqual(["from_patient_id", "id", "to_patient_id"]);
  });

  test("is_guardian defaults to false and note to null; an upper-case to_patient_uuid is the same patient", async () => {
    const r = await create(cat, { to_patient_uuid: dan.id.toUpperCase(), relationship_type: "other_family" });
    expect(r).toMatchObject({ is_guardian: false, note: null, to_patient: { uuid: dan.id, name: "Dan Dune" } });
  });

  test("409 duplicate for the same active (to_patient, type); another type is fine; after archiving it may be recorded again", async () => {
    const first = await create(dan, { to_patient_uuid: ann.id, relationship_type: "sibling" });
    const rowsBefore = await relationshipRows(t, orgA);
    const dup = await t.request("POST", rel(orgA, dan.id), {
      token: admin,
      body: { to_patient_uuid: ann.id, relationship_type: "sibling", is_guardian: true },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "This relationship is already recorded for the patient", code: "duplicate" });
    expect(await relationshipRows(t, orgA)).toEqual(rowsBefore);
    await create(dan, { to_patient_uuid: ann.id, relationship_type: "caregiver" });
    expect((await t.request("POST", rel(orgA, dan.id, `/${first.id}/archive`), { token: admin })).status).toBe(200);
    const again = await create(dan, { to_patient_uuid: ann.id, relationship_type: "sibling" });
    expect(again.id).not.toBe(first.id);
  });

  test("Idempotency-Key: the same body replays, another body is 409 idempotency_conflict (nothing written)", async () => {
    const headers = { "idempotency-key": `k-${Bun.randomUUIDv7()}` };
    const body = { to_patient_uuid: cat.id, relationship_type: "parent", is_guardian: true };
    const a = await t.request("POST", rel(orgA, bob.id), { token: admin, body, headers });
    const b = await t.request("POST", rel(orgA, bob.id), { token: admin, body, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.id).toBe(a.body.id);
    const rowsBefore = await relationshipRows(t, orgA);
    const c = await t.request("POST", rel(orgA, bob.id), { token: admin, body: { ...body, relationship_type: "guardian" }, headers });
    expect(c.status).toBe(409);
    expect(c.body.code).toBe("idempotency_conflict");
    expect(await relationshipRows(t, orgA)).toEqual(rowsBefore);
  });

  test("404 when the patient, or the target, is missing, archived or another org's; nothing written", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Gone", last_name: "Away" });
    await archivePatient(t, orgA, gone.id);
    const rowsBefore = await relationshipRows(t, orgA);
    const cases: [string, string, string][] = [
      [rel(orgA, MISSING), ann.id, "Patient not found"],
      [rel(orgA, other.id), ann.id, "Patient not found"], // org B's patient through org A's path
      [rel(orgA, ann.id), MISSING, "Related patient not found"],
      [rel(orgA, ann.id), other.id, "Related patient not found"], // a target of another org
      [rel(orgA, ann.id), gone.id, "Related patient not found"],
    ];
    for (const [path, to, detail] of cases) {
      const r = await t.request("POST", path, { token: admin, body: { to_patient_uuid: to, relationship_type: "sibling" } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await relationshipRows(t, orgA)).toEqual(rowsBefore);
    expect(await relationshipRows(t, orgB)).toEqual([]);
  });

  test.each([
    ["bad relationship_type", { relationship_type: "cousin" }, ["body", "relationship_type"], "enum"],
    ["missing relationship_type", { relationship_type: undefined }, ["body", "relationship_type"], "missing"],
    ["missing to_patient_uuid", { to_patient_uuid: undefined }, ["body", "to_patient_uuid"], "missing"],
    ["to_patient_uuid not a uuid", { to_patient_uuid: "bob" }, ["body", "to_patient_uuid"], "format"],
    ["to_patient_uuid a number", { to_patient_uuid: 7 }, ["body", "to_patient_uuid"], "type_error"],
    ["is_guardian a string", { is_guardian: "yes" }, ["body", "is_guardian"], "type_error"],
    ["note a number", { note: 5 }, ["body", "note"], "type_error"],
    ["note too long", { note: "x".repeat(2001) }, ["body", "note"], "out_of_range"],
    ["unknown field", { colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ["read-only field", { from_patient: { uuid: "x" } }, ["body", "from_patient"], "read_only"],
    ["id", { id: MISSING }, ["body", "id"], "read_only"],
  ])("422 %s; nothing written", async (_name, patch, loc, type) => {
    const rowsBefore = await relationshipRows(t, orgA);
    const r = await t.request("POST", rel(orgA, ann.id), { token: admin, body: { to_patient_uuid: cat.id, relationship_type: "sibling", ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await relationshipRows(t, orgA)).toEqual(rowsBefore);
  });

  test("422 for malformed JSON, a patient related to itself (self_relationship) and an archived patient (patient_archived)", async () => {
    const zed = await newPatient(t, orgA, { first_name: "Zed", last_name: "Zero" });
    const rowsBefore = await relationshipRows(t, orgA);
    const bad = await t.request("POST", rel(orgA, ann.id), { token: admin, rawBody: '{"to_patient_uuid": ', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    const self = await t.request("POST", rel(orgA, ann.id), { token: admin, body: { to_patient_uuid: ann.id, relationship_type: "clone" } });
    expect(self.status).toBe(422);
    expect(self.body).toEqual({
      detail: [{ loc: ["body", "to_patient_uuid"], msg: "A patient cannot be related to itself", type: "value_error" }],
      code: "self_relationship",
    });
    await archivePatient(t, orgA, zed.id);
    const archived = await t.request("POST", rel(orgA, zed.id), { token: admin, body: { to_patient_uuid: ann.id, relationship_type: "sibling" } });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect(await relationshipRows(t, orgA)).toEqual(rowsBefore);
  });

  test("401 without a token; 403 without patients.write; 404 for a member of another org; nothing written", async () => {
    const rowsBefore = await relationshipRows(t, orgA);
    const body = { to_patient_uuid: cat.id, relationship_type: "grandparent" };
    const anon = await t.request("POST", rel(orgA, ann.id), { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    for (const token of [reader, commsOnly]) {
      const r = await t.request("POST", rel(orgA, ann.id), { token, body });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    const outsider = await t.request("POST", rel(orgA, ann.id), { token: memberOfB, body });
    expect(outsider.status).toBe(404);
    expect(outsider.body).toEqual({ detail: "Organization not found", code: "not_found" });
    expect(await relationshipRows(t, orgA)).toEqual(rowsBefore);
  });
});

describe("GET .../relationships", () => {
  let eve: P, fay: P, gus: P;
  const ids: string[] = [];
  beforeAll(async () => {
    [eve, fay, gus] = [
      await newPatient(t, orgA, { first_name: "Eve", last_name: "List" }),
      await newPatient(t, orgA, { first_name: "Fay", last_name: "List" }),
      await newPatient(t, orgA, { first_name: "Gus", last_name: "List" }),
    ];
    ids.push((await create(eve, { to_patient_uuid: fay.id, relationship_type: "parent", is_guardian: true })).id);
    ids.push((await create(eve, { to_patient_uuid: gus.id, relationship_type: "parent" })).id);
    ids.push((await create(eve, { to_patient_uuid: gus.id, relationship_type: "caregiver" })).id);
    ids.push((await create(fay, { to_patient_uuid: eve.id, relationship_type: "child" })).id);
    const archived = await create(eve, { to_patient_uuid: fay.id, relationship_type: "other_family" });
    await t.request("POST", rel(orgA, eve.id, `/${archived.id}/archive`), { token: admin });
  });

  test("outgoing by default, in creation order, archived left out; paged", async () => {
    const r = await list(eve.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((x: any) => x.id)).toEqual(ids.slice(0, 3));
    expect(r.body.items[0]).toMatchObject({ from_patient_name: "Eve List", to_patient_name: "Fay List", relationship_type: "parent", is_guardian: true });
    const p2 = await list(eve.id, "?page=2&page_size=2");
    expect(p2.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(p2.body.items.map((x: any) => x.id)).toEqual([ids[2]]);
  });

  test("direction incoming / all, and the relationship_type filter", async () => {
    expect((await list(eve.id, "?direction=incoming")).body.items.map((x: any) => x.id)).toEqual([ids[3]]);
    expect((await list(eve.id, "?direction=all")).body.items.map((x: any) => x.id)).toEqual(ids);
    expect((await list(eve.id, "?direction=all&relationship_type=parent")).body.items.map((x: any) => x.id)).toEqual(ids.slice(0, 2));
    expect((await list(gus.id, "?direction=incoming&relationship_type=caregiver")).body.items.map((x: any) => x.id)).toEqual([ids[2]]);
  });

  test("an archived patient's relationships stay readable", async () => {
    const hal = await newPatient(t, orgA, { first_name: "Hal", last_name: "List" });
    const r = await create(hal, { to_patient_uuid: eve.id, relationship_type: "sibling" });
    await archivePatient(t, orgA, hal.id);
    expect((await list(hal.id)).body.items.map((x: any) => x.id)).toEqual([r.id]);
  });

  test.each([
    ["?direction=sideways", ["query", "direction"], "enum"],
    ["?relationship_type=cousin", ["query", "relationship_type"], "enum"],
    ["?page_size=201", ["query", "page_size"], "out_of_range"],
    ["?page=0", ["query", "page"], "out_of_range"],
    ["?status=active", ["query", "status"], "extra_forbidden"],
  ])("422 for %s", async (qs, loc, type) => {
    const r = await list(eve.id, qs);
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401, 403 (no patients.read), 404 for a missing patient, another org's patient or a non-member", async () => {
    expect((await t.request("GET", rel(orgA, eve.id))).status).toBe(401);
    expect((await t.request("GET", rel(orgA, eve.id), { token: commsOnly })).status).toBe(403);
    expect((await t.request("GET", rel(orgA, eve.id), { token: reader })).status).toBe(200);
    expect((await list(MISSING)).status).toBe(404);
    expect((await list(other.id)).body).toEqual({ detail: "Patient not found", code: "not_found" });
    expect((await t.request("GET", rel(orgA, eve.id), { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", rel(orgB, eve.id), { token: memberOfB })).status).toBe(404);
  });
});

describe("GET .../relationships/{id} and POST .../archive", () => {
  let ivy: P, jon: P, kim: P;
  beforeAll(async () => {
    [ivy, jon, kim] = [
      await newPatient(t, orgA, { first_name: "Ivy", last_name: "Arch", location_uuid: locationId }),
      await newPatient(t, orgA, { first_name: "Jon", last_name: "Arch" }),
      await newPatient(t, orgA, { first_name: "Kim", last_name: "Arch" }),
    ];
  });

  test("GET through either patient; 404 through a third patient, another org, a missing id", async () => {
    const r = await create(ivy, { to_patient_uuid: jon.id, relationship_type: "sibling", note: "twins" });
    const viaFrom = await t.request("GET", rel(orgA, ivy.id, `/${r.id}`), { token: reader });
    expect(viaFrom.status).toBe(200);
    expect(viaFrom.body).toEqual(r);
    expect(viaFrom.headers.get("etag")).toBe('"1"');
    expect((await t.request("GET", rel(orgA, jon.id, `/${r.id}`), { token: admin })).body).toEqual(r);
    for (const path of [rel(orgA, kim.id, `/${r.id}`), rel(orgA, ivy.id, `/${MISSING}`), rel(orgB, other.id, `/${r.id}`), rel(orgB, ivy.id, `/${r.id}`)]) {
      const x = await t.request("GET", path, { token: admin });
      expect(x.status).toBe(404);
      expect(x.body.code).toBe("not_found");
    }
    expect((await t.request("GET", rel(orgA, ivy.id, `/${r.id}`))).status).toBe(401);
    expect((await t.request("GET", rel(orgA, ivy.id, `/${r.id}`), { token: commsOnly })).status).toBe(403);
    expect((await t.request("GET", rel(orgA, ivy.id, `/${r.id}`), { token: memberOfB })).status).toBe(404);
  });

  test("archive answers the record with deleted_at and version 2; audited; published; then 404 by id and on a second archive", async () => {
    const r = await create(ivy, { to_patient_uuid: kim.id, relationship_type: "parent", is_guardian: true });
    const before = events.length;
    const a = await t.request("POST", rel(orgA, ivy.id, `/${r.id}/archive`), { token: admin });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ ...r, version: 2, deleted_at: expect.stringMatching(/Z$/), updated_at: a.body.deleted_at });
    const ev = events.slice(before).find((e) => e.type === "patient_relationship.archived")!;
    expect(ev).toMatchObject({ resource_id: r.id, practice_id: locationId, data: { id: r.id, changed_fields: ["deleted_at"] } });
    expect((await auditOf(t, orgA, r.id)).map((x) => x.action)).toEqual(["patient_relationship.created", "patient_relationship.archived"]);
    expect((await t.request("GET", rel(orgA, ivy.id, `/${r.id}`), { token: admin })).status).toBe(404);
    const again = await t.request("POST", rel(orgA, ivy.id, `/${r.id}/archive`), { token: admin });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: "Relationship not found", code: "not_found" });
  });

  test("404 through the to_patient, a third patient, another org or a missing id; 422 on an archived patient; row unchanged", async () => {
    const r = await create(jon, { to_patient_uuid: ivy.id, relationship_type: "sibling" });
    const rowsBefore = await relationshipRows(t, orgA);
    for (const path of [
      rel(orgA, ivy.id, `/${r.id}/archive`),
      rel(orgA, kim.id, `/${r.id}/archive`),
      rel(orgA, jon.id, `/${MISSING}/archive`),
      rel(orgB, other.id, `/${r.id}/archive`),
      rel(orgB, jon.id, `/${r.id}/archive`),
    ]) {
      const x = await t.request("POST", path, { token: admin });
      expect(x.status).toBe(404);
      expect(x.body.code).toBe("not_found");
    }
    expect((await t.request("POST", rel(orgA, jon.id, `/${r.id}/archive`))).status).toBe(401);
    expect((await t.request("POST", rel(orgA, jon.id, `/${r.id}/archive`), { token: reader })).status).toBe(403);
    expect((await t.request("POST", rel(orgA, jon.id, `/${r.id}/archive`), { token: memberOfB })).status).toBe(404);
    const lee = await newPatient(t, orgA, { first_name: "Lee", last_name: "Arch" });
    const leeRel = await create(lee, { to_patient_uuid: ivy.id, relationship_type: "sibling" });
    await archivePatient(t, orgA, lee.id);
    const rowsMid = await relationshipRows(t, orgA);
    const locked = await t.request("POST", rel(orgA, lee.id, `/${leeRel.id}/archive`), { token: admin });
    expect(locked.status).toBe(422);
    expect(locked.body.code).toBe("patient_archived");
    expect(rowsMid.filter((x) => x.id !== leeRel.id)).toEqual(rowsBefore);
    expect(await relationshipRows(t, orgA)).toEqual(rowsMid);
  });
});
