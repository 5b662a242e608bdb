import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { odontogramHotkeys } from "@db/tenant/odontogram-tools";
import { SYSTEM_HOTKEYS } from "@db/seeds/odontogram-tools";
import { MISSING, PROFILE_1, PROFILE_2, rowsOf, world, type World } from "./fixtures";

let w: World;
let H: string; // {P}/odontogram/hotkeys of org A
let HB: string;
beforeAll(async () => {
  w = await world();
  H = `${w.A}/hotkeys`;
  HB = `${w.B}/hotkeys`;
});
afterAll(() => w.t.close());

let n = 0;
/** A fresh, unused key combo (Ctrl+Alt+Shift+F1..F24, then Meta variants). */
const combo = () => {
  const i = n++;
  return `${["Ctrl+Alt", "Ctrl+Alt+Shift", "Alt+Meta", "Ctrl+Meta", "Shift+Meta", "Ctrl+Alt+Meta"][Math.floor(i / 24) % 6]}+F${(i % 24) + 1}`;
};
async function create(body: Record<string, unknown> = {}, token = w.admin, P = H) {
  const r = await w.t.request("POST", P, { token, body: { action: "chart.undo", key_combo: combo(), ...body } });
  if (r.status !== 201) throw new Error(`create hotkey failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, token = w.admin, P = H) => (await w.t.request("GET", `${P}/${id}`, { token })).body;
const rows = () => rowsOf(w.t, w.orgA, odontogramHotkeys);

describe("seeded system hotkeys", () => {
  test("a new org answers its effective hotkeys out of the box, sorted by display_order", async () => {
    const org = (await w.t.createOrg()).id;
    const r = await w.t.request("GET", `/api/v1/${org}/odontogram/hotkeys?page_size=200`, { token: w.admin });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(SYSTEM_HOTKEYS.length);
    expect(r.body.items.map((h: { key_combo: string }) => h.key_combo)).toEqual(SYSTEM_HOTKEYS.map(([k]) => k));
    const byCombo = new Map(r.body.items.map((h: any) => [h.key_combo, h]));
    expect(byCombo.get("1")).toMatchObject({
      action: "mode.activate",
      action_context: { mode_code: "select" },
      owner_type: "system",
      owner_user_uuid: null,
      chart_profile: null,
      is_active: true,
      version: 1,
    });
    expect(byCombo.get("Ctrl+Z")).toMatchObject({ action: "chart.undo", action_context: {} });
    expect(byCombo.get("M")).toMatchObject({ action: "surface.toggle", action_context: { surface: "M" } });
    // no seeded entry writes an audit row (provisioning is not a user's act)
    expect(await auditOf(w.t, org, r.body.items[0].id)).toEqual([]);
  });
});

describe("POST /odontogram/hotkeys", () => {
  test("201: key combo normalised, defaults, a user-level hotkey owned by the caller; audited and published", async () => {
    const before = w.events.length;
    const r = await w.t.request("POST", H, {
      token: w.reader.token,
      body: { action: "mode.activate", key_combo: " shift + ctrl + k ", action_context: { mode_code: "select" } },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      action: "mode.activate",
      action_context: { mode_code: "select" },
      display_order: 0,
      is_active: true,
      key_combo: "Ctrl+Shift+K",
      owner_type: "user",
      owner_user_uuid: w.reader.userId,
      chart_profile: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id, w.reader.token)).toEqual(r.body);
    // display_order defaults to after the owner's last hotkey
    expect((await create({ display_order: 7 }, w.reader.token)).display_order).toBe(7);
    expect((await create({}, w.reader.token)).display_order).toBe(8);
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => [a.action, a.actor_id, a.after.key_combo])).toEqual([
      ["hotkey.created", w.reader.userId, "Ctrl+Shift+K"],
    ]);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === r.body.id)
        .map((e) => [e.type, e.resource_type, e.data]),
    ).toEqual([["hotkey.created", "hotkey", { id: r.body.id, owner_type: "user" }]]);
  });

  test("system and profile hotkeys (odontogram.write); owner_type defaults to profile when a chart profile is named", async () => {
    const sys = await create({ owner_type: "system", action: "chart.redo", is_active: false }, w.writer.token);
    expect(sys).toMatchObject({ owner_type: "system", owner_user_uuid: null, chart_profile: null, is_active: false });
    const prof = await create({ chart_profile_uuid: PROFILE_1.toUpperCase() }, w.writer.token);
    expect(prof).toMatchObject({ owner_type: "profile", owner_user_uuid: null, chart_profile: { uuid: PROFILE_1, name: null } });
    const prof2 = await create({ owner_type: "profile", chart_profile_uuid: PROFILE_2 }, w.admin);
    expect(prof2.chart_profile).toEqual({ uuid: PROFILE_2, name: null });
  });

  test("409 duplicate: the same key combo (any spelling) at the same owner; other owners and archived rows do not clash", async () => {
    const first = await create({ key_combo: "Ctrl+Alt+Shift+Meta+F1" }, w.writer.token);
    const count = (await rows()).length;
    for (const key_combo of ["Ctrl+Alt+Shift+Meta+F1", "meta+shift+alt+control+f1", "Cmd+Option+Shift+Ctl+F1"]) {
      const r = await w.t.request("POST", H, { token: w.writer.token, body: { action: "chart.undo", key_combo } });
      expect({ key_combo, status: r.status, body: r.body }).toEqual({
        key_combo,
        status: 409,
        body: { detail: "Ctrl+Alt+Shift+Meta+F1 is already bound at this owner level", code: "duplicate" },
      });
    }
    expect((await rows()).length).toBe(count);
    // another user, the system level, a profile, and after archiving: all free
    await create({ key_combo: "Ctrl+Alt+Shift+Meta+F1" }, w.reader.token);
    await create({ key_combo: "Ctrl+Alt+Shift+Meta+F1", owner_type: "system" }, w.writer.token);
    await create({ key_combo: "Ctrl+Alt+Shift+Meta+F1", chart_profile_uuid: PROFILE_1 }, w.writer.token);
    const dupSystem = await w.t.request("POST", H, { token: w.admin, body: { action: "x", key_combo: "Ctrl+Alt+Shift+Meta+F1", owner_type: "system" } });
    expect(dupSystem.status).toBe(409);
    const dupProfile = await w.t.request("POST", H, {
      token: w.admin,
      body: { action: "x", key_combo: "Ctrl+Alt+Shift+Meta+F1", chart_profile_uuid: PROFILE_1 },
    });
    expect(dupProfile.status).toBe(409);
    await w.t.request("POST", `${H}/${first.id}/archive`, { token: w.writer.token });
    expect((await create({ key_combo: "Ctrl+Alt+Shift+Meta+F1" }, w.writer.token)).key_combo).toBe("Ctrl+Alt+Shift+Meta+F1");
  });

  test("422 for each rule, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const count = (await rows()).length;
    const ok = { action: "chart.undo", key_combo: "Ctrl+Alt+Q" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ key_combo: "Ctrl+Q" }, ["body", "action"], "missing"],
      [{ action: "chart.undo" }, ["body", "key_combo"], "missing"],
      [{ ...ok, action: "Chart Undo" }, ["body", "action"], "format"],
      [{ ...ok, action: "x".repeat(101) }, ["body", "action"], "out_of_range"],
      [{ ...ok, action: 5 }, ["body", "action"], "type_error"],
      [{ ...ok, key_combo: "" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: "Ctrl+" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: "Ctrl+Shift" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: "K+J" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: "Ctrl+Ctrl+K" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: "Hyper+K" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: "F25" }, ["body", "key_combo"], "value_error"],
      [{ ...ok, key_combo: 7 }, ["body", "key_combo"], "type_error"],
      [{ ...ok, action_context: [1] }, ["body", "action_context"], "type_error"],
      [{ ...ok, action_context: "x" }, ["body", "action_context"], "type_error"],
      [{ ...ok, action_context: { big: "x".repeat(4000) } }, ["body", "action_context"], "value_error"],
      [{ ...ok, display_order: -1 }, ["body", "display_order"], "out_of_range"],
      [{ ...ok, display_order: 1.5 }, ["body", "display_order"], "type_error"],
      [{ ...ok, is_active: "yes" }, ["body", "is_active"], "type_error"],
      [{ ...ok, owner_type: "admin" }, ["body", "owner_type"], "enum"],
      [{ ...ok, chart_profile_uuid: "profile-1" }, ["body", "chart_profile_uuid"], "format"],
      [{ ...ok, owner_type: "profile" }, ["body", "chart_profile_uuid"], "missing"],
      [{ ...ok, owner_type: "system", chart_profile_uuid: PROFILE_1 }, ["body", "chart_profile_uuid"], "value_error"],
      [{ ...ok, owner_type: "user", chart_profile_uuid: PROFILE_1 }, ["body", "chart_profile_uuid"], "value_error"],
      [{ ...ok, colour: "red" }, ["body", "colour"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, version: 3 }, ["body", "version"], "read_only"],
      [{ ...ok, owner_user_uuid: MISSING }, ["body", "owner_user_uuid"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await w.t.request("POST", H, { token: w.admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("POST", H, { token: w.admin, rawBody: '{"action": ', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await rows()).length).toBe(count);
  });

  test("401, 403 (no odontogram key; odontogram.read for system or profile), 404 for a non-member or unknown org; nothing is written", async () => {
    const count = (await rows()).length;
    const body = { action: "chart.undo", key_combo: "Ctrl+Alt+W" };
    const anon = await w.t.request("POST", H, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect((await w.t.request("POST", H, { token: w.outsider, body })).status).toBe(403);
    for (const extra of [{ owner_type: "system" }, { chart_profile_uuid: PROFILE_1 }]) {
      const r = await w.t.request("POST", H, { token: w.reader.token, body: { ...body, ...extra } });
      expect({ extra, status: r.status, body: r.body }).toEqual({
        extra,
        status: 403,
        body: { detail: expect.stringContaining("odontogram.write"), code: "forbidden" },
      });
    }
    expect((await w.t.request("POST", H, { token: w.memberOfB, body })).status).toBe(404);
    expect((await w.t.request("POST", `/api/v1/${MISSING}/odontogram/hotkeys`, { token: w.admin, body })).status).toBe(404);
    expect((await rows()).length).toBe(count);
  });
});

describe("GET /odontogram/hotkeys: owner resolution", () => {
  let P: string;
  let u1: string; // writer
  let u2: string; // reader
  beforeAll(async () => {
    // a separate org whose members are the same users: resolution sees only its rows
    const org = (await w.t.createOrg()).id;
    P = `/api/v1/${org}/odontogram/hotkeys`;
    const { createMember } = await import("@tests/helpers");
    u1 = (await createMember(w.t, org, ["odontogram.read", "odontogram.write"])).token;
    u2 = (await createMember(w.t, org, ["odontogram.read"])).token;
    const mk = async (key_combo: string, action: string, owner: Record<string, unknown>, token: string, extra: Record<string, unknown> = {}) =>
      create({ key_combo, action, ...owner, ...extra }, token, P);
    const sys = { owner_type: "system" };
    const p1 = { chart_profile_uuid: PROFILE_1 };
    const p2 = { chart_profile_uuid: PROFILE_2 };
    await mk("Alt+1", "sys.one", sys, w.admin, { display_order: 500 });
    await mk("Alt+1", "p1.one", p1, w.admin, { display_order: 510 });
    await mk("Alt+1", "u1.one", {}, u1, { display_order: 505 });
    await mk("Alt+2", "sys.two", sys, w.admin, { display_order: 400 });
    await mk("Alt+2", "p1.two", p1, w.admin, { display_order: 401 });
    await mk("Alt+2", "p2.two", p2, w.admin, { display_order: 402 });
    await mk("Alt+3", "sys.three", sys, w.admin, { display_order: 300 });
    await mk("Alt+3", "u1.three", {}, u1, { display_order: 301, is_active: false });
    await mk("Alt+4", "p1.four", p1, w.admin, { display_order: 200, is_active: false });
    await mk("Alt+5", "u1.five", {}, u1, { display_order: 100 });
    await mk("Alt+6", "sys.six", sys, w.admin, { display_order: 50, is_active: false });
    await mk("Alt+7", "u2.seven", {}, u2, { display_order: 600 });
    await mk("Alt+8", "sys.eight", sys, w.admin, { display_order: 600 });
  });

  /** combo -> action of the effective Alt+ hotkeys, in list order. */
  async function effective(token: string, qs = "") {
    const r = await w.t.request("GET", `${P}?page_size=200${qs}`, { token });
    expect(r.status).toBe(200);
    return r.body.items.filter((h: any) => h.key_combo.startsWith("Alt+")).map((h: any) => `${h.key_combo}=${h.action}`);
  }

  const table: [string, () => string, string, string[]][] = [
    ["user 1, no profile", () => u1, "", ["Alt+5=u1.five", "Alt+3=sys.three", "Alt+2=sys.two", "Alt+1=u1.one", "Alt+8=sys.eight"]],
    [
      "user 1, profile 1",
      () => u1,
      `&chart_profile_uuid=${PROFILE_1}`,
      ["Alt+5=u1.five", "Alt+3=sys.three", "Alt+2=p1.two", "Alt+1=u1.one", "Alt+8=sys.eight"],
    ],
    [
      "user 1, profile 2",
      () => u1,
      `&chart_profile_uuid=${PROFILE_2}`,
      ["Alt+5=u1.five", "Alt+3=sys.three", "Alt+2=p2.two", "Alt+1=u1.one", "Alt+8=sys.eight"],
    ],
    ["user 2, no profile", () => u2, "", ["Alt+3=sys.three", "Alt+2=sys.two", "Alt+1=sys.one", "Alt+7=u2.seven", "Alt+8=sys.eight"]],
    [
      "user 2, profile 1",
      () => u2,
      `&chart_profile_uuid=${PROFILE_1}`,
      ["Alt+3=sys.three", "Alt+2=p1.two", "Alt+1=p1.one", "Alt+7=u2.seven", "Alt+8=sys.eight"],
    ],
    [
      "user 2, profile 1 (upper-case id)",
      () => u2,
      `&chart_profile_uuid=${PROFILE_1.toUpperCase()}`,
      ["Alt+3=sys.three", "Alt+2=p1.two", "Alt+1=p1.one", "Alt+7=u2.seven", "Alt+8=sys.eight"],
    ],
    ["admin, profile 2", () => w.admin, `&chart_profile_uuid=${PROFILE_2}`, ["Alt+3=sys.three", "Alt+2=p2.two", "Alt+1=sys.one", "Alt+8=sys.eight"]],
    ["user 1, only user-level winners", () => u1, `&chart_profile_uuid=${PROFILE_1}&owner_type=user`, ["Alt+5=u1.five", "Alt+1=u1.one"]],
    ["user 2, only profile-level winners", () => u2, `&chart_profile_uuid=${PROFILE_1}&owner_type=profile`, ["Alt+2=p1.two", "Alt+1=p1.one"]],
  ];
  for (const [name, token, qs, expected] of table) {
    test(`effective set: ${name}`, async () => {
      expect(await effective(token(), qs)).toEqual(expected);
    });
  }

  test("the effective set is the seeded system hotkeys plus the winners; paged in order", async () => {
    const all = (await w.t.request("GET", `${P}?page_size=200`, { token: u2 })).body;
    expect(all.total).toBe(SYSTEM_HOTKEYS.length + 5);
    const p2 = (await w.t.request("GET", `${P}?page=2&page_size=10`, { token: u2 })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 10, total: all.total });
    expect(p2.items).toEqual(all.items.slice(10, 20));
    const last = (await w.t.request("GET", `${P}?page=4&page_size=10`, { token: u2 })).body;
    expect(last.items).toEqual(all.items.slice(30, 40));
    expect(all.items.every((h: any) => h.is_active)).toBe(true);
    const orders = all.items.map((h: any) => h.display_order);
    expect(orders).toEqual([...orders].sort((a: number, b: number) => a - b));
  });

  test("resolved=false: every visible row, inactive ones too, every profile's without chart_profile_uuid; never another user's", async () => {
    const raw = async (token: string, qs = "") => {
      const r = await w.t.request("GET", `${P}?resolved=false&page_size=200${qs}`, { token });
      expect(r.status).toBe(200);
      return r.body.items.filter((h: any) => h.key_combo.startsWith("Alt+")).map((h: any) => h.action);
    };
    expect(await raw(u1)).toEqual([
      "sys.six",
      "u1.five",
      "p1.four",
      "sys.three",
      "u1.three",
      "sys.two",
      "p1.two",
      "p2.two",
      "sys.one",
      "u1.one",
      "p1.one",
      "sys.eight",
    ]);
    expect(await raw(u2, `&chart_profile_uuid=${PROFILE_2}`)).toEqual(["sys.six", "sys.three", "sys.two", "p2.two", "sys.one", "u2.seven", "sys.eight"]);
    expect(await raw(u2, "&owner_type=profile")).toEqual(["p1.four", "p1.two", "p2.two", "p1.one"]);
    expect(await raw(u2, "&owner_type=user")).toEqual(["u2.seven"]);
  });

  test("422 for bad query parameters", async () => {
    const cases: [string, unknown[], string][] = [
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["page_size=0", ["query", "page_size"], "out_of_range"],
      ["page=0", ["query", "page"], "out_of_range"],
      ["page=x", ["query", "page"], "type_error"],
      ["resolved=maybe", ["query", "resolved"], "enum"],
      ["owner_type=admin", ["query", "owner_type"], "enum"],
      ["chart_profile_uuid=nope", ["query", "chart_profile_uuid"], "format"],
      ["user_uuid=x", ["query", "user_uuid"], "extra_forbidden"],
    ];
    for (const [qs, loc, type] of cases) {
      const r = await w.t.request("GET", `${P}?${qs}`, { token: u1 });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect({ qs, first: r.body.detail[0] }).toEqual({ qs, first: { loc, msg: expect.any(String), type } });
    }
  });

  test("401, 403 without an odontogram key, 404 for another org's member", async () => {
    expect((await w.t.request("GET", H)).status).toBe(401);
    expect((await w.t.request("GET", H, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("GET", H, { token: w.memberOfB })).status).toBe(404);
    expect((await w.t.request("GET", HB, { token: w.memberOfB })).status).toBe(200);
  });
});

describe("GET /odontogram/hotkeys/{id}", () => {
  test("200 for shared and own hotkeys; 404 for another user's personal one, another org's, a missing id; 401; 403", async () => {
    const mine = await create({}, w.reader.token);
    const sys = await create({ owner_type: "system" }, w.writer.token);
    expect(await read(sys.id, w.reader.token)).toEqual(sys);
    expect(await read(mine.id, w.reader.token)).toEqual(mine);
    const other = await w.t.request("GET", `${H}/${mine.id}`, { token: w.writer.token });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ detail: "Hotkey not found", code: "not_found" });
    const foreign = await create({ owner_type: "system" }, w.memberOfB, HB);
    expect((await w.t.request("GET", `${H}/${foreign.id}`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("GET", `${H}/${MISSING}`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("GET", `${H}/not-an-id`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("GET", `${H}/${sys.id}`)).status).toBe(401);
    expect((await w.t.request("GET", `${H}/${sys.id}`, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("GET", `${HB}/${foreign.id}`, { token: w.admin })).status).toBe(200);
  });
});

describe("PATCH /odontogram/hotkeys/{id}", () => {
  test("200: fields change, key combo normalised, version +1; audited with before/after and published with changed fields", async () => {
    const h = await create({ action_context: { a: 1 } }, w.reader.token);
    const before = w.events.length;
    const r = await w.t.request("PATCH", `${H}/${h.id}`, {
      token: w.reader.token,
      body: {
        base_version: 1,
        key_combo: "alt+shift+p",
        action: "mode.activate",
        action_context: { mode_code: "measure" },
        display_order: 3,
        is_active: false,
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...h,
      key_combo: "Alt+Shift+P",
      action: "mode.activate",
      action_context: { mode_code: "measure" },
      display_order: 3,
      is_active: false,
      version: 2,
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await read(h.id, w.reader.token)).toEqual(r.body);
    const audit = await auditOf(w.t, w.orgA, h.id);
    expect(audit.map((a) => [a.action, a.before?.key_combo ?? null, a.after.key_combo])).toEqual([
      ["hotkey.created", null, h.key_combo],
      ["hotkey.updated", h.key_combo, "Alt+Shift+P"],
    ]);
    const ev = w.events.slice(before).filter((e) => e.resource_id === h.id);
    expect(ev.map((e) => e.type)).toEqual(["hotkey.updated"]);
    expect([...(ev[0]!.data.changed_fields as string[])].sort()).toEqual(["action", "action_context", "display_order", "is_active", "key_combo"]);
  });

  test("409 stale base_version and duplicate key combo; nothing changes", async () => {
    const a = await create({ key_combo: "Ctrl+Alt+Shift+Meta+F2" }, w.writer.token);
    const b = await create({}, w.writer.token);
    const stale = await w.t.request("PATCH", `${H}/${a.id}`, { token: w.writer.token, body: { base_version: 2, action: "x.y" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const dup = await w.t.request("PATCH", `${H}/${b.id}`, { token: w.writer.token, body: { base_version: 1, key_combo: "meta+shift+alt+ctrl+f2" } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "Ctrl+Alt+Shift+Meta+F2 is already bound at this owner level", code: "duplicate" });
    expect(await read(a.id, w.writer.token)).toEqual(a);
    expect(await read(b.id, w.writer.token)).toEqual(b);
    // re-sending its own combo is not a duplicate
    expect((await w.t.request("PATCH", `${H}/${a.id}`, { token: w.writer.token, body: { base_version: 1, key_combo: a.key_combo } })).status).toBe(200);
  });

  test("422 for each rule (owner fields are read-only); nothing changes", async () => {
    const h = await create({}, w.writer.token);
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ action: "x.y" }, ["body", "base_version"], "missing"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ base_version: 1, key_combo: "Ctrl+Shift" }, ["body", "key_combo"], "value_error"],
      [{ base_version: 1, action: "" }, ["body", "action"], "format"],
      [{ base_version: 1, action_context: null }, ["body", "action_context"], "type_error"],
      [{ base_version: 1, is_active: null }, ["body", "is_active"], "type_error"],
      [{ base_version: 1, display_order: 1_000_001 }, ["body", "display_order"], "out_of_range"],
      [{ base_version: 1, owner_type: "system" }, ["body", "owner_type"], "read_only"],
      [{ base_version: 1, chart_profile_uuid: PROFILE_1 }, ["body", "chart_profile_uuid"], "read_only"],
      [{ base_version: 1, owner_user_uuid: MISSING }, ["body", "owner_user_uuid"], "read_only"],
      [{ base_version: 1, created_at: "2020-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
      [{ base_version: 1, shortcut: "x" }, ["body", "shortcut"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await w.t.request("PATCH", `${H}/${h.id}`, { token: w.writer.token, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("PATCH", `${H}/${h.id}`, { token: w.writer.token, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(h.id, w.writer.token)).toEqual(h);
  });

  test("404 for another user's personal, another org's, missing; 403 for system/profile without odontogram.write; 401; nothing changes", async () => {
    const personal = await create({}, w.writer.token);
    const sys = await create({ owner_type: "system" }, w.writer.token);
    const prof = await create({ chart_profile_uuid: PROFILE_1 }, w.writer.token);
    const foreign = await create({ owner_type: "system" }, w.memberOfB, HB);
    const body = { base_version: 1, action: "x.y" };
    expect((await w.t.request("PATCH", `${H}/${personal.id}`, { token: w.reader.token, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${H}/${personal.id}`, { token: w.admin, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${H}/${foreign.id}`, { token: w.admin, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${H}/${MISSING}`, { token: w.admin, body })).status).toBe(404);
    for (const h of [sys, prof]) {
      const r = await w.t.request("PATCH", `${H}/${h.id}`, { token: w.reader.token, body });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    expect((await w.t.request("PATCH", `${H}/${sys.id}`, { token: w.outsider, body })).status).toBe(403);
    expect((await w.t.request("PATCH", `${H}/${sys.id}`, { body })).status).toBe(401);
    expect((await w.t.request("PATCH", `${H}/${sys.id}`, { token: w.memberOfB, body })).status).toBe(404);
    expect(await read(personal.id, w.writer.token)).toEqual(personal);
    expect(await read(sys.id)).toEqual(sys);
    expect(await read(prof.id)).toEqual(prof);
    expect(await read(foreign.id, w.memberOfB, HB)).toEqual(foreign);
  });
});

