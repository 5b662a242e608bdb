import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { interactionModes } from "@db/tenant/odontogram-tools";
import { SYSTEM_MODES } from "@db/seeds/odontogram-tools";
import { SCOPES } from "@/domains/odontogram/tools/schemas";
import { MISSING, rowsOf, world, type World } from "./fixtures";

let w: World;
let M: string; // {P}/odontogram/interaction-modes of org A
let MB: string;
beforeAll(async () => {
  w = await world();
  M = `${w.A}/interaction-modes`;
  MB = `${w.B}/interaction-modes`;
});
afterAll(() => w.t.close());

let n = 0;
async function create(body: Record<string, unknown> = {}, P = M, token = w.admin) {
  const i = n++;
  const r = await w.t.request("POST", P, {
    token,
    body: { code: `custom_${i}`, name: `Custom ${i}`, default_tool: "paint", selection_type: "surface", allowed_scopes: ["surface"], ...body },
  });
  if (r.status !== 201) throw new Error(`create mode failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = M) => (await w.t.request("GET", `${P}/${id}`, { token: w.admin })).body;
const rows = () => rowsOf(w.t, w.orgA, interactionModes);
const systemMode = async (code: string) =>
  (await w.t.request("GET", `${M}?search=${code}&is_system=true`, { token: w.admin })).body.items.find((m: { code: string }) => m.code === code);

describe("seeded system modes", () => {
  test("a new org has the system interaction modes, ordered by display_order, covering every scope", async () => {
    const org = (await w.t.createOrg()).id;
    const r = await w.t.request("GET", `/api/v1/${org}/odontogram/interaction-modes`, { token: w.admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: SYSTEM_MODES.length });
    expect(r.body.items.map((m: { code: string }) => m.code)).toEqual([
      "select",
      "multi_select",
      "surface_charting",
      "tooth_charting",
      "span_charting",
      "endodontic",
      "periodontal",
      "arch_charting",
      "annotate",
      "measure",
    ]);
    expect(r.body.items.every((m: { is_system: boolean; version: number }) => m.is_system && m.version === 1)).toBe(true);
    expect(new Set(r.body.items.flatMap((m: { allowed_scopes: string[] }) => m.allowed_scopes))).toEqual(new Set(SCOPES));
    expect(r.body.items[2]).toEqual({
      id: expect.any(String),
      code: "surface_charting",
      name: "Surface charting",
      description: "Paint restorations and caries onto tooth surfaces",
      cursor_icon: "brush-surface",
      default_tool: "paint",
      selection_type: "surface",
      allowed_scopes: ["surface", "occlusal_detail"],
      display_order: 20,
      is_system: true,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    // the seeded hotkeys activate these modes by code
    const hk = (await w.t.request("GET", `/api/v1/${org}/odontogram/hotkeys?page_size=200`, { token: w.admin })).body.items;
    const activated = hk
      .filter((h: { action: string }) => h.action === "mode.activate")
      .map((h: { action_context: { mode_code: string } }) => h.action_context.mode_code);
    expect(activated).toEqual(r.body.items.map((m: { code: string }) => m.code));
  });
});

describe("POST /odontogram/interaction-modes", () => {
  test("201 with every field; defaults (display_order after the last mode); audited and published", async () => {
    const before = w.events.length;
    const r = await w.t.request("POST", M, {
      token: w.writer.token,
      body: {
        code: "implant_planning",
        name: " Implant planning ",
        default_tool: "measure",
        selection_type: "region",
        allowed_scopes: ["arch_object", "whole_tooth"],
        cursor_icon: "implant",
        description: "Place implants",
        display_order: 15,
        is_system: false,
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      code: "implant_planning",
      name: "Implant planning",
      description: "Place implants",
      cursor_icon: "implant",
      default_tool: "measure",
      selection_type: "region",
      allowed_scopes: ["arch_object", "whole_tooth"],
      display_order: 15,
      is_system: false,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const d = await create();
    expect(d).toMatchObject({ description: null, cursor_icon: null, is_system: false, display_order: 91 }); // seeded last is 90
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => [a.action, a.actor_id, a.after.code])).toEqual([
      ["interaction_mode.created", w.writer.userId, "implant_planning"],
    ]);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === r.body.id)
        .map((e) => [e.type, e.resource_type, e.data]),
    ).toEqual([["interaction_mode.created", "interaction_mode", { id: r.body.id, code: "implant_planning" }]]);
  });

  test("409 duplicate code (seeded ones too); an archived mode frees its code; codes are per org", async () => {
    const count = (await rows()).length;
    for (const code of ["select", "implant_planning"]) {
      const r = await w.t.request("POST", M, {
        token: w.admin,
        body: { code, name: "X", default_tool: "paint", selection_type: "surface", allowed_scopes: ["surface"] },
      });
      expect({ code, status: r.status, body: r.body }).toEqual({
        code,
        status: 409,
        body: { detail: `An interaction mode with the code "${code}" already exists`, code: "duplicate" },
      });
    }
    expect((await rows()).length).toBe(count);
    const gone = await create({ code: "reusable" });
    await w.t.request("POST", `${M}/${gone.id}/archive`, { token: w.admin });
    expect((await create({ code: "reusable" })).code).toBe("reusable");
    expect((await create({ code: "reusable" }, MB)).code).toBe("reusable");
  });

  test("422 for each rule, unknown and read-only fields and malformed JSON; nothing is written", async () => {
    const count = (await rows()).length;
    const ok = { code: "fine", name: "Fine", default_tool: "paint", selection_type: "surface", allowed_scopes: ["surface"] };
    const { code: _c, ...noCode } = ok;
    const { allowed_scopes: _s, ...noScopes } = ok;
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [noCode, ["body", "code"], "missing"],
      [{ ...ok, name: undefined }, ["body", "name"], "missing"],
      [noScopes, ["body", "allowed_scopes"], "missing"],
      [{ ...ok, default_tool: undefined }, ["body", "default_tool"], "missing"],
      [{ ...ok, selection_type: undefined }, ["body", "selection_type"], "missing"],
      [{ ...ok, code: "Fine" }, ["body", "code"], "format"],
      [{ ...ok, code: "1st" }, ["body", "code"], "format"],
      [{ ...ok, code: "with-dash" }, ["body", "code"], "format"],
      [{ ...ok, code: "a".repeat(51) }, ["body", "code"], "format"],
      [{ ...ok, name: "" }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: "x".repeat(101) }, ["body", "name"], "out_of_range"],
      [{ ...ok, default_tool: "erase" }, ["body", "default_tool"], "enum"],
      [{ ...ok, selection_type: "quadrant" }, ["body", "selection_type"], "enum"],
      [{ ...ok, allowed_scopes: [] }, ["body", "allowed_scopes"], "out_of_range"],
      [{ ...ok, allowed_scopes: ["surface", "gum"] }, ["body", "allowed_scopes", 1], "enum"],
      [{ ...ok, allowed_scopes: ["surface", "surface"] }, ["body", "allowed_scopes"], "value_error"],
      [{ ...ok, allowed_scopes: "surface" }, ["body", "allowed_scopes"], "type_error"],
      [{ ...ok, is_system: "true" }, ["body", "is_system"], "type_error"],
      [{ ...ok, display_order: -1 }, ["body", "display_order"], "out_of_range"],
      [{ ...ok, cursor_icon: "" }, ["body", "cursor_icon"], "out_of_range"],
      [{ ...ok, description: "x".repeat(2001) }, ["body", "description"], "out_of_range"],
      [{ ...ok, shortcut: "S" }, ["body", "shortcut"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, deleted_at: null }, ["body", "deleted_at"], "read_only"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await w.t.request("POST", M, { token: w.admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("POST", M, { token: w.admin, rawBody: "{'code': 1}", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect((await rows()).length).toBe(count);
  });

  test("401, 403 (odontogram.read is not enough), 404 for a non-member or unknown org; nothing is written", async () => {
    const count = (await rows()).length;
    const body = { code: "nope", name: "Nope", default_tool: "paint", selection_type: "surface", allowed_scopes: ["surface"] };
    const anon = await w.t.request("POST", M, { body });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    expect((await w.t.request("POST", M, { token: w.reader.token, body })).status).toBe(403);
    expect((await w.t.request("POST", M, { token: w.outsider, body })).status).toBe(403);
    expect((await w.t.request("POST", M, { token: w.memberOfB, body })).status).toBe(404);
    expect((await w.t.request("POST", `/api/v1/${MISSING}/odontogram/interaction-modes`, { token: w.admin, body })).status).toBe(404);
    expect((await rows()).length).toBe(count);
  });
});

describe("GET /odontogram/interaction-modes", () => {
  let P: string;
  beforeAll(async () => {
    const org = (await w.t.createOrg()).id;
    P = `/api/v1/${org}/odontogram/interaction-modes`;
    await create({ code: "hygiene_100", name: "Hygiene 100%", display_order: 5 }, P);
    await create({ code: "ortho", name: "Brackets", display_order: 5 }, P);
    const gone = await create({ code: "gone_mode", name: "Gone", display_order: 0 }, P);
    await w.t.request("POST", `${P}/${gone.id}/archive`, { token: w.admin });
  });
  const codes = async (qs: string, token = w.admin) => {
    const r = await w.t.request("GET", `${P}${qs}`, { token });
    expect({ qs, status: r.status }).toEqual({ qs, status: 200 });
    return r.body.items.map((m: { code: string }) => m.code);
  };

  test("sorted by display_order (then name); archived left out; paged (1-100)", async () => {
    const r = await w.t.request("GET", `${P}?page_size=100`, { token: w.admin });
    expect(r.body).toMatchObject({ page: 1, page_size: 100, total: SYSTEM_MODES.length + 2 });
    expect(r.body.items.map((m: { code: string }) => m.code)).toEqual([
      "select",
      "ortho",
      "hygiene_100",
      "multi_select",
      "surface_charting",
      "tooth_charting",
      "span_charting",
      "endodontic",
      "periodontal",
      "arch_charting",
      "annotate",
      "measure",
    ]);
    const p2 = (await w.t.request("GET", `${P}?page=2&page_size=5`, { token: w.admin })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 5, total: 12 });
    expect(p2.items).toEqual(r.body.items.slice(5, 10));
    expect((await w.t.request("GET", `${P}?page=4&page_size=5`, { token: w.admin })).body.items).toEqual([]);
  });

  test("search: case-insensitive substring of name or code, % and _ literal; is_system filter", async () => {
    expect(await codes("?search=SURF")).toEqual(["surface_charting"]);
    expect(await codes("?search=brackets")).toEqual(["ortho"]);
    expect(await codes("?search=ORTH")).toEqual(["ortho"]);
    expect(await codes("?search=charting")).toEqual(["surface_charting", "tooth_charting", "span_charting", "arch_charting"]);
    expect(await codes("?search=100%25")).toEqual(["hygiene_100"]);
    expect(await codes("?search=%25")).toEqual(["hygiene_100"]);
    expect(await codes("?search=i_s")).toEqual(["multi_select"]);
    expect(await codes("?search=gone")).toEqual([]);
    expect(await codes("?is_system=false")).toEqual(["ortho", "hygiene_100"]);
    expect((await codes("?is_system=true")).length).toBe(SYSTEM_MODES.length);
  });

  test("422 for page_size 101, 0, bad page, bad is_system, unknown parameters", async () => {
    const cases: [string, unknown[], string][] = [
      ["page_size=101", ["query", "page_size"], "out_of_range"],
      ["page_size=0", ["query", "page_size"], "out_of_range"],
      ["page=0", ["query", "page"], "out_of_range"],
      ["page=two", ["query", "page"], "type_error"],
      ["is_system=yes", ["query", "is_system"], "enum"],
      ["search=" + "x".repeat(201), ["query", "search"], "out_of_range"],
      ["code=select", ["query", "code"], "extra_forbidden"],
    ];
    for (const [qs, loc, type] of cases) {
      const r = await w.t.request("GET", `${P}?${qs}`, { token: w.admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect({ qs, first: r.body.detail[0] }).toEqual({ qs, first: { loc, msg: expect.any(String), type } });
    }
  });

  test("200 for odontogram.read; 401, 403, 404 for another org's member", async () => {
    expect((await w.t.request("GET", M, { token: w.reader.token })).body.total).toBeGreaterThanOrEqual(SYSTEM_MODES.length);
    expect((await w.t.request("GET", M)).status).toBe(401);
    expect((await w.t.request("GET", M, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("GET", M, { token: w.memberOfB })).status).toBe(404);
  });
});

describe("GET /odontogram/interaction-modes/{id}", () => {
  test("200 (odontogram.read); 404 for another org's, missing or archived; 401; 403", async () => {
    const m = await create();
    expect((await w.t.request("GET", `${M}/${m.id}`, { token: w.reader.token })).body).toEqual(m);
    const foreign = await create({}, MB);
    const miss = await w.t.request("GET", `${M}/${foreign.id}`, { token: w.admin });
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ detail: "Interaction mode not found", code: "not_found" });
    expect((await w.t.request("GET", `${M}/${MISSING}`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("GET", `${M}/${m.id}`)).status).toBe(401);
    expect((await w.t.request("GET", `${M}/${m.id}`, { token: w.outsider })).status).toBe(403);
    expect((await w.t.request("GET", `${M}/${m.id}`, { token: w.memberOfB })).status).toBe(404);
  });
});

describe("PATCH /odontogram/interaction-modes/{id}", () => {
  test("200: every editable field; version +1; audited and published with changed fields", async () => {
    const m = await create();
    const before = w.events.length;
    const body = {
      base_version: 1,
      name: "Renamed",
      description: "Now described",
      cursor_icon: "cross",
      default_tool: "select",
      selection_type: "multi_tooth",
      allowed_scopes: ["whole_tooth", "crown"],
      display_order: 3,
    };
    const r = await w.t.request("PATCH", `${M}/${m.id}`, { token: w.writer.token, body });
    expect(r.status).toBe(200);
    const { base_version: _b, ...fields } = body;
    expect(r.body).toEqual({ ...m, ...fields, version: 2, updated_at: expect.stringMatching(/Z$/) });
    expect(await read(m.id)).toEqual(r.body);
    // nullable fields clear with null
    const cleared = await w.t.request("PATCH", `${M}/${m.id}`, { token: w.writer.token, body: { base_version: 2, description: null, cursor_icon: null } });
    expect(cleared.body).toMatchObject({ description: null, cursor_icon: null, version: 3 });
    const audit = await auditOf(w.t, w.orgA, m.id);
    expect(audit.map((a) => [a.action, a.after.name])).toEqual([
      ["interaction_mode.created", m.name],
      ["interaction_mode.updated", "Renamed"],
      ["interaction_mode.updated", "Renamed"],
    ]);
    const ev = w.events.slice(before).filter((e) => e.resource_id === m.id);
    expect(ev.map((e) => e.type)).toEqual(["interaction_mode.updated", "interaction_mode.updated"]);
    expect([...(ev[0]!.data.changed_fields as string[])].sort()).toEqual([
      "allowed_scopes",
      "cursor_icon",
      "default_tool",
      "description",
      "display_order",
      "name",
      "selection_type",
    ]);
    expect(ev[1]!.data).toEqual({ id: m.id, changed_fields: ["description", "cursor_icon"] });
  });

  test("system modes: presentation changes, behaviour is 422 system_record; nothing changes", async () => {
    const sel = await systemMode("measure");
    const r = await w.t.request("PATCH", `${M}/${sel.id}`, {
      token: w.admin,
      body: { base_version: sel.version, name: "Ruler", display_order: 95, cursor_icon: "ruler-2", description: "Measure things" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ code: "measure", name: "Ruler", display_order: 95, is_system: true, default_tool: "measure" });
    const now = r.body;
    for (const change of [{ default_tool: "paint" }, { selection_type: "surface" }, { allowed_scopes: ["surface"] }]) {
      const bad = await w.t.request("PATCH", `${M}/${sel.id}`, { token: w.admin, body: { base_version: now.version, name: "Other", ...change } });
      expect({ change, status: bad.status, body: bad.body }).toEqual({
        change,
        status: 422,
        body: {
          detail: [{ loc: ["body", Object.keys(change)[0]], msg: "A system interaction mode's behaviour cannot change", type: "value_error" }],
          code: "system_record",
        },
      });
    }
    expect(await read(sel.id)).toEqual(now);
  });

  test("409 stale base_version; 422 for code (immutable), is_system and each rule; nothing changes", async () => {
    const m = await create();
    const stale = await w.t.request("PATCH", `${M}/${m.id}`, { token: w.admin, body: { base_version: 2, name: "X" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ base_version: 1, code: "other" }, ["body", "code"], "read_only"],
      [{ base_version: 1, code: m.code }, ["body", "code"], "read_only"],
      [{ base_version: 1, is_system: true }, ["body", "is_system"], "read_only"],
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, name: "" }, ["body", "name"], "out_of_range"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, default_tool: "erase" }, ["body", "default_tool"], "enum"],
      [{ base_version: 1, selection_type: null }, ["body", "selection_type"], "enum"],
      [{ base_version: 1, allowed_scopes: [] }, ["body", "allowed_scopes"], "out_of_range"],
      [{ base_version: 1, display_order: "1" }, ["body", "display_order"], "type_error"],
      [{ base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await w.t.request("PATCH", `${M}/${m.id}`, { token: w.admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const bad = await w.t.request("PATCH", `${M}/${m.id}`, { token: w.admin, rawBody: "nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(m.id)).toEqual(m);
  });

  test("404 for another org's or a missing mode; 403 for odontogram.read; 401; nothing changes", async () => {
    const m = await create();
    const foreign = await create({}, MB);
    const body = { base_version: 1, name: "Hijack" };
    expect((await w.t.request("PATCH", `${M}/${foreign.id}`, { token: w.admin, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${M}/${MISSING}`, { token: w.admin, body })).status).toBe(404);
    expect((await w.t.request("PATCH", `${M}/${m.id}`, { token: w.reader.token, body })).status).toBe(403);
    expect((await w.t.request("PATCH", `${M}/${m.id}`, { body })).status).toBe(401);
    expect((await w.t.request("PATCH", `${M}/${m.id}`, { token: w.memberOfB, body })).status).toBe(404);
    expect(await read(m.id)).toEqual(m);
    expect(await read(foreign.id, MB)).toEqual(foreign);
  });
});

