import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, unique } from "@tests/helpers";
import { feeWorld, MISSING, READ, WRITE, type FeeWorld } from "./fixtures";

// The fee schedule record over HTTP: create, list, get, PATCH, archive, the
// default office schedule, and the guard's answers (docs/codes/fee-schedules.md).

let w: FeeWorld;
let reader: string;
let memberOfB: string;

beforeAll(async () => {
  w = await feeWorld({ reader: [READ], memberOfB: { org: "B", keys: [READ, WRITE] } });
  ({ reader, memberOfB } = w.tokens);
});
afterAll(() => w.t.close());

const byId = (id: string) => `${w.S()}/${id}`;
const eventsOf = (id: string, from = 0) => w.events.slice(from).filter((e) => e.resource_id === id);

describe("POST /fee-schedules", () => {
  test("201 with every field; readable by id; audited; fee_schedule.created with ids only", async () => {
    const from = w.events.length;
    const r = await w.call("POST", w.S(), { name: " Delta PPO 2025 ", schedule_type: "ppo", is_hidden: true });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Delta PPO 2025",
      schedule_type: "ppo",
      is_hidden: true,
      is_default: false,
      copy_status: null,
      copy_total: null,
      copy_done: null,
      copy_error: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await w.call("GET", byId(r.body.id), undefined, 200, reader)).body).toEqual(r.body);
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => [a.action, a.after.name])).toEqual([["fee_schedule.created", "Delta PPO 2025"]]);
    expect(eventsOf(r.body.id, from).map((e) => [e.type, e.data])).toEqual([
      ["fee_schedule.created", { id: r.body.id, schedule_type: "ppo", is_default: false }],
    ]);
  });

  test("only name and schedule_type are required: not hidden, not the default", async () => {
    const s = await w.createSchedule({ schedule_type: "ucr" });
    expect(s).toMatchObject({ schedule_type: "ucr", is_hidden: false, is_default: false, version: 1 });
  });

  test("409 duplicate for a live name in any case; archiving frees it; names are per org", async () => {
    const name = unique("Standard");
    const first = await w.createSchedule({ name });
    const before = await w.snapshot();
    for (const n of [name, name.toUpperCase(), ` ${name.toLowerCase()} `]) {
      const r = await w.call("POST", w.S(), { name: n, schedule_type: "office" });
      expect({ n, status: r.status, body: r.body }).toEqual({
        n,
        status: 409,
        body: { detail: "Another fee schedule already uses this name", code: "duplicate" },
      });
    }
    expect(await w.snapshot()).toEqual(before);
    await w.call("POST", `${byId(first.id)}/archive`, undefined, 200);
    expect((await w.createSchedule({ name })).name).toBe(name);
    expect((await w.createSchedule({ name }, w.orgB)).name).toBe(name);
  });

  test("422 for each bad field, unknown and read-only fields, and a default that is not an office schedule; nothing is written", async () => {
    const before = await w.snapshot();
    const ok = { name: "Fine", schedule_type: "office" };
    const cases: [Record<string, unknown>, unknown[], string, string?][] = [
      [{ schedule_type: "office" }, ["body", "name"], "missing"],
      [{ name: "X" }, ["body", "schedule_type"], "missing"],
      [{ ...ok, name: "  " }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: "x".repeat(101) }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: 7 }, ["body", "name"], "type_error"],
      [{ ...ok, schedule_type: "medicaid" }, ["body", "schedule_type"], "enum"],
      [{ ...ok, is_hidden: "yes" }, ["body", "is_hidden"], "type_error"],
      [{ ...ok, is_default: 1 }, ["body", "is_default"], "type_error"],
      [{ ...ok, colour: "red" }, ["body", "colour"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, version: 3 }, ["body", "version"], "read_only"],
      [{ name: "PPO default", schedule_type: "ppo", is_default: true }, ["body", "is_default"], "value_error", "default_not_office"],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await w.call("POST", w.S(), body);
      expect({ body, status: r.status, first: r.body.detail?.[0], code: r.body.code }).toEqual({
        body,
        status: 422,
        first: { loc, msg: expect.any(String), type },
        code,
      });
    }
    expect(await w.snapshot()).toEqual(before);
  });

  test("401, 403 for a reader, 404 for a non-member or unknown org; nothing is written", async () => {
    const before = await w.snapshot();
    const body = { name: "Guarded", schedule_type: "office" };
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", w.S(), WRITE, body);
    expect((await w.call("POST", w.S(), body, undefined, reader)).status).toBe(403);
    expect((await w.call("POST", w.S(), body, undefined, memberOfB)).status).toBe(404);
    expect((await w.call("POST", `/api/v1/${MISSING}/fee-schedules`, body)).status).toBe(404);
    expect((await w.snapshot()).schedules).toEqual(before.schedules);
  });
});

