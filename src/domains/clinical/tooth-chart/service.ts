import { and, desc, eq, isNull, max } from "drizzle-orm";
import { toothStatuses } from "@db/tenant/tooth-statuses";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { all, get, run, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { audit } from "@/platform/audit/audit";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { idsOf, nameSource, namesOf, personRef, ref, type Names } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { addDays } from "@/platform/time/dates";
import { todayAt } from "@/domains/providers/locations/service";
import type { PatientRow } from "@/domains/patients/record/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { ageDentition, ageInMonths } from "./eruption";
import { chartTooth } from "@/domains/codes/dental-vocabulary";
import { byTooth, SUCCESSOR } from "./teeth";
import type { SeedResult, ToothStatus, ToothStatusPut, ToothTransition } from "./schemas";
import type { z } from "zod";

export type ToothRow = typeof toothStatuses.$inferSelect;
const T = toothStatuses;

/** Everything a new record says about its tooth (ids, version and timestamps are added on insert). */
export type ToothValues = Omit<ToothRow, "id" | "patient_id" | "tooth_number" | "superseded_at" | "deleted_at" | "version" | "created_at" | "updated_at">;

const DEFAULTS = {
  note: "",
  charted_procedure_id: null,
  ectopic_slot_index: null,
  eruption_pct: null,
  eruption_stage: null,
  impaction_angle: null,
  impaction_depth: null,
  root_completion: null,
  scale_factor: 1,
  transposition_with: null,
  rotate: 0,
  shift_b: 0,
  shift_m: 0,
  shift_o: 0,
  tip_b: 0,
  tip_m: 0,
} satisfies Partial<ToothValues>;
/** How a tooth is drawn: kept when only its status changes (transitions). */
const PLACEMENT = ["ectopic_slot_index", "scale_factor", "transposition_with", "rotate", "shift_b", "shift_m", "shift_o", "tip_b", "tip_m"] as const;

/** A linked charted procedure is named by its procedure code (deleted ones too). */
const PROCEDURE_CODE_NAMES = nameSource(chartedProcedures.id, { procedure_code: chartedProcedures.procedure_code }, (r) => r.procedure_code);

function serialize(r: ToothRow, patient: PatientRow, procedureCodes: Names): ToothStatus {
  return {
    id: r.id,
    patient: personRef(patient),
    tooth_number: r.tooth_number,
    status: r.status as ToothStatus["status"],
    effective_date: r.effective_date,
    note: r.note,
    source: r.source as ToothStatus["source"],
    charted_procedure: ref(r.charted_procedure_id, procedureCodes),
    transposition_with: r.transposition_with,
    ectopic_slot_index: r.ectopic_slot_index,
    eruption_pct: r.eruption_pct,
    eruption_stage: r.eruption_stage as ToothStatus["eruption_stage"],
    impaction_angle: r.impaction_angle as ToothStatus["impaction_angle"],
    impaction_depth: r.impaction_depth as ToothStatus["impaction_depth"],
    root_completion: r.root_completion,
    scale_factor: r.scale_factor,
    rotate: r.rotate,
    shift_b: r.shift_b,
    shift_m: r.shift_m,
    shift_o: r.shift_o,
    tip_b: r.tip_b,
    tip_m: r.tip_m,
    superseded_at: r.superseded_at,
    deleted_at: r.deleted_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Tooth status records as the API shows them (also for other domains' answers, e.g. the chart at a date). */
export function* presentToothStatuses(db: TenantDb, patient: PatientRow, rows: ToothRow[]): Work<ToothStatus[]> {
  const codes = yield* namesOf(
    db,
    PROCEDURE_CODE_NAMES,
    idsOf(rows, (r) => r.charted_procedure_id),
  );
  return rows.map((r) => serialize(r, patient, codes));
}

/** A chart date may be at most one day ahead of the practice's today (as patients' dates of birth). */
export function checkNotFuture(date: string | undefined, today: string, loc: (string | number)[]): void {
  if (date && date > addDays(today, 1)) throw invalid(loc, "Cannot be in the future", "value_error");
}

const isCurrent = and(isNull(T.superseded_at), isNull(T.deleted_at));

export function* currentRecords(db: TenantDb, patientId: string): Work<ToothRow[]> {
  return yield* all(
    db
      .select()
      .from(T)
      .where(and(eq(T.patient_id, patientId), isCurrent)),
  );
}

/**
 * For this domain and others charting in their own transaction (e.g. a completed
 * extraction): supersede the tooth's current record with a new one. The new
 * record's version is the tooth's highest version + 1; with `expectedVersion`
 * the current record must be at that version (0: there must be none), else 409.
 */
export function* writeToothStatus(
  s: TxScope,
  patientId: string,
  tooth: string,
  values: ToothValues,
  opts: { action: string; expectedVersion?: number },
): Work<{ row: ToothRow; previous: ToothRow | undefined }> {
  const current = yield* get(
    s.tx
      .select()
      .from(T)
      .where(and(eq(T.patient_id, patientId), eq(T.tooth_number, tooth), isCurrent)),
  );
  checkVersion(current ?? { version: 0 }, opts.expectedVersion);
  if (current) yield* run(s.tx.update(T).set({ superseded_at: s.now, updated_at: s.now }).where(eq(T.id, current.id)));
  const top = yield* get(
    s.tx
      .select({ v: max(T.version) })
      .from(T)
      .where(and(eq(T.patient_id, patientId), eq(T.tooth_number, tooth))),
  );
  const row = (yield* get(
    s.tx
      .insert(T)
      .values({
        ...values,
        id: newId(),
        patient_id: patientId,
        tooth_number: tooth,
        version: (top?.v ?? 0) + 1,
        created_at: s.now,
        updated_at: s.now,
      })
      .returning(),
  ))!;
  yield* audit(s, { action: `tooth_status.${opts.action}`, resource_type: "tooth_status", resource_id: row.id, before: current ?? null, after: row });
  return { row, previous: current };
}

const RECORD_KEYS = new Set(["id", "patient_id", "tooth_number", "version", "created_at", "updated_at", "superseded_at", "deleted_at"]);
/** What changed on the tooth (event data): against its previous record, or the defaults for a first record. */
const changedFields = (before: ToothRow | undefined, after: ToothRow) => {
  const base: Record<string, unknown> = before ?? DEFAULTS;
  return Object.keys(after).filter((k) => !RECORD_KEYS.has(k) && base[k] !== after[k as keyof ToothRow]);
};

/** 404 unless the charted procedure exists, is not deleted and is this patient's. */
function* requireChartedProcedure(db: TenantDb, patientId: string, id: string): Work<void> {
  const p = yield* get(
    db
      .select({ id: chartedProcedures.id })
      .from(chartedProcedures)
      .where(and(eq(chartedProcedures.id, id), eq(chartedProcedures.patient_id, patientId), isNull(chartedProcedures.deleted_at))),
  );
  if (!p) throw new NotFound("Charted procedure");
}

export async function listToothStatuses(ctx: OrgContext, patientId: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const rows = (yield* currentRecords(db, patient.id)).sort(byTooth);
    return { items: yield* presentToothStatuses(db, patient, rows), total: rows.length };
  });
}

export async function toothStatusHistory(ctx: OrgContext, patientId: string, toothNum: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const tooth = chartTooth(toothNum);
    if (!tooth) throw invalid(["path", "tooth_num"], "Must be a Universal tooth number: 1-32, A-T, or supernumerary 51-82 / AS-TS", "value_error");
    const rows = yield* all(
      db
        .select()
        .from(T)
        .where(and(eq(T.patient_id, patient.id), eq(T.tooth_number, tooth)))
        .orderBy(desc(T.created_at), desc(T.version), desc(T.id)),
    );
    return { items: yield* presentToothStatuses(db, patient, rows), total: rows.length };
  });
}

