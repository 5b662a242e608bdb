import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember } from "@tests/helpers";
import { odontogramMacros } from "@db/tenant/odontogram-tools";
import { MISSING, PROFILE_1, PROFILE_2, rowsOf, world, type World } from "./fixtures";

let w: World;
let M: string; // {P}/odontogram/macros of org A
let MB: string;
beforeAll(async () => {
  w = await world();
  M = `${w.A}/macros`;
  MB = `${w.B}/macros`;
});
afterAll(() => w.t.close());

const PROPHY = [
  { type: "add_procedure", params: { procedure_code: "D1110" } },
  { type: "add_procedure", params: { procedure_code: "D0120" } },
  { type: "add_procedure", params: { procedure_code: "D1206", status: "treatment_planned" } },
];
const CROWN = [
  { type: "add_procedure", params: { procedure_code: "d2740", tooth_number: "$tooth" } },
  { type: "add_procedure", params: { procedure_code: "D2950", tooth_number: "$tooth", surfaces: "$surfaces" } },
  { type: "add_condition", params: { condition_type: "fracture", tooth_number: "$tooth", surface: "$surfaces", severity: "moderate", status: "active" } },
  { type: "set_tooth_status", params: { tooth_number: "$tooth", status: "prosthetic" } },
  { type: "note", params: { text: "Crown prep; temp placed" } },
];

