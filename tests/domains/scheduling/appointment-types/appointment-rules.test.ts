import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, twoOrgApp, type TestApp } from "@tests/helpers";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
const R = (org = orgA) => `/api/v1/${org}/schedule/appointment-rules`;
const MISSING = "01a1fe29-0000-7000-8000-000000000000";

let seq = 0;
async function newType(org = orgA, name = `Type ${++seq}`) {
  const r = await t.request("POST", `/api/v1/${org}/appointment-types`, {
    token: admin,
    body: { code: `R${++seq}`, name, duration_minutes: 30, color: "#123456" },
  });
  if (r.status !== 201) throw new Error(`type: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string };
}
async function newLocation(org = orgA, name = `Location ${++seq}`) {
  const r = await t.request("POST", `/api/v1/${org}/locations`, { token: admin, body: { name, timezone: "America/Chicago" } });
  if (r.status !== 201) throw new Error(`location: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string };
}
async function newRule(a: string, b: string, location: string | null, allow = true, org = orgA) {
  const r = await t.request("POST", R(org), {
    token: admin,
    body: { appointment_type_a_uuid: a, appointment_type_b_uuid: b, location_uuid: location, allow_overlap: allow },
  });
  if (r.status !== 201) throw new Error(`rule: ${r.status} ${r.text}`);
  return r.body;
}
const readRule = async (id: string, org = orgA) => (await t.request("GET", `${R(org)}/${id}`, { token: admin })).body;
const ids = (page: { items: { id: string }[] }) => page.items.map((x) => x.id);

beforeAll(async () => {
  ({ t, admin, orgA, orgB } = await twoOrgApp());
});
afterAll(() => t.close());

