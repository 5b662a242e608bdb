import { eq } from "drizzle-orm";
import { scheduleNotes } from "@db/tenant/schedule-config";
import type { Work } from "@/platform/db/work";
import { checkDateRange, withinDates } from "@/platform/records/search";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES } from "@/platform/records/names";
import { namesOf } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import type { ScheduleNote, ScheduleNoteCreate, ScheduleNoteDeleteQuery, ScheduleNoteListQuery, ScheduleNotePatch } from "./schemas";

type NoteRow = typeof scheduleNotes.$inferSelect;

const serialize = (r: NoteRow, locationName: string | null = null): ScheduleNote => ({
  id: r.id,
  location: { uuid: r.location_id, name: locationName },
  note_date: r.note_date,
  note: r.note,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

// The audit trail keeps the note text (it is the org's own record); events never carry it.
const records = defineResource<NoteRow, ScheduleNote & { deleted_at: string | null }>({
  table: scheduleNotes,
  name: "schedule_note",
  label: "Schedule note",
  serialize: (r) => ({ ...serialize(r), deleted_at: r.deleted_at }),
  practiceId: (r) => r.location_id,
});

function* present(db: TenantDb, row: NoteRow): Work<ScheduleNote> {
  return serialize(row, (yield* namesOf(db, LOCATION_NAMES, [row.location_id])).get(row.location_id) ?? null);
}

export async function listScheduleNotes(ctx: OrgContext, q: ScheduleNoteListQuery) {
  checkDateRange(q);
  return ctx.db.read(function* (db) {
    const locationId = q.location_uuid;
    if (locationId) yield* locationRecords.require(db, locationId);
    const page = yield* records.list(db, q, {
      where: [locationId ? eq(scheduleNotes.location_id, locationId) : undefined, ...withinDates(scheduleNotes.note_date, q)],
      orderBy: [scheduleNotes.note_date, scheduleNotes.id],
    });
    const names = yield* namesOf(
      db,
      LOCATION_NAMES,
      page.items.map((r) => r.location_id),
    );
    return { ...page, items: page.items.map((r) => serialize(r, names.get(r.location_id) ?? null)) };
  });
}

export async function getScheduleNote(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* records.require(db, id));
  });
}

export async function createScheduleNote(ctx: OrgContext, input: ScheduleNoteCreate) {
  return withTransaction(ctx, function* (s) {
    const location = yield* locationRecords.require(s.tx, input.location_uuid);
    const row = yield* records.create(
      s,
      { location_id: location.id, note_date: input.note_date, note: input.note },
      { location_id: location.id, note_date: input.note_date },
    );
    return serialize(row, location.name);
  });
}

export async function updateScheduleNote(ctx: OrgContext, id: string, input: ScheduleNotePatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    return yield* present(s.tx, yield* records.update(s, id, base_version, patch));
  });
}

/** Soft delete: the row keeps its audit trail; it leaves lists and answers 404. */
export async function deleteScheduleNote(ctx: OrgContext, id: string, q: ScheduleNoteDeleteQuery) {
  await withTransaction(ctx, (s) => records.archive(s, id, q.base_version, "deleted"));
}
