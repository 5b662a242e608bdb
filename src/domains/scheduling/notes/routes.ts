import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ScheduleNote, ScheduleNoteCreate, ScheduleNoteDeleteQuery, ScheduleNoteListQuery, ScheduleNotePatch } from "./schemas";
import { createScheduleNote, deleteScheduleNote, getScheduleNote, listScheduleNotes, updateScheduleNote } from "./service";

export const scheduleNoteRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.schedule-notes", prefix: "/api/v1/:org_id/schedule/notes", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listScheduleNotes(ctx, query), {
      permission: "schedule.read",
      query: ScheduleNoteListQuery,
      response: { 200: PageSchema(ScheduleNote), ...orgErrors() },
      detail: { summary: "List schedule notes (ordered by note_date)" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createScheduleNote(ctx, body);
      },
      {
        permission: "schedule.write",
        body: ScheduleNoteCreate,
        response: { 201: ScheduleNote, ...orgErrors(413, 415) },
        detail: {
          summary: "Create a schedule note",
          description:
            "`location_uuid` (a live location, else 404) and `note_date` are fixed once created: delete and re-create to move a note. `note` is 1-4000 characters after trimming.",
        },
      },
    )
    .get("/:note_uuid", ({ ctx, params }) => getScheduleNote(ctx, params.note_uuid), {
      permission: "schedule.read",
      response: { 200: ScheduleNote, ...orgErrors() },
      detail: { summary: "Get a schedule note", description: "A note shown on one location's schedule for one date. A deleted note is 404." },
    })
    .patch("/:note_uuid", ({ ctx, params, body }) => updateScheduleNote(ctx, params.note_uuid, body), {
      permission: "schedule.write",
      body: ScheduleNotePatch,
      response: { 200: ScheduleNote, ...orgErrors(409, 413, 415) },
      detail: { summary: "Change a schedule note's text", description: "note is the only mutable field." },
    })
    .delete(
      "/:note_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteScheduleNote(ctx, params.note_uuid, query);
        set.status = 204;
      },
      {
        permission: "schedule.write",
        query: ScheduleNoteDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a schedule note (soft delete)" },
      },
    );
