import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { appointmentRows, bookingBody, bookingSetup, createProvider, createType, type Setup } from "./fixtures";

// Booking on the days clocks change. Wall clocks are what clients send and read;
// durations and overlaps are measured between the real instants (start_utc, end_utc).
let t: TestApp;
let token: string;
let orgId: string;
let ny: Setup;
let london: Setup;
let type90: { id: string };
const P = () => `/api/v1/${orgId}/appointments`;
const minutes = (row: { start_utc: string; end_utc: string }) => (Date.parse(row.end_utc) - Date.parse(row.start_utc)) / 60_000;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  ny = await bookingSetup(t, orgId, "America/New_York");
  london = await bookingSetup(t, orgId, "Europe/London");
  type90 = await createType(t, orgId, { code: "LONG", name: "Long", duration_minutes: 90 });
});
afterAll(() => t.close());

/** Book `s` for a fresh provider; answers the response and, on 201, the stored row. */
async function book(s: Setup, start: string, end: string, v: Record<string, unknown> = {}) {
  const provider = v.provider_uuid ? undefined : await createProvider(t, orgId);
  const r = await t.request("POST", P(), { token, body: bookingBody(s, { provider_uuid: provider?.id, scheduled_start: start, scheduled_end: end, ...v }) });
  const row = r.status === 201 ? (await appointmentRows(t, orgId)).find((x) => x.id === r.body.id) : undefined;
  return { r, row };
}

describe("America/New_York", () => {
  test("spring forward (2026-03-08): 01:00–03:00 lasts 60 real minutes, too short for a 90-minute type", async () => {
    const long = await book(ny, "2026-03-08T01:00:00", "2026-03-08T03:00:00", { appointment_type_uuid: type90.id });
    expect(long.r.status).toBe(422);
    expect(long.r.body.code).toBe("shorter_than_type_duration");
    const ok = await book(ny, "2026-03-08T01:00:00", "2026-03-08T03:00:00");
    expect(ok.r.status).toBe(201);
    expect(ok.r.body).toMatchObject({ scheduled_start: "2026-03-08T01:00:00", scheduled_end: "2026-03-08T03:00:00" });
    expect(ok.row).toMatchObject({ start_utc: "2026-03-08T06:00:00.000Z", end_utc: "2026-03-08T07:00:00.000Z" });
    expect(minutes(ok.row!)).toBe(60);
  });

  test("spring forward: a wall-clock time in the skipped hour is 422 on either end", async () => {
    for (const [start, end, field] of [
      ["2026-03-08T02:30:00", "2026-03-08T04:00:00", "scheduled_start"],
      ["2026-03-08T00:30:00", "2026-03-08T02:00:00", "scheduled_end"],
    ]) {
      const { r } = await book(ny, start!, end!);
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([{ loc: ["body", field], msg: "This time does not exist in America/New_York (clocks move forward)", type: "value_error" }]);
    }
  });

  test("fall back (2026-11-01): a repeated wall-clock time means its first occurrence, so 01:30–02:30 lasts 120 real minutes", async () => {
    const { r, row } = await book(ny, "2026-11-01T01:30:00", "2026-11-01T02:30:00");
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ scheduled_start: "2026-11-01T01:30:00", scheduled_end: "2026-11-01T02:30:00" });
    expect(row).toMatchObject({ start_utc: "2026-11-01T05:30:00.000Z", end_utc: "2026-11-01T07:30:00.000Z" });
    expect(minutes(row!)).toBe(120);
    // the second 01:30 can be booked with its offset: then 01:30–02:30 is 60 minutes
    const second = await book(ny, "2026-11-01T01:30:00-05:00", "2026-11-01T02:30:00");
    expect(second.r.status).toBe(201);
    expect(second.r.body.scheduled_start).toBe("2026-11-01T01:30:00");
    expect(second.row).toMatchObject({ start_utc: "2026-11-01T06:30:00.000Z", end_utc: "2026-11-01T07:30:00.000Z" });
    expect(minutes(second.row!)).toBe(60);
  });

  test("fall back: overlap compares real instants, not the (repeated) wall clock", async () => {
    const provider = await createProvider(t, orgId);
    // 01:00–01:45 of the second occurrence (EST): 06:00Z–06:45Z
    const late = await book(ny, "2026-11-01T01:00:00-05:00", "2026-11-01T01:45:00-05:00", {
      provider_uuid: provider.id,
      appointment_type_uuid: (await createType(t, orgId, { code: "S45", duration_minutes: 45 })).id,
    });
    expect(late.r.status).toBe(201);
    expect(late.r.body).toMatchObject({ scheduled_start: "2026-11-01T01:00:00", scheduled_end: "2026-11-01T01:45:00" });
    // the same wall clock read as the first occurrence (EDT) is 05:00Z–05:45Z: no overlap
    const early = await book(ny, "2026-11-01T01:00:00", "2026-11-01T01:45:00", {
      provider_uuid: provider.id,
      appointment_type_uuid: late.r.body.appointment_type.uuid,
    });
    expect(early.r.status).toBe(201);
    expect(early.row).toMatchObject({ start_utc: "2026-11-01T05:00:00.000Z", end_utc: "2026-11-01T05:45:00.000Z" });
    // 05:40Z–06:40Z touches both
    const between = await book(ny, "2026-11-01T05:40:00Z", "2026-11-01T06:40:00Z", { provider_uuid: provider.id });
    expect(between.r.status).toBe(409);
    expect(between.r.body.code).toBe("booking_conflict");
    // 05:45Z–06:00Z fits exactly between them (touching ends): 15 real minutes, though its wall-clock end is before its start
    const gap = await book(ny, "2026-11-01T05:45:00Z", "2026-11-01T06:00:00Z", {
      provider_uuid: provider.id,
      appointment_type_uuid: (await createType(t, orgId, { code: "S15", duration_minutes: 15 })).id,
    });
    expect(gap.r.status).toBe(201);
    expect(gap.r.body).toMatchObject({ scheduled_start: "2026-11-01T01:45:00", scheduled_end: "2026-11-01T01:00:00" });
  });

  test("the day's list on fall-back day covers all 25 hours", async () => {
    const provider = await createProvider(t, orgId);
    await book(ny, "2026-11-01T00:00:00", "2026-11-01T01:00:00", { provider_uuid: provider.id });
    await book(ny, "2026-11-01T23:00:00", "2026-11-02T00:00:00", { provider_uuid: provider.id });
    await book(ny, "2026-11-02T00:00:00", "2026-11-02T01:00:00", { provider_uuid: provider.id });
    const r = await t.request("GET", `${P()}?provider_uuid=${provider.id}&date_from=2026-11-01&date_to=2026-11-01`, { token });
    expect(r.body.items.map((a: { scheduled_start: string }) => a.scheduled_start)).toEqual(["2026-11-01T00:00:00", "2026-11-01T23:00:00"]);
  });
});

