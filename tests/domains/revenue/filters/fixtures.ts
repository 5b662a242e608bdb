// A small, fully known org for the revenue filter tests: five live patients
// (A..E) and one archived patient (Z) who matches almost everything, with
// appointments, charted procedures, insurance, tags and referrals written
// straight to the org database. Dates are relative to today (UTC), the day the
// service anchors ages and relative date operators on.
//
// `expectedValues` is the hand-written truth: what every field of the registry
// reads for every live patient (a set of members for the "has any of" fields).
import { and, inArray, isNull } from "drizzle-orm";
import { appointmentTypes, appointments } from "@db/tenant/appointments";
import { locations, providers } from "@db/tenant/practice";
import { patients, patientTags, tagDefinitions } from "@db/tenant/patients";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { benefitAdjustments, insuranceCarriers, insurancePlans, insuranceSubscriptions, patientPlans, procedureEstimates } from "@db/tenant/insurance";
import { benefitYearShown } from "@/domains/insurance/estimates/engine/dates";
import { referralAttributions, referralPartners, referralSources } from "@db/tenant/referrals";
import { patientRecalls, recallTypes } from "@db/tenant/recall";
import { all, run } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";

export const TODAY = new Date().toISOString().slice(0, 10);

const ymd = (d: Date) => d.toISOString().slice(0, 10);
const parse = (date: string) => {
  const [y, m, d] = date.split("-").map(Number);
  return { y: y!, m: m!, d: d! };
};
/** `date` moved by `n` days. */
export const addDays = (date: string, n: number) => {
  const { y, m, d } = parse(date);
  return ymd(new Date(Date.UTC(y, m - 1, d + n)));
};
/** `date` moved by `n` months, overflowing like SQLite's date(x, '+n months') (Aug 31 + 6 months = Mar 3 or 2). */
export const addMonthsSqlite = (date: string, n: number) => {
  const { y, m, d } = parse(date);
  return ymd(new Date(Date.UTC(y, m - 1 + n, d)));
};
/** `date` moved by `n` months, kept in the month (Mar 31 - 1 month = Feb 28): the relative month operators. */
export const addMonths = (date: string, n: number) => Temporal.PlainDate.from(date).add({ months: n }).toString();
/** Today moved by `n` days. */
export const day = (n: number) => addDays(TODAY, n);
/** Whole years from `dob` to today. */
export const ageOn = (dob: string, today = TODAY) => {
  const a = parse(dob);
  const b = parse(today);
  return b.y - a.y - (today.slice(5) < dob.slice(5) ? 1 : 0);
};

export const LIVE = ["A", "B", "C", "D", "E"] as const;
export type Name = (typeof LIVE)[number];
export type World = Awaited<ReturnType<typeof buildWorld>>;

export async function orgDb(t: TestApp, orgId: string) {
  const org = (await t.rt.access.org(orgId))!;
  return t.rt.orgDbs.get(org.id, org.shard);
}

const uuid = () => Bun.randomUUIDv7();
const stamp = () => new Date().toISOString();
const meta = () => ({ id: uuid(), version: 1, created_at: stamp(), updated_at: stamp() });
const at = (date: string, time = "10:00:00") => `${date}T${time}.000Z`;

