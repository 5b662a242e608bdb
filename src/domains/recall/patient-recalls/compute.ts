import { and, asc, eq, gte, inArray, isNull, max } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { patients } from "@db/tenant/patients";
import { patientRecalls, type RecallInterval } from "@db/tenant/recall";
import { all, get, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import { todayAt } from "@/domains/providers/locations/service";
import { intervalOf, type RecallTypeRow } from "@/domains/recall/types/service";
import type { RecallStatus } from "./schemas";

// The rules of a recall's computed fields (docs/recall/recall.md, "How a
// recall is worked out"): one place, used by every write that changes a
// recall's inputs (in its own transaction, so the answer is current) and by the
// recompute job.

export type PatientRecallRow = typeof patientRecalls.$inferSelect;

/** Statuses of a procedure that is done: its date of service is the recall's previous date. */
export const DONE_STATUSES = ["complete", "complete_referred"] as const;
/** Statuses of a procedure still to be done, which an appointment may hold. */
export const PENDING_STATUSES = ["treatment_planned", "scheduled", "in_progress"] as const;
/** Appointments that are still going to happen. */
export const LIVE_APPOINTMENT_STATUSES = ["scheduled", "confirmed", "arrived"] as const;
/** The seeded kinds a live, enabled perio recall replaces. */
export const PROPHY_KINDS = ["prophy", "child_prophy"];
/** The seeded kinds a patient gets by themselves, when a trigger of theirs that is not an exam is first completed. */
export const AUTOMATIC_KINDS = ["prophy", "child_prophy", "perio"];

/** What a patient's recalls are computed from, read once per patient. */
export type PatientFacts = {
  patientId: string;
  locationId: string | null;
  archived: boolean;
  /** Today at the patient's location (UTC without one). */
  today: string;
  /** The four aging buckets, in cents. */
  balanceCents: number;
  /** Per procedure code: the latest date of service of a completed, live procedure. */
  lastDone: Map<string, string>;
  /** Procedures still to be done on live appointments from today on, the earliest first. */
  scheduled: { appointmentId: string; date: string; codeId: string }[];
};

export type Computed = Pick<PatientRecallRow, "date_previous" | "date_due" | "date_scheduled" | "scheduled_appointment_id" | "status">;

/** `date` plus an interval: months, then weeks, then days (the 31st plus a month is the month's last day). */
export function addInterval(date: string, i: RecallInterval): string {
  return Temporal.PlainDate.from(date).add({ months: i.months }).add({ weeks: i.weeks, days: i.days }).toString();
}

export function* factsOf(db: TenantDb, patientId: string): Work<PatientFacts | null> {
  const p = yield* get<{
    id: string;
    location_id: string | null;
    deleted_at: string | null;
    b0: number;
    b1: number;
    b2: number;
    b3: number;
  }>(
    db
      .select({
        id: patients.id,
        location_id: patients.location_id,
        deleted_at: patients.deleted_at,
        b0: patients.balance_0_30_cents,
        b1: patients.balance_31_60_cents,
        b2: patients.balance_61_90_cents,
        b3: patients.balance_over_90_cents,
      })
      .from(patients)
      .where(eq(patients.id, patientId)),
  );
  if (!p) return null;
  const today = yield* todayAt(db, p.location_id);
  const done = yield* all<{ code: string; last: string | null }>(
    db
      .select({ code: chartedProcedures.procedure_code_id, last: max(chartedProcedures.date_service) })
      .from(chartedProcedures)
      .where(and(eq(chartedProcedures.patient_id, patientId), isNull(chartedProcedures.deleted_at), inArray(chartedProcedures.status, [...DONE_STATUSES])))
      .groupBy(chartedProcedures.procedure_code_id),
  );
  const scheduled = yield* all<{ appointmentId: string; start: string; codeId: string }>(
    db
      .select({ appointmentId: appointments.id, start: appointments.scheduled_start, codeId: chartedProcedures.procedure_code_id })
      .from(chartedProcedures)
      .innerJoin(appointments, eq(appointments.id, chartedProcedures.appointment_id))
      .where(
        and(
          eq(chartedProcedures.patient_id, patientId),
          isNull(chartedProcedures.deleted_at),
          inArray(chartedProcedures.status, [...PENDING_STATUSES]),
          eq(appointments.patient_id, patientId),
          isNull(appointments.deleted_at),
          inArray(appointments.status, [...LIVE_APPOINTMENT_STATUSES]),
          gte(appointments.scheduled_start, today),
        ),
      )
      .orderBy(asc(appointments.scheduled_start), asc(appointments.id)),
  );
  return {
    patientId,
    locationId: p.location_id,
    archived: !!p.deleted_at,
    today,
    balanceCents: p.b0 + p.b1 + p.b2 + p.b3,
    lastDone: new Map(done.flatMap((d) => (d.last ? [[d.code, d.last] as [string, string]] : []))),
    scheduled: scheduled.map((s) => ({ appointmentId: s.appointmentId, date: s.start.slice(0, 10), codeId: s.codeId })),
  };
}

/** The inputs of one recall (a row, or one about to be written). */
export type RecallInputs = Pick<
  PatientRecallRow,
  "interval_override" | "date_due_override" | "is_disabled" | "disable_until_date" | "disable_until_balance_cents" | "created_at"
>;

/** The latest completed trigger of the type, or null. */
export function previousOf(type: RecallTypeRow, f: PatientFacts): string | null {
  let last: string | null = null;
  for (const id of type.trigger_procedure_code_ids) {
    const d = f.lastDone.get(id);
    if (d && (!last || d > last)) last = d;
  }
  return last;
}

/** Whether the rules disable the recall today. `perioActive`: the patient has a live perio recall that is not switched off. */
export function isDisabled(r: RecallInputs, type: RecallTypeRow, f: PatientFacts, perioActive: boolean): boolean {
  if (r.is_disabled) return true;
  if (r.disable_until_date && f.today < r.disable_until_date) return true;
  if (r.disable_until_balance_cents !== null && f.balanceCents > r.disable_until_balance_cents) return true;
  return !type.is_perio && PROPHY_KINDS.includes(type.seed_key ?? "") && perioActive;
}

export function computeRecall(r: RecallInputs, type: RecallTypeRow, f: PatientFacts, perioActive: boolean): Computed {
  const previous = previousOf(type, f);
  const interval = r.interval_override ?? intervalOf(type);
  // never done and no override: due from the day the recall was made
  const due = r.date_due_override ?? (previous ? addInterval(previous, interval) : r.created_at.slice(0, 10));
  const triggers = new Set(type.trigger_procedure_code_ids);
  const next = f.scheduled.find((s) => triggers.has(s.codeId)) ?? null;
  const status: RecallStatus = isDisabled(r, type, f, perioActive) ? "disabled" : next ? "scheduled" : due < f.today ? "overdue" : "due";
  return { date_previous: previous, date_due: due, date_scheduled: next?.date ?? null, scheduled_appointment_id: next?.appointmentId ?? null, status };
}

export const sameComputed = (a: Computed, b: Computed) =>
  a.date_previous === b.date_previous &&
  a.date_due === b.date_due &&
  a.date_scheduled === b.date_scheduled &&
  a.scheduled_appointment_id === b.scheduled_appointment_id &&
  a.status === b.status;

/** Whether the patient's live recalls include a perio one that is not switched off (is_disabled). */
export function perioActiveIn(
  recalls: { recall_type_id: string; is_disabled: boolean; deleted_at: string | null }[],
  types: Map<string, RecallTypeRow>,
): boolean {
  return recalls.some((r) => !r.deleted_at && !r.is_disabled && types.get(r.recall_type_id)?.is_perio);
}

/** Per automatic type (AUTOMATIC_KINDS, not archived): the trigger codes that start it (those that are not exams: category diagnostic). */
export function* startingCodes(db: TenantDb, types: RecallTypeRow[]): Work<Map<string, Set<string>>> {
  const auto = types.filter((t) => !t.archived_at && AUTOMATIC_KINDS.includes(t.seed_key ?? ""));
  const ids = [...new Set(auto.flatMap((t) => t.trigger_procedure_code_ids))];
  const codes = ids.length
    ? yield* all<{ id: string; category: string }>(
        db.select({ id: procedureCodes.id, category: procedureCodes.category }).from(procedureCodes).where(inArray(procedureCodes.id, ids)),
      )
    : [];
  const exam = new Set(codes.filter((c) => c.category === "diagnostic").map((c) => c.id));
  return new Map(auto.map((t) => [t.id, new Set(t.trigger_procedure_code_ids.filter((id) => !exam.has(id)))]));
}

/** Every recall of the patient, deleted ones too (a deleted recall is never started again by itself). */
export function* recallsOfPatient(db: TenantDb, patientId: string): Work<PatientRecallRow[]> {
  return yield* all<PatientRecallRow>(db.select().from(patientRecalls).where(eq(patientRecalls.patient_id, patientId)).orderBy(asc(patientRecalls.id)));
}
