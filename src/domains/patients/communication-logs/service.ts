import { asc, desc, eq, gte, lte } from "drizzle-orm";
import { communicationLogs } from "@db/tenant/communication-logs";
import type { Work } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { containsText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { inPractice, patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { personRef } from "@/platform/records/refs";
import type { PatientRow } from "@/domains/patients/record/service";
import type { CommunicationLog, CommunicationLogCreate, CommunicationLogListQuery } from "./schemas";

type LogRow = typeof communicationLogs.$inferSelect;
const C = communicationLogs;

// Append-only: only create, require and list of the shared mechanics are used.
const logRecords = defineResource<LogRow, LogRow>({ table: C, name: "communication_log", label: "Communication log", serialize: (r) => r });

const serialize = (r: LogRow, patient: PatientRow): CommunicationLog => ({
  id: r.id,
  patient: personRef(patient),
  communicated_at: r.communicated_at,
  mode: r.mode as CommunicationLog["mode"],
  direction: r.direction as CommunicationLog["direction"],
  communication_source: r.communication_source as CommunicationLog["communication_source"],
  subject: r.subject,
  note: r.note,
  user: r.user_id ? { uuid: r.user_id, name: r.user_name } : null,
  created_at: r.created_at,
});

const utc = (instant: string) => new Date(instant).toISOString();

export async function createCommunicationLog(ctx: OrgContext, patientId: string, input: CommunicationLogCreate): Promise<CommunicationLog> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const row = yield* inPractice(
      s,
      patient.location_id,
      logRecords.create(
        s,
        {
          patient_id: patient.id,
          communicated_at: input.communicated_at ? utc(input.communicated_at) : s.now,
          mode: input.mode,
          direction: input.direction,
          communication_source: input.communication_source,
          subject: input.subject ?? null,
          note: input.note,
          user_id: s.actor.type === "user" ? s.actor.id : null,
          user_name: s.actor.display_name,
        },
        { patient_id: patient.id },
      ),
    );
    return serialize(row, patient);
  });
}

export async function listCommunicationLogs(ctx: OrgContext, patientId: string, q: CommunicationLogListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const dir = q.sort_dir === "desc" ? desc : asc;
    const page = yield* logRecords.list(db, q, {
      where: [
        eq(C.patient_id, patient.id),
        q.date_from ? gte(C.communicated_at, utc(q.date_from)) : undefined,
        q.date_to ? lte(C.communicated_at, utc(q.date_to)) : undefined,
        q.mode ? eq(C.mode, q.mode) : undefined,
        q.direction ? eq(C.direction, q.direction) : undefined,
        q.communication_source ? eq(C.communication_source, q.communication_source) : undefined,
        q.q ? containsText(C.note, q.q) : undefined,
      ],
      orderBy: [dir(C.communicated_at), dir(C.id)],
    });
    return { ...page, items: page.items.map((r) => serialize(r, patient)) };
  });
}

/** 404 also when the entry belongs to another patient. */
export async function getCommunicationLog(ctx: OrgContext, patientId: string, id: string): Promise<CommunicationLog> {
  return ctx.db.read(function* (db): Work<CommunicationLog> {
    const patient = yield* patientForRead(db, patientId);
    const row = yield* logRecords.require(db, id);
    if (row.patient_id !== patient.id) throw new NotFound(logRecords.label);
    return serialize(row, patient);
  });
}