/** Build the world in `orgId`; returns the ids by letter and of the related records. */
export async function buildWorld(t: TestApp, orgId: string) {
  const db = await orgDb(t, orgId);
  const codes = await db.read((d) =>
    all<{ id: string; code: string }>(
      d
        .select({ id: procedureCodes.id, code: procedureCodes.code })
        .from(procedureCodes)
        .where(and(inArray(procedureCodes.code, ["D0150", "D1110", "D2740"]), isNull(procedureCodes.deleted_at))),
    ),
  );
  const codeId = (code: string) => {
    const c = codes.find((x) => x.code === code);
    if (!c) throw new Error(`no seeded procedure code ${code}`);
    return c.id;
  };

  const w = {
    L1: uuid(),
    L2: uuid(),
    PR1: uuid(),
    PR2: uuid(),
    type: uuid(),
    C1: uuid(),
    C2: uuid(),
    C3: uuid(),
    TA: uuid(),
    TB: uuid(),
    TC: uuid(),
    RS1: uuid(),
    RS2: uuid(),
    partner: uuid(),
    id: { A: uuid(), B: uuid(), C: uuid(), D: uuid(), E: uuid(), Z: uuid() } as Record<Name | "Z", string>,
  };
  const P = w.id;

  type PatientRow = typeof patients.$inferInsert;
  const patient = (letter: Name | "Z", created: string, v: Partial<PatientRow>): PatientRow => ({
    ...meta(),
    id: P[letter],
    first_name: "?",
    last_name: "?",
    created_at: at(created, "12:00:00"),
    ...v,
  });
  const patientRows: PatientRow[] = [
    patient("A", day(-400), {
      first_name: "Alice",
      last_name: "Anders",
      date_of_birth: "1980-05-15",
      gender: "female",
      status: "active",
      location_id: w.L1,
      primary_provider_id: w.PR1,
      preferred_language: "English",
      email: "alice@example.com",
      mobile_phone: "555-0101",
      receives_sms: true,
      receives_email: true,
      balance_0_30_cents: 1250,
      balance_over_90_cents: 10000,
      insurance_estimate_cents: 5000,
      payment_plan_due_cents: 2500,
    }),
    patient("B", day(-200), {
      first_name: "Bob",
      last_name: "Baker",
      date_of_birth: "1990-12-01",
      gender: "male",
      status: "inactive",
      location_id: w.L2,
      primary_provider_id: w.PR2,
      preferred_language: "Spanish",
    }),
    patient("C", day(-10), {
      first_name: "carol",
      last_name: "Cole",
      status: "prospective",
      email: "",
      mobile_phone: "555-0103",
      receives_sms: true,
      balance_0_30_cents: -500,
    }),
    patient("D", day(-60), {
      first_name: "Dan",
      last_name: "Dunn",
      date_of_birth: "2010-02-20",
      gender: "non_binary",
      status: "active",
      location_id: w.L1,
      primary_provider_id: w.PR1,
      preferred_language: "english",
      email: "DAN@Example.com",
      mobile_phone: "",
      balance_31_60_cents: 2000,
      balance_61_90_cents: 7525,
      insurance_estimate_cents: 1250,
      payment_plan_due_cents: 750,
    }),
    patient("E", day(-1000), {
      first_name: "Eve",
      last_name: "Evans",
      date_of_birth: "1955-07-04",
      gender: "female",
      status: "deceased",
      preferred_language: "French",
      receives_email: true,
      balance_0_30_cents: 99,
      balance_over_90_cents: 1,
    }),
    // archived: matches nearly every filter below, and must never be counted
    patient("Z", day(-30), {
      first_name: "Zed",
      last_name: "Archived",
      date_of_birth: "1980-05-15",
      gender: "female",
      status: "archived",
      deleted_at: stamp(),
      location_id: w.L1,
      primary_provider_id: w.PR1,
      preferred_language: "English",
      email: "zed@example.com",
      mobile_phone: "555-0199",
      receives_sms: true,
      receives_email: true,
      balance_0_30_cents: 1250,
      balance_31_60_cents: 2000,
      balance_61_90_cents: 7525,
      balance_over_90_cents: 10000,
      insurance_estimate_cents: 5000,
      payment_plan_due_cents: 2500,
    }),
  ];

  const appointment = (letter: Name | "Z", date: string, status: string, v: Partial<typeof appointments.$inferInsert> = {}) => ({
    ...meta(),
    patient_id: P[letter],
    appointment_type_id: w.type,
    location_id: w.L1,
    provider_id: w.PR1,
    status,
    scheduled_start: `${date}T09:00:00`,
    scheduled_end: `${date}T10:00:00`,
    start_utc: at(date, "09:00:00"),
    end_utc: at(date, "10:00:00"),
    ...v,
  });
  const aNext = appointment("A", day(10), "scheduled");
  const bFutureCancelled = appointment("B", day(5), "cancelled");
  const appointmentRows = [
    appointment("A", day(-400), "completed"),
    appointment("A", day(-30), "completed"),
    aNext,
    appointment("B", day(-300), "completed"),
    appointment("B", day(-100), "broken"),
    appointment("B", day(-50), "broken"),
    appointment("B", day(-20), "cancelled"),
    bFutureCancelled,
    appointment("D", day(-190), "completed"),
    appointment("D", day(-7), "broken"),
    appointment("D", day(-5), "completed", { deleted_at: stamp() }),
    appointment("D", day(40), "confirmed"),
    appointment("D", day(100), "scheduled"),
    appointment("E", day(-3), "scheduled"), // past and never closed: not a next appointment
    appointment("E", TODAY, "completed", { scheduled_start: `${TODAY}T08:00:00`, scheduled_end: `${TODAY}T08:30:00` }),
    appointment("E", TODAY, "scheduled", { scheduled_start: `${TODAY}T15:00:00`, scheduled_end: `${TODAY}T15:30:00` }),
    appointment("Z", day(-30), "completed"),
    appointment("Z", day(-10), "broken"),
    appointment("Z", day(-9), "cancelled"),
    appointment("Z", day(3), "scheduled"),
  ];

  const procedure = (
    letter: Name | "Z",
    code: string,
    status: string,
    v: { fee?: number; override?: number | null; completed?: string; appointment_id?: string; deleted?: boolean } = {},
  ) => ({
    ...meta(),
    patient_id: P[letter],
    procedure_code_id: codeId(code),
    procedure_code: code,
    treatment_area: "mouth",
    status,
    date_service: day(-1),
    date_completed: v.completed ? at(v.completed) : null,
    appointment_id: v.appointment_id ?? null,
    office_fee_cents: v.fee ?? 10000,
    fee_override_cents: v.override ?? null,
    billing_order_code: "1",
    deleted_at: v.deleted ? stamp() : null,
  });
  const procedureRows = [
    procedure("A", "D2740", "treatment_planned", { fee: 120000 }),
    procedure("A", "D0150", "treatment_planned", { fee: 9000, appointment_id: aNext.id }), // booked: not unscheduled
    procedure("A", "D1110", "complete", { completed: day(-30) }),
    // observed: still attached to an appointment that was cancelled, so it does not count as unscheduled
    procedure("B", "D2740", "treatment_planned", { fee: 120000, appointment_id: bFutureCancelled.id }),
    procedure("B", "D0150", "scheduled", { fee: 9000 }),
    procedure("B", "D1110", "complete_referred", { completed: day(-300) }),
    procedure("C", "D0150", "treatment_planned", { fee: 9000, override: 4550 }),
    procedure("C", "D1110", "treatment_planned", { fee: 10000 }),
    procedure("D", "D2740", "complete", { completed: day(-190) }),
    procedure("D", "D2740", "treatment_planned", { fee: 120000, deleted: true }),
    procedure("D", "D0150", "existing_current", { completed: day(-2) }),
    procedure("E", "D0150", "complete", { completed: day(-1), deleted: true }),
    procedure("Z", "D2740", "treatment_planned", { fee: 120000 }),
    procedure("Z", "D1110", "complete", { completed: day(-30) }),
  ];

  const plan = (carrier: string) => ({
    ...meta(),
    carrier_id: carrier,
    deductible_category_ids: [],
    coverage: [],
    frequency_limits: [],
    waiting_periods: [],
    age_limits: [],
    downgrades: [],
    copays: [],
  });
  // C1: $1,500 a calendar year; C2: $1,000 a year starting in July (benefit years other than the calendar's); C3: no maximum
  const plans = {
    C1: { ...plan(w.C1), annual_max_cents: 150000, benefit_year_start_month: 1 },
    C2: { ...plan(w.C2), annual_max_cents: 100000, benefit_year_start_month: 7 },
    C3: plan(w.C3),
  };
  const subscription = (letter: Name | "Z", planRow: { id: string }) => ({ ...meta(), plan_id: planRow.id, subscriber_patient_id: P[letter] });
  const subs = {
    A: subscription("A", plans.C1),
    B: subscription("B", plans.C2),
    D: subscription("D", plans.C2),
    D3: subscription("D", plans.C3),
    Z: subscription("Z", plans.C1),
  };
  const patientPlan = (letter: Name | "Z", sub: { id: string }, ordinal: number, v: { is_active?: boolean; deleted?: boolean } = {}) => ({
    ...meta(),
    patient_id: P[letter],
    subscription_id: sub.id,
    ordinal,
    is_active: v.is_active ?? true,
    deleted_at: v.deleted ? stamp() : null,
  });

  const pp = { A: patientPlan("A", subs.A, 1), D: patientPlan("D", subs.D, 1) };
  const estimate = (
    letter: Name,
    plan: { id: string },
    proc: { id: string },
    v: { insurance: number; override?: number; ordinal?: number; deleted?: boolean },
  ): typeof procedureEstimates.$inferInsert => ({
    ...meta(),
    charted_procedure_id: proc.id,
    patient_id: P[letter],
    patient_plan_id: plan.id,
    ordinal: v.ordinal ?? 1,
    fee_billed_cents: 0,
    write_off_cents: 0,
    deductible_applied_cents: 0,
    coverage_percent: 80,
    base_estimate_cents: v.insurance,
    insurance_estimate_cents: v.insurance,
    insurance_estimate_override_cents: v.override ?? null,
    paid_other_insurance_cents: 0,
    patient_estimate_cents: 0,
    copay_cents: 0,
    date_estimated: day(-2),
    deleted_at: v.deleted ? stamp() : null,
  });

  const attribution = (letter: Name | "Z", v: Partial<typeof referralAttributions.$inferInsert>) => ({
    ...meta(),
    patient_id: P[letter],
    attributed_at: stamp(),
    ...v,
  });

  await db.write(function* (tx) {
    yield* run(
      tx.insert(locations).values([
        { ...meta(), id: w.L1, name: "North", timezone: "UTC" },
        { ...meta(), id: w.L2, name: "South", timezone: "UTC" },
      ]),
    );
    yield* run(
      tx.insert(providers).values([
        { ...meta(), id: w.PR1, abbreviation: "ADA", first_name: "Ada", last_name: "Molar" },
        { ...meta(), id: w.PR2, abbreviation: "GRA", first_name: "Grace", last_name: "Canine" },
      ]),
    );
    yield* run(tx.insert(appointmentTypes).values({ ...meta(), id: w.type, code: "EXAM", name: "Exam", duration_minutes: 60, color: "#3366FF" }));
    yield* run(tx.insert(patients).values(patientRows));
    yield* run(tx.insert(appointments).values(appointmentRows));
    yield* run(tx.insert(chartedProcedures).values(procedureRows));
    yield* run(
      tx.insert(insuranceCarriers).values([
        { ...meta(), id: w.C1, carrier_name: "Delta" },
        { ...meta(), id: w.C2, carrier_name: "Cigna" },
        { ...meta(), id: w.C3, carrier_name: "Aetna" },
      ]),
    );
    yield* run(tx.insert(insurancePlans).values(Object.values(plans)));
    yield* run(tx.insert(insuranceSubscriptions).values(Object.values(subs)));
    yield* run(
      tx
        .insert(patientPlans)
        .values([pp.A, patientPlan("B", subs.B, 1, { is_active: false }), pp.D, patientPlan("D", subs.D3, 2, { deleted: true }), patientPlan("Z", subs.Z, 1)]),
    );
    yield* run(
      tx.insert(procedureEstimates).values([
        estimate("A", pp.A, procedureRows[2]!, { insurance: 8000 }),
        estimate("A", pp.A, procedureRows[2]!, { insurance: 99999, ordinal: 2, deleted: true }),
        estimate("D", pp.D, procedureRows[8]!, { insurance: 60000, override: 50000 }),
        estimate("D", pp.D, procedureRows[10]!, { insurance: 7000 }), // existing_current: not a completed procedure
      ]),
    );
    yield* run(
      tx.insert(benefitAdjustments).values([
        { ...meta(), patient_plan_id: pp.A.id, benefit_year_start: benefitYearShown(TODAY, 1).start, annual_max_used_cents: 2000 },
        { ...meta(), patient_plan_id: pp.A.id, benefit_year_start: benefitYearShown(TODAY, 1).start, annual_max_used_cents: 5000, deleted_at: stamp() },
        // last benefit year's: does not count
        {
          ...meta(),
          patient_plan_id: pp.D.id,
          benefit_year_start: benefitYearShown(addMonths(benefitYearShown(TODAY, 7).start, -1), 7).start,
          annual_max_used_cents: 30000,
        },
      ]),
    );
    yield* run(
      tx.insert(tagDefinitions).values([
        { ...meta(), id: w.TA, name: "VIP" },
        { ...meta(), id: w.TB, name: "Anxious" },
        { ...meta(), id: w.TC, name: "Unused" },
      ]),
    );
    const tag = (letter: Name | "Z", tagId: string) => ({ patient_id: P[letter], tag_definition_id: tagId, created_at: stamp() });
    yield* run(tx.insert(patientTags).values([tag("A", w.TA), tag("B", w.TB), tag("C", w.TA), tag("C", w.TB), tag("Z", w.TA)]));
    yield* run(
      tx.insert(referralSources).values([
        { ...meta(), id: w.RS1, name: "Website" },
        { ...meta(), id: w.RS2, name: "Health fair" },
      ]),
    );
    yield* run(tx.insert(referralPartners).values({ ...meta(), id: w.partner, last_name: "Smith", practice_name: "Smith Ortho" }));
    yield* run(
      tx
        .insert(referralAttributions)
        .values([
          attribution("A", { referral_source_id: w.RS1 }),
          attribution("B", { referral_partner_id: w.partner }),
          attribution("D", { referral_source_id: w.RS2 }),
          attribution("D", { referral_source_id: w.RS1, attribution_role: "secondary", deleted_at: stamp() }),
          attribution("E", { referral_source_id: w.RS1, attribution_role: "secondary" }),
          attribution("Z", { referral_source_id: w.RS1 }),
        ]),
    );
    // recalls (docs/recall/recall.md): the earliest live one that is not disabled is what recall_due_date reads
    const types = yield* all<{ id: string; seed_key: string | null }>(
      tx.select({ id: recallTypes.id, seed_key: recallTypes.seed_key }).from(recallTypes).where(isNull(recallTypes.archived_at)),
    );
    const kind = (seed: string) => types.find((t) => t.seed_key === seed)!.id;
    const recall = (letter: Name | "Z", seed: string, due: string, v: Partial<typeof patientRecalls.$inferInsert> = {}) => ({
      ...meta(),
      patient_id: P[letter],
      recall_type_id: kind(seed),
      date_due: due,
      status: due < TODAY ? "overdue" : "due",
      ...v,
    });
    yield* run(
      tx
        .insert(patientRecalls)
        .values([
          recall("A", "prophy", RECALL_DUE.A!),
          recall("A", "bitewings", day(400)),
          recall("B", "prophy", RECALL_DUE.B!),
          recall("B", "pano", day(-900), { is_disabled: true, status: "disabled" }),
          recall("C", "prophy", day(-50), { deleted_at: stamp() }),
          recall("D", "child_prophy", RECALL_DUE.D!),
          recall("E", "prophy", RECALL_DUE.E!),
          recall("Z", "prophy", day(-20)),
        ]),
    );
  });
  return w;
}