describe("POST /odontogram/hotkeys/{id}/archive", () => {
  test("200 sets deleted_at; the hotkey then answers 404 and a lower level shows through; audited and published", async () => {
    const P = H;
    await create({ key_combo: "Ctrl+Alt+Shift+Meta+F3", owner_type: "system", action: "sys.action" }, w.admin, P);
    const mine = await create({ key_combo: "Ctrl+Alt+Shift+Meta+F3", action: "my.action" }, w.reader.token, P);
    const eff = async () =>
      (await w.t.request("GET", `${P}?page_size=200`, { token: w.reader.token })).body.items.find((h: any) => h.key_combo === "Ctrl+Alt+Shift+Meta+F3")?.action;
    expect(await eff()).toBe("my.action");
    const before = w.events.length;
    const r = await w.t.request("POST", `${P}/${mine.id}/archive`, { token: w.reader.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...mine, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await w.t.request("GET", `${P}/${mine.id}`, { token: w.reader.token })).status).toBe(404);
    expect(await eff()).toBe("sys.action");
    expect((await auditOf(w.t, w.orgA, mine.id)).map((a) => a.action)).toEqual(["hotkey.created", "hotkey.archived"]);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === mine.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["hotkey.archived", { id: mine.id, changed_fields: ["deleted_at"] }]]);
    expect((await w.t.request("POST", `${P}/${mine.id}/archive`, { token: w.reader.token })).status).toBe(404);
  });

  test("404 another user's / another org's / missing; 403 for a shared hotkey without odontogram.write or any odontogram key; 401; nothing changes", async () => {
    const personal = await create({}, w.writer.token);
    const sys = await create({ owner_type: "system" }, w.writer.token);
    const foreign = await create({ owner_type: "system" }, w.memberOfB, HB);
    expect((await w.t.request("POST", `${H}/${personal.id}/archive`, { token: w.reader.token })).status).toBe(404);
    expect((await w.t.request("POST", `${H}/${foreign.id}/archive`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${H}/${MISSING}/archive`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${H}/${sys.id}/archive`, { token: w.reader.token })).status).toBe(403);
    expect((await w.t.request("POST", `${H}/${sys.id}/archive`, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("POST", `${H}/${sys.id}/archive`)).status).toBe(401);
    expect((await w.t.request("POST", `${H}/${sys.id}/archive`, { token: w.memberOfB })).status).toBe(404);
    expect(await read(personal.id, w.writer.token)).toEqual(personal);
    expect(await read(sys.id)).toEqual(sys);
    expect(await read(foreign.id, w.memberOfB, HB)).toEqual(foreign);
    // a writer may archive system hotkeys
    expect((await w.t.request("POST", `${H}/${sys.id}/archive`, { token: w.writer.token })).status).toBe(200);
  });
});
