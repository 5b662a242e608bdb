import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { scheduleTemplates } from "@db/tenant/schedule-templates";
import { providers } from "@db/tenant/practice";
import { auditOf, expectGuarded, expectValidationCases } from "@tests/helpers";
import { patchRow } from "@tests/domains/scheduling/appointments/fixtures";
import { rowsOf } from "@tests/domains/scheduling/provider-schedules/fixtures";
import { MISSING, templatesWorld, type TemplatesWorld } from "./fixtures";

// GET/POST {P}/schedule/templates, GET/PATCH .../{id}, POST .../{id}/archive
// (docs/scheduling/schedule-templates.md). The apply and its job: apply.test.ts.

let w: TemplatesWorld;
beforeAll(async () => {
  w = await templatesWorld();
}, 30_000);
afterAll(() => w.t.close());

const T = () => `${w.S()}/templates`;
const templateRows = () => rowsOf<typeof scheduleTemplates.$inferSelect>(w.t, w.orgA, scheduleTemplates);

describe("POST /schedule/templates", () => {
  test("201: the blocks with named references; audited with the ids, published", async () => {
    const r = await w.call("POST", T(), {
      name: "  Standard week ",
      note: "Summer hours",
      blocks: [
        w.block(),
        w.block({ start_time: "08:00", end_time: "09:00", blockout_type_uuid: w.newPatients.id.toUpperCase() }),
        w.block({ weekday: 0, provider_uuid: w.s.provider2.id, location_uuid: w.uptown.id, operatory_uuid: null }),
      ],
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    const { s } = w;
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Standard week",
      note: "Summer hours",
      blocks: [
        {
          weekday: 1,
          start_time: "08:00",
          end_time: "12:00",
          provider: { uuid: s.provider.id, name: "Ada Molar" },
          location: { uuid: s.location.id, name: s.location.name },
          operatory: { uuid: s.operatory.id, name: "Op 1" },
          blockout_type: null,
        },
        {
          weekday: 1,
          start_time: "08:00",
          end_time: "09:00",
          provider: { uuid: s.provider.id, name: "Ada Molar" },
          location: { uuid: s.location.id, name: s.location.name },
          operatory: { uuid: s.operatory.id, name: "Op 1" },
          blockout_type: { uuid: w.newPatients.id, name: "New patient exams" },
        },
        {
          weekday: 0,
          start_time: "08:00",
          end_time: "12:00",
          provider: { uuid: s.provider2.id, name: "Grace Canine" },
          location: { uuid: w.uptown.id, name: "Uptown" },
          operatory: null,
          blockout_type: null,
        },
      ],
      archived_at: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await w.call("GET", `${T()}/${r.body.id}`)).body).toEqual(r.body);
    const audit = await auditOf(w.t, w.orgA, r.body.id);
    expect(audit.map((a) => [a.action, a.after.name, a.after.blocks[1]])).toEqual([
      [
        "schedule_template.created",
        "Standard week",
        {
          weekday: 1,
          start_time: "08:00",
          end_time: "09:00",
          provider_id: s.provider.id,
          operatory_id: s.operatory.id,
          location_id: s.location.id,
          blockout_type_id: w.newPatients.id,
        },
      ],
    ]);
    expect(w.events.filter((e) => e.resource_id === r.body.id).map((e) => [e.type, e.data])).toEqual([
      ["schedule_template.created", { id: r.body.id, blocks: 3 }],
    ]);
  });

  test("blocks that touch, reserved time inside working hours and two providers at one hour are fine", async () => {
    const t = await w.createTemplate({
      blocks: [
        w.block(),
        w.block({ start_time: "12:00", end_time: "17:00" }),
        w.block({ start_time: "09:00", end_time: "10:00", blockout_type_uuid: w.newPatients.id }),
        w.block({ start_time: "09:30", end_time: "10:30", blockout_type_uuid: w.newPatients.id }),
        w.block({ provider_uuid: w.s.provider2.id, operatory_uuid: w.s.operatory2.id }),
        w.block({ weekday: 2 }),
      ],
    });
    expect(t.blocks.length).toBe(6);
  });

  test("422 for each field rule, unknown and read-only fields; nothing is written", async () => {
    const before = await templateRows();
    const ok = { name: "Fine", blocks: [w.block()] };
    const withBlock = (v: Record<string, unknown>) => ({ ...ok, blocks: [w.block(v)] });
    await expectValidationCases(w.t, "POST", T(), w.admin, [
      [{ blocks: ok.blocks }, ["body", "name"], "missing"],
      [{ name: "X" }, ["body", "blocks"], "missing"],
      [{ ...ok, name: "   " }, ["body", "name"], "out_of_range"],
      [{ ...ok, name: 7 }, ["body", "name"], "type_error"],
      [{ ...ok, blocks: [] }, ["body", "blocks"], "out_of_range"],
      [{ ...ok, blocks: Array.from({ length: 501 }, (_, i) => w.block({ weekday: i % 7 })) }, ["body", "blocks"], "out_of_range"],
      [{ ...ok, blocks: "monday" }, ["body", "blocks"], "type_error"],
      [withBlock({ weekday: 7 }), ["body", "blocks", 0, "weekday"], "out_of_range"],
      [withBlock({ weekday: -1 }), ["body", "blocks", 0, "weekday"], "out_of_range"],
      [withBlock({ weekday: 1.5 }), ["body", "blocks", 0, "weekday"], "type_error"],
      [withBlock({ start_time: "8:00" }), ["body", "blocks", 0, "start_time"], "format"],
      [withBlock({ end_time: "24:00" }), ["body", "blocks", 0, "end_time"], "format"],
      [withBlock({ provider_uuid: "ada" }), ["body", "blocks", 0, "provider_uuid"], "format"],
      [withBlock({ provider_uuid: undefined }), ["body", "blocks", 0, "provider_uuid"], "missing"],
      [withBlock({ location_uuid: undefined }), ["body", "blocks", 0, "location_uuid"], "missing"],
      [withBlock({ colour: "red" }), ["body", "blocks", 0, "colour"], "extra_forbidden"],
      [{ ...ok, owner: "me" }, ["body", "owner"], "extra_forbidden"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, archived_at: "2026-01-01T00:00:00Z" }, ["body", "archived_at"], "read_only"],
    ]);
    // the rules judged after the references
    const rules: [Record<string, unknown>, unknown[], string, string][] = [
      [withBlock({ end_time: "08:00" }), ["body", "blocks", 0, "end_time"], "value_error", "invalid_hours"],
      [withBlock({ start_time: "13:00", end_time: "12:00" }), ["body", "blocks", 0, "end_time"], "value_error", "invalid_hours"],
      [withBlock({ location_uuid: w.uptown.id }), ["body", "blocks", 0, "operatory_uuid"], "value_error", "operatory_location_mismatch"],
      [withBlock({ blockout_type_uuid: w.holiday.id }), ["body", "blocks", 0, "blockout_type_uuid"], "value_error", "blockout_type_invalid"],
    ];
    for (const [body, loc, type, code] of rules) {
      const r = await w.call("POST", T(), body);
      expect([r.status, r.body.code, r.body.detail]).toEqual([422, code, [{ loc, msg: expect.any(String), type }]]);
    }
    expect(await templateRows()).toEqual(before);
  });

  test("422 block_overlap names both blocks: one provider's working blocks on one weekday, at any location; nothing is written", async () => {
    const before = await templateRows();
    const r = await w.call("POST", T(), {
      name: "Clash",
      blocks: [
        w.block(),
        w.block({ weekday: 2 }),
        w.block({ start_time: "11:00", end_time: "13:00", location_uuid: w.uptown.id, operatory_uuid: w.uptownOp.id }),
        w.block({ weekday: 2, start_time: "07:00", end_time: "08:30" }),
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      code: "block_overlap",
      detail: [
        {
          loc: ["body", "blocks", 2],
          msg: "blocks[2] (11:00-13:00) overlaps blocks[0] (08:00-12:00): the same provider's working hours on weekday 1",
          type: "value_error",
        },
        {
          loc: ["body", "blocks", 3],
          msg: "blocks[3] (07:00-08:30) overlaps blocks[1] (08:00-12:00): the same provider's working hours on weekday 2",
          type: "value_error",
        },
      ],
    });
    expect(await templateRows()).toEqual(before);
  });

  test("404 naming the block for an unknown, archived or other org's reference; nothing is written", async () => {
    const before = await templateRows();
    const retired = await (await import("@tests/domains/scheduling/provider-schedules/fixtures")).createProvider(w.t, w.orgA, {
      abbreviation: "OLD",
      first_name: "Old",
      last_name: "Timer",
    });
    await patchRow(w.t, w.orgA, providers, retired.id, { deleted_at: new Date().toISOString() });
    const cases: [Record<string, unknown>, string][] = [
      [{ provider_uuid: MISSING }, "Provider of blocks[1] not found"],
      [{ provider_uuid: w.b.provider.id }, "Provider of blocks[1] not found"],
      [{ provider_uuid: retired.id }, "Provider of blocks[1] not found"],
      [{ location_uuid: w.b.location.id, operatory_uuid: null }, "Location of blocks[1] not found"],
      [{ operatory_uuid: MISSING }, "Operatory of blocks[1] not found"],
      [{ operatory_uuid: w.b.operatory.id }, "Operatory of blocks[1] not found"],
      [{ blockout_type_uuid: MISSING }, "Blockout type of blocks[1] not found"],
      [{ blockout_type_uuid: w.bType.id }, "Blockout type of blocks[1] not found"],
    ];
    for (const [v, detail] of cases) {
      const r = await w.call("POST", T(), { name: "Refs", blocks: [w.block({ weekday: 3 }), w.block(v)] });
      expect([r.status, r.body]).toEqual([404, { detail, code: "not_found" }]);
    }
    expect(await templateRows()).toEqual(before);
  });

  test("401, 403, 404 for another org's member; malformed JSON 422; nothing is written", async () => {
    const before = await templateRows();
    const body = { name: "Guarded", blocks: [w.block()] };
    const holder = await expectGuarded(w.t, w.orgA, w.orgB, "POST", T(), "schedule.write", body);
    expect((await w.call("POST", T(), body, w.tokens.reader)).status).toBe(403);
    const bad = await w.t.request("POST", T(), { token: w.admin, rawBody: '{"name": ', headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(await templateRows()).toEqual(before);
    // the member holding just the key may
    expect((await w.call("POST", T(), body, holder)).status).toBe(201);
  });
});

describe("GET /schedule/templates and /{id}", () => {
  test("ordered by name; archived ones only with include_archived; paged", async () => {
    const org = (await w.t.createOrg()).id;
    const { scheduleSetup } = await import("@tests/domains/scheduling/provider-schedules/fixtures");
    const s = await scheduleSetup(w.t, org);
    const P = `/api/v1/${org}/schedule/templates`;
    const make = (name: string) =>
      w.ok(
        w.call("POST", P, {
          name,
          blocks: [{ weekday: 1, start_time: "08:00", end_time: "09:00", provider_uuid: s.provider.id, location_uuid: s.location.id }],
        }),
      );
    await make("Winter");
    const gone = await make("Autumn");
    await make("Summer");
    await w.ok(w.call("POST", `${P}/${gone.id}/archive`), 200);
    const names = async (qs = "") => {
      const r = await w.ok(w.call("GET", `${P}${qs}`), 200);
      return [r.items.map((x: any) => x.name), r.total, r.page, r.page_size];
    };
    expect(await names()).toEqual([["Summer", "Winter"], 2, 1, 50]);
    expect(await names("?include_archived=true")).toEqual([["Autumn", "Summer", "Winter"], 3, 1, 50]);
    expect(await names("?include_archived=false&page=2&page_size=1")).toEqual([["Winter"], 2, 2, 1]);
    const one = (await w.ok(w.call("GET", `${P}?page_size=1`), 200)).items[0];
    expect(one.blocks[0].provider).toEqual({ uuid: s.provider.id, name: "Ada Molar" });
    for (const [qs, loc, type] of [
      ["?page_size=201", ["query", "page_size"], "out_of_range"],
      ["?page=0", ["query", "page"], "out_of_range"],
      ["?include_archived=maybe", ["query", "include_archived"], "enum"],
      ["?name=Winter", ["query", "name"], "extra_forbidden"],
    ] as const) {
      const r = await w.call("GET", `${P}${qs}`);
      expect([qs, r.status, r.body.detail?.[0]?.loc, r.body.detail?.[0]?.type]).toEqual([qs, 422, loc, type]);
    }
  });

  test("by id: 200 (archived too, with archived_at); 404 unknown or another org's", async () => {
    const t = await w.createTemplate();
    const r = await w.call("GET", `${T()}/${t.id.toUpperCase()}`, undefined, w.tokens.reader);
    expect([r.status, r.body]).toEqual([200, t]);
    for (const path of [`${T()}/${MISSING}`, `${w.S(w.orgB)}/templates/${t.id}`]) {
      const x = await w.call("GET", path);
      expect([x.status, x.body]).toEqual([404, { detail: "Schedule template not found", code: "not_found" }]);
    }
    const other = await w.ok(
      w.call(
        "POST",
        `${w.S(w.orgB)}/templates`,
        { name: "B's", blocks: [{ weekday: 1, start_time: "08:00", end_time: "09:00", provider_uuid: w.b.provider.id, location_uuid: w.b.location.id }] },
        w.tokens.memberOfB,
      ),
    );
    expect((await w.call("GET", `${T()}/${other.id}`)).status).toBe(404);
  });

  test("401, 403, 404 for another org's member", async () => {
    const t = await w.createTemplate();
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", T(), "schedule.read");
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${T()}/${t.id}`, "schedule.read");
  });
});

describe("PATCH /schedule/templates/{id}", () => {
  test("200: name, note and blocks (replaced whole); version +1; audited; published with the changed fields", async () => {
    const t = await w.createTemplate();
    const r = await w.call("PATCH", `${T()}/${t.id}`, {
      base_version: 1,
      name: "Winter week",
      blocks: [w.block({ weekday: 3, start_time: "10:00", end_time: "14:00", operatory_uuid: null })],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "Winter week",
      note: "",
      version: 2,
      blocks: [
        {
          weekday: 3,
          start_time: "10:00",
          end_time: "14:00",
          provider: { uuid: w.s.provider.id, name: "Ada Molar" },
          operatory: null,
          blockout_type: null,
        },
      ],
    });
    expect((await w.call("PATCH", `${T()}/${t.id}`, { base_version: 2, note: "Dec-Feb" })).body).toMatchObject({ note: "Dec-Feb", version: 3 });
    expect((await auditOf(w.t, w.orgA, t.id)).map((a) => [a.action, a.before?.version ?? null, a.after.version])).toEqual([
      ["schedule_template.created", null, 1],
      ["schedule_template.updated", 1, 2],
      ["schedule_template.updated", 2, 3],
    ]);
    expect(w.events.filter((e) => e.resource_id === t.id && e.type === "schedule_template.updated").map((e) => e.data.changed_fields)).toEqual([
      ["name", "blocks"],
      ["note"],
    ]);
  });

  test("409 stale base_version, 404 unknown or another org's, 422 rules, archived 422; nothing changes", async () => {
    const t = await w.createTemplate();
    const before = (await templateRows()).find((x) => x.id === t.id);
    const stale = await w.call("PATCH", `${T()}/${t.id}`, { base_version: 2, name: "Late" });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    for (const path of [`${T()}/${MISSING}`, `${w.S(w.orgB)}/templates/${t.id}`])
      expect((await w.call("PATCH", path, { base_version: 1, name: "X" })).status).toBe(404);
    await expectValidationCases(w.t, "PATCH", `${T()}/${t.id}`, w.admin, [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ base_version: 1, blocks: [] }, ["body", "blocks"], "out_of_range"],
      [{ base_version: 1, version: 5 }, ["body", "version"], "read_only"],
      [{ base_version: 1, color: "red" }, ["body", "color"], "extra_forbidden"],
    ]);
    const overlap = await w.call("PATCH", `${T()}/${t.id}`, { base_version: 1, blocks: [w.block(), w.block({ start_time: "11:00", end_time: "12:30" })] });
    expect([overlap.status, overlap.body.code]).toEqual([422, "block_overlap"]);
    const missing = await w.call("PATCH", `${T()}/${t.id}`, { base_version: 1, blocks: [w.block({ provider_uuid: MISSING })] });
    expect([missing.status, missing.body.detail]).toEqual([404, "Provider of blocks[0] not found"]);
    expect((await templateRows()).find((x) => x.id === t.id)).toEqual(before);

    const archived = await w.ok(w.call("POST", `${T()}/${t.id}/archive`), 200);
    const r = await w.call("PATCH", `${T()}/${t.id}`, { base_version: archived.version, name: "Revived" });
    expect([r.status, r.body]).toEqual([
      422,
      { code: "template_archived", detail: [{ loc: ["path", "template_uuid"], msg: "The schedule template is archived", type: "value_error" }] },
    ]);
  });

  test("409 template_application_running while an application is queued (no worker here), also for archive; nothing changes", async () => {
    const t = await w.createTemplate({ blocks: [w.block({ location_uuid: w.uptown.id, operatory_uuid: null })] });
    const app = await w.apply(t.id, { date_from: "2027-01-04", date_to: "2027-01-31" }, 202);
    expect(app.status).toBe("queued");
    const r = await w.call("PATCH", `${T()}/${t.id}`, { base_version: 1, name: "Changed" });
    expect([r.status, r.body]).toEqual([
      409,
      { code: "template_application_running", detail: `An application of this template (${app.id}) is still in progress; wait until it completes` },
    ]);
    const a = await w.call("POST", `${T()}/${t.id}/archive`);
    expect([a.status, a.body.code]).toEqual([409, "template_application_running"]);
    const again = await w.call("POST", `${T()}/${t.id}/apply`, { date_from: "2027-03-01", date_to: "2027-03-02" });
    expect([again.status, again.body.code]).toEqual([409, "template_application_running"]);
    expect((await w.ok(w.call("GET", `${T()}/${t.id}`), 200)).version).toBe(1);
  });

  test("401, 403 (a reader too), 404 for another org's member", async () => {
    const t = await w.createTemplate();
    await expectGuarded(w.t, w.orgA, w.orgB, "PATCH", `${T()}/${t.id}`, "schedule.write", { base_version: 1, name: "G" });
    expect((await w.call("PATCH", `${T()}/${t.id}`, { base_version: 1, name: "G" }, w.tokens.reader)).status).toBe(403);
    expect((await w.ok(w.call("GET", `${T()}/${t.id}`), 200)).name).toBe(t.name);
  });
});

describe("POST /schedule/templates/{id}/archive", () => {
  test("200 sets archived_at: out of the list, readable by id, archiving again changes nothing; audited and published", async () => {
    const t = await w.createTemplate();
    const r = await w.call("POST", `${T()}/${t.id}/archive?base_version=1`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...t, archived_at: expect.stringMatching(/Z$/), version: 2, updated_at: expect.any(String) });
    expect((await w.ok(w.call("GET", `${T()}?page_size=200`), 200)).items.map((x: any) => x.id)).not.toContain(t.id);
    expect((await w.ok(w.call("GET", `${T()}?page_size=200&include_archived=true`), 200)).items.map((x: any) => x.id)).toContain(t.id);
    expect(await w.ok(w.call("GET", `${T()}/${t.id}`), 200)).toEqual(r.body);
    expect(await w.ok(w.call("POST", `${T()}/${t.id}/archive`), 200)).toEqual(r.body);
    expect((await auditOf(w.t, w.orgA, t.id)).map((a) => a.action)).toEqual(["schedule_template.created", "schedule_template.archived"]);
    expect(w.events.filter((e) => e.resource_id === t.id).map((e) => e.type)).toEqual(["schedule_template.created", "schedule_template.archived"]);
  });

  test("409 stale base_version, 404 unknown or another org's, 422 unknown query; nothing changes", async () => {
    const t = await w.createTemplate();
    expect((await w.call("POST", `${T()}/${t.id}/archive?base_version=3`)).body.code).toBe("version_conflict");
    expect((await w.call("POST", `${T()}/${MISSING}/archive`)).status).toBe(404);
    expect((await w.call("POST", `${w.S(w.orgB)}/templates/${t.id}/archive`)).status).toBe(404);
    const q = await w.call("POST", `${T()}/${t.id}/archive?force=true`);
    expect([q.status, q.body.detail[0].loc]).toEqual([422, ["query", "force"]]);
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${T()}/${t.id}/archive`, "schedule.write");
    expect(await w.ok(w.call("GET", `${T()}/${t.id}`), 200)).toEqual(t);
  });
});