describe("POST /odontogram/interaction-modes/{id}/archive", () => {
  test("200 sets deleted_at; then 404; audited and published", async () => {
    const m = await create();
    const before = w.events.length;
    const r = await w.t.request("POST", `${M}/${m.id}/archive`, { token: w.writer.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...m, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await w.t.request("GET", `${M}/${m.id}`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${m.id}/archive`, { token: w.admin })).status).toBe(404);
    expect((await auditOf(w.t, w.orgA, m.id)).map((a) => a.action)).toEqual(["interaction_mode.created", "interaction_mode.archived"]);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === m.id)
        .map((e) => [e.type, e.data]),
    ).toEqual([["interaction_mode.archived", { id: m.id, changed_fields: ["deleted_at"] }]]);
  });

  test("422 system_record for a system mode (seeded or created with is_system); nothing changes", async () => {
    const sel = await systemMode("select");
    const own = await create({ is_system: true });
    for (const mode of [sel, own]) {
      const r = await w.t.request("POST", `${M}/${mode.id}/archive`, { token: w.admin });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        detail: [{ loc: ["path", "mode_uuid"], msg: "A system interaction mode cannot be archived", type: "value_error" }],
        code: "system_record",
      });
      expect(await read(mode.id)).toEqual(mode);
    }
  });

  test("404 another org's / missing; 403 for odontogram.read; 401; nothing changes", async () => {
    const m = await create();
    const foreign = await create({}, MB);
    expect((await w.t.request("POST", `${M}/${foreign.id}/archive`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${MISSING}/archive`, { token: w.admin })).status).toBe(404);
    expect((await w.t.request("POST", `${M}/${m.id}/archive`, { token: w.reader.token })).status).toBe(403);
    expect((await w.t.request("POST", `${M}/${m.id}/archive`)).status).toBe(401);
    expect((await w.t.request("POST", `${M}/${m.id}/archive`, { token: w.memberOfB })).status).toBe(404);
    expect(await read(m.id)).toEqual(m);
    expect(await read(foreign.id, MB)).toEqual(foreign);
  });
});
