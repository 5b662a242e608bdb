import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { AppError } from "@/platform/errors";
import { guard } from "@/platform/http/guard";
import { ErrorBody, NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  AddendumCreate,
  Note,
  NoteCreate,
  NoteDeleteQuery,
  NoteListQuery,
  NotePatch,
  NoteSign,
  Rule,
  RuleCreate,
  RuleListQuery,
  RulePatch,
  Template,
  TemplateCreate,
  TemplateListQuery,
  TemplatePatch,
} from "./schemas";
import { addAddendum, createNote, deleteNote, getNote, listNotes, signNote, updateNote } from "./notes";
import { archiveRule, archiveTemplate, createRule, createTemplate, getRule, getTemplate, listRules, listTemplates, updateRule, updateTemplate } from "./rules";

/** Addendums are append-only: changing or deleting one is 405 with Allow. */
const notAllowed = () => {
  throw new AppError(405, "method_not_allowed", "Addendums are append-only", { Allow: "POST" });
};
// A fresh object per route: Elysia writes the expanded macro hooks into the options it is given.
const appendOnly = () => ({
  permission: "clinical.notes.write" as const,
  response: { 405: ErrorBody, ...orgErrors() },
  // Not in the OpenAPI document: a method that can only refuse is no operation to call;
  // the GET/POST descriptions of the records say that these methods answer 405.
  detail: { hide: true, summary: "Not allowed: addendums are append-only" },
});

