import { and, asc, desc, eq, gte, inArray, isNull, lte } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { locations } from "@db/tenant/practice";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { clinicalNoteAddendums, clinicalNotes } from "@db/tenant/clinical-notes";
import { all, get, run, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { audit } from "@/platform/audit/audit";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { APPOINTMENT_NAMES, PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, nameSource, namesOfEach, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { updatedOrConflict } from "@/platform/records/versions";
import { inPractice, patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { requireProvider } from "@/domains/providers/record/service";
import type { PatientRow } from "@/domains/patients/record/service";
import { RULE_NAMES } from "./rules";
import type { Note, NoteCreate, NoteListQuery, NotePatch } from "./schemas";

export type NoteRow = typeof clinicalNotes.$inferSelect;
const N = clinicalNotes;
const A = clinicalNoteAddendums;

// The audit trail keeps the whole row, text included: it is the org's own legal
// record of who changed what. Events carry ids and field names only.
export const noteRecords = defineResource<NoteRow, NoteRow>({ table: N, name: "clinical_note", label: "Clinical note", serialize: (r) => r });

const signedError = (msg = "The note is signed; only addendums can be added") => invalid(["path", "note_uuid"], msg, "value_error", "note_signed");

/** The procedures a note documents are named by code, tooth and surfaces, e.g. "D2391 #3 MO". */
const PROCEDURE_NAMES = nameSource(
  chartedProcedures.id,
  { procedure_code: chartedProcedures.procedure_code, tooth_number: chartedProcedures.tooth_number, surfaces: chartedProcedures.surfaces },
  (p) => [p.procedure_code, p.tooth_number ? `#${p.tooth_number}` : null, p.surfaces].filter(Boolean).join(" "),
);

/** The API shape of each row, with every ref and the addendums, in a fixed number of queries. */
export function* presentNotes(db: TenantDb, rows: NoteRow[]): Work<Note[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const names = yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, idsOf(rows, (r) => r.patient_id)],
    providers: [PROVIDER_NAMES, idsOf(rows, (r) => r.provider_id)],
    appointments: [APPOINTMENT_NAMES, idsOf(rows, (r) => r.appointment_id)],
    rules: [RULE_NAMES, idsOf(rows, (r) => r.auto_rule_id)],
    procedures: [PROCEDURE_NAMES, rows.flatMap((r) => r.procedure_ids)],
  });
  const addendums = yield* all(db.select().from(A).where(inArray(A.note_id, ids)).orderBy(asc(A.created_at), asc(A.id)));
  return rows.map((r) => ({
    id: r.id,
    patient: ref(r.patient_id, names.patients),
    provider: ref(r.provider_id, names.providers),
    appointment: ref(r.appointment_id, names.appointments),
    procedures: r.procedure_ids.map((p) => ref(p, names.procedures)),
    note_type: r.note_type as Note["note_type"],
    content: r.content,
    content_edited: r.content_edited,
    visit_date: r.visit_date,
    case_id: r.case_id,
    status: r.status as Note["status"],
    signed_at: r.signed_at,
    signed_by: r.signed_by_id ? { uuid: r.signed_by_id, name: r.signed_by_name } : null,
    author: r.author_id ? { uuid: r.author_id, name: r.author_name } : null,
    auto_rule: ref(r.auto_rule_id, names.rules),
    addendums: addendums
      .filter((a) => a.note_id === r.id)
      .map((a) => ({ id: a.id, content: a.content, author: { uuid: a.author_id, name: a.author_name }, created_at: a.created_at })),
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

const presentOne = function* (db: TenantDb, row: NoteRow): Work<Note> {
  return (yield* presentNotes(db, [row]))[0]!;
};

type RefInput = { provider_uuid?: string | null; appointment_uuid?: string | null; procedure_uuids?: string[] };

/**
 * The body's references must exist in this org (404) and belong to the note's
 * patient (422). Returns the appointment's local date, the default visit date.
 */
function* checkRefs(db: TenantDb, patientId: string, input: RefInput): Work<{ appointmentDate: string | null }> {
  if (input.provider_uuid) yield* requireProvider(db, input.provider_uuid);
  let appointmentDate: string | null = null;
  if (input.appointment_uuid) {
    const appt = yield* get(
      db
        .select({ patient_id: appointments.patient_id, start: appointments.scheduled_start })
        .from(appointments)
        .where(and(eq(appointments.id, input.appointment_uuid), isNull(appointments.deleted_at))),
    );
    if (!appt) throw new NotFound("Appointment");
    if (appt.patient_id !== patientId)
      throw invalid(["body", "appointment_uuid"], "The appointment belongs to another patient", "value_error", "appointment_patient_mismatch");
    appointmentDate = appt.start.slice(0, 10);
  }
  const procIds = input.procedure_uuids ?? [];
  if (procIds.length) {
    const found = new Map(
      (yield* all(
        db
          .select({ id: chartedProcedures.id, patient_id: chartedProcedures.patient_id })
          .from(chartedProcedures)
          .where(and(inArray(chartedProcedures.id, procIds), isNull(chartedProcedures.deleted_at))),
      )).map((p) => [p.id, p.patient_id]),
    );
    for (const [i, id] of procIds.entries()) {
      if (!found.has(id)) throw new NotFound("Charted procedure");
      if (found.get(id) !== patientId)
        throw invalid(["body", "procedure_uuids", i], "The charted procedure belongs to another patient", "value_error", "procedure_patient_mismatch");
    }
  }
  return { appointmentDate };
}

/** Today's date in the patient's practice's time zone (UTC when the patient has no practice). */
function* todayFor(s: TxScope, locationId: string | null): Work<string> {
  const loc = locationId ? yield* get(s.tx.select({ tz: locations.timezone }).from(locations).where(eq(locations.id, locationId))) : undefined;
  return Temporal.Instant.from(s.now)
    .toZonedDateTimeISO(loc?.tz ?? "UTC")
    .toPlainDate()
    .toString();
}

/** API fields -> columns (procedure ids de-duplicated in order). */
function toColumns(input: Omit<NotePatch, "base_version">): Partial<NoteRow> {
  const { provider_uuid, appointment_uuid, procedure_uuids, ...rest } = input;
  const out: Partial<NoteRow> = { ...rest };
  if (provider_uuid !== undefined) out.provider_id = provider_uuid;
  if (appointment_uuid !== undefined) out.appointment_id = appointment_uuid;
  if (procedure_uuids !== undefined) out.procedure_ids = [...new Set(procedure_uuids)];
  return out;
}

/** Inside a unit of work: create a draft note (also used by auto-note rules). */
export function* insertNote(
  s: TxScope,
  patient: PatientRow,
  values: Omit<
    NoteRow,
    | "id"
    | "patient_id"
    | "version"
    | "created_at"
    | "updated_at"
    | "deleted_at"
    | "content_edited"
    | "status"
    | "signed_at"
    | "signed_by_id"
    | "signed_by_name"
    | "author_id"
    | "author_name"
  >,
): Work<NoteRow> {
  const author = s.actor.type === "user" ? { author_id: s.actor.id, author_name: s.actor.display_name } : { author_id: null, author_name: null };
  return yield* inPractice(
    s,
    patient.location_id,
    noteRecords.create(s, { ...values, ...author, patient_id: patient.id, status: "draft", content_edited: false }, { patient_id: patient.id }),
  );
}

export async function createNote(ctx: OrgContext, input: NoteCreate): Promise<Note> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, input.patient_uuid);
    const { appointmentDate } = yield* checkRefs(s.tx, patient.id, input);
    const cols = toColumns(input);
    const row = yield* insertNote(s, patient, {
      note_type: input.note_type,
      content: input.content,
      case_id: input.case_id ?? null,
      provider_id: cols.provider_id ?? null,
      appointment_id: cols.appointment_id ?? null,
      procedure_ids: cols.procedure_ids ?? [],
      visit_date: input.visit_date ?? appointmentDate ?? (yield* todayFor(s, patient.location_id)),
      auto_rule_id: null,
    });
    return yield* presentOne(s.tx, row);
  });
}

