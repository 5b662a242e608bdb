import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { all, type Work } from "@/platform/db/work";
import { formatCents } from "@/platform/money";
import type { TenantDb } from "@/platform/records/context";
import { procedureLabel } from "@/domains/codes/dental-vocabulary";
import type { Appointment } from "./schemas";

// The charted procedures on appointments, as the appointment shows them
// (docs/scheduling/appointments.md, "Procedures on appointments"). Clinical puts
// them on and takes them off (clinical/appointment-procedures); scheduling only
// reads the table, and never imports clinical (clinical reacts to its moments).

export type OnAppointment = {
  id: string;
  appointment_id: string | null;
  procedure_code: string;
  description: string | null;
  tooth_number: string | null;
  surfaces: string | null;
  quadrant: string | null;
  arch: string | null;
  sextant: number | null;
  tooth_range: string | null;
  status: string;
  fee_cents: number;
};

/** The not-deleted procedures on each of the appointments, in charting order: one query for a whole page. */
export function* proceduresOn(db: TenantDb, appointmentIds: readonly string[]): Work<Map<string, OnAppointment[]>> {
  const out = new Map<string, OnAppointment[]>();
  if (!appointmentIds.length) return out;
  const t = chartedProcedures;
  const rows = yield* all<Omit<OnAppointment, "fee_cents"> & { fee_override_cents: number | null; office_fee_cents: number }>(
    db
      .select({
        id: t.id,
        appointment_id: t.appointment_id,
        procedure_code: t.procedure_code,
        description: procedureCodes.short_name,
        tooth_number: t.tooth_number,
        surfaces: t.surfaces,
        quadrant: t.quadrant,
        arch: t.arch,
        sextant: t.sextant,
        tooth_range: t.tooth_range,
        status: t.status,
        fee_override_cents: t.fee_override_cents,
        office_fee_cents: t.office_fee_cents,
      })
      .from(t)
      .leftJoin(procedureCodes, eq(procedureCodes.id, t.procedure_code_id))
      .where(and(inArray(t.appointment_id, [...appointmentIds]), isNull(t.deleted_at)))
      .orderBy(asc(t.id)),
  );
  for (const r of rows) {
    const list = out.get(r.appointment_id!) ?? [];
    list.push({ ...r, fee_cents: r.fee_override_cents ?? r.office_fee_cents });
    out.set(r.appointment_id!, list);
  }
  return out;
}

/** What an appointment answer shows of its procedures: each one, and production (their effective fees summed). */
export function shownProcedures(list: readonly OnAppointment[] = []): Pick<Appointment, "procedures" | "production"> {
  return {
    procedures: list.map((p) => ({
      uuid: p.id,
      name: procedureLabel(p),
      procedure_code: p.procedure_code,
      description: p.description,
      status: p.status as Appointment["procedures"][number]["status"],
      fee: formatCents(p.fee_cents)!,
    })),
    production: formatCents(list.reduce((sum, p) => sum + p.fee_cents, 0))!,
  };
}