describe("the default office schedule", () => {
  test("setting is_default (create or PATCH) takes it from the previous default in the same write; at most one", async () => {
    const first = await w.createSchedule({ is_default: true });
    expect(first.is_default).toBe(true);
    const from = w.events.length;
    const second = await w.createSchedule({ is_default: true });
    expect(second.is_default).toBe(true);
    expect((await w.readSchedule(first.id)).is_default).toBe(false);
    expect((await w.readSchedule(first.id)).version).toBe(2);
    expect(eventsOf(first.id, from).map((e) => [e.type, e.data.changed_fields])).toEqual([["fee_schedule.updated", ["is_default"]]]);
    // PATCH back to the first
    const r = await w.patch(byId(first.id), { is_default: true });
    expect(r.body).toMatchObject({ is_default: true, version: 3 });
    expect((await w.readSchedule(second.id)).is_default).toBe(false);
    const defaults = (await w.call("GET", `${w.S()}?page_size=200`, undefined, 200)).body.items.filter((s: any) => s.is_default);
    expect(defaults.map((s: any) => s.id)).toEqual([first.id]);
    // unsetting leaves the org without a default
    expect((await w.patch(byId(first.id), { is_default: false })).body.is_default).toBe(false);
    // a default cannot become another type, nor another type the default; nothing changes
    const office = await w.createSchedule({ is_default: true });
    const before = await w.snapshot();
    const retype = await w.call("PATCH", byId(office.id), { base_version: office.version, schedule_type: "ucr" });
    expect(retype.status).toBe(422);
    expect(retype.body).toMatchObject({ code: "default_not_office", detail: [{ loc: ["body", "schedule_type"], type: "value_error" }] });
    const ppo = await w.createSchedule({ schedule_type: "ppo" });
    const before2 = await w.snapshot();
    const flag = await w.call("PATCH", byId(ppo.id), { base_version: 1, is_default: true });
    expect(flag.body).toMatchObject({ code: "default_not_office", detail: [{ loc: ["body", "is_default"] }] });
    expect(await w.snapshot()).toEqual(before2);
    expect(before.schedules.find((s: any) => s.id === office.id)).toMatchObject({ is_default: true, schedule_type: "office" });
  });
});

