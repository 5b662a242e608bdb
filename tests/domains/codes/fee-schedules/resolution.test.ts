import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { feeWorld, type FeeWorld } from "./fixtures";

// Fee resolution through charting over HTTP (docs/codes/fee-schedules.md, "Fee
// resolution"): the patient's schedule, else the provider's, else the
// location's, else the org's default office schedule, else the code's default
// fee; within a schedule the location's own fee beats the schedule-wide one;
// a schedule without a fee for the code (or archived) is passed by.

let w: FeeWorld;
const sched: Record<"patient" | "provider" | "location" | "fallback", { id: string; name: string }> = {} as never;
let withLocationSchedule: string; // a location naming the location schedule
let plain: string; // a location naming none
let withProviderSchedule: string;
let plainProvider: string;
let patientWithSchedule: string;
let patientAtScheduledLocation: string; // no schedule; home location names one
let patientPlain: string;
const code: Record<string, string> = {};
const defaults: Record<string, string> = {};

beforeAll(async () => {
  w = await feeWorld();
  for (const c of ["D2740", "D1110", "D0120", "D2750"]) {
    const found = await w.code(c);
    code[c] = found.id;
    defaults[c] = found.default_fee;
  }
  sched.patient = await w.createSchedule({ name: "Patient schedule" });
  sched.provider = await w.createSchedule({ name: "Provider schedule", schedule_type: "ucr" });
  sched.location = await w.createSchedule({ name: "Location schedule" });
  sched.fallback = await w.createSchedule({ name: "Default office", is_default: true });
  withLocationSchedule = (await w.createLocation({ name: "Scheduled office", fee_schedule_uuid: sched.location.id })).id;
  plain = (await w.createLocation({ name: "Plain office" })).id;
  await w.putFees(sched.patient.id, [
    { procedure_code_uuid: code.D2740, amount: 100 },
    { procedure_code_uuid: code.D2740, amount: 150, location_uuid: withLocationSchedule },
    // only a location's own fee: elsewhere the code falls through to the next schedule
    { procedure_code_uuid: code.D2750, amount: 111, location_uuid: withLocationSchedule },
  ]);
  await w.putFees(sched.provider.id, [
    { procedure_code_uuid: code.D2740, amount: 200 },
    { procedure_code_uuid: code.D1110, amount: 80 },
  ]);
  await w.putFees(sched.location.id, [
    { procedure_code_uuid: code.D2740, amount: 300 },
    { procedure_code_uuid: code.D1110, amount: 90 },
    { procedure_code_uuid: code.D2750, amount: 333 },
  ]);
  await w.putFees(sched.fallback.id, [
    { procedure_code_uuid: code.D2740, amount: 400 },
    { procedure_code_uuid: code.D1110, amount: 95 },
    { procedure_code_uuid: code.D2750, amount: 444 },
  ]);
  withProviderSchedule = (await w.createProvider({ fee_schedule_uuid: sched.provider.id })).id;
  plainProvider = (await w.createProvider()).id;
  patientWithSchedule = (await w.createPatient({ fee_schedule_uuid: sched.patient.id, location_uuid: plain })).id;
  patientAtScheduledLocation = (await w.createPatient({ location_uuid: withLocationSchedule })).id;
  patientPlain = (await w.createPatient()).id;
});
afterAll(() => w.t.close());

type Case = [
  what: string,
  patient: () => string,
  c: string,
  where: { provider?: () => string; location?: () => string },
  fee: () => string,
  from: () => string | null,
];
const ref = (k: keyof typeof sched) => () => k;

