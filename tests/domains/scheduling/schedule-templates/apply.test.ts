import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { blockouts, providerSchedules } from "@db/tenant/scheduling";
import { scheduleTemplateApplications, scheduleTemplates } from "@db/tenant/schedule-templates";
import { run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { providers } from "@db/tenant/practice";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { applyHooks, checkApplyRange, runApplication } from "@/domains/scheduling/schedule-templates/apply";
import { auditOf, expectGuarded, waitFor } from "@tests/helpers";
import { patchRow } from "@tests/domains/scheduling/appointments/fixtures";
import { createProvider, orgDb, rowsOf } from "@tests/domains/scheduling/provider-schedules/fixtures";
import { MISSING, templatesWorld, type TemplatesWorld } from "./fixtures";

// POST {P}/schedule/templates/{id}/apply, the applications' reads, and the job
// schedule-templates.apply on the embedded queue (docs/scheduling/schedule-templates.md,
// "Applying"). Each test works in its own weeks of 2026, so their schedules never meet.
// The job with a worker process killed mid-application: apply-postgres.test.ts.

let w: TemplatesWorld;
let stop: () => Promise<void>;
beforeAll(async () => {
  w = await templatesWorld({ withQueue: true });
  stop = await startWorkers(w.t.rt, JOBS);
}, 30_000);
afterAll(async () => {
  await stop();
  await w.t.close();
});

const T = () => `${w.S()}/templates`;
type ScheduleRow = typeof providerSchedules.$inferSelect;
type BlockoutRow = typeof blockouts.$inferSelect;
const schedules = () => rowsOf<ScheduleRow>(w.t, w.orgA, providerSchedules);
const blockoutRows = () => rowsOf<BlockoutRow>(w.t, w.orgA, blockouts);
const applications = () => rowsOf(w.t, w.orgA, scheduleTemplateApplications);
/** Everything an apply could change. */
const state = async () => ({ schedules: await schedules(), blockouts: await blockoutRows(), applications: await applications() });

/** HH:MM starts of a provider's slots. */
const startsOf = (slots: { start: string; provider_uuid: string }[], providerId: string) =>
  slots.filter((x) => x.provider_uuid === providerId).map((x) => x.start.slice(11, 16));
/** Quarter hours from..to inclusive, HH:MM. */
const quarters = (from: string, to: string) => {
  const out: string[] = [];
  const m = (x: string) => Number(x.slice(0, 2)) * 60 + Number(x.slice(3));
  for (let x = m(from); x <= m(to); x += 15) out.push(`${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`);
  return out;
};
const createSchedule = (v: Record<string, unknown>) =>
  w.ok(
    w.call("POST", `${w.S()}/provider-schedules`, {
      provider_uuid: w.s.provider.id,
      location_uuid: w.s.location.id,
      weekday: 1,
      start_time: "07:00",
      end_time: "15:00",
      ...v,
    }),
  );

describe("applying a week in the request", () => {
  test("201 completed: provider schedules per working block, blockouts per reserved date; availability follows", async () => {
    const t = await w.createTemplate();
    const r = await w.call("POST", `${T()}/${t.id}/apply`, { date_from: "2026-06-01", date_to: "2026-06-07" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      template: { uuid: t.id, name: t.name },
      template_version: 1,
      date_from: "2026-06-01",
      date_to: "2026-06-07",
      replace_existing: false,
      include_override_days: false,
      status: "completed",
      days_total: 7,
      days_done: 7,
      schedules_written: 12,
      blockouts_written: 1,
      days_skipped: [],
      error: null,
      completed_at: expect.stringMatching(/Z$/),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const app = r.body;
    // one schedule per working block, effective on its weekday's dates of the range
    const written = (await schedules()).filter((x) => x.template_application_id === app.id);
    expect(
      written
        .map((x) => [
          x.provider_id === w.s.provider.id ? "Ada" : "Grace",
          x.weekday,
          x.start_time,
          x.end_time,
          x.effective_from,
          x.effective_to,
          x.operatory_id,
        ])
        .sort(),
    ).toEqual(
      [
        ...[1, 2, 3, 4, 5].flatMap((d) => [
          ["Ada", d, "08:00", "12:00", `2026-06-0${d}`, `2026-06-0${d}`, w.s.operatory.id],
          ["Ada", d, "13:00", "17:00", `2026-06-0${d}`, `2026-06-0${d}`, w.s.operatory.id],
        ]),
        ["Grace", 2, "09:00", "15:00", "2026-06-02", "2026-06-02", w.s.operatory2.id],
        ["Grace", 4, "09:00", "15:00", "2026-06-04", "2026-06-04", w.s.operatory2.id],
      ].sort(),
    );
    // the reserved Monday hour as a blockout of the location's wall clock, with its UTC instants (EDT: -4)
    const bl = await w.ok(w.call("GET", `${w.S()}/blockouts?date_from=2026-06-01&date_to=2026-06-07`), 200);
    expect(bl.items.map((x: any) => ({ ...x, id: undefined, created_at: undefined, updated_at: undefined }))).toEqual([
      {
        location: { uuid: w.s.location.id, name: w.s.location.name },
        operatory: { uuid: w.s.operatory.id, name: "Op 1" },
        provider: { uuid: w.s.provider.id, name: "Ada Molar" },
        blockout_type: { uuid: w.newPatients.id, name: "New patient exams" },
        start: "2026-06-01T08:00:00",
        end: "2026-06-01T09:00:00",
        note: `Schedule template: ${t.name}`,
        version: 1,
      },
    ]);
    expect((await blockoutRows()).filter((x) => x.template_application_id === app.id).map((x) => [x.start_utc, x.end_utc])).toEqual([
      ["2026-06-01T12:00:00.000Z", "2026-06-01T13:00:00.000Z"],
    ]);
    // availability: Monday after the new-patient hour, Tuesday both providers, nothing the week after
    const monday = await w.slotsOn("2026-06-01");
    expect(startsOf(monday, w.s.provider.id)).toEqual([...quarters("09:00", "11:00"), ...quarters("13:00", "16:00")]);
    expect(startsOf(monday, w.s.provider2.id)).toEqual([]);
    expect(monday[0]).toEqual({ start: "2026-06-01T09:00:00", end: "2026-06-01T10:00:00", provider_uuid: w.s.provider.id, operatory_uuid: w.s.operatory.id });
    const tuesday = await w.slotsOn("2026-06-02");
    expect(startsOf(tuesday, w.s.provider.id)).toEqual([...quarters("08:00", "11:00"), ...quarters("13:00", "16:00")]);
    expect(startsOf(tuesday, w.s.provider2.id)).toEqual(quarters("09:00", "14:00"));
    expect(await w.slotsOn("2026-06-06", "2026-06-09")).toEqual([]);
    // readable by id and in the template's list; audited and published, the rows as their own records
    expect(await w.ok(w.call("GET", `${w.S()}/template-applications/${app.id}`, undefined, w.tokens.reader), 200)).toEqual(app);
    expect((await auditOf(w.t, w.orgA, app.id)).map((a) => [a.action, a.after.status])).toEqual([["schedule_template_application.created", "completed"]]);
    expect((await auditOf(w.t, w.orgA, written[0]!.id)).map((a) => a.action)).toEqual(["provider_schedule.created"]);
    expect(w.events.filter((e) => e.resource_id === app.id).map((e) => [e.type, e.data])).toEqual([
      ["schedule_template_application.created", { id: app.id, template_id: t.id, date_from: "2026-06-01", date_to: "2026-06-07", status: "completed" }],
    ]);
    expect(w.events.filter((e) => e.type === "provider_schedule.created" && e.data.template_application_id === app.id).length).toBe(12);
  });

  test("a range shorter than a week writes only the weekdays it holds", async () => {
    const t = await w.createTemplate();
    const app = await w.apply(t.id, { date_from: "2026-06-11", date_to: "2026-06-12" }); // Thursday, Friday
    expect([app.status, app.days_total, app.schedules_written, app.blockouts_written]).toEqual(["completed", 2, 5, 0]);
    expect(
      (await schedules())
        .filter((x) => x.template_application_id === app.id)
        .map((x) => [x.weekday, x.start_time, x.effective_from])
        .sort(),
    ).toEqual([
      [4, "08:00", "2026-06-11"],
      [4, "09:00", "2026-06-11"],
      [4, "13:00", "2026-06-11"],
      [5, "08:00", "2026-06-12"],
      [5, "13:00", "2026-06-12"],
    ]);
  });

  test("409 schedule_overlap naming the block when a working block meets an existing schedule; nothing is written (either path)", async () => {
    const t = await w.createTemplate();
    const first = await w.apply(t.id, { date_from: "2026-06-15", date_to: "2026-06-21" });
    const clash = (await schedules()).find((x) => x.template_application_id === first.id && x.weekday === 1 && x.start_time === "08:00")!;
    const before = await state();
    for (const body of [
      { date_from: "2026-06-15", date_to: "2026-06-21" },
      { date_from: "2026-06-08", date_to: "2026-07-07" }, // 30 days: refused before anything is queued
    ]) {
      const r = await w.call("POST", `${T()}/${t.id}/apply`, body);
      expect([r.status, r.body]).toEqual([
        409,
        {
          code: "schedule_overlap",
          detail: `blocks[0] (weekday 1, 08:00-12:00) overlaps the provider's schedule ${clash.id} (08:00-12:00, effective 2026-06-15 to 2026-06-15); apply with replace_existing, or change that schedule`,
        },
      ]);
    }
    // a schedule at another location is the same person: replace_existing clears only the template's own places
    const elsewhere = await createSchedule({
      location_uuid: w.uptown.id,
      weekday: 3,
      start_time: "11:30",
      end_time: "12:30",
      effective_from: "2026-06-22",
      effective_to: "2026-06-28",
    });
    const before2 = await state();
    const r = await w.call("POST", `${T()}/${t.id}/apply`, { date_from: "2026-06-22", date_to: "2026-06-28", replace_existing: true });
    expect([r.status, r.body.code, r.body.detail.slice(0, 75)]).toEqual([
      409,
      "schedule_overlap",
      `blocks[4] (weekday 3, 08:00-12:00) overlaps the provider's schedule ${elsewhere.id}`.slice(0, 75),
    ]);
    expect(await state()).toEqual(before2);
    expect(before2.applications).toEqual(before.applications);
  });

  test("replace_existing clears the range of the template's providers' schedules at its locations: ended, resumed after, or deleted", async () => {
    const july = { effective_from: "2026-07-01", effective_to: "2026-07-31" };
    const spans = await createSchedule({ weekday: 1, ...july }); // Ada, Mondays of July
    const inside = await createSchedule({ weekday: 2, start_time: "06:00", end_time: "07:00", effective_from: "2026-07-14", effective_to: "2026-07-16" });
    const later = await createSchedule({ weekday: 3, start_time: "06:00", end_time: "07:00", effective_from: "2026-07-15", effective_to: null });
    const grace = await createSchedule({ provider_uuid: w.s.provider2.id, weekday: 1, ...july }); // Grace, Mondays (the template has her Tue/Thu)
    const uptown = await createSchedule({ location_uuid: w.uptown.id, weekday: 5, start_time: "06:00", end_time: "07:00", ...july });
    const t = await w.createTemplate();
    const refused = await w.call("POST", `${T()}/${t.id}/apply`, { date_from: "2026-07-13", date_to: "2026-07-19" });
    expect([refused.status, refused.body.code]).toEqual([409, "schedule_overlap"]);

    const app = await w.apply(t.id, { date_from: "2026-07-13", date_to: "2026-07-19", replace_existing: true });
    expect([app.status, app.replace_existing, app.schedules_written]).toEqual(["completed", true, 12]);
    const rows = await schedules();
    const byId = (id: string) => rows.find((x) => x.id === id)!;
    expect([byId(spans.id).effective_from, byId(spans.id).effective_to, byId(spans.id).deleted_at]).toEqual(["2026-07-01", "2026-07-12", null]);
    expect(byId(inside.id).deleted_at).toEqual(expect.any(String));
    expect([byId(later.id).effective_from, byId(later.id).effective_to]).toEqual(["2026-07-20", null]);
    expect([byId(grace.id).effective_to, byId(uptown.id).effective_to, byId(uptown.id).version]).toEqual(["2026-07-12", "2026-07-31", 1]);
    // the parts after the range, as copies
    const copies = rows.filter((x) => x.effective_from === "2026-07-20" && x.effective_to === "2026-07-31" && !x.deleted_at);
    expect(copies.map((x) => [x.provider_id === w.s.provider.id ? "Ada" : "Grace", x.weekday, x.start_time, x.end_time]).sort()).toEqual([
      ["Ada", 1, "07:00", "15:00"],
      ["Grace", 1, "07:00", "15:00"],
    ]);
    // availability follows: the template's week inside, the old Mondays around it
    expect(startsOf(await w.slotsOn("2026-07-13"), w.s.provider.id)).toEqual([...quarters("09:00", "11:00"), ...quarters("13:00", "16:00")]);
    expect(startsOf(await w.slotsOn("2026-07-13"), w.s.provider2.id)).toEqual([]);
    for (const monday of ["2026-07-06", "2026-07-20"]) expect(startsOf(await w.slotsOn(monday), w.s.provider2.id)).toEqual(quarters("07:00", "14:00"));
    expect((await auditOf(w.t, w.orgA, spans.id)).map((a) => [a.action, a.after.effective_to])).toEqual([
      ["provider_schedule.created", "2026-07-31"],
      ["provider_schedule.updated", "2026-07-12"],
    ]);
    expect((await auditOf(w.t, w.orgA, inside.id)).map((a) => a.action)).toEqual(["provider_schedule.created", "provider_schedule.deleted"]);
  });

  test("replace_existing also deletes the blockouts earlier applications wrote for the template's places in the range", async () => {
    const x = await w.createTemplate();
    const first = await w.apply(x.id, { date_from: "2026-08-03", date_to: "2026-08-09" });
    const old = (await blockoutRows()).filter((b) => b.template_application_id === first.id);
    expect(old.map((b) => b.start)).toEqual(["2026-08-03T08:00:00"]);
    const handMade = await w.ok(
      w.call("POST", `${w.S()}/blockouts`, {
        location_uuid: w.s.location.id,
        provider_uuid: w.s.provider.id,
        blockout_type_uuid: w.newPatients.id,
        start: "2026-08-04T16:00:00",
        end: "2026-08-04T17:00:00",
      }),
    );
    // Ada alone: 08:00-17:00 on Mondays with 10:00-11:00 reserved
    const y = await w.createTemplate({
      blocks: [w.block({ end_time: "17:00" }), w.block({ start_time: "10:00", end_time: "11:00", operatory_uuid: null, blockout_type_uuid: w.newPatients.id })],
    });
    const second = await w.apply(y.id, { date_from: "2026-08-03", date_to: "2026-08-09", replace_existing: true });
    expect([second.schedules_written, second.blockouts_written]).toEqual([1, 1]);
    const rows = await blockoutRows();
    expect(rows.find((b) => b.id === old[0]!.id)!.deleted_at).toEqual(expect.any(String));
    expect(rows.find((b) => b.id === handMade.id)!.deleted_at).toBeNull();
    expect(rows.filter((b) => b.template_application_id === second.id).map((b) => [b.start, b.end, b.operatory_id])).toEqual([
      ["2026-08-03T10:00:00", "2026-08-03T11:00:00", null],
    ]);
    // X's Ada schedules of that week are gone (wholly inside); Grace's stay (Y has no block of hers)
    const live = (await schedules()).filter((s) => s.template_application_id === first.id && !s.deleted_at);
    expect(live.map((s) => s.provider_id)).toEqual([w.s.provider2.id, w.s.provider2.id]);
    expect(startsOf(await w.slotsOn("2026-08-03"), w.s.provider.id)).toEqual([...quarters("08:00", "09:00"), ...quarters("11:00", "16:00")]);
    expect(startsOf(await w.slotsOn("2026-08-04"), w.s.provider.id)).toEqual([]);
    expect(startsOf(await w.slotsOn("2026-08-04"), w.s.provider2.id)).toEqual(quarters("09:00", "14:00"));
  });

  test("days with an override of the provider skip her blockouts (listed), unless include_override_days", async () => {
    const t = await w.createTemplate();
    for (const date of ["2026-08-17", "2026-08-24"])
      await w.ok(
        w.call("POST", `${w.S()}/overrides`, {
          provider_uuid: w.s.provider.id,
          location_uuid: w.s.location.id,
          override_date: date,
          start_time: "07:00",
          end_time: "12:00",
          override_reason: "reduced_hours",
        }),
      );
    const skipped = await w.apply(t.id, { date_from: "2026-08-17", date_to: "2026-08-23" });
    expect([skipped.blockouts_written, skipped.schedules_written, skipped.days_skipped]).toEqual([
      0,
      12,
      [{ date: "2026-08-17", provider: { uuid: w.s.provider.id, name: "Ada Molar" }, reason: "override" }],
    ]);
    // the override's hours, not the template's
    expect(startsOf(await w.slotsOn("2026-08-17"), w.s.provider.id)).toEqual(quarters("07:00", "11:00"));
    const included = await w.apply(t.id, { date_from: "2026-08-24", date_to: "2026-08-30", include_override_days: true });
    expect([included.blockouts_written, included.days_skipped, included.include_override_days]).toEqual([1, [], true]);
    // the override's hours less the new-patient hour
    expect(startsOf(await w.slotsOn("2026-08-24"), w.s.provider.id)).toEqual(["07:00", ...quarters("09:00", "11:00")]);
  });
});

describe("DST", () => {
  test("a reserved time skipped by spring-forward is left out that date (listed); the schedule keeps it as availability reads it", async () => {
    // New York springs forward at 02:00 on Sunday 2027-03-14
    const t = await w.createTemplate({
      blocks: [
        w.block({ weekday: 0, start_time: "01:00", end_time: "05:00", operatory_uuid: null }),
        w.block({ weekday: 0, start_time: "02:00", end_time: "02:30", operatory_uuid: null, blockout_type_uuid: w.newPatients.id }),
        w.block({ weekday: 0, start_time: "04:00", end_time: "04:30", operatory_uuid: null, blockout_type_uuid: w.newPatients.id }),
      ],
    });
    const app = await w.apply(t.id, { date_from: "2027-03-14", date_to: "2027-03-20" });
    expect([app.schedules_written, app.blockouts_written, app.days_skipped]).toEqual([
      1,
      1,
      [{ date: "2027-03-14", provider: { uuid: w.s.provider.id, name: "Ada Molar" }, reason: "time_not_on_clock" }],
    ]);
    // 04:00 EDT is 08:00 UTC
    expect((await blockoutRows()).filter((x) => x.template_application_id === app.id).map((x) => [x.start, x.start_utc])).toEqual([
      ["2027-03-14T04:00:00", "2027-03-14T08:00:00.000Z"],
    ]);
  });
});

describe("refusals", () => {
  test("422 range, body and archived template; 404 template, another org's, or a block's reference archived since; nothing changes", async () => {
    const t = await w.createTemplate({ blocks: [w.block({ weekday: 6 })] });
    const before = await state();
    const cases: [Record<string, unknown>, unknown[], string, string | undefined][] = [
      [{ date_from: "2026-10-10", date_to: "2026-10-09" }, ["body", "date_to"], "value_error", "invalid_date_range"],
      [{ date_from: "2026-01-01", date_to: "2027-01-02" }, ["body", "date_to"], "out_of_range", "invalid_date_range"],
      [{ date_to: "2026-10-09" }, ["body", "date_from"], "missing", undefined],
      [{ date_from: "2026-10-09" }, ["body", "date_to"], "missing", undefined],
      [{ date_from: "October", date_to: "2026-10-09" }, ["body", "date_from"], "format", undefined],
      [{ date_from: "2026-02-30", date_to: "2026-03-09" }, ["body", "date_from"], "format", undefined],
      [{ date_from: "2026-10-09", date_to: "2026-10-09", replace_existing: "yes" }, ["body", "replace_existing"], "type_error", undefined],
      [{ date_from: "2026-10-09", date_to: "2026-10-09", include_override_days: 1 }, ["body", "include_override_days"], "type_error", undefined],
      [{ date_from: "2026-10-09", date_to: "2026-10-09", dry_run: true }, ["body", "dry_run"], "extra_forbidden", undefined],
    ];
    for (const [body, loc, type, code] of cases) {
      const r = await w.call("POST", `${T()}/${t.id}/apply`, body);
      expect([body, r.status, r.body.detail[0].loc, r.body.detail[0].type, r.body.code]).toEqual([body, 422, loc, type, code]);
    }
    const range = { date_from: "2026-10-10", date_to: "2026-10-10" };
    for (const path of [`${T()}/${MISSING}/apply`, `${w.S(w.orgB)}/templates/${t.id}/apply`]) {
      const r = await w.call("POST", path, range);
      expect([r.status, r.body]).toEqual([404, { detail: "Schedule template not found", code: "not_found" }]);
    }
    // a block's provider archived since the template was made
    const retired = await createProvider(w.t, w.orgA, { abbreviation: "RET", first_name: "Ret", last_name: "Ired" });
    const hers = await w.createTemplate({ blocks: [w.block({ weekday: 6, provider_uuid: retired.id, start_time: "06:00", end_time: "07:00" })] });
    await patchRow(w.t, w.orgA, providers, retired.id, { deleted_at: new Date().toISOString() });
    const gone = await w.call("POST", `${T()}/${hers.id}/apply`, range);
    expect([gone.status, gone.body]).toEqual([404, { detail: "Provider of blocks[0] not found", code: "not_found" }]);
    // archived
    await w.ok(w.call("POST", `${T()}/${t.id}/archive`), 200);
    const archived = await w.call("POST", `${T()}/${t.id}/apply`, range);
    expect([archived.status, archived.body.code, archived.body.detail[0].loc]).toEqual([422, "template_archived", ["path", "template_uuid"]]);
    expect(await state()).toEqual(before);
  });

  test("the range rule itself: 366 dates (a leap year) pass, 367 do not", () => {
    expect(checkApplyRange({ date_from: "2028-01-01", date_to: "2028-12-31" })).toBe(366);
    expect(checkApplyRange({ date_from: "2026-03-01", date_to: "2026-03-01" })).toBe(1);
    expect(() => checkApplyRange({ date_from: "2028-01-01", date_to: "2029-01-01" })).toThrow(
      "At most 366 days from date_from, inclusive (this range has 367)",
    );
  });

  test("401, 403 (a reader too), 404 for another org's member; nothing changes", async () => {
    const t = await w.createTemplate({ blocks: [w.block({ weekday: 6, start_time: "05:00", end_time: "06:00" })] });
    const before = await state();
    const body = { date_from: "2026-10-10", date_to: "2026-10-10" };
    const holder = await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${T()}/${t.id}/apply`, "schedule.write", body);
    expect((await w.call("POST", `${T()}/${t.id}/apply`, body, w.tokens.reader)).status).toBe(403);
    expect(await state()).toEqual(before);
    expect((await w.call("POST", `${T()}/${t.id}/apply`, body, holder)).status).toBe(201);
  });
});

describe("reading applications", () => {
  test("the template's list: newest first, paged; 404 unknown or another org's; guarded", async () => {
    const t = await w.createTemplate({ blocks: [w.block({ weekday: 0, start_time: "06:00", end_time: "07:00" })] });
    const a = await w.apply(t.id, { date_from: "2026-10-04", date_to: "2026-10-04" });
    const b = await w.apply(t.id, { date_from: "2026-10-11", date_to: "2026-10-11" });
    const list = await w.ok(w.call("GET", `${T()}/${t.id}/applications`, undefined, w.tokens.reader), 200);
    expect([list.items.map((x: any) => x.id), list.total, list.page, list.page_size]).toEqual([[b.id, a.id], 2, 1, 50]);
    expect(list.items[1]).toEqual(a);
    expect((await w.ok(w.call("GET", `${T()}/${t.id}/applications?page=2&page_size=1`), 200)).items.map((x: any) => x.id)).toEqual([a.id]);
    const bad = await w.call("GET", `${T()}/${t.id}/applications?page_size=500`);
    expect([bad.status, bad.body.detail[0].loc]).toEqual([422, ["query", "page_size"]]);
    for (const path of [`${T()}/${MISSING}/applications`, `${w.S(w.orgB)}/templates/${t.id}/applications`])
      expect((await w.call("GET", path)).status).toBe(404);
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${T()}/${t.id}/applications`, "schedule.read");
    // by id
    for (const path of [`${w.S()}/template-applications/${MISSING}`, `${w.S(w.orgB)}/template-applications/${a.id}`]) {
      const r = await w.call("GET", path);
      expect([r.status, r.body]).toEqual([404, { detail: "Schedule template application not found", code: "not_found" }]);
    }
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${w.S()}/template-applications/${a.id}`, "schedule.read");
  });
});

describe("the job schedule-templates.apply on the embedded queue", () => {
  test("30 days: 202 queued, then completed with the right counts; availability shows the hours", async () => {
    const t = await w.createTemplate();
    const r = await w.call("POST", `${T()}/${t.id}/apply`, { date_from: "2026-09-07", date_to: "2026-10-06" });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: "queued", days_total: 30, days_done: 0, schedules_written: 0, blockouts_written: 0, completed_at: null });
    const done = await waitFor(
      async () => {
        const a = await w.ok(w.call("GET", `${w.S()}/template-applications/${r.body.id}`), 200);
        return a.status === "completed" ? a : null;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: "the application completed" },
    );
    expect(done).toMatchObject({ days_total: 30, days_done: 30, schedules_written: 12, blockouts_written: 5, days_skipped: [], error: null });
    const rows = (await schedules()).filter((x) => x.template_application_id === r.body.id);
    expect(rows.filter((x) => x.weekday === 1).map((x) => [x.effective_from, x.effective_to])).toEqual([
      ["2026-09-07", "2026-10-05"],
      ["2026-09-07", "2026-10-05"],
    ]);
    expect(rows.filter((x) => x.weekday === 2 && x.provider_id === w.s.provider2.id).map((x) => [x.effective_from, x.effective_to])).toEqual([
      ["2026-09-08", "2026-10-06"],
    ]);
    expect((await blockoutRows()).filter((x) => x.template_application_id === r.body.id).map((x) => x.start.slice(0, 10))).toEqual([
      "2026-09-07",
      "2026-09-14",
      "2026-09-21",
      "2026-09-28",
      "2026-10-05",
    ]);
    expect(startsOf(await w.slotsOn("2026-09-21"), w.s.provider.id)).toEqual([...quarters("09:00", "11:00"), ...quarters("13:00", "16:00")]);
    expect(startsOf(await w.slotsOn("2026-10-06"), w.s.provider2.id)).toEqual(quarters("09:00", "14:00"));
    // after the range, none of the template's hours (the early slots are other tests' schedules)
    expect((await w.slotsOn("2026-10-07", "2026-10-13")).filter((x) => x.start.slice(11, 16) >= "08:00")).toEqual([]);
    // a progress entry per week written, the end published
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => [a.action, a.after.days_done, a.actor_type])).toEqual([
      ["schedule_template_application.created", 0, "user"],
      ["schedule_template_application.progress", 7, "system"],
      ["schedule_template_application.progress", 14, "system"],
      ["schedule_template_application.progress", 21, "system"],
      ["schedule_template_application.progress", 28, "system"],
      ["schedule_template_application.completed", 30, "system"],
    ]);
    expect(w.events.filter((e) => e.resource_id === r.body.id).map((e) => [e.type, e.data])).toEqual([
      ["schedule_template_application.created", { id: r.body.id, template_id: t.id, date_from: "2026-09-07", date_to: "2026-10-06", status: "queued" }],
      ["schedule_template_application.completed", { id: r.body.id, template_id: t.id, schedules_written: 12, blockouts_written: 5 }],
    ]);
  }, 40_000);

  test("a write cut off in its third week leaves the two before it; the retry writes the rest, nothing twice", async () => {
    const t = await w.createTemplate();
    let cut = 0;
    applyHooks.beforeChunkCommit = (c) => {
      if (c.daysDone === 21 && !cut++) throw new Error("worker killed");
    };
    try {
      const r = await w.call("POST", `${T()}/${t.id}/apply`, { date_from: "2026-11-02", date_to: "2026-12-01" });
      expect(r.status).toBe(202);
      const id = r.body.id;
      const at = await waitFor(
        async () => {
          const a = await w.ok(w.call("GET", `${w.S()}/template-applications/${id}`), 200);
          return cut ? a : null;
        },
        { timeoutMs: 20_000, intervalMs: 20, what: "the third write cut off" },
      );
      // the third week's write left nothing: two weeks done, their blockouts only
      expect([at.status, at.days_done, at.schedules_written, at.blockouts_written]).toEqual(["running", 14, 12, 2]);
      expect((await blockoutRows()).filter((x) => x.template_application_id === id).length).toBe(2);
      const done = await waitFor(
        async () => {
          const a = await w.ok(w.call("GET", `${w.S()}/template-applications/${id}`), 200);
          return a.status === "completed" ? a : null;
        },
        { timeoutMs: 40_000, intervalMs: 100, what: "the retry completing the application" },
      );
      expect(done).toMatchObject({ days_done: 30, schedules_written: 12, blockouts_written: 5 });
      expect((await schedules()).filter((x) => x.template_application_id === id).length).toBe(12);
      expect(
        (await blockoutRows())
          .filter((x) => x.template_application_id === id)
          .map((x) => x.start)
          .sort(),
      ).toEqual(["2026-11-02T08:00:00", "2026-11-09T08:00:00", "2026-11-16T08:00:00", "2026-11-23T08:00:00", "2026-11-30T08:00:00"]);
    } finally {
      applyHooks.beforeChunkCommit = undefined;
    }
  }, 60_000);

  test("the job re-checks: an overlap made after the apply was accepted, or a template changed since, fails the application, writing nothing", async () => {
    const t = await w.createTemplate({ blocks: [w.block({ weekday: 6, start_time: "10:00", end_time: "11:00" })] });
    // applications as the apply keeps them, without their job (run here by hand, so the order is certain)
    const db = await orgDb(w.t, w.orgA);
    const queued = async (from: string, to: string) => {
      const now = new Date().toISOString();
      const row = {
        id: Bun.randomUUIDv7(),
        template_id: t.id,
        template_version: 1,
        date_from: from,
        date_to: to,
        status: "queued",
        days_total: 32,
        days_skipped: [],
        created_at: now,
        updated_at: now,
        version: 1,
      };
      await db.write((tx) => run(tx.insert(scheduleTemplateApplications).values(row)));
      return row.id;
    };
    const ctx = (await w.t.rt.orgs.openOrgForJob(w.orgA, { actor: systemActor("schedule-templates.apply"), requestId: null }))!;
    const clash = await createSchedule({ weekday: 6, start_time: "10:30", end_time: "12:00", effective_from: "2026-12-12", effective_to: "2026-12-12" });
    const first = await queued("2026-12-05", "2027-01-05");
    expect(await runApplication(ctx, first)).toMatchObject({ outcome: "failed", chunks: 0, schedules_written: 0, blockouts_written: 0 });
    const failed = await w.ok(w.call("GET", `${w.S()}/template-applications/${first}`), 200);
    expect([failed.status, failed.days_done, failed.schedules_written, failed.completed_at === null]).toEqual(["failed", 0, 0, false]);
    expect(failed.error).toBe(
      `schedule_overlap: blocks[0] (weekday 6, 10:00-11:00) overlaps the provider's schedule ${clash.id} (10:30-12:00, effective 2026-12-12 to 2026-12-12); apply with replace_existing, or change that schedule`,
    );
    expect((await schedules()).filter((x) => x.template_application_id === first)).toEqual([]);
    expect(w.events.filter((e) => e.resource_id === first).map((e) => [e.type, e.data])).toEqual([
      ["schedule_template_application.failed", { id: first, template_id: t.id, error_code: "schedule_overlap" }],
    ]);
    // run again: already over, nothing happens
    expect(await runApplication(ctx, first)).toMatchObject({ outcome: "skipped", reason: "the application is already failed" });
    // the template changed after the apply (only a direct edit can: PATCH is refused while an application is in progress)
    const second = await queued("2027-01-09", "2027-02-09");
    await patchRow(w.t, w.orgA, scheduleTemplates, t.id, { version: 2 });
    expect(await runApplication(ctx, second)).toMatchObject({ outcome: "failed", reason: "The template changed after it was applied; apply it again" });
    expect((await w.ok(w.call("GET", `${w.S()}/template-applications/${second}`), 200)).error).toBe(
      "template_changed: The template changed after it was applied; apply it again",
    );
  });
});