export async function putToothStatus(ctx: OrgContext, patientId: string, input: ToothStatusPut): Promise<ToothStatus> {
  const { tooth_number, expected_version, charted_procedure_uuid, effective_date, ...rest } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    if (charted_procedure_uuid) yield* requireChartedProcedure(s.tx, patient.id, charted_procedure_uuid);
    const today = yield* todayAt(s.tx, patient.location_id);
    checkNotFuture(effective_date, today, ["body", "effective_date"]);
    // PUT replaces the tooth's record: anything not sent takes its default
    const { row, previous } = yield* writeToothStatus(
      s,
      patient.id,
      tooth_number,
      {
        ...DEFAULTS,
        ...rest,
        charted_procedure_id: charted_procedure_uuid ?? null,
        effective_date: effective_date ?? today,
      },
      { action: "updated", expectedVersion: expected_version },
    );
    emit(s, {
      type: "tooth_status.updated",
      resource_type: "tooth_status",
      resource_id: row.id,
      practice_id: patient.location_id,
      data: { id: row.id, patient_id: patient.id, tooth_number, superseded_id: previous?.id ?? null, changed_fields: changedFields(previous, row) },
    });
    return (yield* presentToothStatuses(s.tx, patient, [row]))[0]!;
  });
}

/**
 * Superseded and soft-deleted: the tooth leaves the active chart. Already deleted: nothing to do (204 again), for
 * the version it was deleted at (a delete does not bump it); any other base_version is 409 as everywhere.
 */
