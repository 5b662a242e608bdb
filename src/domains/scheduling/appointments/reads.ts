import { and, count, desc, eq, gt, gte, inArray, isNull, lte, ne, notExists, notInArray, or, sql, type SQL } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { appointments } from "@db/tenant/appointments";
import { patients } from "@db/tenant/patients";
import { ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { pageFrom, type Paging } from "@/platform/records/paging";
import { toZoned, utcIso } from "@/platform/time/zoned";
import { patientRecords } from "@/domains/patients/record/service";
import { readOne, serializeAll, withRefs } from "./records";
import {
  ASAP_KINDS,
  EDITABLE_STATUSES,
  SLOT_FREEING_STATUSES,
  type Appointment,
  type AppointmentListQuery,
  type AsapListQuery,
  type PatientAppointmentsQuery,
} from "./schemas";

export async function getAppointment(ctx: OrgContext, id: string): Promise<Appointment> {
  return ctx.db.read((db) => readOne(db, id));
}

/**
 * Range bounds. A date or a local date-time compares with the stored wall clock
 * (so a date means that day in each appointment's own location zone); a value
 * with an offset compares with the UTC start. The coarse UTC bound on local
 * values (zones lie within ±14 h of UTC) lets the start_utc indexes narrow the scan.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
const isDate = (v: string) => v.length === 10;
const hasOffset = (v: string) => /(Z|[+-]\d{2}:\d{2})$/i.test(v);
const shiftIso = (wall: string, ms: number) => new Date(Date.parse(`${wall}Z`) + ms).toISOString();

function rangeConditions(q: AppointmentListQuery): SQL[] {
  const conds: SQL[] = [];
  if (q.date_from) {
    if (hasOffset(q.date_from)) conds.push(gte(appointments.start_utc, utcIso(toZoned(q.date_from, "UTC", ["query", "date_from"]))));
    else {
      const wall = isDate(q.date_from) ? `${q.date_from}T00:00:00` : Temporal.PlainDateTime.from(q.date_from).toString();
      conds.push(gte(appointments.scheduled_start, wall), gte(appointments.start_utc, shiftIso(wall.slice(0, 19), -DAY_MS)));
    }
  }
  if (q.date_to) {
    if (hasOffset(q.date_to)) conds.push(lte(appointments.start_utc, utcIso(toZoned(q.date_to, "UTC", ["query", "date_to"]))));
    else {
      // a date is inclusive: everything before the next day's midnight
      const wall = isDate(q.date_to) ? `${q.date_to}T23:59:59.999999999` : Temporal.PlainDateTime.from(q.date_to).toString();
      conds.push(lte(appointments.scheduled_start, wall), lte(appointments.start_utc, shiftIso(wall.slice(0, 19), DAY_MS)));
    }
  }
  if (q.date_from && q.date_to && isDate(q.date_from) && isDate(q.date_to) && q.date_to < q.date_from) {
    throw new ValidationFailed([{ loc: ["query", "date_to"], msg: "Must not be before date_from", type: "value_error" }]);
  }
  return conds;
}

export async function listAppointments(ctx: OrgContext, q: AppointmentListQuery) {
  const conds: (SQL | undefined)[] = [
    isNull(appointments.deleted_at),
    ...rangeConditions(q),
    q.location_uuid ? eq(appointments.location_id, q.location_uuid) : undefined,
    q.provider_uuid ? eq(appointments.provider_id, q.provider_uuid) : undefined,
    q.operatory_uuid ? eq(appointments.operatory_id, q.operatory_uuid) : undefined,
    q.patient_uuid ? eq(appointments.patient_id, q.patient_uuid) : undefined,
    q.status ? inArray(appointments.status, q.status) : undefined,
  ];
  return ctx.db.read((db) => pageWhere(db, and(...conds), [appointments.start_utc, appointments.id], q));
}

/** One page of appointments matching `where`, with their references. */
function* pageWhere(db: TenantDb, where: SQL | undefined, orderBy: (SQL | SQLiteColumn)[], q: Paging) {
  const page = yield* pageFrom(
    q,
    db.select({ n: count() }).from(appointments).where(where),
    withRefs(db)
      .where(where)
      .orderBy(...orderBy),
  );
  return { ...page, items: yield* serializeAll(db, page.items) };
}

/** A patient's appointments, newest first; archived patients keep their history (404 only when unknown). */
export async function listPatientAppointments(ctx: OrgContext, patientId: string, q: PatientAppointmentsQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientRecords.require(db, patientId, true);
    const where = and(isNull(appointments.deleted_at), eq(appointments.patient_id, patient.id), q.status ? inArray(appointments.status, q.status) : undefined);
    return yield* pageWhere(db, where, [desc(appointments.start_utc), desc(appointments.id)], q);
  });
}

/**
 * The ASAP / unscheduled list (docs/scheduling/appointments.md): appointments flagged is_asap
 * that are scheduled or confirmed and still ahead, plus cancelled and broken ones
 * whose patient has not been booked again since (no appointment that is not
 * cancelled or broken created at or after the cancellation). Archived and
 * deceased patients are left out: nobody should call them. Ordered by start.
 */
/**
 * The subquery "the appointment's patient was booked again since `since`": an
 * appointment of theirs, not archived, cancelled or broken, created at or after
 * it (the ASAP list's rule for freed appointments, and the broken list's).
 */
export function bookedAgainSince(db: TenantDb, since: SQL) {
  const later = alias(appointments, "later");
  return db
    .select({ one: sql`1` })
    .from(later)
    .where(
      and(
        eq(later.patient_id, appointments.patient_id),
        ne(later.id, appointments.id),
        isNull(later.deleted_at),
        notInArray(later.status, [...SLOT_FREEING_STATUSES]),
        gte(later.created_at, since),
      ),
    );
}

export async function listAsap(ctx: OrgContext, q: AsapListQuery) {
  const kinds = new Set(q.kind ?? ASAP_KINDS);
  const freed = (["cancelled", "broken"] as const).filter((k) => kinds.has(k));
  return ctx.db.read(function* (db) {
    const rebooked = bookedAgainSince(db, sql`coalesce(${appointments.cancelled_at}, ${appointments.broken_at})`);
    const reachable = db
      .select({ id: patients.id })
      .from(patients)
      .where(and(isNull(patients.deleted_at), ne(patients.status, "deceased")));
    const where = and(
      isNull(appointments.deleted_at),
      or(
        kinds.has("asap")
          ? and(eq(appointments.is_asap, true), inArray(appointments.status, [...EDITABLE_STATUSES]), gt(appointments.start_utc, new Date().toISOString()))
          : undefined,
        freed.length ? and(inArray(appointments.status, freed), notExists(rebooked)) : undefined,
      ),
      inArray(appointments.patient_id, reachable),
      q.location_uuid ? eq(appointments.location_id, q.location_uuid) : undefined,
      q.provider_uuid ? eq(appointments.provider_id, q.provider_uuid) : undefined,
    );
    return yield* pageWhere(db, where, [appointments.start_utc, appointments.id], q);
  });
}