describe("POST /schedule/appointment-rules", () => {
  test("creates an org-wide rule (location omitted) and a location rule, with refs; audit, event practice", async () => {
    const a = await newType(orgA, "Prophy");
    const b = await newType(orgA, "Exam");
    const loc = await newLocation(orgA, "Main St");
    const r = await t.request("POST", R(), { token: admin, body: { appointment_type_a_uuid: a.id, appointment_type_b_uuid: b.id, allow_overlap: true } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: r.body.created_at,
      appointment_type_a: { uuid: a.id, name: "Prophy" },
      appointment_type_b: { uuid: b.id, name: "Exam" },
      location: null,
      allow_overlap: true,
    });
    expect(r.headers.get("etag")).toBe('"1"');
    expect(await readRule(r.body.id)).toEqual(r.body);

    const local = await t.request("POST", R(), {
      token: admin,
      body: { appointment_type_a_uuid: b.id, appointment_type_b_uuid: a.id, location_uuid: loc.id, allow_overlap: false },
    });
    expect(local.status).toBe(201);
    expect(local.body).toMatchObject({
      appointment_type_a: { uuid: b.id, name: "Exam" },
      appointment_type_b: { uuid: a.id, name: "Prophy" },
      location: { uuid: loc.id, name: "Main St" },
      allow_overlap: false,
    });
    const audit = await auditOf(t, orgA, local.body.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment_rule.created"]);
    expect(audit[0].after).toMatchObject({ appointment_type_a_uuid: b.id, appointment_type_b_uuid: a.id, location_uuid: loc.id, allow_overlap: false });
  });

  test("a type may be paired with itself; explicit null location is org-wide; upper-case uuids resolve", async () => {
    const a = await newType();
    const r = await t.request("POST", R(), {
      token: admin,
      body: { appointment_type_a_uuid: a.id.toUpperCase(), appointment_type_b_uuid: a.id, location_uuid: null, allow_overlap: true },
    });
    expect(r.status).toBe(201);
    expect(r.body.appointment_type_a).toEqual({ uuid: a.id, name: a.name });
    expect(r.body.appointment_type_b).toEqual({ uuid: a.id, name: a.name });
    expect(r.body.location).toBeNull();
  });

  test("409 duplicate for the same unordered pair at the same location; other locations and org-wide are separate", async () => {
    const a = await newType();
    const b = await newType();
    const l1 = await newLocation();
    const l2 = await newLocation();
    await newRule(a.id, b.id, l1.id);
    await newRule(a.id, b.id, null);
    const count = async () => (await t.request("GET", `${R()}?appointment_type_uuid=${a.id}&location_uuid=${l1.id}`, { token: admin })).body.total;
    for (const [x, y, loc] of [
      [a.id, b.id, l1.id],
      [b.id, a.id, l1.id],
      [b.id, a.id, null],
    ] as const) {
      const r = await t.request("POST", R(), {
        token: admin,
        body: { appointment_type_a_uuid: x, appointment_type_b_uuid: y, location_uuid: loc, allow_overlap: false },
      });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: "A rule for these two appointment types already exists at this location", code: "duplicate" });
    }
    expect(await count()).toBe(1);
    expect(
      (
        await t.request("POST", R(), {
          token: admin,
          body: { appointment_type_a_uuid: b.id, appointment_type_b_uuid: a.id, location_uuid: l2.id, allow_overlap: false },
        })
      ).status,
    ).toBe(201);
  });

  test("404 for an unknown, archived or another org's type or location; nothing is written", async () => {
    const a = await newType();
    const b = await newType();
    const archivedType = await newType();
    await t.request("POST", `/api/v1/${orgA}/appointment-types/${archivedType.id}/archive`, { token: admin });
    const archivedLoc = await newLocation();
    await t.request("POST", `/api/v1/${orgA}/locations/${archivedLoc.id}/archive`, { token: admin });
    const foreignType = await newType(orgB);
    const foreignLoc = await newLocation(orgB);
    const cases: [Record<string, unknown>, string][] = [
      [{ appointment_type_a_uuid: MISSING, appointment_type_b_uuid: b.id }, "Appointment type not found"],
      [{ appointment_type_a_uuid: a.id, appointment_type_b_uuid: MISSING }, "Appointment type not found"],
      [{ appointment_type_a_uuid: archivedType.id, appointment_type_b_uuid: b.id }, "Appointment type not found"],
      [{ appointment_type_a_uuid: a.id, appointment_type_b_uuid: foreignType.id }, "Appointment type not found"],
      [{ appointment_type_a_uuid: a.id, appointment_type_b_uuid: b.id, location_uuid: MISSING }, "Location not found"],
      [{ appointment_type_a_uuid: a.id, appointment_type_b_uuid: b.id, location_uuid: archivedLoc.id }, "Location not found"],
      [{ appointment_type_a_uuid: a.id, appointment_type_b_uuid: b.id, location_uuid: foreignLoc.id }, "Location not found"],
    ];
    for (const [body, detail] of cases) {
      const r = await t.request("POST", R(), { token: admin, body: { ...body, allow_overlap: true } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    for (const loc of ["", `&location_uuid=${MISSING}`, `&location_uuid=${archivedLoc.id}`, `&location_uuid=${foreignLoc.id}`]) {
      expect((await t.request("GET", `${R()}?appointment_type_uuid=${a.id}${loc}`, { token: admin })).body.total).toBe(0);
    }
  });

  test("422 for missing, mistyped, malformed and unknown fields; nothing is written", async () => {
    const a = await newType();
    const b = await newType();
    const ok = { appointment_type_a_uuid: a.id, appointment_type_b_uuid: b.id, allow_overlap: true };
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ ...ok, appointment_type_a_uuid: undefined }, ["body", "appointment_type_a_uuid"], "missing"],
      [{ ...ok, appointment_type_b_uuid: undefined }, ["body", "appointment_type_b_uuid"], "missing"],
      [{ ...ok, allow_overlap: undefined }, ["body", "allow_overlap"], "missing"],
      [{ ...ok, allow_overlap: "yes" }, ["body", "allow_overlap"], "type_error"],
      [{ ...ok, appointment_type_a_uuid: "not-a-uuid" }, ["body", "appointment_type_a_uuid"], "format"],
      [{ ...ok, location_uuid: 12 }, ["body", "location_uuid"], "type_error"],
      [{ ...ok, location_uuid: "nope" }, ["body", "location_uuid"], "format"],
      [{ ...ok, priority: 1 }, ["body", "priority"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", R(), { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const bad = await t.request("POST", R(), { token: admin, rawBody: '{"allow_overlap": tru', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await t.request("GET", `${R()}?appointment_type_uuid=${a.id}`, { token: admin })).body.total).toBe(0);
  });
});

describe("GET /schedule/appointment-rules", () => {
  test("location_uuid omitted: org-wide rules only; given: that location's rules; type matches either side", async () => {
    const org = (await t.createOrg()).id;
    const [x, y, z] = [await newType(org), await newType(org), await newType(org)];
    const [l1, l2] = [await newLocation(org), await newLocation(org)];
    const wideXY = await newRule(x.id, y.id, null, true, org);
    const wideZX = await newRule(z.id, x.id, null, false, org);
    const l1XY = await newRule(x.id, y.id, l1.id, false, org);
    const l1YZ = await newRule(y.id, z.id, l1.id, true, org);
    const l2XZ = await newRule(x.id, z.id, l2.id, true, org);
    const get = async (q: string) => {
      const r = await t.request("GET", `${R(org)}${q}`, { token: admin });
      expect(r.status).toBe(200);
      return r.body;
    };
    const wide = await get("");
    expect(wide).toMatchObject({ page: 1, page_size: 50, total: 2 });
    expect(ids(wide)).toEqual([wideXY.id, wideZX.id]);
    expect(wide.items[0]).toEqual(wideXY);
    expect(ids(await get(`?location_uuid=${l1.id}`))).toEqual([l1XY.id, l1YZ.id]);
    expect(ids(await get(`?location_uuid=${l2.id}`))).toEqual([l2XZ.id]);
    expect(ids(await get(`?appointment_type_uuid=${x.id}`))).toEqual([wideXY.id, wideZX.id]);
    expect(ids(await get(`?appointment_type_uuid=${y.id}`))).toEqual([wideXY.id]);
    expect(ids(await get(`?appointment_type_uuid=${z.id}&location_uuid=${l1.id}`))).toEqual([l1YZ.id]);
    expect(ids(await get(`?appointment_type_uuid=${x.id}&location_uuid=${l2.id}`))).toEqual([l2XZ.id]);
    expect((await get(`?appointment_type_uuid=${MISSING}`)).total).toBe(0);
    // paging
    const p2 = await get(`?location_uuid=${l1.id}&page=2&page_size=1`);
    expect(p2).toMatchObject({ page: 2, page_size: 1, total: 2 });
    expect(ids(p2)).toEqual([l1YZ.id]);
    expect((await get(`?location_uuid=${l1.id}&page=3&page_size=1`)).items).toEqual([]);
  });

  test("422 when paging is out of range or a uuid is malformed", async () => {
    for (const [q, field, type] of [
      ["page=0", "page", "out_of_range"],
      ["page_size=0", "page_size", "out_of_range"],
      ["page_size=201", "page_size", "out_of_range"],
      ["page=abc", "page", "type_error"],
      ["location_uuid=abc", "location_uuid", "format"],
      ["appointment_type_uuid=1", "appointment_type_uuid", "format"],
    ] as const) {
      const r = await t.request("GET", `${R()}?${q}`, { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ["query", field], type });
    }
    expect((await t.request("GET", `${R()}?page_size=200`, { token: admin })).status).toBe(200);
  });
});

describe("GET /schedule/appointment-rules/{id}", () => {
  test("200 with ETag; 404 for unknown and another org's rule", async () => {
    const rule = await newRule((await newType()).id, (await newType()).id, null);
    const r = await t.request("GET", `${R()}/${rule.id}`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(rule);
    expect(r.headers.get("etag")).toBe('"1"');
    const foreign = await newRule((await newType(orgB)).id, (await newType(orgB)).id, null, true, orgB);
    for (const id of [MISSING, "nope", foreign.id]) {
      const m = await t.request("GET", `${R()}/${id}`, { token: admin });
      expect(m.status).toBe(404);
      expect(m.body).toEqual({ detail: "Appointment rule not found", code: "not_found" });
    }
  });

  test("names follow the types and location; a rule keeps showing an archived type's name", async () => {
    const a = await newType();
    const b = await newType();
    const loc = await newLocation();
    const rule = await newRule(a.id, b.id, loc.id);
    await t.request("PATCH", `/api/v1/${orgA}/appointment-types/${a.id}`, { token: admin, body: { base_version: 1, name: "Renamed type" } });
    await t.request("PATCH", `/api/v1/${orgA}/locations/${loc.id}`, { token: admin, body: { base_version: 1, name: "Renamed location" } });
    await t.request("POST", `/api/v1/${orgA}/appointment-types/${b.id}/archive`, { token: admin });
    const got = await readRule(rule.id);
    expect(got.appointment_type_a).toEqual({ uuid: a.id, name: "Renamed type" });
    expect(got.appointment_type_b).toEqual({ uuid: b.id, name: b.name });
    expect(got.location).toEqual({ uuid: loc.id, name: "Renamed location" });
    expect(got.version).toBe(1);
  });
});

describe("PATCH /schedule/appointment-rules/{id}", () => {
  test("changes allow_overlap, bumps version and updated_at, audits", async () => {
    const rule = await newRule((await newType()).id, (await newType()).id, null, false);
    const r = await t.request("PATCH", `${R()}/${rule.id}`, { token: admin, body: { allow_overlap: true, base_version: 1 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...rule, allow_overlap: true, version: 2, updated_at: expect.any(String) });
    expect(r.body.updated_at >= rule.updated_at).toBe(true);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(await readRule(rule.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, rule.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment_rule.created", "appointment_rule.updated"]);
    expect([audit[1].before.allow_overlap, audit[1].after.allow_overlap]).toEqual([false, true]);
  });

  test("409 for a stale base_version; nothing changes", async () => {
    const rule = await newRule((await newType()).id, (await newType()).id, null, false);
    await t.request("PATCH", `${R()}/${rule.id}`, { token: admin, body: { allow_overlap: true, base_version: 1 } });
    const r = await t.request("PATCH", `${R()}/${rule.id}`, { token: admin, body: { allow_overlap: false, base_version: 1 } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect(await readRule(rule.id)).toMatchObject({ allow_overlap: true, version: 2 });
  });

  test("422: allow_overlap and base_version are required; the pair and location cannot be changed", async () => {
    const loc = await newLocation();
    const other = await newType();
    const rule = await newRule((await newType()).id, (await newType()).id, loc.id, false);
    const cases: [Record<string, unknown>, (string | number)[], string[]][] = [
      [{ base_version: 1 }, ["body", "allow_overlap"], ["missing"]],
      [{ allow_overlap: true }, ["body", "base_version"], ["missing"]],
      [{ allow_overlap: "true", base_version: 1 }, ["body", "allow_overlap"], ["type_error"]],
      [{ allow_overlap: true, base_version: 0 }, ["body", "base_version"], ["out_of_range"]],
      [{ allow_overlap: true, base_version: 1, note: "x" }, ["body", "note"], ["extra_forbidden"]],
      [{ allow_overlap: true, base_version: 1, version: 2 }, ["body", "version"], ["read_only"]],
      // read-only fields of this record; reported as read_only once the platform reads schema meta (see docs)
      [{ allow_overlap: true, base_version: 1, appointment_type_a_uuid: other.id }, ["body", "appointment_type_a_uuid"], ["read_only", "extra_forbidden"]],
      [{ allow_overlap: true, base_version: 1, appointment_type_b_uuid: other.id }, ["body", "appointment_type_b_uuid"], ["read_only", "extra_forbidden"]],
      [{ allow_overlap: true, base_version: 1, location_uuid: null }, ["body", "location_uuid"], ["read_only", "extra_forbidden"]],
    ];
    for (const [body, loc, types] of cases) {
      const r = await t.request("PATCH", `${R()}/${rule.id}`, { token: admin, body });
      expect(r.status).toBe(422);
      const issue = r.body.detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc));
      expect(issue).toBeDefined();
      expect(types).toContain(issue.type);
    }
    expect(await readRule(rule.id)).toEqual(rule);
  });

  test("404 for unknown, deleted and another org's rule", async () => {
    const deleted = await newRule((await newType()).id, (await newType()).id, null);
    expect((await t.request("DELETE", `${R()}/${deleted.id}?base_version=1`, { token: admin })).status).toBe(204);
    const foreign = await newRule((await newType(orgB)).id, (await newType(orgB)).id, null, true, orgB);
    for (const id of [MISSING, deleted.id, foreign.id]) {
      const r = await t.request("PATCH", `${R()}/${id}`, { token: admin, body: { allow_overlap: false, base_version: 1 } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect(await readRule(foreign.id, orgB)).toEqual(foreign);
  });
});

describe("DELETE /schedule/appointment-rules/{id}", () => {
  test("204 soft delete: gone from GET and lists, audited, and the pair can get a new rule", async () => {
    const a = await newType();
    const b = await newType();
    const rule = await newRule(a.id, b.id, null);
    const r = await t.request("DELETE", `${R()}/${rule.id}?base_version=1`, { token: admin });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await t.request("GET", `${R()}/${rule.id}`, { token: admin })).status).toBe(404);
    expect(ids((await t.request("GET", `${R()}?appointment_type_uuid=${a.id}`, { token: admin })).body)).toEqual([]);
    expect((await t.request("DELETE", `${R()}/${rule.id}?base_version=2`, { token: admin })).status).toBe(404);
    const audit = await auditOf(t, orgA, rule.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment_rule.created", "appointment_rule.deleted"]);
    expect(audit[1].after.deleted_at).toBeString();
    const again = await newRule(b.id, a.id, null, false);
    expect(again.id).not.toBe(rule.id);
  });

  test("409 stale, 422 missing or malformed base_version, 404 unknown or another org's; nothing changes", async () => {
    const rule = await newRule((await newType()).id, (await newType()).id, null);
    await t.request("PATCH", `${R()}/${rule.id}`, { token: admin, body: { allow_overlap: false, base_version: 1 } });
    const stale = await t.request("DELETE", `${R()}/${rule.id}?base_version=1`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    for (const [q, type] of [
      ["", "missing"],
      ["?base_version=abc", "type_error"],
      ["?base_version=0", "out_of_range"],
    ] as const) {
      const r = await t.request("DELETE", `${R()}/${rule.id}${q}`, { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ["query", "base_version"], type });
    }
    const foreign = await newRule((await newType(orgB)).id, (await newType(orgB)).id, null, true, orgB);
    for (const id of [MISSING, foreign.id]) {
      expect((await t.request("DELETE", `${R()}/${id}?base_version=1`, { token: admin })).status).toBe(404);
    }
    expect(await readRule(rule.id)).toMatchObject({ version: 2, allow_overlap: false });
    expect(await readRule(foreign.id, orgB)).toEqual(foreign);
  });
});

describe("authentication and permissions", () => {
  test("401 without a token", async () => {
    const rule = await newRule((await newType()).id, (await newType()).id, null);
    for (const [m, path, body] of [
      ["GET", R(), undefined],
      ["GET", `${R()}/${rule.id}`, undefined],
      ["POST", R(), { allow_overlap: true }],
      ["PATCH", `${R()}/${rule.id}`, { allow_overlap: false, base_version: 1 }],
      ["DELETE", `${R()}/${rule.id}?base_version=1`, undefined],
    ] as const) {
      const r = await t.request(m, path, { body });
      expect(r.status).toBe(401);
      expect(r.body.code).toBe("unauthorized");
    }
    expect(await readRule(rule.id)).toEqual(rule);
  });

  test("403 without the key: schedule.read reads, only schedule.write writes", async () => {
    const a = await newType();
    const b = await newType();
    const rule = await newRule(a.id, b.id, null, false);
    const reader = await createMember(t, orgA, ["schedule.read"]);
    const nobody = await createMember(t, orgA, ["schedule.appointments.read"]);
    expect((await t.request("GET", `${R()}/${rule.id}`, { token: reader.token })).body).toEqual(rule);
    for (const path of [R(), `${R()}/${rule.id}`]) expect((await t.request("GET", path, { token: nobody.token })).status).toBe(403);
    for (const [m, path, body] of [
      ["POST", R(), { appointment_type_a_uuid: a.id, appointment_type_b_uuid: a.id, allow_overlap: true }],
      ["PATCH", `${R()}/${rule.id}`, { allow_overlap: true, base_version: 1 }],
      ["DELETE", `${R()}/${rule.id}?base_version=1`, undefined],
    ] as const) {
      const r = await t.request(m, path, { token: reader.token, body });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    expect(await readRule(rule.id)).toEqual(rule);
    expect((await t.request("GET", `${R()}?appointment_type_uuid=${a.id}`, { token: admin })).body.total).toBe(1);
    const writer = await createMember(t, orgA, ["schedule.write"]);
    expect((await t.request("PATCH", `${R()}/${rule.id}`, { token: writer.token, body: { allow_overlap: true, base_version: 1 } })).status).toBe(200);
  });

  test("404 for an org the caller is not a member of", async () => {
    const member = await createMember(t, orgA, ["schedule.read", "schedule.write"]);
    const foreign = await newRule((await newType(orgB)).id, (await newType(orgB)).id, null, true, orgB);
    for (const [m, path, body] of [
      ["GET", R(orgB), undefined],
      ["GET", `${R(orgB)}/${foreign.id}`, undefined],
      ["POST", R(orgB), { allow_overlap: true }],
      ["PATCH", `${R(orgB)}/${foreign.id}`, { allow_overlap: false, base_version: 1 }],
      ["DELETE", `${R(orgB)}/${foreign.id}?base_version=1`, undefined],
    ] as const) {
      const r = await t.request(m, path, { token: member.token, body });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Organization not found", code: "not_found" });
    }
    expect(await readRule(foreign.id, orgB)).toEqual(foreign);
  });
});