describe("Europe/London", () => {
  test("spring forward (2026-03-29): 01:30 does not exist; 00:30–02:30 lasts 60 minutes", async () => {
    const gap = await book(london, "2026-03-29T01:30:00", "2026-03-29T03:00:00");
    expect(gap.r.status).toBe(422);
    expect(gap.r.body.detail[0].loc).toEqual(["body", "scheduled_start"]);
    expect((await book(london, "2026-03-29T00:30:00", "2026-03-29T02:30:00", { appointment_type_uuid: type90.id })).r.body.code).toBe(
      "shorter_than_type_duration",
    );
    const ok = await book(london, "2026-03-29T00:30:00", "2026-03-29T02:30:00");
    expect(ok.r.status).toBe(201);
    expect(ok.row).toMatchObject({ start_utc: "2026-03-29T00:30:00.000Z", end_utc: "2026-03-29T01:30:00.000Z" });
  });

  test("fall back (2026-10-25): 01:00–02:00 is the first 01:00 (BST) to 02:00 GMT: 120 minutes, enough for a 90-minute type", async () => {
    const { r, row } = await book(london, "2026-10-25T01:00:00", "2026-10-25T02:00:00", { appointment_type_uuid: type90.id });
    expect(r.status).toBe(201);
    expect(row).toMatchObject({ start_utc: "2026-10-25T00:00:00.000Z", end_utc: "2026-10-25T02:00:00.000Z" });
    expect(minutes(row!)).toBe(120);
  });
});

describe("values with an offset", () => {
  test("Z and +02:00 are converted into the location's zone, stored and returned as its wall clock", async () => {
    const z = await book(ny, "2026-07-01T14:00:00Z", "2026-07-01T15:00:00.000Z");
    expect(z.r.status).toBe(201);
    expect(z.r.body).toMatchObject({ scheduled_start: "2026-07-01T10:00:00", scheduled_end: "2026-07-01T11:00:00" });
    expect(z.row).toMatchObject({ scheduled_start: "2026-07-01T10:00:00", start_utc: "2026-07-01T14:00:00.000Z" });
    const plus2 = await book(london, "2026-07-01T10:00:00+02:00", "2026-07-01T11:00:00+02:00");
    expect(plus2.r.body).toMatchObject({ scheduled_start: "2026-07-01T09:00:00", scheduled_end: "2026-07-01T10:00:00" });
    expect(plus2.row!.start_utc).toBe("2026-07-01T08:00:00.000Z");
    // an offset and a wall clock mix: the end at 10:30 London wall clock
    const mixed = await book(london, "2026-07-02T08:00:00Z", "2026-07-02T10:30:00");
    expect(mixed.r.body).toMatchObject({ scheduled_start: "2026-07-02T09:00:00", scheduled_end: "2026-07-02T10:30:00" });
    // fractions of a second are dropped, in both forms
    const frac = await book(ny, "2026-07-03T09:00:00.750", "2026-07-03T10:00:00.250-04:00");
    expect(frac.r.body).toMatchObject({ scheduled_start: "2026-07-03T09:00:00", scheduled_end: "2026-07-03T10:00:00" });
    expect(frac.row).toMatchObject({ start_utc: "2026-07-03T13:00:00.000Z", end_utc: "2026-07-03T14:00:00.000Z" });
  });
});