/** Each patient's next recall due date, as the recalls written above give it (null: none live and enabled). */
const RECALL_DUE: Record<Name, string | null> = {
  A: addMonthsSqlite(day(-30), 6),
  B: addMonthsSqlite(day(-300), 6),
  C: null,
  D: addMonthsSqlite(day(-190), 6),
  E: addMonthsSqlite(TODAY, 6),
};

const inBenefitYear = (date: string, startMonth: number) => {
  const year = benefitYearShown(TODAY, startMonth);
  return year.start <= date && date <= year.end;
};

/**
 * What each field reads for each live patient: scalars in the API's filter
 * terms (money in cents, dates YYYY-MM-DD, null for none), arrays for set fields.
 */
export function expectedValues(w: World): Record<string, Record<Name, unknown>> {
  const last = { A: day(-30), B: day(-300), C: null, D: day(-190), E: TODAY };
  const b = {
    b0: { A: 1250, B: 0, C: -500, D: 0, E: 99 },
    b31: { A: 0, B: 0, C: 0, D: 2000, E: 0 },
    b61: { A: 0, B: 0, C: 0, D: 7525, E: 0 },
    b90: { A: 10000, B: 0, C: 0, D: 0, E: 1 },
  };
  const total = Object.fromEntries(LIVE.map((n) => [n, b.b0[n] + b.b31[n] + b.b61[n] + b.b90[n]])) as Record<Name, number>;
  return {
    first_name: { A: "Alice", B: "Bob", C: "carol", D: "Dan", E: "Eve" },
    last_name: { A: "Anders", B: "Baker", C: "Cole", D: "Dunn", E: "Evans" },
    age: { A: ageOn("1980-05-15"), B: ageOn("1990-12-01"), C: null, D: ageOn("2010-02-20"), E: ageOn("1955-07-04") },
    date_of_birth: { A: "1980-05-15", B: "1990-12-01", C: null, D: "2010-02-20", E: "1955-07-04" },
    birthday_month: { A: 5, B: 12, C: null, D: 2, E: 7 },
    gender: { A: "female", B: "male", C: null, D: "non_binary", E: "female" },
    status: { A: "active", B: "inactive", C: "prospective", D: "active", E: "deceased" },
    location: { A: w.L1, B: w.L2, C: null, D: w.L1, E: null },
    primary_provider: { A: w.PR1, B: w.PR2, C: null, D: w.PR1, E: null },
    preferred_language: { A: "English", B: "Spanish", C: null, D: "english", E: "French" },
    has_email: { A: true, B: false, C: false, D: true, E: false },
    has_mobile_phone: { A: true, B: false, C: true, D: false, E: false },
    consents_to_sms: { A: true, B: false, C: true, D: false, E: false },
    consents_to_email: { A: true, B: false, C: false, D: false, E: true },
    created_at: { A: day(-400), B: day(-200), C: day(-10), D: day(-60), E: day(-1000) },
    last_visit_date: last,
    next_appointment_date: { A: day(10), B: null, C: null, D: day(40), E: TODAY },
    no_show_count: { A: 0, B: 2, C: 0, D: 1, E: 0 },
    cancellation_count: { A: 0, B: 2, C: 0, D: 0, E: 0 },
    has_unscheduled_treatment: { A: true, B: true, C: true, D: false, E: false },
    unscheduled_treatment_fee: { A: 120000, B: 120000, C: 14550, D: 0, E: 0 },
    planned_procedure_code: { A: ["D2740", "D0150"], B: ["D2740", "D0150"], C: ["D0150", "D1110"], D: [], E: [] },
    completed_procedure_code: { A: ["D1110"], B: ["D1110"], C: [], D: ["D2740"], E: [] },
    last_completed_procedure_date: { A: day(-30), B: day(-300), C: null, D: day(-190), E: null },
    recall_due_date: RECALL_DUE,
    recall_overdue: { A: false, B: true, C: false, D: true, E: false },
    balance_0_30: b.b0,
    balance_31_60: b.b31,
    balance_61_90: b.b61,
    balance_over_90: b.b90,
    total_balance: total,
    insurance_estimate: { A: 5000, B: 0, C: 0, D: 1250, E: 0 },
    payment_plan_due: { A: 2500, B: 0, C: 0, D: 750, E: 0 },
    has_active_insurance: { A: true, B: false, C: false, D: true, E: false },
    insurance_carrier: { A: [w.C1], B: [], C: [], D: [w.C2], E: [] },
    // every completed procedure was served yesterday, which is in this benefit year except on its first day
    annual_max_remaining: {
      A: 150000 - (inBenefitYear(day(-1), 1) ? 8000 : 0) - 2000,
      B: null,
      C: null,
      D: 100000 - (inBenefitYear(day(-1), 7) ? 50000 : 0),
      E: null,
    },
    tag: { A: [w.TA], B: [w.TB], C: [w.TA, w.TB], D: [], E: [] },
    referral_source: { A: [w.RS1], B: [], C: [], D: [w.RS2], E: [w.RS1] },
  };
}