let n = 0;
async function create(body: Record<string, unknown> = {}, token = w.admin, P = M) {
  const r = await w.t.request("POST", P, { token, body: { name: `Macro ${n++}`, actions: PROPHY, ...body } });
  if (r.status !== 201) throw new Error(`create macro failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, token = w.admin, P = M) => (await w.t.request("GET", `${P}/${id}`, { token })).body;
const rows = () => rowsOf(w.t, w.orgA, odontogramMacros);

describe("POST /odontogram/macros", () => {
  test("201: a user-level macro of the caller (odontogram.read suffices); params normalised; audited and published", async () => {
    const before = w.events.length;
    const r = await w.t.request("POST", M, {
      token: w.reader.token,
      body: {
        name: " Prophy visit ",
        description: "Adult recall",
        actions: [...PROPHY, { type: "add_procedure", params: { procedure_code: "d0274", tooth_number: "a", surfaces: "mod" } }],
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Prophy visit",
      description: "Adult recall",
      actions: [...PROPHY, { type: "add_procedure", params: { procedure_code: "D0274", tooth_number: "A", surfaces: "MOD" } }],
      is_active: true,
      owner_type: "user",
      owner_user_uuid: w.reader.userId,
      chart_profile: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id, w.reader.token)).toEqual(r.body);
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => [a.action, a.actor_id, a.after.name])).toEqual([
      ["macro.created", w.reader.userId, "Prophy visit"],
    ]);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === r.body.id)
        .map((e) => [e.type, e.resource_type, e.data]),
    ).toEqual([["macro.created", "macro", { id: r.body.id, owner_type: "user" }]]);
  });

  test("system and profile macros need odontogram.write (403 otherwise); owner_type defaults to profile with a chart profile", async () => {
    expect(await create({ owner_type: "system", is_active: false }, w.writer.token)).toMatchObject({
      owner_type: "system",
      owner_user_uuid: null,
      chart_profile: null,
      is_active: false,
    });
    expect(await create({ chart_profile_uuid: PROFILE_1 }, w.writer.token)).toMatchObject({
      owner_type: "profile",
      chart_profile: { uuid: PROFILE_1, name: null },
    });
    const count = (await rows()).length;
    for (const extra of [{ owner_type: "system" }, { chart_profile_uuid: PROFILE_1 }]) {
      const r = await w.t.request("POST", M, { token: w.reader.token, body: { name: "Nope", actions: PROPHY, ...extra } });
      expect({ extra, status: r.status, code: r.body.code }).toEqual({ extra, status: 403, code: "forbidden" });
    }
    expect((await rows()).length).toBe(count);
  });

  test("409 duplicate name (case-insensitive) for the same owner; other owners and archived macros do not clash", async () => {
    const first = await create({ name: "Crown prep", actions: CROWN }, w.writer.token);
    const count = (await rows()).length;
    const dup = await w.t.request("POST", M, { token: w.writer.token, body: { name: "CROWN PREP", actions: PROPHY } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: 'A macro named "CROWN PREP" already exists at this owner level', code: "duplicate" });
    expect((await rows()).length).toBe(count);
    await create({ name: "Crown prep" }, w.reader.token);
    await create({ name: "Crown prep", owner_type: "system" }, w.writer.token);
    expect((await w.t.request("POST", M, { token: w.admin, body: { name: "crown prep", actions: PROPHY, owner_type: "system" } })).status).toBe(409);
    await w.t.request("POST", `${M}/${first.id}/archive`, { token: w.writer.token });
    expect((await create({ name: "Crown prep" }, w.writer.token)).name).toBe("Crown prep");
  });

  test("422 for each rule, per action type, unknown and read-only fields, malformed JSON; nothing is written", async () => {
    const count = (await rows()).length;
    const ok = { name: "Fine", actions: PROPHY };
    const act = (a: unknown) => ({ ...ok, actions: [PROPHY[0], a] });
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ actions: PROPHY }, ["body", "name"], "missing"],
      [{ name: "X" }, ["body", "actions"], "missing"],
      [{ ...ok, name: "" }, ["body", "name"], "out_of_range"],
      [{ ...ok, actions: [] }, ["body", "actions"], "out_of_range"],
      [{ ...ok, actions: Array(51).fill(PROPHY[0]) }, ["body", "actions"], "out_of_range"],
      [{ ...ok, actions: {} }, ["body", "actions"], "type_error"],
      [act({ type: "run_script", params: {} }), ["body", "actions", 1, "type"], "value_error"],
      [act({ params: { procedure_code: "D1110" } }), ["body", "actions", 1, "type"], "value_error"],
      [act({ type: "add_procedure" }), ["body", "actions", 1, "params"], "missing"],
      [act({ type: "add_procedure", params: {} }), ["body", "actions", 1, "params", "procedure_code"], "missing"],
      [act({ type: "add_procedure", params: { procedure_code: "D 1110" } }), ["body", "actions", 1, "params", "procedure_code"], "format"],
      [
        act({ type: "add_procedure", params: { procedure_code: "D1110", tooth_number: "33" } }),
        ["body", "actions", 1, "params", "tooth_number"],
        "value_error",
      ],
      [act({ type: "add_procedure", params: { procedure_code: "D1110", tooth_number: 3 } }), ["body", "actions", 1, "params", "tooth_number"], "value_error"],
      [act({ type: "add_procedure", params: { procedure_code: "D1110", surfaces: "MM" } }), ["body", "actions", 1, "params", "surfaces"], "value_error"],
      [act({ type: "add_procedure", params: { procedure_code: "D1110", status: "done" } }), ["body", "actions", 1, "params", "status"], "enum"],
      [act({ type: "add_procedure", params: { procedure_code: "D1110", fee: 10 } }), ["body", "actions", 1, "params", "fee"], "extra_forbidden"],
      [act({ type: "add_procedure", params: { procedure_code: "D1110" }, when: "now" }), ["body", "actions", 1, "when"], "extra_forbidden"],
      [act({ type: "add_condition", params: { tooth_number: "3" } }), ["body", "actions", 1, "params", "condition_type"], "missing"],
      [act({ type: "add_condition", params: { condition_type: "cavity" } }), ["body", "actions", 1, "params", "condition_type"], "enum"],
      [act({ type: "add_condition", params: { condition_type: "caries", severity: "extreme" } }), ["body", "actions", 1, "params", "severity"], "enum"],
      [act({ type: "set_tooth_status", params: { status: "missing" } }), ["body", "actions", 1, "params", "tooth_number"], "value_error"],
      [act({ type: "set_tooth_status", params: { tooth_number: "U", status: "missing" } }), ["body", "actions", 1, "params", "tooth_number"], "value_error"],
      [act({ type: "set_tooth_status", params: { tooth_number: "3", status: "gone" } }), ["body", "actions", 1, "params", "status"], "enum"],
      [act({ type: "note", params: { text: " " } }), ["body", "actions", 1, "params", "text"], "out_of_range"],
      [act({ type: "note", params: {} }), ["body", "actions", 1, "params", "text"], "missing"],
      [{ ...ok, is_active: 1 }, ["body", "is_active"], "type_error"],
      [{ ...ok, owner_type: "team" }, ["body", "owner_type"], "enum"],
      [{ ...ok, owner_type: "profile" }, ["body", "chart_profile_uuid"], "missing"],
      [{ ...ok, chart_profile_uuid: PROFILE_1, owner_type: "user" }, ["body", "chart_profile_uuid"], "value_error"],
      [{ ...ok, hotkey: "M" }, ["body", "hotkey"], "extra_forbidden"],
      [{ ...ok, owner_user_uuid: MISSING }, ["body", "owner_user_uuid"], "read_only"],
      [{ ...ok, updated_at: "2020-01-01T00:00:00Z" }, ["body", "updated_at"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await w.t.request("POST", M, { token: w.admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("POST", M, { token: w.admin, rawBody: '{"name": "x",}', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await rows()).length).toBe(count);
  });

  test("401, 403 without an odontogram key, 404 for a non-member or unknown org; nothing is written", async () => {
    const count = (await rows()).length;
    const body = { name: "Nope", actions: PROPHY };
    const anon = await w.t.request("POST", M, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect((await w.t.request("POST", M, { token: w.outsider, body })).status).toBe(403);
    expect((await w.t.request("POST", M, { token: w.memberOfB, body })).status).toBe(404);
    expect((await w.t.request("POST", `/api/v1/${MISSING}/odontogram/macros`, { token: w.admin, body })).status).toBe(404);
    expect((await rows()).length).toBe(count);
  });
});

describe("GET /odontogram/macros", () => {
  let P: string;
  let u1: string;
  let u2: string;
  beforeAll(async () => {
    const org = (await w.t.createOrg()).id;
    P = `/api/v1/${org}/odontogram/macros`;
    u1 = (await createMember(w.t, org, ["odontogram.read"])).token;
    u2 = (await createMember(w.t, org, ["odontogram.read"])).token;
    await create({ name: "Sealants", owner_type: "system" }, w.admin, P);
    await create({ name: "Bitewings", owner_type: "system", is_active: false }, w.admin, P);
    await create({ name: "Perio maintenance", chart_profile_uuid: PROFILE_1 }, w.admin, P);
    await create({ name: "Ortho check", chart_profile_uuid: PROFILE_2 }, w.admin, P);
    await create({ name: "My crown", actions: CROWN }, u1, P);
    await create({ name: "My prophy" }, u2, P);
    const gone = await create({ name: "Archived one", owner_type: "system" }, w.admin, P);
    await w.t.request("POST", `${P}/${gone.id}/archive`, { token: w.admin });
  });
  const names = async (qs: string, token = u1) => {
    const r = await w.t.request("GET", `${P}${qs}`, { token });
    expect({ qs, status: r.status }).toEqual({ qs, status: 200 });
    return r.body.items.map((m: { name: string }) => m.name);
  };

  test("system, profile and the caller's own macros by name; never another user's; archived left out", async () => {
    expect(await names("")).toEqual(["Bitewings", "My crown", "Ortho check", "Perio maintenance", "Sealants"]);
    expect(await names("", u2)).toEqual(["Bitewings", "My prophy", "Ortho check", "Perio maintenance", "Sealants"]);
    expect(await names("", w.admin)).toEqual(["Bitewings", "Ortho check", "Perio maintenance", "Sealants"]);
  });

  test("filters: owner_type, chart_profile_uuid, is_active, search; paging", async () => {
    expect(await names("?owner_type=system")).toEqual(["Bitewings", "Sealants"]);
    expect(await names("?owner_type=profile")).toEqual(["Ortho check", "Perio maintenance"]);
    expect(await names("?owner_type=user")).toEqual(["My crown"]);
    expect(await names(`?chart_profile_uuid=${PROFILE_1.toUpperCase()}`)).toEqual(["Perio maintenance"]);
    expect(await names("?is_active=false")).toEqual(["Bitewings"]);
    expect(await names("?is_active=true&owner_type=system")).toEqual(["Sealants"]);
    expect(await names("?search=CROWN")).toEqual(["My crown"]);
    expect(await names("?search=o%20c")).toEqual(["Ortho check"]);
    const p2 = (await w.t.request("GET", `${P}?page=2&page_size=2`, { token: u1 })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 2, total: 5 });
    expect(p2.items.map((m: { name: string }) => m.name)).toEqual(["Ortho check", "Perio maintenance"]);
  });

  test("422 for bad query parameters", async () => {
    const cases: [string, unknown[], string][] = [
      ["owner_type=team", ["query", "owner_type"], "enum"],
      ["is_active=maybe", ["query", "is_active"], "enum"],
      ["chart_profile_uuid=1", ["query", "chart_profile_uuid"], "format"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["page=-1", ["query", "page"], "out_of_range"],
      ["owner=me", ["query", "owner"], "extra_forbidden"],
    ];
    for (const [qs, loc, type] of cases) {
      const r = await w.t.request("GET", `${P}?${qs}`, { token: u1 });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect({ qs, first: r.body.detail[0] }).toEqual({ qs, first: { loc, msg: expect.any(String), type } });
    }
  });

  test("401, 403, 404 for another org's member", async () => {
    expect((await w.t.request("GET", M)).status).toBe(401);
    expect((await w.t.request("GET", M, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("GET", M, { token: w.memberOfB })).status).toBe(404);
  });
});

describe("GET /odontogram/macros/{id}", () => {
  test("200 for shared and own; 404 for another user's, another org's, missing; 401; 403", async () => {
    const mine = await create({}, w.reader.token);
    const sys = await create({ owner_type: "system" }, w.writer.token);
    expect(await read(mine.id, w.reader.token)).toEqual(mine);
    expect(await read(sys.id, w.reader.token)).toEqual(sys);
    const other = await w.t.request("GET", `${M}/${mine.id}`, { token: w.writer.token });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: "Macro not found", code: "not_found" });
    const foreign = await create({ owner_type: "system" }, w.memberOfB, MB);
    expect((await w.t.request("GET", `${M}/${foreign.id}`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("GET", `${M}/${MISSING}`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("GET", `${M}/${sys.id}`)).status).toBe(401);
    expect((await w.t.request("GET", `${M}/${sys.id}`, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("GET", `${M}/${sys.id}`, { token: w.memberOfB })).status).toBe(404);
  });
});

describe("PATCH /odontogram/macros/{id}", () => {
  test("200: fields change, version +1; audited and published with changed fields", async () => {
    const m = await create({}, w.reader.token);
    const before = w.events.length;
    const r = await w.t.request("PATCH", `${M}/${m.id}`, {
      token: w.reader.token,
      body: { base_version: 1, name: "Renamed", description: "Now described", actions: CROWN, is_active: false },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    const normalisedCrown = CROWN.map((a, i) => (i === 0 ? { ...a, params: { ...a.params, procedure_code: "D2740" } } : a));
    expect(r.body).toEqual({
      ...m,
      name: "Renamed",
      description: "Now described",
      actions: normalisedCrown,
      is_active: false,
      version: 2,
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await read(m.id, w.reader.token)).toEqual(r.body);
    const audit = await auditOf(w.t, w.orgA, m.id);
    expect(audit.map((a) => [a.action, a.before?.name ?? null, a.after.name])).toEqual([
      ["macro.created", null, m.name],
      ["macro.updated", m.name, "Renamed"],
    ]);
    const ev = w.events.slice(before).filter((e) => e.resource_id === m.id);
    expect(ev.map((e) => [e.type, [...(e.data.changed_fields as string[])].sort()])).toEqual([
      ["macro.updated", ["actions", "description", "is_active", "name"]],
    ]);
  });

  test("409 stale base_version and duplicate name; 422 owner fields and rules; nothing changes", async () => {
    const a = await create({ name: "Alpha" }, w.writer.token);
    const b = await create({ name: "Beta" }, w.writer.token);
    const stale = await w.t.request("PATCH", `${M}/${a.id}`, { token: w.writer.token, body: { base_version: 3, name: "Gamma" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const dup = await w.t.request("PATCH", `${M}/${b.id}`, { token: w.writer.token, body: { base_version: 1, name: "alpha" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, owner_type: "system" }, ["body", "owner_type"], "read_only"],
      [{ base_version: 1, chart_profile_uuid: PROFILE_1 }, ["body", "chart_profile_uuid"], "read_only"],
      [{ base_version: 1, actions: [] }, ["body", "actions"], "out_of_range"],
      [{ base_version: 1, actions: [{ type: "note", params: { text: "x", extra: 1 } }] }, ["body", "actions", 0, "params", "extra"], "extra_forbidden"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, steps: [] }, ["body", "steps"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await w.t.request("PATCH", `${M}/${a.id}`, { token: w.writer.token, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("PATCH", `${M}/${a.id}`, { token: w.writer.token, rawBody: "[", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(a.id, w.writer.token)).toEqual(a);
    expect(await read(b.id, w.writer.token)).toEqual(b);
  });

  test("404 another user's / another org's / missing; 403 for shared macros without odontogram.write; 401; nothing changes", async () => {
    const personal = await create({}, w.writer.token);
    const sys = await create({ owner_type: "system" }, w.writer.token);
    const foreign = await create({ owner_type: "system" }, w.memberOfB, MB);
    const body = { base_version: 1, name: "Hijack" };
    expect((await w.t.request("PATCH", `${M}/${personal.id}`, { token: w.reader.token, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${M}/${foreign.id}`, { token: w.admin, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${M}/${MISSING}`, { token: w.admin, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${M}/${sys.id}`, { token: w.reader.token, body })).status).toBe(403);
    expect((await w.t.request("PATCH", `${M}/${sys.id}`, { token: w.outsider, body })).status).toBe(403);
    expect((await w.t.request("PATCH", `${M}/${sys.id}`, { body })).status).toBe(401);
    expect((await w.t.request("PATCH", `${M}/${sys.id}`, { token: w.memberOfB, body })).status).toBe(404);
    expect(await read(personal.id, w.writer.token)).toEqual(personal);
    expect(await read(sys.id)).toEqual(sys);
    expect(await read(foreign.id, w.memberOfB, MB)).toEqual(foreign);
  });
});

