import { and, eq, inArray, ne, or, type SQL } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { patientAlerts } from "@db/tenant/medical-history";
import { all, type Work } from "@/platform/db/work";
import { ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PatientRow } from "@/domains/patients/record/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { patientChild } from "./patient-records";
import { personName } from "@/platform/records/refs";
import type { Alert, AlertCreate, AlertListQuery, AlertPatch } from "./schemas";
import { familyWhere, guarantorOf } from "@/domains/patients/record/family";

type AlertRow = typeof patientAlerts.$inferSelect;

const alerts = patientChild<AlertRow>({ table: patientAlerts, name: "patient_alert", label: "Alert" });

function serializeAlert(r: AlertRow, ownerName: string): Alert {
  return {
    id: r.id,
    patient: { uuid: r.patient_id, name: ownerName },
    title: r.title,
    description: r.description,
    category: r.category as Alert["category"],
    severity: r.severity as Alert["severity"],
    scope: r.scope as Alert["scope"],
    status: r.status as Alert["status"],
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

/**
 * The other members of the patient's family: the guarantor (the patient's
 * responsible party, or the patient itself when it has none) and every patient
 * whose responsible party is that guarantor. Archived patients are left out.
 */
function* otherFamilyMembers(db: TenantDb, patient: PatientRow): Work<{ id: string; first_name: string; last_name: string }[]> {
  const guarantor = guarantorOf(patient);
  return yield* all(
    db
      .select({ id: patients.id, first_name: patients.first_name, last_name: patients.last_name })
      .from(patients)
      .where(and(familyWhere(guarantor), ne(patients.id, patient.id))),
  );
}

export async function listAlerts(ctx: OrgContext, patientId: string, q: AlertListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const names = new Map([[patient.id, personName(patient)]]);
    let owners: SQL = eq(patientAlerts.patient_id, patient.id);
    if (q.include_family) {
      const family = yield* otherFamilyMembers(db, patient);
      for (const m of family) names.set(m.id, personName(m));
      if (family.length) {
        owners = or(
          owners,
          and(
            inArray(
              patientAlerts.patient_id,
              family.map((m) => m.id),
            ),
            eq(patientAlerts.scope, "family"),
          ),
        )!;
      }
    }
    // archived <=> status archived: they are listed only when asked for
    const status = q.status ? eq(patientAlerts.status, q.status) : ne(patientAlerts.status, "archived");
    const page = yield* alerts.records.list(db, q, { where: [owners, status], orderBy: [patientAlerts.id], includeDeleted: true });
    return { ...page, items: page.items.map((r) => serializeAlert(r, names.get(r.patient_id)!)) };
  });
}

/** Archived alerts stay readable by id (they are listed with status=archived). */
export async function getAlert(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    return serializeAlert(yield* alerts.require(db, patient, id, true), personName(patient));
  });
}

export async function createAlert(ctx: OrgContext, patientId: string, input: AlertCreate) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const row = yield* alerts.create(s, patient, input);
    return serializeAlert(row, personName(patient));
  });
}

const archivedRule = (msg: string, code: string) => new ValidationFailed([{ loc: ["path", "alert_uuid"], msg, type: code }], code);

export async function updateAlert(ctx: OrgContext, patientId: string, id: string, input: AlertPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* alerts.require(s.tx, patient, id, true);
    if (before.deleted_at) throw archivedRule("Archived alerts are read-only", "alert_archived");
    const row = yield* alerts.update(s, patient, before, base_version, patch);
    return serializeAlert(row, personName(patient));
  });
}

export async function archiveAlert(ctx: OrgContext, patientId: string, id: string) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* alerts.require(s.tx, patient, id, true);
    if (before.deleted_at) throw archivedRule("Alert is already archived", "invalid_transition");
    const row = yield* alerts.update(s, patient, before, undefined, { status: "archived", deleted_at: s.now }, "archived");
    return serializeAlert(row, personName(patient));
  });
}
