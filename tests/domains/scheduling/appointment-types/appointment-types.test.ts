import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, twoOrgApp, type TestApp } from "@tests/helpers";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
const P = (org = orgA) => `/api/v1/${org}/appointment-types`;
const MISSING = "01a1fe29-0000-7000-8000-000000000000";

beforeAll(async () => {
  ({ t, admin, orgA, orgB } = await twoOrgApp());
});
afterAll(() => t.close());

let seq = 0;
const valid = (over: Record<string, unknown> = {}) => ({ code: `C${++seq}`, name: `Type ${seq}`, duration_minutes: 30, color: "#1a2b3c", ...over });
async function create(over: Record<string, unknown> = {}, org = orgA) {
  const r = await t.request("POST", P(org), { token: admin, body: valid(over) });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, org = orgA) => (await t.request("GET", `${P(org)}/${id}`, { token: admin })).body;
const listAll = async (org = orgA, q = "") => (await t.request("GET", `${P(org)}${q}`, { token: admin })).body;

describe("POST /appointment-types", () => {
  test("creates a type with defaults, upper-cases the colour, uuid = id, version 1, audit + ETag", async () => {
    const r = await t.request("POST", P(), { token: admin, body: { code: "NPE", name: "New patient exam", duration_minutes: 60, color: "#1a2b3c" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      code: "NPE",
      name: "New patient exam",
      duration_minutes: 60,
      color: "#1A2B3C",
      requires_exam: false,
      is_active: true,
      default_fee: null,
      version: 1,
      deleted_at: null,
    });
    expect(r.body.uuid).toBe(r.body.id);
    expect(r.body.created_at).toMatch(/Z$/);
    expect(r.body.updated_at).toBe(r.body.created_at);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => a.action)).toEqual(["appointment_type.created"]);
    expect(audit[0].after.code).toBe("NPE");
  });

  test("accepts #RGB, requires_exam and is_active; trims code and name", async () => {
    const r = await t.request("POST", P(), {
      token: admin,
      body: { code: " PRO ", name: " Prophy ", duration_minutes: 480, color: "#a0f", requires_exam: true, is_active: false },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ code: "PRO", name: "Prophy", duration_minutes: 480, color: "#A0F", requires_exam: true, is_active: false });
    const min = await t.request("POST", P(), { token: admin, body: valid({ duration_minutes: 5 }) });
    expect(min.status).toBe(201);
    expect(min.body.duration_minutes).toBe(5);
  });

  test("422 for missing, mistyped, out-of-range and malformed fields; nothing is written", async () => {
    const before = (await listAll()).total;
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ ...valid(), code: undefined }, ["body", "code"], "missing"],
      [{ ...valid(), name: undefined }, ["body", "name"], "missing"],
      [{ ...valid(), duration_minutes: undefined }, ["body", "duration_minutes"], "missing"],
      [{ ...valid(), color: undefined }, ["body", "color"], "missing"],
      [valid({ code: "" }), ["body", "code"], "out_of_range"],
      [valid({ code: "   " }), ["body", "code"], "out_of_range"],
      [valid({ code: "x".repeat(33) }), ["body", "code"], "out_of_range"],
      [valid({ name: 5 }), ["body", "name"], "type_error"],
      [valid({ duration_minutes: "30" }), ["body", "duration_minutes"], "type_error"],
      [valid({ duration_minutes: 30.5 }), ["body", "duration_minutes"], "type_error"],
      [valid({ duration_minutes: 0 }), ["body", "duration_minutes"], "out_of_range"],
      [valid({ duration_minutes: 485 }), ["body", "duration_minutes"], "out_of_range"],
      [valid({ duration_minutes: 32 }), ["body", "duration_minutes"], "value_error"],
      [valid({ color: "red" }), ["body", "color"], "format"],
      [valid({ color: "#12345" }), ["body", "color"], "format"],
      [valid({ color: "#GGGGGG" }), ["body", "color"], "format"],
      [valid({ color: "1A2B3C" }), ["body", "color"], "format"],
      [valid({ requires_exam: "yes" }), ["body", "requires_exam"], "type_error"],
      [valid({ is_active: 1 }), ["body", "is_active"], "type_error"],
      [valid({ priority: 1 }), ["body", "priority"], "extra_forbidden"],
      [valid({ id: MISSING }), ["body", "id"], "read_only"],
      [valid({ uuid: MISSING }), ["body", "uuid"], "read_only"],
      [valid({ version: 3 }), ["body", "version"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", P(), { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const bad = await t.request("POST", P(), { token: admin, rawBody: '{"code": "X",', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: [{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }] });
    const form = await t.request("POST", P(), { token: admin, rawBody: "code=X", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.status).toBe(415);
    expect((await listAll()).total).toBe(before);
  });

  test("409 duplicate for a code already used (ignoring case) by a type that is not archived", async () => {
    const first = await create({ code: "DUP1" });
    const before = (await listAll()).total;
    for (const code of ["DUP1", "dup1"]) {
      const r = await t.request("POST", P(), { token: admin, body: valid({ code }) });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: "An appointment type with this code already exists", code: "duplicate" });
    }
    expect((await listAll()).total).toBe(before);
    // an inactive type still holds its code
    await create({ code: "DUP2", is_active: false });
    expect((await t.request("POST", P(), { token: admin, body: valid({ code: "DUP2" }) })).status).toBe(409);
    // the same code in another org is fine
    expect((await t.request("POST", P(orgB), { token: admin, body: valid({ code: "DUP1" }) })).status).toBe(201);
    // once archived, the code is free again
    expect((await t.request("POST", `${P()}/${first.id}/archive`, { token: admin })).status).toBe(200);
    const again = await t.request("POST", P(), { token: admin, body: valid({ code: "dup1" }) });
    expect(again.status).toBe(201);
    expect(again.body.code).toBe("dup1");
  });
});

