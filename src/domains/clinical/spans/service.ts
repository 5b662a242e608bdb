import { asc, eq, inArray } from "drizzle-orm";
import { chartedProcedures, procedureSpanMembers, procedureSpans } from "@db/tenant/charted-procedures";
import { all, run, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { activeSpanOf, isDone, onChartOf, requirePatientProcedure, softDeleteProcedure } from "@/domains/clinical/charted-procedures/service";
import { procedureLabel } from "@/domains/codes/dental-vocabulary";
import type { ProcedureStatus } from "@/domains/codes/dental-vocabulary";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import type { ProcedureSpan, SpanCreate, SpanListQuery, SpanMember, SpanPatch } from "./schemas";
import { personRef, ref } from "@/platform/records/refs";

type SpanRow = typeof procedureSpans.$inferSelect;

const spanRecords = defineResource<SpanRow, SpanRow>({ table: procedureSpans, name: "procedure_span", label: "Span", serialize: (r) => ({ ...r }) });

/** The members of each span with their procedures, by position. */
function* membersOf(db: TenantDb, spanIds: string[]) {
  const rows = spanIds.length
    ? yield* all(
        db
          .select({ m: procedureSpanMembers, p: chartedProcedures })
          .from(procedureSpanMembers)
          .innerJoin(chartedProcedures, eq(chartedProcedures.id, procedureSpanMembers.charted_procedure_id))
          .where(inArray(procedureSpanMembers.span_id, spanIds))
          .orderBy(asc(procedureSpanMembers.position)),
      )
    : [];
  const out = new Map<string, SpanMember[]>(spanIds.map((id) => [id, []]));
  for (const { m, p } of rows) {
    out.get(m.span_id)!.push({
      charted_procedure: { uuid: p.id, name: procedureLabel(p) },
      role: m.role as SpanMember["role"],
      position: m.position,
      tooth_number: p.tooth_number,
      procedure_status: p.status as ProcedureStatus,
    });
  }
  return out;
}

function* serializeSpans(db: TenantDb, patient: PatientRow, spans: SpanRow[]): Work<ProcedureSpan[]> {
  const members = yield* membersOf(
    db,
    spans.map((s) => s.id),
  );
  return spans.map((r) => ({
    id: r.id,
    patient: personRef(patient),
    members: members.get(r.id)!,
    note: r.note,
    status: r.status as ProcedureSpan["status"],
    span_definition: ref(r.span_definition_id),
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  }));
}

/** This patient's span, not deleted: 404 otherwise (also another patient's). */
function* requireSpan(db: TenantDb, patient: PatientRow, id: string): Work<SpanRow> {
  const span = yield* spanRecords.find(db, id);
  if (!span || span.patient_id !== patient.id) throw new NotFound("Span");
  return span;
}

// ---- verbs -------------------------------------------------------------------------------------

export async function listSpans(ctx: OrgContext, patientId: string, q: SpanListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* spanRecords.list(db, q, {
      where: [eq(procedureSpans.patient_id, patient.id), q.status ? eq(procedureSpans.status, q.status) : undefined],
      orderBy: [procedureSpans.id],
    });
    return { ...page, items: yield* serializeSpans(db, patient, page.items) };
  });
}

export async function getSpan(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    return (yield* serializeSpans(db, patient, [yield* requireSpan(db, patient, id)]))[0]!;
  });
}

export async function listSpanMembers(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const span = yield* requireSpan(db, patient, id);
    const items = (yield* membersOf(db, [span.id])).get(span.id)!;
    return { items, total: items.length };
  });
}