export async function getNote(ctx: OrgContext, id: string): Promise<Note> {
  return ctx.db.read(function* (db) {
    return yield* presentOne(db, yield* noteRecords.require(db, id));
  });
}

export async function listNotes(ctx: OrgContext, q: NoteListQuery) {
  return ctx.db.read(function* (db) {
    if (q.patient_uuid) yield* patientForRead(db, q.patient_uuid);
    const page = yield* noteRecords.list(db, q, {
      where: [
        q.patient_uuid ? eq(N.patient_id, q.patient_uuid) : undefined,
        q.provider_uuid ? eq(N.provider_id, q.provider_uuid) : undefined,
        q.appointment_uuid ? eq(N.appointment_id, q.appointment_uuid) : undefined,
        q.status ? eq(N.status, q.status) : undefined,
        q.note_type ? eq(N.note_type, q.note_type) : undefined,
        q.case_id ? eq(N.case_id, q.case_id) : undefined,
        q.date_from ? gte(N.visit_date, q.date_from) : undefined,
        q.date_to ? lte(N.visit_date, q.date_to) : undefined,
      ],
      orderBy: [desc(N.visit_date), desc(N.created_at), desc(N.id)],
    });
    return { ...page, items: yield* presentNotes(db, page.items) };
  });
}

/** The note as it may be changed: 404, then 409 when stale, then 422 once signed. */
function* draftAt(s: TxScope, id: string, baseVersion: number): Work<NoteRow> {
  const row = yield* noteRecords.requireCurrent(s.tx, id, baseVersion);
  if (row.status === "signed") throw signedError();
  return row;
}