describe("GET /appointment-types", () => {
  test("is_active filters; archived types are never listed; ordered by name ignoring case; {items, total}", async () => {
    const org = (await t.createOrg()).id;
    const b = await create({ name: "b active" }, org);
    const a = await create({ name: "A active" }, org);
    const inactive = await create({ name: "C inactive", is_active: false }, org);
    const archived = await create({ name: "D archived" }, org);
    expect((await t.request("POST", `${P(org)}/${archived.id}/archive`, { token: admin })).status).toBe(200);

    const all = await t.request("GET", P(org), { token: admin });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["items", "total"]);
    expect(all.body.items.map((x: { id: string }) => x.id)).toEqual([a.id, b.id, inactive.id]);
    expect(all.body.total).toBe(3);
    expect(all.body.items[0]).toEqual(a);

    const active = await listAll(org, "?is_active=true");
    expect(active.items.map((x: { id: string }) => x.id)).toEqual([a.id, b.id]);
    expect(active.total).toBe(2);

    const off = await listAll(org, "?is_active=false");
    expect(off.items.map((x: { id: string }) => x.id)).toEqual([inactive.id]);
    expect(off.total).toBe(1);

    // 1/0 are booleans too; unknown query parameters are 422 (docs/decisions.md)
    expect((await listAll(org, "?is_active=1")).total).toBe(2);
    const unknown = await t.request("GET", `/api/v1/${org}/appointment-types?is_active=1&_=123`, { token: admin });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toEqual([{ loc: ["query", "_"], msg: "Unknown field", type: "extra_forbidden" }]);
    expect((await listAll(org, "?is_active=0")).total).toBe(1);
  });

  test("422 for an is_active that is not a boolean", async () => {
    for (const v of ["yes", "TRUE", ""]) {
      const r = await t.request("GET", `${P()}?is_active=${v}`, { token: admin });
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ["query", "is_active"], type: "enum" });
    }
  });

  test("an org without types answers an empty list", async () => {
    const org = (await t.createOrg()).id;
    expect(await listAll(org)).toEqual({ items: [], total: 0 });
  });
});

