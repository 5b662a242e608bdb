import { and, asc, count, desc, eq, gte, inArray, isNull, lte, notExists, notInArray, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { appointments, appointmentTypes } from "@db/tenant/appointments";
import { chartedProcedures, treatmentPlanProcedures, treatmentPlans, unscheduledTreatmentTotals } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { patients } from "@db/tenant/patients";
import { locations, operatories, providers } from "@db/tenant/practice";
import { patientSchedulingPreferences } from "@db/tenant/schedule-config";
import { all, get, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { limitToPage, pageOf, type Page } from "@/platform/records/paging";
import { addDays, epochDay } from "@/platform/time/dates";
import { todayAt } from "@/domains/providers/locations/service";
import { SLOT_FREEING_STATUSES, EDITABLE_STATUSES } from "@/domains/scheduling/appointments/schemas";
import { bookedAgainSince } from "@/domains/scheduling/appointments/reads";
import {
  BROKEN_DEFAULT_DAYS,
  MAX_LIST_DAYS,
  type AppointmentListRow,
  type BrokenListQuery,
  type ConfirmationListQuery,
  type ListAppointment,
  type ListPatient,
  type UnscheduledTreatmentQuery,
  type UnscheduledTreatmentRow,
} from "./schemas";

// The front desk's working lists (docs/scheduling/front-desk-lists.md): each
// page is one statement (its total counted by a window over the same rows), on
// the indexes named there. The clinical tables are read directly: scheduling
// does not import the clinical domain.

/** Patients nobody should call: archived (deleted_at) or deceased. */
const callable = and(isNull(patients.deleted_at), notInArray(patients.status, ["deceased", "archived"]));

/** The columns of a list's patient, with the scheduling preference's contact method first. */
const patientColumns = {
  p_id: patients.id,
  p_first_name: patients.first_name,
  p_last_name: patients.last_name,
  p_preferred_name: patients.preferred_name,
  p_home_phone: patients.home_phone,
  p_mobile_phone: patients.mobile_phone,
  p_work_phone: patients.work_phone,
  p_email: patients.email,
  p_receives_sms: patients.receives_sms,
  p_receives_email: patients.receives_email,
  p_contact: sql<string | null>`coalesce(${patientSchedulingPreferences.preferred_contact_method}, ${patients.preferred_contact_method})`,
  p_confirmation: patients.preferred_confirmation_method,
};
type PatientColumns = { [K in keyof typeof patientColumns]: unknown };

const patientOf = (r: PatientColumns): ListPatient => ({
  uuid: r.p_id as string,
  first_name: r.p_first_name as string,
  last_name: r.p_last_name as string,
  preferred_name: r.p_preferred_name as string | null,
  home_phone: r.p_home_phone as string | null,
  mobile_phone: r.p_mobile_phone as string | null,
  work_phone: r.p_work_phone as string | null,
  email: r.p_email as string | null,
  receives_sms: Boolean(r.p_receives_sms),
  receives_email: Boolean(r.p_receives_email),
  preferred_contact_method: r.p_contact as ListPatient["preferred_contact_method"],
  preferred_confirmation_method: r.p_confirmation as ListPatient["preferred_confirmation_method"],
});

/** The total of a page whose rows carry it (a window count); an empty page past the end counts on its own. */
function* totalOf(rows: { total: number }[], count: () => Work<number>, page: number): Work<number> {
  if (rows.length) return rows[0]!.total;
  return page > 1 ? yield* count() : 0;
}

// ---------------------------------------------------------------- unscheduled treatment

/**
 * Planned work on no live appointment: a procedure not deleted, treatment_planned
 * or scheduled, whose appointment (if any) is archived, cancelled or broken.
 * Written on an alias so the page's procedure subquery can correlate.
 */
function plannedOf(db: TenantDb, cp: typeof chartedProcedures, q: UnscheduledTreatmentQuery, patient: typeof patients | null): SQL {
  const held = alias(appointments, `held_${cp === chartedProcedures ? "g" : "p"}`);
  const conds: (SQL | undefined)[] = [
    isNull(cp.deleted_at),
    inArray(cp.status, ["treatment_planned", "scheduled"]),
    or(
      isNull(cp.appointment_id),
      notExists(
        db
          .select({ one: sql`1` })
          .from(held)
          .where(and(eq(held.id, cp.appointment_id), isNull(held.deleted_at), notInArray(held.status, [...SLOT_FREEING_STATUSES]))),
      ),
    ),
  ];
  if (q.provider_uuid) {
    // the patient's primary provider stands in for a procedure that names none
    const primary = patient
      ? patient.primary_provider_id
      : sql`(SELECT ${patients.primary_provider_id} FROM ${patients} WHERE ${patients.id} = ${cp.patient_id})`;
    conds.push(sql`coalesce(${cp.provider_id}, ${primary}) = ${q.provider_uuid}`);
  }
  if (q.plan_status) {
    const statuses = q.plan_status.filter((s) => s !== "none");
    const link = alias(treatmentPlanProcedures, `link_${cp === chartedProcedures ? "g" : "p"}`);
    const plan = alias(treatmentPlans, `plan_${cp === chartedProcedures ? "g" : "p"}`);
    const inPlan = (extra?: SQL) =>
      db
        .select({ one: sql`1` })
        .from(link)
        .innerJoin(plan, eq(plan.id, link.treatment_plan_id))
        .where(and(eq(link.charted_procedure_id, cp.id), isNull(plan.deleted_at), extra));
    conds.push(
      or(statuses.length ? sql`EXISTS ${inPlan(inArray(plan.status, statuses))}` : undefined, q.plan_status.includes("none") ? notExists(inPlan()) : undefined),
    );
  }
  return and(...conds)!;
}

const feeOf = (cp: typeof chartedProcedures) => sql`coalesce(${cp.fee_override_cents}, ${cp.office_fee_cents})`;
const plannedOn = (cp: typeof chartedProcedures) => sql`coalesce(${cp.date_treatment_planned}, ${cp.date_service})`;

type ProcedureJson = {
  uuid: string;
  code: string;
  label: string | null;
  tooth_number: string | null;
  surfaces: string | null;
  status: "treatment_planned" | "scheduled";
  fee_cents: number;
  date_treatment_planned: string | null;
  planned_on: string;
  provider_uuid: string | null;
  treatment_plan: { uuid: string; name: string; status: string } | null;
};

type TreatmentPage = {
  rows: ReturnType<typeof groupedRows>["rows"];
  /** The rows' count, for a page past the end (which has no row to carry it). */
  count: () => Work<number>;
};

/**
 * The page of patients by grouping the planned work that matches per-procedure
 * filters (provider, plan status): every answer groups all of it (about 0.1 s
 * for 90,000 planned procedures), hence a kept read.
 */
function groupedRows(db: TenantDb, q: UnscheduledTreatmentQuery) {
  const cp = chartedProcedures;
  const total_cents = sql<number>`sum(${feeOf(cp)})`;
  const groups = db
    .select({
      patient_id: cp.patient_id,
      total_cents: total_cents.as("total_cents"),
      oldest: sql<string>`min(${plannedOn(cp)})`.as("oldest"),
      n: count().as("n"),
    })
    .from(cp)
    .where(plannedOf(db, cp, q, null))
    .groupBy(cp.patient_id)
    .having(
      and(
        q.min_amount !== undefined ? gte(total_cents, centsFromNumber(q.min_amount)) : undefined,
        q.max_amount !== undefined ? lte(total_cents, centsFromNumber(q.max_amount)) : undefined,
      ),
    )
    .as("g");
  const order = q.sort === "date" ? [asc(groups.oldest), asc(groups.patient_id)] : [desc(groups.total_cents), asc(groups.patient_id)];
  const where = and(callable, q.location_uuid ? eq(patients.location_id, q.location_uuid) : undefined);
  const rows = limitToPage(
    db
      .select({
        patient_id: groups.patient_id,
        total_cents: groups.total_cents,
        oldest: groups.oldest,
        n: groups.n,
        total: sql<number>`count(*) OVER ()`.as("total"),
      })
      .from(groups)
      .innerJoin(patients, eq(patients.id, groups.patient_id))
      .where(where)
      .orderBy(...order),
    q,
  ).as("page");
  return { rows, groups, where };
}

function groupedPage(db: TenantDb, q: UnscheduledTreatmentQuery): TreatmentPage {
  const { rows, groups, where } = groupedRows(db, q);
  return {
    rows,
    *count() {
      const c = yield* get<{ n: number }>(db.select({ n: count() }).from(groups).innerJoin(patients, eq(patients.id, groups.patient_id)).where(where));
      return c?.n ?? 0;
    },
  };
}

/**
 * The page of patients from the totals the database keeps per patient
 * (unscheduled_treatment_totals, kept by triggers: db/tenant/charted-procedures.ts):
 * an index walk for the page and an index-only count, whatever the org's size.
 */
function* keptTotalsPage(db: TenantDb, q: UnscheduledTreatmentQuery): Work<TreatmentPage> {
  const T = unscheduledTreatmentTotals;
  const where = and(
    eq(T.callable, true),
    q.location_uuid ? eq(T.location_id, q.location_uuid) : undefined,
    q.min_amount !== undefined ? gte(T.total_cents, centsFromNumber(q.min_amount)) : undefined,
    q.max_amount !== undefined ? lte(T.total_cents, centsFromNumber(q.max_amount)) : undefined,
  );
  const total = (yield* get<{ n: number }>(db.select({ n: count() }).from(T).where(where)))?.n ?? 0;
  const order = q.sort === "date" ? [asc(T.oldest_planned), asc(T.patient_id)] : [desc(T.total_cents), asc(T.patient_id)];
  const rows = limitToPage(
    db
      .select({
        patient_id: T.patient_id,
        total_cents: T.total_cents,
        oldest: sql<string>`${T.oldest_planned}`.as("oldest"),
        n: sql<number>`${T.procedure_count}`.as("n"),
        total: sql<number>`${total}`.as("total"),
      })
      .from(T)
      .where(where)
      .orderBy(...order),
    q,
  ).as("page");
  return {
    rows: rows as unknown as TreatmentPage["rows"],
    *count() {
      return total;
    },
  };
}

/**
 * Patients with planned work on no live appointment, one row each with their
 * procedures and total: the planned procedures grouped per patient (on
 * charted_procedures_planned_idx), the callable ones at the home location
 * kept, ordered and cut to the page (from the kept per-patient totals unless a
 * per-procedure filter is asked); then each page row's procedures as JSON. A
 * page is a kept read: re-reads while the database is unchanged share one
 * computation.
 */
export async function listUnscheduledTreatment(ctx: OrgContext, q: UnscheduledTreatmentQuery): Promise<Page<UnscheduledTreatmentRow>> {
  if (q.min_amount !== undefined && q.max_amount !== undefined && q.max_amount < q.min_amount) {
    throw invalid(["query", "max_amount"], "Must not be below min_amount", "value_error", "invalid_range");
  }
  // the answer depends on nothing but the database: kept while it is unchanged (docs/decisions.md, kept reads)
  return ctx.db.readKept(`lists.unscheduled-treatment:${JSON.stringify(q)}`, function* (db) {
    // per-procedure filters group the planned work on the way; without them each patient's total is kept
    const page = q.provider_uuid !== undefined || q.plan_status !== undefined ? groupedPage(db, q) : yield* keptTotalsPage(db, q);
    const pg = page.rows;

    // the page's procedures, correlated on the page's patient (an alias renders as its name only: FROM names the table)
    // typed as the table: the helpers above take either (an alias keeps the columns)
    const pp = alias(chartedProcedures, "pp") as unknown as typeof chartedProcedures;
    const link = alias(treatmentPlanProcedures, "pp_link");
    const plan = alias(treatmentPlans, "pp_plan");
    const statuses = q.plan_status?.filter((s) => s !== "none") ?? [];
    const planRef = sql`(SELECT json_object('uuid', ${plan.id}, 'name', ${plan.name}, 'status', ${plan.status})
      FROM ${treatmentPlanProcedures} ${sql.identifier("pp_link")} INNER JOIN ${treatmentPlans} ${sql.identifier("pp_plan")} ON ${plan.id} = ${link.treatment_plan_id}
      WHERE ${link.charted_procedure_id} = ${pp.id} AND ${plan.deleted_at} IS NULL${statuses.length ? sql` AND ${inArray(plan.status, statuses)}` : sql``}
      ORDER BY ${plan.id} DESC LIMIT 1)`;
    const procedures = sql<string>`(SELECT json_group_array(json_object(
        'uuid', ${pp.id}, 'code', ${pp.procedure_code}, 'label', ${procedureCodes.short_name},
        'tooth_number', ${pp.tooth_number}, 'surfaces', ${pp.surfaces}, 'status', ${pp.status},
        'fee_cents', ${feeOf(pp)}, 'date_treatment_planned', ${pp.date_treatment_planned}, 'planned_on', ${plannedOn(pp)},
        'provider_uuid', ${pp.provider_id}, 'treatment_plan', json(${planRef})))
      FROM ${chartedProcedures} ${sql.identifier("pp")} LEFT JOIN ${procedureCodes} ON ${procedureCodes.id} = ${pp.procedure_code_id}
      WHERE ${pp.patient_id} = ${pg.patient_id} AND ${plannedOf(db, pp, q, patients)})`;
    const pageQuery = db
      .select({
        total_cents: pg.total_cents,
        oldest: pg.oldest,
        n: pg.n,
        total: pg.total,
        ...patientColumns,
        location_id: patients.location_id,
        primary_provider_id: patients.primary_provider_id,
        procedures,
      })
      .from(pg)
      .innerJoin(patients, eq(patients.id, pg.patient_id))
      .leftJoin(patientSchedulingPreferences, eq(patientSchedulingPreferences.patient_id, patients.id))
      .orderBy(...(q.sort === "date" ? [asc(pg.oldest), asc(pg.patient_id)] : [desc(pg.total_cents), asc(pg.patient_id)]));
    const rows = yield* all<
      PatientColumns & {
        total_cents: number;
        oldest: string | null;
        n: number;
        total: number;
        location_id: string | null;
        primary_provider_id: string | null;
        procedures: string;
      }
    >(pageQuery);
    const total = yield* totalOf(rows, () => page.count(), q.page);
    const items = rows.map((r): UnscheduledTreatmentRow => {
      const procs = (JSON.parse(r.procedures) as ProcedureJson[]).sort((a, b) => a.planned_on.localeCompare(b.planned_on) || a.uuid.localeCompare(b.uuid));
      return {
        patient: patientOf(r),
        location_uuid: r.location_id,
        primary_provider_uuid: r.primary_provider_id,
        procedures: procs.map((p) => ({
          uuid: p.uuid,
          code: p.code,
          label: p.label,
          tooth_number: p.tooth_number,
          surfaces: p.surfaces,
          status: p.status,
          fee: formatCents(p.fee_cents)!,
          date_treatment_planned: p.date_treatment_planned,
          provider_uuid: p.provider_uuid,
          treatment_plan: p.treatment_plan,
        })),
        procedure_count: r.n,
        total_fee: formatCents(r.total_cents)!,
        oldest_date_treatment_planned: r.oldest,
      };
    });
    return pageOf(items, total, q);
  });
}

// ---------------------------------------------------------------- appointment lists

/** 422 invalid_date_range unless date_from <= date_to and the range spans at most MAX_LIST_DAYS days (both counted). */
function checkRange(from: string, to: string): void {
  if (to < from) throw invalid(["query", "date_to"], "Must not be before date_from", "value_error", "invalid_date_range");
  if (epochDay(to) - epochDay(from) + 1 > MAX_LIST_DAYS) {
    throw invalid(["query", "date_to"], `At most ${MAX_LIST_DAYS} days from date_from, both counted`, "value_error", "invalid_date_range");
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;
const shiftIso = (wall: string, ms: number) => new Date(Date.parse(`${wall}Z`) + ms).toISOString();

/**
 * Appointments scheduled on the days from..to, each in its own location's wall
 * clock; the coarse UTC bounds (zones lie within ±14 h of UTC) let the
 * (status, start_utc) index narrow the scan.
 */
const onDays = (from: string, to: string) =>
  and(
    gte(appointments.scheduled_start, `${from}T00:00:00`),
    lte(appointments.scheduled_start, `${to}T23:59:59.999999999`),
    gte(appointments.start_utc, shiftIso(`${from}T00:00:00`, -DAY_MS)),
    lte(appointments.start_utc, shiftIso(`${to}T23:59:59`, DAY_MS)),
  );

const appointmentColumns = {
  a_id: appointments.id,
  a_status: appointments.status,
  a_start: appointments.scheduled_start,
  a_end: appointments.scheduled_end,
  a_fee: appointments.fee_cents,
  a_reason: appointments.status_reason,
  a_broken_at: appointments.broken_at,
  a_is_asap: appointments.is_asap,
  a_confirmation_status: appointments.confirmation_status,
  a_confirmation_method: appointments.confirmation_method,
  a_confirmation_recorded_at: appointments.confirmation_recorded_at,
  a_version: appointments.version,
  t_id: appointmentTypes.id,
  t_name: appointmentTypes.name,
  t_color: appointmentTypes.color,
  v_id: providers.id,
  v_first_name: providers.first_name,
  v_last_name: providers.last_name,
  v_title: providers.title,
  l_id: locations.id,
  l_name: locations.name,
  o_id: operatories.id,
  o_name: operatories.name,
  ...patientColumns,
  total: sql<number>`count(*) OVER ()`,
};
type AppointmentColumns = { [K in keyof typeof appointmentColumns]: any };

const appointmentOf = (r: AppointmentColumns): ListAppointment => ({
  uuid: r.a_id,
  status: r.a_status,
  scheduled_start: r.a_start,
  scheduled_end: r.a_end,
  appointment_type: { uuid: r.t_id, name: r.t_name, color: r.t_color },
  provider: { uuid: r.v_id, first_name: r.v_first_name, last_name: r.v_last_name, title: r.v_title },
  location: { uuid: r.l_id, name: r.l_name },
  operatory: r.o_id ? { uuid: r.o_id, name: r.o_name } : null,
  fee: formatCents(r.a_fee),
  status_reason: r.a_reason,
  broken_at: r.a_broken_at,
  is_asap: Boolean(r.a_is_asap),
  confirmation_status: r.a_confirmation_status,
  confirmation_method: r.a_confirmation_method,
  confirmation_recorded_at: r.a_confirmation_recorded_at,
  version: r.a_version,
});

/** One page of appointments matching `where` (with their patients' contact), in `order`. */
function* appointmentPage(db: TenantDb, where: SQL | undefined, order: SQL[], q: { page: number; page_size: number }): Work<Page<AppointmentListRow>> {
  const rows = yield* all<AppointmentColumns>(
    limitToPage(
      db
        .select(appointmentColumns)
        .from(appointments)
        .innerJoin(patients, eq(patients.id, appointments.patient_id))
        .innerJoin(appointmentTypes, eq(appointmentTypes.id, appointments.appointment_type_id))
        .innerJoin(providers, eq(providers.id, appointments.provider_id))
        .innerJoin(locations, eq(locations.id, appointments.location_id))
        .leftJoin(operatories, eq(operatories.id, appointments.operatory_id))
        .leftJoin(patientSchedulingPreferences, eq(patientSchedulingPreferences.patient_id, appointments.patient_id))
        .where(where)
        .orderBy(...order),
      q,
    ),
  );
  const total = yield* totalOf(
    rows,
    function* () {
      const c = yield* get<{ n: number }>(
        db.select({ n: count() }).from(appointments).innerJoin(patients, eq(patients.id, appointments.patient_id)).where(where),
      );
      return c?.n ?? 0;
    },
    q.page,
  );
  return pageOf(
    rows.map((r) => ({ appointment: appointmentOf(r), patient: patientOf(r) })),
    total,
    q,
  );
}

/**
 * Broken appointments (no-shows) of the days asked whose patient has not been
 * booked again since: no appointment of the patient, not archived, cancelled or
 * broken, created at or after the break (the ASAP list's rule). Newest first.
 */
export async function listBroken(ctx: OrgContext, q: BrokenListQuery): Promise<Page<AppointmentListRow>> {
  return ctx.db.read(function* (db) {
    const to = q.date_to ?? (yield* todayAt(db, q.location_uuid));
    const from = q.date_from ?? addDays(to, -BROKEN_DEFAULT_DAYS);
    checkRange(from, to);
    const rebooked = bookedAgainSince(db, sql`${appointments.broken_at}`);
    const where = and(
      eq(appointments.status, "broken"),
      isNull(appointments.deleted_at),
      onDays(from, to),
      callable,
      notExists(rebooked),
      q.location_uuid ? eq(appointments.location_id, q.location_uuid) : undefined,
      q.provider_uuid ? eq(appointments.provider_id, q.provider_uuid) : undefined,
    );
    return yield* appointmentPage(db, where, [desc(appointments.start_utc), desc(appointments.id)], q);
  });
}

/** Scheduled and confirmed appointments of the days asked, with their confirmation state and the patient's contact; by start. */
export async function listConfirmations(ctx: OrgContext, q: ConfirmationListQuery): Promise<Page<AppointmentListRow>> {
  return ctx.db.read(function* (db) {
    const from = q.date_from ?? q.date_to ?? addDays(yield* todayAt(db, q.location_uuid), 1);
    const to = q.date_to ?? from;
    checkRange(from, to);
    const where = and(
      inArray(appointments.status, [...EDITABLE_STATUSES]),
      isNull(appointments.deleted_at),
      onDays(from, to),
      callable,
      q.confirmation_status ? inArray(appointments.confirmation_status, q.confirmation_status) : undefined,
      q.location_uuid ? eq(appointments.location_id, q.location_uuid) : undefined,
      q.provider_uuid ? eq(appointments.provider_id, q.provider_uuid) : undefined,
    );
    return yield* appointmentPage(db, where, [asc(appointments.start_utc), asc(appointments.id)], q);
  });
}