export async function createSpan(ctx: OrgContext, patientId: string, input: SpanCreate) {
  const members = input.members.map((m, i) => ({ ...m, position: m.position ?? i + 1 }));
  members.forEach((m, i) => {
    if (members.findIndex((o) => o.procedure_uuid === m.procedure_uuid) !== i)
      throw invalid(["body", "members", i, "procedure_uuid"], "Each procedure may be a member once", "value_error", "duplicate_member");
    if (members.findIndex((o) => o.position === m.position) !== i)
      throw invalid(["body", "members", i, "position"], "Each position may be used once", "value_error", "duplicate_position");
  });
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    for (const m of members) yield* requirePatientProcedure(s.tx, patient.id, m.procedure_uuid);
    const taken = yield* activeSpanOf(
      s.tx,
      members.map((m) => m.procedure_uuid),
    );
    if (taken.size) throw new Conflict("A procedure is already a member of another span", "procedure_in_span");
    const span = yield* onChartOf(
      s,
      patient,
      spanRecords.create(
        s,
        {
          patient_id: patient.id,
          note: input.note ?? "",
          status: input.status ?? "active",
          span_definition_id: input.span_definition_uuid ?? null,
        },
        { procedure_ids: members.map((m) => m.procedure_uuid) },
      ),
    );
    yield* run(
      s.tx.insert(procedureSpanMembers).values(
        members.map((m) => ({
          id: newId(),
          span_id: span.id,
          charted_procedure_id: m.procedure_uuid,
          role: m.role,
          position: m.position,
          created_at: s.now,
        })),
      ),
    );
    return (yield* serializeSpans(s.tx, patient, [span]))[0]!;
  });
}

export async function updateSpan(ctx: OrgContext, patientId: string, id: string, input: SpanPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    checkVersion(yield* requireSpan(s.tx, patient, id), base_version);
    const row = yield* onChartOf(s, patient, spanRecords.update(s, id, base_version, patch));
    return (yield* serializeSpans(s.tx, patient, [row]))[0]!;
  });
}

/** Soft delete: the members stay recorded on the deleted span, and their procedures become free for another span. */
export async function deleteSpan(ctx: OrgContext, patientId: string, id: string, baseVersion: number) {
  await withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    checkVersion(yield* requireSpan(s.tx, patient, id), baseVersion);
    yield* onChartOf(s, patient, spanRecords.update(s, id, baseVersion, { deleted_at: s.now }, { action: "deleted" }));
  });
}

/**
 * spec.md: the span is soft-deleted, its member rows hard-deleted, member
 * procedures not completed soft-deleted (and removed from plans), complete and
 * complete_referred ones kept as standalone records. One transaction.
 */
export async function cascadeDeleteSpan(ctx: OrgContext, patientId: string, id: string, baseVersion: number) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    checkVersion(yield* requireSpan(s.tx, patient, id), baseVersion);
    const rows = yield* all(
      s.tx
        .select({ p: chartedProcedures })
        .from(procedureSpanMembers)
        .innerJoin(chartedProcedures, eq(chartedProcedures.id, procedureSpanMembers.charted_procedure_id))
        .where(eq(procedureSpanMembers.span_id, id))
        .orderBy(asc(procedureSpanMembers.position)),
    );
    const live = rows.map((r) => r.p).filter((p) => !p.deleted_at);
    const doomed = live.filter((p) => !isDone(p.status));
    const kept = live.filter((p) => isDone(p.status));
    yield* run(s.tx.delete(procedureSpanMembers).where(eq(procedureSpanMembers.span_id, id)));
    yield* onChartOf(
      s,
      patient,
      (function* () {
        for (const p of doomed) yield* softDeleteProcedure(s, p);
        yield* spanRecords.update(
          s,
          id,
          baseVersion,
          { deleted_at: s.now },
          {
            action: "deleted",
            eventData: { cascade: true, deleted_procedure_ids: doomed.map((p) => p.id), preserved_procedure_ids: kept.map((p) => p.id) },
          },
        );
      })(),
    );
    return { span_uuid: id, deleted_procedure_uuids: doomed.map((p) => p.id), preserved_procedure_uuids: kept.map((p) => p.id) };
  });
}