export const clinicalNoteRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.clinical-notes", prefix: "/api/v1/:org_id/clinical-notes", tags: ["Clinical notes"] })
    .use(guard(rt))
    // ---- notes
    .get("/clinical-notes", ({ ctx, query }) => listNotes(ctx, query), {
      permission: "clinical.notes.read",
      query: NoteListQuery,
      response: { 200: PageSchema(Note), ...orgErrors() },
      detail: { summary: "List clinical notes", description: "Newest first (visit_date, then created_at). 404 when patient_uuid names no patient." },
    })
    .post(
      "/clinical-notes",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createNote(ctx, body);
      },
      {
        permission: "clinical.notes.write",
        body: NoteCreate,
        response: { 201: Note, ...orgErrors(413, 415) },
        detail: {
          summary: "Create a clinical note (draft)",
          description:
            "404 when the patient, provider, appointment or a charted procedure is missing; 422 when one belongs to another patient, or patient_archived.",
        },
      },
    )
    .get("/clinical-notes/:note_uuid", ({ ctx, params }) => getNote(ctx, params.note_uuid), {
      permission: "clinical.notes.read",
      response: { 200: Note, ...orgErrors() },
      detail: {
        summary: "Get a clinical note with its addendums (oldest first)",
        description:
          "The note with its patient, provider, appointment and procedures as references, its status (`draft`, or `signed`: locked, with `signed_by` and `signed_at`), its author or the auto-note rule that wrote it, and its addendums. A deleted draft is 404.",
      },
    })
    .patch("/clinical-notes/:note_uuid", ({ ctx, params, body }) => updateNote(ctx, params.note_uuid, body), {
      permission: "clinical.notes.write",
      body: NotePatch,
      response: { 200: Note, ...orgErrors(409, 413, 415) },
      detail: { summary: "Edit a draft note", description: "A signed note is 422 note_signed: add an addendum instead." },
    })
    .delete(
      "/clinical-notes/:note_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteNote(ctx, params.note_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "clinical.notes.write",
        query: NoteDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a draft note (soft)", description: "Signed notes are never deleted: 422 note_signed." },
      },
    )
    .post("/clinical-notes/:note_uuid/sign", ({ ctx, params, body }) => signNote(ctx, params.note_uuid, body.base_version), {
      permission: "clinical.notes.sign",
      body: NoteSign,
      response: { 200: Note, ...orgErrors(409, 413, 415) },
      detail: { summary: "Sign a note (locks it)", description: "Records the signer (the caller) and signed_at. Already signed: 422 note_signed." },
    })
    .post(
      "/clinical-notes/:note_uuid/addendums",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return addAddendum(ctx, params.note_uuid, body.content);
      },
      {
        permission: "clinical.notes.write",
        body: AddendumCreate,
        response: { 201: Note, ...orgErrors(413, 415) },
        detail: {
          summary: "Add an addendum to a signed note",
          description:
            "Answers the note with its addendums. A draft is 422 note_not_signed (edit it instead). Addendums are append-only: PUT, PATCH and DELETE on one answer 405 with `Allow: POST`.",
        },
      },
    )
    .put("/clinical-notes/:note_uuid/addendums/:addendum_uuid", notAllowed, appendOnly())
    .patch("/clinical-notes/:note_uuid/addendums/:addendum_uuid", notAllowed, appendOnly())
    .delete("/clinical-notes/:note_uuid/addendums/:addendum_uuid", notAllowed, appendOnly())
    // ---- auto-note rules
    .get("/auto-rules", ({ ctx, query }) => listRules(ctx, query), {
      permission: "clinical.notes.read",
      query: RuleListQuery,
      response: { 200: PageSchema(Rule), ...orgErrors() },
      detail: { summary: "List auto-note rules", description: "Ordered by priority descending, then name." },
    })
    .post(
      "/auto-rules",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createRule(ctx, body);
      },
      {
        permission: "clinical.notes.write",
        body: RuleCreate,
        response: { 201: Rule, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create an auto-note rule",
          description:
            "`name` is unique, ignoring case, among rules that are not archived: 409 `duplicate`. Procedure filters only with trigger procedure_completed (422 `procedure_filter_not_applicable`). Missing or archived references are 404. Only the first matching active rule writes a note (priority desc, then name).",
        },
      },
    )
    .get("/auto-rules/:rule_uuid", ({ ctx, params }) => getRule(ctx, params.rule_uuid), {
      permission: "clinical.notes.read",
      response: { 200: Rule, ...orgErrors() },
      detail: {
        summary: "Get an auto-note rule",
        description:
          "A rule that writes a clinical note from a template when its trigger event happens (a procedure, appointment or exam completed) and its filters match (procedure category or code pattern, location, provider), with its priority and how it merges into the visit's draft note. An archived rule is 404.",
      },
    })
    .patch("/auto-rules/:rule_uuid", ({ ctx, params, body }) => updateRule(ctx, params.rule_uuid, body), {
      permission: "clinical.notes.write",
      body: RulePatch,
      response: { 200: Rule, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Change an auto-note rule",
        description:
          "The create rules, judged on the rule as it will be: 409 `duplicate` for a name another live rule has; 422 `procedure_filter_not_applicable` when the trigger no longer takes the procedure filters.",
      },
    })
    .post("/auto-rules/:rule_uuid/archive", ({ ctx, params }) => archiveRule(ctx, params.rule_uuid), {
      permission: "clinical.notes.write",
      response: { 200: Rule, ...orgErrors() },
      detail: {
        summary: "Archive an auto-note rule",
        description: "Soft delete: the rule answers 404 and writes no more notes; archiving again is 404. A template it named can then be archived.",
      },
    })
    // ---- note templates
    .get("/templates", ({ ctx, query }) => listTemplates(ctx, query), {
      permission: "clinical.notes.read",
      query: TemplateListQuery,
      response: { 200: PageSchema(Template), ...orgErrors() },
      detail: { summary: "List note templates (by name)" },
    })
    .post(
      "/templates",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createTemplate(ctx, body);
      },
      {
        permission: "clinical.notes.write",
        body: TemplateCreate,
        response: { 201: Template, ...orgErrors(413, 415) },
        detail: { summary: "Create a note template", description: "Unknown {{placeholders}} are 422 unknown_placeholder." },
      },
    )
    .get("/templates/:template_uuid", ({ ctx, params }) => getTemplate(ctx, params.template_uuid), {
      permission: "clinical.notes.read",
      response: { 200: Template, ...orgErrors() },
      detail: {
        summary: "Get a note template",
        description:
          "A note template: its name and its body, whose `{{placeholders}}` (patient and provider names, visit date, procedure code and description, tooth, surfaces, ...) are filled in when a note is written from it. An archived template is 404.",
      },
    })
    .patch("/templates/:template_uuid", ({ ctx, params, body }) => updateTemplate(ctx, params.template_uuid, body), {
      permission: "clinical.notes.write",
      body: TemplatePatch,
      response: { 200: Template, ...orgErrors(409, 413, 415) },
      detail: { summary: "Change a note template" },
    })
    .post("/templates/:template_uuid/archive", ({ ctx, params }) => archiveTemplate(ctx, params.template_uuid), {
      permission: "clinical.notes.write",
      response: { 200: Template, ...orgErrors(409) },
      detail: { summary: "Archive a note template", description: "409 template_in_use while a rule names it." },
    });