describe("GET /appointment-types/{id}", () => {
  test("200 with ETag; 404 for unknown, malformed, archived and another org's id", async () => {
    const type = await create();
    const r = await t.request("GET", `${P()}/${type.id}`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(type);
    expect(r.headers.get("etag")).toBe('"1"');
    for (const id of [MISSING, "not-a-uuid"]) {
      const m = await t.request("GET", `${P()}/${id}`, { token: admin });
      expect(m.status).toBe(404);
      expect(m.body).toEqual({ detail: "Appointment type not found", code: "not_found" });
    }
    const other = await create({}, orgB);
    expect((await t.request("GET", `${P()}/${other.id}`, { token: admin })).status).toBe(404);
    await t.request("POST", `${P()}/${type.id}/archive`, { token: admin });
    expect((await t.request("GET", `${P()}/${type.id}`, { token: admin })).status).toBe(404);
  });
});

describe("PATCH /appointment-types/{id}", () => {
  test("changes the given fields, bumps version and ETag, audits the change", async () => {
    const type = await create({ code: "PT1", requires_exam: false });
    const r = await t.request("PATCH", `${P()}/${type.id}`, {
      token: admin,
      body: { base_version: 1, name: "Renamed", duration_minutes: 45, color: "#abcdef", requires_exam: true, is_active: false },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: type.id,
      uuid: type.id,
      code: "PT1",
      name: "Renamed",
      duration_minutes: 45,
      color: "#ABCDEF",
      requires_exam: true,
      is_active: false,
      version: 2,
    });
    expect(r.body.created_at).toBe(type.created_at);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(await read(type.id)).toEqual(r.body);
    // its own code, in another case, is not a duplicate
    const own = await t.request("PATCH", `${P()}/${type.id}`, { token: admin, body: { base_version: 2, code: "pt1" } });
    expect(own.status).toBe(200);
    expect(own.body.code).toBe("pt1");
    const audit = await auditOf(t, orgA, type.id);
    expect(audit.map((a) => a.action)).toEqual(["appointment_type.created", "appointment_type.updated", "appointment_type.updated"]);
    expect(audit[1].before.name).toBe(type.name);
    expect(audit[1].after.name).toBe("Renamed");
  });

  test("409 for a stale base_version and for another type's code; nothing changes", async () => {
    const taken = await create({ code: "TAKEN" });
    const type = await create({ code: "FREE" });
    await t.request("PATCH", `${P()}/${type.id}`, { token: admin, body: { base_version: 1, name: "Second" } });
    const stale = await t.request("PATCH", `${P()}/${type.id}`, { token: admin, body: { base_version: 1, name: "Lost" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    // stale wins over duplicate: the client must reload first
    const staleDup = await t.request("PATCH", `${P()}/${type.id}`, { token: admin, body: { base_version: 1, code: "TAKEN" } });
    expect(staleDup.body.code).toBe("version_conflict");
    const dup = await t.request("PATCH", `${P()}/${type.id}`, { token: admin, body: { base_version: 2, code: "taken" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    const now = await read(type.id);
    expect(now).toMatchObject({ code: "FREE", name: "Second", version: 2 });
    expect((await read(taken.id)).version).toBe(1);
  });

  test("422 for a missing base_version, read-only, unknown and invalid fields; nothing changes", async () => {
    const type = await create();
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ name: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 1, uuid: MISSING }, ["body", "uuid"], "read_only"],
      [{ base_version: 1, deleted_at: null }, ["body", "deleted_at"], "read_only"],
      [{ base_version: 1, colour: "#fff" }, ["body", "colour"], "extra_forbidden"],
      [{ base_version: 1, duration_minutes: 7 }, ["body", "duration_minutes"], "value_error"],
      [{ base_version: 1, duration_minutes: 490 }, ["body", "duration_minutes"], "out_of_range"],
      [{ base_version: 1, color: "#12" }, ["body", "color"], "format"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, code: "" }, ["body", "code"], "out_of_range"],
    ];
    for (const [body, loc, type_] of cases) {
      const r = await t.request("PATCH", `${P()}/${type.id}`, { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type: type_ }));
    }
    const bad = await t.request("PATCH", `${P()}/${type.id}`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(await read(type.id)).toEqual(type);
  });

  test("404 for unknown, archived and another org's type", async () => {
    const other = await create({}, orgB);
    const archived = await create();
    await t.request("POST", `${P()}/${archived.id}/archive`, { token: admin });
    for (const id of [MISSING, other.id, archived.id]) {
      const r = await t.request("PATCH", `${P()}/${id}`, { token: admin, body: { base_version: 1, name: "x" } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect(await read(other.id, orgB)).toEqual(other);
  });
});

describe("POST /appointment-types/{id}/archive", () => {
  test("sets deleted_at and is_active false, bumps version; then 404 everywhere", async () => {
    const type = await create();
    const r = await t.request("POST", `${P()}/${type.id}/archive`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: type.id, is_active: false, version: 2 });
    expect(r.body.deleted_at).toMatch(/Z$/);
    expect((await t.request("GET", `${P()}/${type.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${P()}/${type.id}/archive`, { token: admin })).status).toBe(404);
    expect((await listAll()).items.map((x: { id: string }) => x.id)).not.toContain(type.id);
    const audit = await auditOf(t, orgA, type.id);
    expect(audit.map((a) => a.action)).toEqual(["appointment_type.created", "appointment_type.archived"]);
  });

  test("404 for unknown and another org's type; the other org's type is untouched", async () => {
    const other = await create({}, orgB);
    for (const id of [MISSING, other.id]) {
      expect((await t.request("POST", `${P()}/${id}/archive`, { token: admin })).status).toBe(404);
    }
    expect(await read(other.id, orgB)).toEqual(other);
  });
});

describe("authentication and permissions", () => {
  test("401 without a token, with WWW-Authenticate", async () => {
    const type = await create();
    for (const [m, path, body] of [
      ["GET", P(), undefined],
      ["GET", `${P()}/${type.id}`, undefined],
      ["POST", P(), valid()],
      ["PATCH", `${P()}/${type.id}`, { base_version: 1, name: "x" }],
      ["POST", `${P()}/${type.id}/archive`, undefined],
    ] as const) {
      const r = await t.request(m, path, { body });
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
    }
    expect(await read(type.id)).toEqual(type);
  });

  test("403 for a member without the key; schedule.read reads but cannot write", async () => {
    const type = await create();
    const reader = await createMember(t, orgA, ["schedule.read"]);
    const nobody = await createMember(t, orgA, ["patients.read"]);
    expect((await t.request("GET", P(), { token: reader.token })).status).toBe(200);
    expect((await t.request("GET", `${P()}/${type.id}`, { token: reader.token })).status).toBe(200);
    for (const [m, path] of [
      ["GET", P()],
      ["GET", `${P()}/${type.id}`],
    ] as const) {
      const r = await t.request(m, path, { token: nobody.token });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    const before = (await listAll()).total;
    for (const [m, path, body] of [
      ["POST", P(), valid()],
      ["PATCH", `${P()}/${type.id}`, { base_version: 1, name: "x" }],
      ["POST", `${P()}/${type.id}/archive`, undefined],
    ] as const) {
      const r = await t.request(m, path, { token: reader.token, body });
      expect(r.status).toBe(403);
    }
    expect((await listAll()).total).toBe(before);
    expect(await read(type.id)).toEqual(type);
    const writer = await createMember(t, orgA, ["schedule.write"]);
    expect((await t.request("POST", P(), { token: writer.token, body: valid() })).status).toBe(201);
  });

  test("404 for an org the caller is not a member of", async () => {
    const member = await createMember(t, orgA, ["schedule.read", "schedule.write"]);
    const other = await create({}, orgB);
    for (const [m, path, body] of [
      ["GET", P(orgB), undefined],
      ["GET", `${P(orgB)}/${other.id}`, undefined],
      ["POST", P(orgB), valid()],
      ["PATCH", `${P(orgB)}/${other.id}`, { base_version: 1, name: "x" }],
      ["POST", `${P(orgB)}/${other.id}/archive`, undefined],
    ] as const) {
      const r = await t.request(m, path, { token: member.token, body });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Organization not found", code: "not_found" });
    }
    expect(await read(other.id, orgB)).toEqual(other);
  });
});
