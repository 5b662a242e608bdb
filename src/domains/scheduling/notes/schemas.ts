import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

const note = z.string().trim().min(1).max(4000).describe("Free text shown on the schedule for that day (never sent on the event stream)");

export const ScheduleNoteCreate = z.strictObject({
  location_uuid: Uuid.describe("A non-archived location of this org (404 otherwise); fixed once created"),
  note_date: DateOnly.describe("The schedule day the note belongs to (YYYY-MM-DD); fixed once created"),
  note,
});
export type ScheduleNoteCreate = z.infer<typeof ScheduleNoteCreate>;

// note is the only mutable field: the location and the day are fixed (422 when sent).
export const ScheduleNotePatch = z
  .strictObject({ base_version: BaseVersion, note: note.optional() })
  .meta({ readOnly: ["location_uuid", "location", "note_date"] });
export type ScheduleNotePatch = z.infer<typeof ScheduleNotePatch>;

export const ScheduleNote = z
  .object({
    ...RecordMeta,
    location: Ref,
    note_date: z.string().describe("YYYY-MM-DD"),
    note: z.string(),
  })
  .meta({ id: "ScheduleNote" });
export type ScheduleNote = z.infer<typeof ScheduleNote>;

export const ScheduleNoteListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  location_uuid: Uuid.optional().describe("Only this location's notes; an unknown or archived location is 404"),
  date_from: DateOnly.optional().describe("Notes on or after this day"),
  date_to: DateOnly.optional().describe("Notes on or before this day (inclusive); before date_from is 422"),
});
export type ScheduleNoteListQuery = z.infer<typeof ScheduleNoteListQuery>;

export const ScheduleNoteDeleteQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type ScheduleNoteDeleteQuery = z.infer<typeof ScheduleNoteDeleteQuery>;