export async function updateNote(ctx: OrgContext, id: string, input: NotePatch): Promise<Note> {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const before = yield* draftAt(s, id, base_version);
    const patient = yield* patientForWrite(s.tx, before.patient_id);
    yield* checkRefs(s.tx, patient.id, patch);
    const cols = toColumns(patch);
    if (cols.content !== undefined && cols.content !== before.content) cols.content_edited = true;
    const row = yield* inPractice(s, patient.location_id, noteRecords.update(s, id, base_version, cols));
    return yield* presentOne(s.tx, row);
  });
}

/** Drafts only: a signed note is part of the legal record and is never deleted. */
export async function deleteNote(ctx: OrgContext, id: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const before = yield* draftAt(s, id, baseVersion);
    const patient = yield* patientForWrite(s.tx, before.patient_id);
    yield* inPractice(s, patient.location_id, noteRecords.archive(s, id, baseVersion, "deleted"));
  });
}

/**
 * Signing locks the note. It stays possible for an archived patient: finishing
 * the record of a past visit is not a change to the patient.
 */
export async function signNote(ctx: OrgContext, id: string, baseVersion: number): Promise<Note> {
  return withTransaction(ctx, function* (s) {
    const before = yield* noteRecords.requireCurrent(s.tx, id, baseVersion);
    if (before.status === "signed") throw signedError("The note is already signed");
    const patient = yield* patientForRead(s.tx, before.patient_id);
    const row = yield* inPractice(
      s,
      patient.location_id,
      noteRecords.update(
        s,
        id,
        baseVersion,
        {
          status: "signed",
          signed_at: s.now,
          signed_by_id: s.actor.id,
          signed_by_name: s.actor.display_name,
        },
        { action: "signed" },
      ),
    );
    return yield* presentOne(s.tx, row);
  });
}

/**
 * Append-only. The note row itself keeps its content; only its version and
 * updated_at move, so the ETag of the note (which lists its addendums) changes.
 */
export async function addAddendum(ctx: OrgContext, id: string, content: string): Promise<Note> {
  return withTransaction(ctx, function* (s) {
    const note = yield* noteRecords.require(s.tx, id);
    if (note.status !== "signed") throw invalid(["path", "note_uuid"], "The note is a draft: edit it instead", "value_error", "note_not_signed");
    const patient = yield* patientForRead(s.tx, note.patient_id);
    const addendum = { id: newId(), note_id: note.id, content, author_id: s.actor.id, author_name: s.actor.display_name, created_at: s.now };
    yield* run(s.tx.insert(A).values(addendum));
    const row = updatedOrConflict(
      yield* get(
        s.tx
          .update(N)
          .set({ version: note.version + 1, updated_at: s.now })
          .where(and(eq(N.id, note.id), eq(N.version, note.version)))
          .returning(),
      ),
    );
    yield* audit(s, { action: "clinical_note.addendum_added", resource_type: "clinical_note", resource_id: note.id, before: null, after: { addendum } });
    emit(s, {
      type: "clinical_note.addendum_added",
      resource_type: "clinical_note",
      resource_id: note.id,
      practice_id: patient.location_id,
      data: { id: note.id, addendum_id: addendum.id, patient_id: patient.id },
    });
    return yield* presentOne(s.tx, row);
  });
}