describe("GET /fee-schedules", () => {
  test("paged by name; filters search, schedule_type and is_hidden; archived and other orgs' schedules are left out", async () => {
    const tag = unique("zq");
    const a = await w.createSchedule({ name: `${tag} A`, schedule_type: "ppo" });
    const b = await w.createSchedule({ name: `${tag} B`, is_hidden: true });
    const c = await w.createSchedule({ name: `${tag} C`, schedule_type: "allowed" });
    await w.createSchedule({ name: `${tag} other org` }, w.orgB);
    const gone = await w.createSchedule({ name: `${tag} gone` });
    await w.call("POST", `${byId(gone.id)}/archive`, undefined, 200);
    const list = async (q: string) => (await w.call("GET", `${w.S()}?search=${tag}&${q}`, undefined, 200, reader)).body;
    expect((await list("")).items.map((s: any) => s.id)).toEqual([a.id, b.id, c.id]);
    expect(await list("page_size=2&page=2")).toMatchObject({ page: 2, page_size: 2, total: 3, items: [{ id: c.id }] });
    expect((await list("schedule_type=ppo")).items.map((s: any) => s.id)).toEqual([a.id]);
    expect((await list("is_hidden=true")).items.map((s: any) => s.id)).toEqual([b.id]);
    expect((await list("is_hidden=false")).items.map((s: any) => s.id)).toEqual([a.id, c.id]);
    expect((await w.call("GET", `${w.S()}?search=${tag.toUpperCase()}%20a`, undefined, 200)).body.items.map((s: any) => s.id)).toEqual([a.id]);
  });

  test("422 for bad parameters; 401, 403 without codes.read, 404 for a non-member", async () => {
    for (const [q, loc, type] of [
      ["page=0", ["query", "page"], "out_of_range"],
      ["page_size=201", ["query", "page_size"], "out_of_range"],
      ["schedule_type=hmo", ["query", "schedule_type"], "enum"],
      ["is_hidden=maybe", ["query", "is_hidden"], "enum"],
      ["sort=name", ["query", "sort"], "extra_forbidden"],
    ] as const) {
      const r = await w.call("GET", `${w.S()}?${q}`);
      expect({ q, status: r.status, first: r.body.detail?.[0] }).toEqual({ q, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", w.S(), READ);
  });
});

describe("GET /fee-schedules/{id}", () => {
  test("200 with its ETag; 404 missing, archived or another org's; 401, 403, 404 non-member", async () => {
    const s = await w.createSchedule();
    const r = await w.call("GET", byId(s.id), undefined, 200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect((await w.call("GET", byId(MISSING))).body).toEqual({ detail: "Fee schedule not found", code: "not_found" });
    const theirs = await w.createSchedule({}, w.orgB);
    expect((await w.call("GET", byId(theirs.id))).status).toBe(404);
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", byId(s.id), READ);
  });
});

describe("PATCH /fee-schedules/{id}", () => {
  test("200: fields present change, version +1; audited; fee_schedule.updated names the changed fields", async () => {
    const s = await w.createSchedule({ schedule_type: "ucr" });
    const from = w.events.length;
    const name = unique("Renamed");
    const r = await w.call("PATCH", byId(s.id), { base_version: 1, name, is_hidden: true, schedule_type: "office" }, 200);
    expect(r.body).toEqual({ ...s, name, is_hidden: true, schedule_type: "office", version: 2, updated_at: expect.any(String) });
    expect(r.headers.get("etag")).toBe('"2"');
    expect((await auditOf(w.t, w.orgA, s.id)).map((a) => a.action)).toEqual(["fee_schedule.created", "fee_schedule.updated"]);
    expect(eventsOf(s.id, from).map((e) => [e.type, [...(e.data.changed_fields as string[])].sort()])).toEqual([
      ["fee_schedule.updated", ["is_hidden", "name", "schedule_type"]],
    ]);
    // keeping its own name (another case) is fine
    expect((await w.call("PATCH", byId(s.id), { base_version: 2, name: name.toUpperCase() }, 200)).body.name).toBe(name.toUpperCase());
  });

  test("409 on a stale base_version before any rule; 409 duplicate; 404 missing, archived, another org's; 422; nothing changes", async () => {
    const s = await w.createSchedule();
    const other = await w.createSchedule();
    await w.call("PATCH", byId(s.id), { base_version: 1, is_hidden: true }, 200);
    const before = await w.snapshot();
    const stale = await w.call("PATCH", byId(s.id), { base_version: 1, name: other.name });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const dup = await w.call("PATCH", byId(s.id), { base_version: 2, name: other.name.toLowerCase() });
    expect(dup.body).toEqual({ detail: "Another fee schedule already uses this name", code: "duplicate" });
    expect((await w.call("PATCH", byId(MISSING), { base_version: 1, name: "x" })).status).toBe(404);
    const theirs = await w.createSchedule({}, w.orgB);
    expect((await w.call("PATCH", byId(theirs.id), { base_version: 1, name: "x" })).status).toBe(404);
    for (const [body, loc, type] of [
      [{ name: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 2, copy_status: "done" }, ["body", "copy_status"], "read_only"],
      [{ base_version: 2, is_default: "true" }, ["body", "is_default"], "type_error"],
      [{ base_version: 2, schedule_type: "x" }, ["body", "schedule_type"], "enum"],
    ] as const) {
      const r = await w.call("PATCH", byId(s.id), body);
      expect({ body, status: r.status, first: r.body.detail?.[0] }).toEqual({ body, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    expect(await w.snapshot()).toEqual(before);
    await expectGuarded(w.t, w.orgA, w.orgB, "PATCH", byId(s.id), WRITE, { base_version: 2, name: "guarded" });
    expect((await w.snapshot()).schedules).toEqual(before.schedules);
  });
});

describe("POST /fee-schedules/{id}/archive", () => {
  test("200 with deleted_at; no longer the default; audited; archived event; then 404 and left out of lists", async () => {
    const s = await w.createSchedule({ is_default: true });
    const from = w.events.length;
    const r = await w.call("POST", `${byId(s.id)}/archive?base_version=1`, undefined, 200);
    expect(r.body).toMatchObject({ id: s.id, deleted_at: expect.stringMatching(/Z$/), is_default: false, version: 2 });
    expect((await auditOf(w.t, w.orgA, s.id)).map((a) => a.action)).toEqual(["fee_schedule.created", "fee_schedule.archived"]);
    expect(eventsOf(s.id, from).map((e) => e.type)).toEqual(["fee_schedule.archived"]);
    expect((await w.call("GET", byId(s.id))).status).toBe(404);
    expect((await w.call("POST", `${byId(s.id)}/archive`)).status).toBe(404);
    expect((await w.call("GET", `${w.S()}?search=${encodeURIComponent(s.name)}`, undefined, 200)).body.total).toBe(0);
  });

  test("409 stale base_version, 404 another org's; 401, 403, 404 non-member; nothing changes", async () => {
    const s = await w.createSchedule();
    await w.call("PATCH", byId(s.id), { base_version: 1, is_hidden: true }, 200);
    const theirs = await w.createSchedule({}, w.orgB);
    const before = await w.snapshot();
    expect((await w.call("POST", `${byId(s.id)}/archive?base_version=1`)).body.code).toBe("version_conflict");
    expect((await w.call("POST", `${byId(theirs.id)}/archive`)).status).toBe(404);
    expect((await w.call("POST", `${byId(s.id)}/archive?base_version=0`)).status).toBe(422);
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${byId(s.id)}/archive`, WRITE);
    expect((await w.snapshot()).schedules).toEqual(before.schedules);
  });
});
