import { and, asc, count, eq, gt, isNotNull, isNull, lte, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { patientConditions } from "@db/tenant/conditions";
import { toothStatuses } from "@db/tenant/tooth-statuses";
import { all, type Work } from "@/platform/db/work";
import type { OrgContext } from "@/platform/records/context";
import { serializeProcedures } from "@/domains/clinical/charted-procedures/service";
import { presentConditions } from "@/domains/clinical/conditions/service";
import { patientForRead } from "@/domains/patients/record/scope";
import { presentToothStatuses, type ToothRow } from "@/domains/clinical/tooth-chart/service";
import { byTooth } from "@/domains/clinical/tooth-chart/teeth";
import { TIMELINE_SOURCES, type ChartAtDate, type TimelineEvent, type TimelineSource } from "./schemas";

// How the chart looked on a past date, and the dates on which it changed
// (docs/clinical/chart-history.md). Reads only: the tables belong to the tooth chart,
// charted procedures and conditions.

const T = toothStatuses;
const P = chartedProcedures;
const C = patientConditions;

/** Entry order of a tooth's records: the later entry supersedes the earlier (created_at, then the tooth's version). */
const entered = (a: ToothRow, b: ToothRow) => a.created_at.localeCompare(b.created_at) || a.version - b.version || a.id.localeCompare(b.id);

/**
 * Per tooth, the record in effect on `date`: of the tooth's records with
 * effective_date on or before the date (superseded ones included), the one
 * entered last. When that one was deleted, the tooth had left the chart: no entry.
 */
export function inEffectOn(rows: ToothRow[], date: string): ToothRow[] {
  const last = new Map<string, ToothRow>();
  for (const r of rows.filter((x) => x.effective_date <= date).sort(entered)) last.set(r.tooth_number, r);
  return [...last.values()].filter((r) => !r.deleted_at).sort(byTooth);
}

export async function chartAtDate(ctx: OrgContext, patientId: string, date: string): Promise<ChartAtDate> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const teeth = yield* all(
      db
        .select()
        .from(T)
        .where(and(eq(T.patient_id, patient.id), lte(T.effective_date, date))),
    );
    const procedures = yield* all(
      db
        .select()
        .from(P)
        .where(and(eq(P.patient_id, patient.id), isNull(P.deleted_at), lte(P.date_service, date)))
        .orderBy(asc(P.date_service), asc(P.created_at), asc(P.id)),
    );
    const conditions = yield* all(
      db
        .select()
        .from(C)
        .where(and(eq(C.patient_id, patient.id), isNull(C.deleted_at), lte(C.date_identified, date), or(isNull(C.date_resolved), gt(C.date_resolved, date))))
        .orderBy(asc(C.date_identified), asc(C.id)),
    );
    return {
      snapshot_date: date,
      tooth_statuses: yield* presentToothStatuses(db, patient, inEffectOn(teeth, date)),
      charted_procedures: yield* serializeProcedures(db, procedures),
      patient_conditions: yield* presentConditions(db, patient, conditions),
    };
  });
}

/** Dates on which the at-date answer can change, oldest first, with what happened per source. */
export async function chartTimeline(ctx: OrgContext, patientId: string): Promise<{ events: TimelineEvent[]; total: number }> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const perDay = (table: SQLiteTable, date: SQLiteColumn, where: SQL | undefined) =>
      all(db.select({ date, n: count() }).from(table).where(where).groupBy(date)) as Work<{ date: string; n: number }[]>;
    const sources: [TimelineSource, { date: string; n: number }[]][] = [
      ["tooth_statuses", yield* perDay(T, T.effective_date, eq(T.patient_id, patient.id))],
      ["procedures", yield* perDay(P, P.date_service, and(eq(P.patient_id, patient.id), isNull(P.deleted_at)))],
      ["conditions", yield* perDay(C, C.date_identified, and(eq(C.patient_id, patient.id), isNull(C.deleted_at)))],
      ["conditions_resolved", yield* perDay(C, C.date_resolved, and(eq(C.patient_id, patient.id), isNull(C.deleted_at), isNotNull(C.date_resolved)))],
    ];
    const days = new Map<string, TimelineEvent>();
    for (const [source, rows] of sources) {
      for (const { date, n } of rows) {
        const ev = days.get(date) ?? { date, counts: Object.fromEntries(TIMELINE_SOURCES.map((s) => [s, 0])) as TimelineEvent["counts"] };
        ev.counts[source] = n;
        days.set(date, ev);
      }
    }
    const events = [...days.values()].sort((a, b) => a.date.localeCompare(b.date));
    return { events, total: events.length };
  });
}