describe("POST /odontogram/macros/{id}/archive", () => {
  test("200 sets deleted_at; then 404; audited and published", async () => {
    const m = await create({}, w.reader.token);
    const before = w.events.length;
    const r = await w.t.request("POST", `${M}/${m.id}/archive`, { token: w.reader.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...m, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await w.t.request("GET", `${M}/${m.id}`, { token: w.reader.token })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${m.id}/archive`, { token: w.reader.token })).status).toBe(404);
    expect((await auditOf(w.t, w.orgA, m.id)).map((a) => a.action)).toEqual(["macro.created", "macro.archived"]);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === m.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["macro.archived", { id: m.id, changed_fields: ["deleted_at"] }]]);
  });

  test("404 another user's / another org's / missing; 403 shared without odontogram.write; 401; nothing changes", async () => {
    const personal = await create({}, w.writer.token);
    const prof = await create({ chart_profile_uuid: PROFILE_2 }, w.writer.token);
    const foreign = await create({ owner_type: "system" }, w.memberOfB, MB);
    expect((await w.t.request("POST", `${M}/${personal.id}/archive`, { token: w.reader.token })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${foreign.id}/archive`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${MISSING}/archive`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${prof.id}/archive`, { token: w.reader.token })).status).toBe(403);
    expect((await w.t.request("POST", `${M}/${prof.id}/archive`, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("POST", `${M}/${prof.id}/archive`)).status).toBe(401);
    expect((await w.t.request("POST", `${M}/${prof.id}/archive`, { token: w.memberOfB })).status).toBe(404);
    expect(await read(personal.id, w.writer.token)).toEqual(personal);
    expect(await read(prof.id)).toEqual(prof);
    expect(await read(foreign.id, w.memberOfB, MB)).toEqual(foreign);
  });
});

