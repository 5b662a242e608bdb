import { and, asc, count, eq, gt, isNotNull, isNull, lte, ne, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { patientConditions } from "@db/tenant/conditions";
import { toothStatuses } from "@db/tenant/tooth-statuses";
import { all, type Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { serializeProcedures, type ProcedureRow } from "@/domains/clinical/charted-procedures/service";
import { presentConditions } from "@/domains/clinical/conditions/service";
import { patientForRead } from "@/domains/patients/record/scope";
import { currentRecords, presentToothStatuses, type ToothRow } from "@/domains/clinical/tooth-chart/service";
import { byTooth } from "@/domains/clinical/tooth-chart/teeth";
import { TIMELINE_SOURCES, type ChartAtDate, type TimelineEvent, type TimelineSource } from "./schemas";

// How the chart looked on a past date, and the dates on which it changed
// (docs/clinical/chart-history.md). Reads only: the tables belong to the tooth chart,
// charted procedures and conditions.

const T = toothStatuses;
const P = chartedProcedures;
const C = patientConditions;
type ConditionRow = typeof patientConditions.$inferSelect;

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

export type ChartRows = { teeth: ToothRow[]; procedures: ProcedureRow[]; conditions: ConditionRow[] };

/**
 * The chart's records as of `date` (tooth records in effect, procedures dated
 * on or before it, conditions identified by then and unresolved at it), or
 * as it is now when `date` is null (current tooth records, every live
 * procedure, conditions not resolved). The at-date answer and the chart
 * pictures read through here.
 */
export function* chartRows(db: TenantDb, patientId: string, date: string | null): Work<ChartRows> {
  const teeth = date
    ? inEffectOn(
        yield* all(
          db
            .select()
            .from(T)
            .where(and(eq(T.patient_id, patientId), lte(T.effective_date, date))),
        ),
        date,
      )
    : (yield* currentRecords(db, patientId)).sort(byTooth);
  const procedures = yield* all(
    db
      .select()
      .from(P)
      .where(and(eq(P.patient_id, patientId), isNull(P.deleted_at), date ? lte(P.date_service, date) : undefined))
      .orderBy(asc(P.date_service), asc(P.created_at), asc(P.id)),
  );
  const unresolved = date ? and(lte(C.date_identified, date), or(isNull(C.date_resolved), gt(C.date_resolved, date))) : ne(C.status, "resolved");
  const conditions = yield* all(
    db
      .select()
      .from(C)
      .where(and(eq(C.patient_id, patientId), isNull(C.deleted_at), unresolved))
      .orderBy(asc(C.date_identified), asc(C.id)),
  );
  return { teeth, procedures, conditions };
}

export async function chartAtDate(ctx: OrgContext, patientId: string, date: string): Promise<ChartAtDate> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const rows = yield* chartRows(db, patient.id, date);
    return {
      snapshot_date: date,
      tooth_statuses: yield* presentToothStatuses(db, patient, rows.teeth),
      charted_procedures: yield* serializeProcedures(db, rows.procedures),
      patient_conditions: yield* presentConditions(db, patient, rows.conditions),
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
