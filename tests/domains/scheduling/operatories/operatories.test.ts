import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { requireOperatory } from "@/domains/scheduling/operatories/service";
import { NotFound } from "@/platform/errors";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/schedule/operatories of org A
let B: string;
let locA: { id: string; name: string };
let locA2: { id: string; name: string };
let locB: { id: string; name: string };
let archivedLoc: { id: string; name: string };
let reader: string; // schedule.read only
let outsider: string; // a member of A holding providers.* but no schedule keys
let memberOfB: string; // a member of B only
let events: EventEnvelope[];

const MISSING = "01970000-0000-7000-8000-000000000000";

async function location(orgId: string, name: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token: admin, body: { name, timezone: "America/Chicago" } });
  if (r.status !== 201) throw new Error(`create location failed: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string };
}

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["schedule.read"],
      outsider: ["providers.read", "providers.write"],
      memberOfB: { org: "B", keys: ["schedule.read", "schedule.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  ({ reader, outsider, memberOfB } = w.tokens);
  A = `${w.pathA}/schedule/operatories`;
  B = `${w.pathB}/schedule/operatories`;
  locA = await location(orgA, "Downtown");
  locA2 = await location(orgA, "Uptown");
  locB = await location(orgB, "Elsewhere");
  archivedLoc = await location(orgA, "Closed");
  await t.request("POST", `/api/v1/${orgA}/locations/${archivedLoc.id}/archive`, { token: admin });
});
afterAll(() => t.close());

async function create(body: Record<string, unknown> = {}, P = A, loc = locA) {
  const r = await t.request("POST", P, { token: admin, body: { location_uuid: loc.id, name: "Op", ...body } });
  if (r.status !== 201) throw new Error(`create operatory failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const count = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;

describe("POST /schedule/operatories", () => {
  test("201 with the record and its location ref; audited and published with the location as practice", async () => {
    const before = events.length;
    const r = await t.request("POST", A, { token: admin, body: { location_uuid: locA.id.toUpperCase(), name: " Op 1 ", abbreviation: "O1", item_order: 2 } });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      location: { uuid: locA.id, name: "Downtown" },
      name: "Op 1",
      abbreviation: "O1",
      item_order: 2,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["operatory.created"]);
    const ev = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(ev.map((e) => [e.type, e.resource_type, e.practice_id])).toEqual([["operatory.created", "operatory", locA.id]]);
  });

  test("defaults: abbreviation null, item_order 0", async () => {
    expect(await create({ name: "Plain" })).toMatchObject({ name: "Plain", abbreviation: null, item_order: 0 });
  });

  test("404 for an unknown, archived or another org's location; nothing is written", async () => {
    const total = await count();
    for (const id of [MISSING, archivedLoc.id, locB.id]) {
      const r = await t.request("POST", A, { token: admin, body: { location_uuid: id, name: "Ghost" } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Location not found", code: "not_found" });
    }
    expect(await count()).toBe(total);
  });

  test("422 for missing, wrong-typed, out-of-range, format, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const total = await count();
    const ok = { location_uuid: locA.id, name: "Op" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ name: "Op" }, ["body", "location_uuid"], "missing"],
      [{ location_uuid: locA.id }, ["body", "name"], "missing"],
      [{ ...ok, name: "" }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: "x".repeat(101) }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: 7 }, ["body", "name"], "type_error"],
      [{ ...ok, abbreviation: "x".repeat(21) }, ["body", "abbreviation"], "out_of_range"],
      [{ ...ok, item_order: -1 }, ["body", "item_order"], "out_of_range"],
      [{ ...ok, item_order: "1" }, ["body", "item_order"], "type_error"],
      [{ ...ok, location_uuid: "downtown" }, ["body", "location_uuid"], "format"],
      [{ ...ok, color: "blue" }, ["body", "color"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, deleted_at: null }, ["body", "deleted_at"], "read_only"],
    ];
    await expectValidationCases(t, "POST", A, admin, cases);
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name": ', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await count()).toBe(total);
  });

  test("401, 403 without schedule.write (also for a schedule.read member), 404 for a non-member or unknown org; nothing is written", async () => {
    const total = await count();
    const body = { location_uuid: locA.id, name: "Nope" };
    const anon = await t.request("POST", A, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/${MISSING}/schedule/operatories`, { token: admin, body })).status).toBe(404);
    expect(await count()).toBe(total);
  });
});

describe("GET /schedule/operatories", () => {
  let org: string;
  let P: string;
  let l1: { id: string; name: string };
  let l2: { id: string; name: string };
  beforeAll(async () => {
    org = (await t.createOrg()).id;
    P = `/api/v1/${org}/schedule/operatories`;
    l1 = await location(org, "North");
    l2 = await location(org, "South");
    await create({ name: "Op B", item_order: 1 }, P, l1);
    await create({ name: "Op A", item_order: 1 }, P, l1);
    await create({ name: "Hyg", item_order: 0 }, P, l1);
    await create({ name: "South 1" }, P, l2);
    const gone = await create({ name: "Gone" }, P, l1);
    await t.request("POST", `${P}/${gone.id}/archive`, { token: admin });
  });
  const names = async (qs: string, token = admin) => {
    const r = await t.request("GET", `${P}${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body.items.map((o: { name: string }) => o.name);
  };

  test("paged, ordered by item_order then name; archived operatories are left out; location refs carry names", async () => {
    const r = await t.request("GET", P, { token: admin });
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(r.body.items.map((o: { name: string }) => o.name)).toEqual(["Hyg", "South 1", "Op A", "Op B"]);
    expect(r.body.items[1].location).toEqual({ uuid: l2.id, name: "South" });
    const p2 = (await t.request("GET", `${P}?page=2&page_size=3`, { token: admin })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(p2.items.map((o: { name: string }) => o.name)).toEqual(["Op B"]);
  });

  test("location_uuid filter; unknown query parameters are 422; a schedule.read member may list", async () => {
    expect(await names(`?location_uuid=${l1.id}`)).toEqual(["Hyg", "Op A", "Op B"]);
    expect(await names(`?location_uuid=${l2.id}`)).toEqual(["South 1"]);
    const unknown = await t.request("GET", `${A}?location_uuid=${l2.id}&cache=1`, { token: admin });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([{ loc: ["query", "cache"], msg: "Unknown field", type: "extra_forbidden" }]);
    const r = await t.request("GET", A, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThan(0);
  });

  test("404 for an unknown, archived or another org's location filter", async () => {
    for (const id of [MISSING, archivedLoc.id, locB.id]) {
      const r = await t.request("GET", `${A}?location_uuid=${id}`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe("Location not found");
    }
  });

  test("422 for bad paging and filter values", async () => {
    for (const [qs, field] of [
      ["page=0", "page"],
      ["page_size=500", "page_size"],
      ["location_uuid=north", "location_uuid"],
    ]) {
      const r = await t.request("GET", `${P}?${qs}`, { token: admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("401, 403 without schedule.read, 404 for a non-member org", async () => {
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /schedule/operatories/{id}", () => {
  test("200 with ETag for a schedule.read member", async () => {
    const o = await create({ name: "Readable" });
    const r = await t.request("GET", `${A}/${o.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(o);
  });

  test("404 for an unknown id, another org's operatory and an archived operatory", async () => {
    const foreign = await create({}, B, locB);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    for (const id of [MISSING, foreign.id, gone.id]) {
      const r = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Operatory not found", code: "not_found" });
    }
  });

  test("401, 403, 404 for a non-member org", async () => {
    const o = await create();
    expect((await t.request("GET", `${A}/${o.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${o.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/${o.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /schedule/operatories/{id}", () => {
  test("200: changes the sent fields, bumps the version, clears the abbreviation with null; audited and published", async () => {
    const o = await create({ name: "Before", abbreviation: "B" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${o.id}`, { token: admin, body: { base_version: 1, name: "After", abbreviation: null, item_order: 5 } });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({ ...o, name: "After", abbreviation: null, item_order: 5, version: 2, updated_at: expect.any(String) });
    expect(await read(o.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, o.id);
    expect(audit.map((a) => a.action)).toEqual(["operatory.created", "operatory.updated"]);
    expect([audit[1].before.name, audit[1].after.name]).toEqual(["Before", "After"]);
    const ev = events.slice(before).filter((e) => e.resource_id === o.id);
    expect(ev.map((e) => [e.type, e.practice_id])).toEqual([["operatory.updated", locA.id]]);
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(["abbreviation", "item_order", "name"]);
  });

  test("422 when the location is sent (it is immutable); the record is unchanged", async () => {
    const o = await create({ name: "Fixed" });
    for (const field of ["location_uuid", "location"]) {
      const r = await t.request("PATCH", `${A}/${o.id}`, { token: admin, body: { base_version: 1, [field]: locA2.id } });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
      // read_only once the platform reads a schema's declared derived fields; extra_forbidden until then
      expect(["read_only", "extra_forbidden"]).toContain(r.body.detail[0].type);
    }
    expect(await read(o.id)).toEqual(o);
  });

  test("422: missing base_version, wrong types, out of range, unknown and read-only fields, malformed JSON; the record is unchanged", async () => {
    const o = await create({ name: "Strict" });
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 1.5 }, ["body", "base_version"], "type_error"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, name: "  " }, ["body", "name"], "out_of_range"],
      [{ base_version: 1, item_order: 2_000_000 }, ["body", "item_order"], "out_of_range"],
      [{ base_version: 1, version: 9 }, ["body", "version"], "read_only"],
      [{ base_version: 1, nickname: "x" }, ["body", "nickname"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "PATCH", `${A}/${o.id}`, admin, cases);
    const bad = await t.request("PATCH", `${A}/${o.id}`, { token: admin, rawBody: "[", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(o.id)).toEqual(o);
  });

  test("409 version_conflict on a stale base_version; the record is unchanged", async () => {
    const o = await create({ name: "V1" });
    await t.request("PATCH", `${A}/${o.id}`, { token: admin, body: { base_version: 1, name: "V2" } });
    const r = await t.request("PATCH", `${A}/${o.id}`, { token: admin, body: { base_version: 1, name: "Lost" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect(await read(o.id)).toMatchObject({ name: "V2", version: 2 });
  });

  test("404 for an unknown id and another org's operatory (which stays unchanged)", async () => {
    const foreign = await create({ name: "Theirs" }, B, locB);
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body: { base_version: 1, name: "X" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${foreign.id}`, { token: admin, body: { base_version: 1, name: "Hijack" } })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
  });

  test("401, 403 for a schedule.read member, 404 for a non-member org; the record is unchanged", async () => {
    const o = await create();
    const body = { base_version: 1, name: "Nope" };
    expect((await t.request("PATCH", `${A}/${o.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${o.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${o.id}`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(o.id)).toEqual(o);
  });
});

describe("POST /schedule/operatories/{id}/archive", () => {
  test("200 with deleted_at and a new version; then 404 and out of lists; audited and published", async () => {
    const o = await create({ name: "Retiring" });
    const before = events.length;
    const r = await t.request("POST", `${A}/${o.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...o, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", `${A}/${o.id}`, { token: admin })).status).toBe(404);
    const ids = (await t.request("GET", `${A}?page_size=200`, { token: admin })).body.items.map((x: { id: string }) => x.id);
    expect(ids).not.toContain(o.id);
    expect((await t.request("POST", `${A}/${o.id}/archive`, { token: admin })).status).toBe(404);
    expect((await auditOf(t, orgA, o.id)).map((a) => a.action)).toEqual(["operatory.created", "operatory.archived"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === o.id)
        .map((e) => e.type),
    ).toEqual(["operatory.archived"]);
  });

  test("409 for a stale ?base_version; 200 for the current one", async () => {
    const o = await create();
    const stale = await t.request("POST", `${A}/${o.id}/archive?base_version=3`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect(await read(o.id)).toEqual(o);
    expect((await t.request("POST", `${A}/${o.id}/archive?base_version=1`, { token: admin })).status).toBe(200);
  });

  test("404 unknown and another org's; 401, 403, 404 non-member; the record is unchanged", async () => {
    const o = await create();
    const foreign = await create({}, B, locB);
    expect((await t.request("POST", `${A}/${MISSING}/archive`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${A}/${foreign.id}/archive`, { token: admin })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    expect((await t.request("POST", `${A}/${o.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/${o.id}/archive`, { token: reader })).status).toBe(403);
    expect((await t.request("POST", `${A}/${o.id}/archive`, { token: memberOfB })).status).toBe(404);
    expect(await read(o.id)).toEqual(o);
  });
});

describe("requireOperatory (for other domains' units of work)", () => {
  test("returns the row (with its location_id) of a live operatory; 404 Operatory for unknown and archived ones", async () => {
    const o = await create({ name: "Chair 9" }, A, locA2);
    const gone = await create();
    await t.request("POST", `${A}/${gone.id}/archive`, { token: admin });
    const org = (await t.rt.access.org(orgA))!;
    const db = await t.rt.orgDbs.get(org.id, org.shard);
    expect(await db.read((d) => requireOperatory(d, o.id))).toMatchObject({ id: o.id, name: "Chair 9", location_id: locA2.id });
    for (const id of [gone.id, MISSING]) {
      const err = await Promise.resolve()
        .then(() => db.read((d) => requireOperatory(d, id)))
        .catch((e) => e);
      expect(err).toBeInstanceOf(NotFound);
      expect(err.message).toBe("Operatory not found");
    }
  });
});