const CASES: Case[] = [
  [
    "the patient's schedule, the location's own fee",
    () => patientWithSchedule,
    "D2740",
    { provider: () => withProviderSchedule, location: () => withLocationSchedule },
    () => "150.00",
    ref("patient"),
  ],
  [
    "the patient's schedule, schedule-wide elsewhere",
    () => patientWithSchedule,
    "D2740",
    { provider: () => withProviderSchedule, location: () => plain },
    () => "100.00",
    ref("patient"),
  ],
  ["the patient's schedule, schedule-wide without a location (home location plain)", () => patientWithSchedule, "D2740", {}, () => "100.00", ref("patient")],
  [
    "the patient's schedule has only a location's fee: used there",
    () => patientWithSchedule,
    "D2750",
    { location: () => withLocationSchedule },
    () => "111.00",
    ref("patient"),
  ],
  [
    "…and elsewhere the code falls through to the next schedule (the default)",
    () => patientWithSchedule,
    "D2750",
    { location: () => plain },
    () => "444.00",
    ref("fallback"),
  ],
  [
    "no fee for the code on the patient's schedule: the provider's",
    () => patientWithSchedule,
    "D1110",
    { provider: () => withProviderSchedule },
    () => "80.00",
    ref("provider"),
  ],
  [
    "no patient schedule: the provider's",
    () => patientPlain,
    "D2740",
    { provider: () => withProviderSchedule, location: () => withLocationSchedule },
    () => "200.00",
    ref("provider"),
  ],
  [
    "no patient or provider schedule: the location's",
    () => patientPlain,
    "D2740",
    { provider: () => plainProvider, location: () => withLocationSchedule },
    () => "300.00",
    ref("location"),
  ],
  ["no location on the procedure: the patient's home location's", () => patientAtScheduledLocation, "D1110", {}, () => "90.00", ref("location")],
  [
    "nothing names a schedule: the org's default office schedule",
    () => patientPlain,
    "D2740",
    { provider: () => plainProvider, location: () => plain },
    () => "400.00",
    ref("fallback"),
  ],
  [
    "no schedule has a fee for the code: the code's default fee",
    () => patientWithSchedule,
    "D0120",
    { provider: () => withProviderSchedule, location: () => withLocationSchedule },
    () => defaults.D0120!,
    () => null,
  ],
];

describe("charting resolves office_fee", () => {
  for (const [what, patient, c, where, fee, from] of CASES) {
    test(what, async () => {
      const body: Record<string, unknown> = {};
      if (where.provider) body.provider_uuid = where.provider();
      if (where.location) body.location_uuid = where.location();
      const p = await w.chart(patient(), c, body);
      const source = from();
      const expected = source ? { uuid: sched[source as keyof typeof sched].id, name: sched[source as keyof typeof sched].name } : null;
      expect({ office_fee: p.office_fee, effective_fee: p.effective_fee, fee_source: p.fee_source, fee_schedule: p.fee_schedule }).toEqual({
        office_fee: fee(),
        effective_fee: fee(),
        fee_source: "fee_schedule",
        fee_schedule: expected,
      });
      // the stored row says the same, and a GET answers it
      expect((await w.call("GET", `${w.P()}/clinical/procedures/${p.id}`, undefined, 200)).body).toEqual(p);
    });
  }

  test("a fee_override wins effective_fee; office_fee and fee_schedule still say what was resolved", async () => {
    const p = await w.chart(patientWithSchedule, "D2740", { fee_override: 99.99 });
    expect(p).toMatchObject({ office_fee: "100.00", fee_override: "99.99", effective_fee: "99.99", fee_source: "override" });
    expect(p.fee_schedule).toEqual({ uuid: sched.patient.id, name: "Patient schedule" });
  });

  test("an archived schedule is passed by; a deleted fee falls back to the schedule-wide one", async () => {
    const s = await w.createSchedule();
    await w.putFees(s.id, [{ procedure_code_uuid: code.D2740, amount: 555 }]);
    const patient = (await w.createPatient({ fee_schedule_uuid: s.id })).id;
    expect((await w.chart(patient, "D2740", { location_uuid: plain })).office_fee).toBe("555.00");
    await w.call("POST", `${w.S()}/${s.id}/archive`, undefined, 200);
    const after = await w.chart(patient, "D2740", { location_uuid: plain });
    expect([after.office_fee, after.fee_schedule?.uuid]).toEqual(["400.00", sched.fallback.id]);

    const local = await w.createSchedule();
    const { items } = await w.putFees(local.id, [
      { procedure_code_uuid: code.D2740, amount: 600 },
      { procedure_code_uuid: code.D2740, amount: 650, location_uuid: plain },
    ]);
    const p2 = (await w.createPatient({ fee_schedule_uuid: local.id })).id;
    expect((await w.chart(p2, "D2740", { location_uuid: plain })).office_fee).toBe("650.00");
    await w.call("DELETE", `${w.S()}/${local.id}/fees/${items[1].id}?base_version=1`, undefined, 204);
    expect((await w.chart(p2, "D2740", { location_uuid: plain })).office_fee).toBe("600.00");
  });

  test("office_fee is fixed when charted: a later fee change does not touch it", async () => {
    const s = await w.createSchedule();
    await w.putFees(s.id, [{ procedure_code_uuid: code.D1110, amount: 70 }]);
    const patient = (await w.createPatient({ fee_schedule_uuid: s.id })).id;
    const p = await w.chart(patient, "D1110");
    await w.putFees(s.id, [{ procedure_code_uuid: code.D1110, amount: 75 }]);
    expect((await w.call("GET", `${w.P()}/clinical/procedures/${p.id}`, undefined, 200)).body).toMatchObject({ office_fee: "70.00", version: 1 });
  });
});