describe("POST /odontogram/macros/{id}/expand", () => {
  let prophy: { id: string; name: string };
  let crown: { id: string; name: string };
  beforeAll(async () => {
    prophy = await create({ name: "Prophy visit", owner_type: "system" }, w.writer.token);
    crown = await create({ name: "Crown on a tooth", actions: CROWN, owner_type: "system" }, w.writer.token);
  });
  const expand = (id: string, body?: unknown, token = w.reader.token) => w.t.request("POST", `${M}/${id}/expand`, { token, body });

  const table: [string, () => string, unknown, unknown[]][] = [
    ["no placeholders, no body", () => prophy.id, undefined, PROPHY],
    ["no placeholders, context ignored", () => prophy.id, { context: { tooth_number: "3", surfaces: "MO" } }, PROPHY],
    [
      "tooth and surfaces substituted (normalised)",
      () => crown.id,
      { context: { tooth_number: "k", surfaces: "dob" } },
      [
        { type: "add_procedure", params: { procedure_code: "D2740", tooth_number: "K" } },
        { type: "add_procedure", params: { procedure_code: "D2950", tooth_number: "K", surfaces: "DOB" } },
        { type: "add_condition", params: { condition_type: "fracture", tooth_number: "K", surface: "DOB", severity: "moderate", status: "active" } },
        { type: "set_tooth_status", params: { tooth_number: "K", status: "prosthetic" } },
        { type: "note", params: { text: "Crown prep; temp placed" } },
      ],
    ],
  ];
  for (const [name, id, body, actions] of table) {
    test(`200: ${name}; nothing is written`, async () => {
      const before = (await rows()).map((r) => r.version);
      const r = await expand(id(), body);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ macro: { uuid: id(), name: id() === prophy.id ? "Prophy visit" : "Crown on a tooth" }, actions });
      expect((await rows()).map((r) => r.version)).toEqual(before);
    });
  }

  test("422 missing_context when a placeholder has no value; 422 macro_inactive; 422 for bad context", async () => {
    const noSurfaces = await expand(crown.id, { context: { tooth_number: "3" } });
    expect(noSurfaces.status).toBe(422);
    expect(noSurfaces.body).toEqual({
      detail: [{ loc: ["body", "context", "surfaces"], msg: "The macro needs surfaces in the context", type: "missing" }],
      code: "missing_context",
    });
    const noTooth = await expand(crown.id, {});
    expect(noTooth.body).toEqual({
      detail: [{ loc: ["body", "context", "tooth_number"], msg: "The macro needs tooth_number in the context", type: "missing" }],
      code: "missing_context",
    });
    const inactive = await create({ owner_type: "system", is_active: false }, w.writer.token);
    const off = await expand(inactive.id);
    expect(off.status).toBe(422);
    expect(off.body).toEqual({ detail: [{ loc: ["path", "macro_uuid"], msg: "The macro is inactive", type: "value_error" }], code: "macro_inactive" });
    const cases: [unknown, unknown[], string][] = [
      [{ context: { tooth_number: "0" } }, ["body", "context", "tooth_number"], "format"],
      [{ context: { tooth_number: 3 } }, ["body", "context", "tooth_number"], "type_error"],
      [{ context: { surfaces: "XYZ" } }, ["body", "context", "surfaces"], "value_error"],
      [{ context: { quadrant: "UL" } }, ["body", "context", "quadrant"], "extra_forbidden"],
      [{ context: "3" }, ["body", "context"], "type_error"],
      [{ tooth_number: "3" }, ["body", "tooth_number"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await expand(crown.id, body);
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("POST", `${M}/${crown.id}/expand`, { token: w.reader.token, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
  });

  test("404 another user's / another org's / missing / archived; 401; 403", async () => {
    const personal = await create({ actions: CROWN }, w.writer.token);
    expect((await expand(personal.id, { context: { tooth_number: "3", surfaces: "O" } }, w.writer.token)).status).toBe(200);
    expect((await expand(personal.id, { context: { tooth_number: "3", surfaces: "O" } })).status).toBe(404);
    const foreign = await create({ owner_type: "system" }, w.memberOfB, MB);
    expect((await expand(foreign.id, undefined, w.admin)).status).toBe(404);
    expect((await expand(MISSING, undefined, w.admin)).status).toBe(404);
    const gone = await create({ owner_type: "system" }, w.writer.token);
    await w.t.request("POST", `${M}/${gone.id}/archive`, { token: w.writer.token });
    expect((await expand(gone.id)).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${prophy.id}/expand`)).status).toBe(401);
    expect((await expand(prophy.id, undefined, w.outsider)).status).toBe(403);
    expect((await expand(prophy.id, undefined, w.memberOfB)).status).toBe(404);
    expect((await w.t.request("POST", `${MB}/${foreign.id}/expand`, { token: w.memberOfB })).status).toBe(200);
  });
});