export async function deleteToothStatus(ctx: OrgContext, id: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const row = yield* get(s.tx.select().from(T).where(eq(T.id, id)));
    if (!row) throw new NotFound("Tooth status");
    checkVersion(row, baseVersion);
    if (row.deleted_at) return;
    const patient = yield* patientForWrite(s.tx, row.patient_id);
    const after = (yield* get(
      s.tx
        .update(T)
        .set({ superseded_at: row.superseded_at ?? s.now, deleted_at: s.now, updated_at: s.now })
        .where(eq(T.id, id))
        .returning(),
    ))!;
    yield* audit(s, { action: "tooth_status.deleted", resource_type: "tooth_status", resource_id: id, before: row, after });
    emit(s, {
      type: "tooth_status.deleted",
      resource_type: "tooth_status",
      resource_id: id,
      practice_id: patient.location_id,
      data: { id, patient_id: patient.id, tooth_number: row.tooth_number },
    });
  });
}

/**
 * age_based: the age-appropriate dentition, only while the patient has no current
 * records. reseed: soft-delete the current age_seeded records and seed again from
 * today's age, skipping teeth that hold a manual, imported or clinical_chart record.
 */
export async function seedToothStatuses(ctx: OrgContext, patientId: string, mode: "age_based" | "reseed"): Promise<z.infer<typeof SeedResult>> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    if (!patient.date_of_birth) throw invalid(["path", "patient_uuid"], "The patient has no date of birth", "value_error", "date_of_birth_required");
    const current = yield* currentRecords(s.tx, patient.id);
    if (mode === "age_based" && current.length) return { teeth_seeded: 0, teeth_removed: 0 };
    const seeded = current.filter((r) => r.source === "age_seeded");
    for (const r of seeded) {
      const after = (yield* get(s.tx.update(T).set({ superseded_at: s.now, deleted_at: s.now, updated_at: s.now }).where(eq(T.id, r.id)).returning()))!;
      yield* audit(s, { action: "tooth_status.deleted", resource_type: "tooth_status", resource_id: r.id, before: r, after });
    }
    const kept = new Set(current.filter((r) => r.source !== "age_seeded").map((r) => r.tooth_number));
    const today = yield* todayAt(s.tx, patient.location_id);
    const plan = ageDentition(ageInMonths(patient.date_of_birth, today)).filter((t) => !kept.has(t.tooth_number));
    for (const t of plan) {
      yield* writeToothStatus(
        s,
        patient.id,
        t.tooth_number,
        { ...DEFAULTS, status: t.status, eruption_pct: t.eruption_pct, source: "age_seeded", effective_date: today },
        { action: "seeded" },
      );
    }
    const result = { teeth_seeded: plan.length, teeth_removed: seeded.length };
    emit(s, {
      type: "tooth_status.seeded",
      resource_type: "patient",
      resource_id: patient.id,
      practice_id: patient.location_id,
      data: { patient_id: patient.id, mode, ...result },
    });
    return result;
  });
}

/** A primary tooth gives way to its permanent successor: both records change in one transaction. */
export async function transitionTooth(ctx: OrgContext, patientId: string, input: ToothTransition) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const expected = SUCCESSOR[input.primary_tooth_number]!;
    if (input.successor_tooth_number !== expected) {
      throw invalid(
        ["body", "successor_tooth_number"],
        `The permanent successor of ${input.primary_tooth_number} is ${expected}`,
        "value_error",
        "invalid_succession",
      );
    }
    const today = yield* todayAt(s.tx, patient.location_id);
    const placementOf = function* (tooth: string): Work<Partial<ToothValues>> {
      const cur = yield* get(
        s.tx
          .select()
          .from(T)
          .where(and(eq(T.patient_id, patient.id), eq(T.tooth_number, tooth), isCurrent)),
      );
      return cur ? Object.fromEntries(PLACEMENT.map((k) => [k, cur[k]])) : {};
    };
    const base = { ...DEFAULTS, source: "manual", effective_date: today };
    const { row: primary } = yield* writeToothStatus(
      s,
      patient.id,
      input.primary_tooth_number,
      { ...base, ...(yield* placementOf(input.primary_tooth_number)), status: input.primary_status },
      { action: "transitioned" },
    );
    const { row: successor } = yield* writeToothStatus(
      s,
      patient.id,
      input.successor_tooth_number,
      {
        ...base,
        ...(yield* placementOf(input.successor_tooth_number)),
        status: input.successor_status,
        eruption_pct: input.successor_eruption_pct ?? null,
        eruption_stage: input.successor_eruption_stage ?? null,
        root_completion: input.successor_root_completion ?? null,
      },
      { action: "transitioned" },
    );
    emit(s, {
      type: "tooth_status.transitioned",
      resource_type: "tooth_status",
      resource_id: successor.id,
      practice_id: patient.location_id,
      data: {
        patient_id: patient.id,
        primary_id: primary.id,
        successor_id: successor.id,
        primary_tooth_number: primary.tooth_number,
        successor_tooth_number: successor.tooth_number,
      },
    });
    const [p, su] = yield* presentToothStatuses(s.tx, patient, [primary, successor]);
    return { primary: p!, successor: su! };
  });
}