describe("changing the provider or the code resolves the fee again", () => {
  test("PATCH provider_uuid: the new provider's schedule; fee_override stays; clearing it falls back; a location change alone keeps the fee", async () => {
    const p = await w.chart(patientPlain, "D2740", { provider_uuid: plainProvider, location_uuid: plain, fee_override: 10 });
    expect([p.office_fee, p.fee_schedule?.uuid]).toEqual(["400.00", sched.fallback.id]);
    const path = `${w.P()}/clinical/procedures/${p.id}`;
    const moved = (await w.call("PATCH", path, { base_version: 1, provider_uuid: withProviderSchedule }, 200)).body;
    expect(moved).toMatchObject({ office_fee: "200.00", fee_override: "10.00", effective_fee: "10.00", fee_source: "override", version: 2 });
    expect(moved.fee_schedule).toEqual({ uuid: sched.provider.id, name: "Provider schedule" });
    const back = (await w.call("PATCH", path, { base_version: 2, provider_uuid: null }, 200)).body;
    expect([back.office_fee, back.fee_schedule?.uuid]).toEqual(["400.00", sched.fallback.id]);
    // a change of something else (the location) keeps the fee charted
    const relocated = (await w.call("PATCH", path, { base_version: 3, location_uuid: withLocationSchedule }, 200)).body;
    expect([relocated.office_fee, relocated.fee_schedule?.uuid]).toEqual(["400.00", sched.fallback.id]);
  });

  test("PATCH procedure_code_uuid: the new code through the same chain", async () => {
    const p = await w.chart(patientWithSchedule, "D2740", { location_uuid: withLocationSchedule });
    expect(p.office_fee).toBe("150.00");
    const path = `${w.P()}/clinical/procedures/${p.id}`;
    const recoded = (await w.call("PATCH", path, { base_version: 1, procedure_code_uuid: code.D2750 }, 200)).body;
    expect(recoded).toMatchObject({ procedure_code: "D2750", office_fee: "111.00", fee_schedule: { uuid: sched.patient.id, name: "Patient schedule" } });
    const none = (await w.call("PATCH", path, { base_version: 2, procedure_code_uuid: code.D0120, tooth_number: null }, 200)).body;
    expect(none).toMatchObject({ procedure_code: "D0120", office_fee: defaults.D0120, fee_schedule: null });
  });
});

describe("an org without fee schedules", () => {
  test("charts at the code's default fee, fee_schedule null (as before fee schedules existed)", async () => {
    const patient = (await w.createPatient({}, w.orgB)).id;
    expect(await w.chart(patient, "D2740", {}, w.orgB)).toMatchObject({ office_fee: defaults.D2740, fee_schedule: null, fee_source: "fee_schedule" });
  });

  test("a new provider, with no schedule before or after, keeps the fee charted (the code's default fee changed since)", async () => {
    const patient = (await w.createPatient({}, w.orgB)).id;
    const [a, b] = [(await w.createProvider({}, w.orgB)).id, (await w.createProvider({}, w.orgB)).id];
    const p = await w.chart(patient, "D1110", { provider_uuid: a }, w.orgB);
    const codePath = `${w.P(w.orgB)}/codes/procedure-codes/${await w.codeId("D1110", w.orgB)}`;
    await w.patch(codePath, { default_fee: 999 });
    const moved = (await w.call("PATCH", `${w.P(w.orgB)}/clinical/procedures/${p.id}`, { base_version: 1, provider_uuid: b }, 200)).body;
    expect(moved).toMatchObject({ provider: { uuid: b }, office_fee: p.office_fee, fee_schedule: null, version: 2 });
  });
});
