import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  ApplicationListQuery,
  MAX_APPLY_DAYS,
  MAX_BLOCKS,
  ScheduleTemplate,
  ScheduleTemplateArchiveQuery,
  ScheduleTemplateCreate,
  ScheduleTemplateListQuery,
  ScheduleTemplatePatch,
  TemplateApplication,
  TemplateApply,
} from "./schemas";
import { archiveTemplate, createTemplate, getApplication, getTemplate, listApplications, listTemplates, updateTemplate } from "./service";
import { applyTemplate, CHUNK_DAYS, SYNC_MAX_DAYS } from "./apply";

const BLOCK_ERRORS =
  "404 naming the block for an unknown or archived provider, location, operatory or blockout type (another org's too); " +
  "422 operatory_location_mismatch (the operatory belongs to another location), blockout_type_invalid (a definition of another category), " +
  "invalid_hours (end_time not after start_time), block_overlap (two working blocks of one provider overlap on a weekday, both named)";

/** Schedule templates: named weekly patterns applied to date ranges (docs/scheduling/schedule-templates.md). */
export const scheduleTemplateRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.schedule-templates", prefix: "/api/v1/:org_id/schedule", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("/templates", ({ ctx, query }) => listTemplates(ctx, query), {
      permission: "schedule.read",
      query: ScheduleTemplateListQuery,
      response: { 200: PageSchema(ScheduleTemplate), ...orgErrors() },
      detail: {
        summary: "List schedule templates",
        description:
          "Ordered by name, then id; archived templates only with include_archived=true. Paged by page and page_size (default 50, at most 200; out of range 422).",
      },
    })
    .post(
      "/templates",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createTemplate(ctx, body);
      },
      {
        permission: "schedule.write",
        body: ScheduleTemplateCreate,
        response: { 201: ScheduleTemplate, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a schedule template",
          description: `A named weekly pattern of 1 to ${MAX_BLOCKS} blocks: weekday (0 = Sunday), start and end time (the location's wall clock), provider, location, operatory (optional) and, for reserved time, a blockout type. ${BLOCK_ERRORS}; unknown or read-only fields 422.`,
        },
      },
    )
    .get("/templates/:template_uuid", ({ ctx, params }) => getTemplate(ctx, params.template_uuid), {
      permission: "schedule.read",
      response: { 200: ScheduleTemplate, ...orgErrors() },
      detail: {
        summary: "Get a schedule template",
        description: "The template with its blocks (references named). An archived template is still answered, with archived_at set; 404 when unknown.",
      },
    })
    .patch("/templates/:template_uuid", ({ ctx, params, body }) => updateTemplate(ctx, params.template_uuid, body), {
      permission: "schedule.write",
      body: ScheduleTemplatePatch,
      response: { 200: ScheduleTemplate, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a schedule template",
        description: `base_version required (409 version_conflict when stale); blocks, when sent, replace every block. ${BLOCK_ERRORS}; 422 template_archived; 409 template_application_running while an application of it is queued or running. Applications already made are not changed.`,
      },
    })
    .post("/templates/:template_uuid/archive", ({ ctx, params, query }) => archiveTemplate(ctx, params.template_uuid, query), {
      permission: "schedule.write",
      query: ScheduleTemplateArchiveQuery,
      response: { 200: ScheduleTemplate, ...orgErrors(409) },
      detail: {
        summary: "Archive a schedule template",
        description:
          "Sets archived_at: the template leaves the list, cannot be changed or applied (422 template_archived) and stays readable by id, with its applications. What its applications wrote stays. Archiving it again answers it unchanged. Optional ?base_version= (409 when stale); 409 template_application_running while an application is in progress; 404 when unknown.",
      },
    })
    .post(
      "/templates/:template_uuid/apply",
      async ({ ctx, params, body, set }) => {
        const answer = await applyTemplate(ctx, params.template_uuid, body);
        set.status = answer.status;
        return answer.application;
      },
      {
        permission: "schedule.write",
        body: TemplateApply,
        response: { 201: TemplateApplication, 202: TemplateApplication, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Apply a schedule template to a date range",
          description: `Working blocks become provider schedules (one per block, effective from the range's first to its last date of the block's weekday); reserved-time blocks become one blockout per date of their weekday. A range of up to ${SYNC_MAX_DAYS} dates is written at once: 201 with the application completed. A longer one (up to ${MAX_APPLY_DAYS} dates) is written by the job schedule-templates.apply, ${CHUNK_DAYS} dates per write: 202 with the application queued; read its progress (days_done of days_total) with GET .../template-applications/{id}. replace_existing clears the template's providers' schedules at their locations from the range and deletes blockouts earlier applications wrote there; without it, a working block overlapping an existing schedule is 409 schedule_overlap naming the block (nothing written). Days holding an override of a block's provider skip that provider's blockouts unless include_override_days. 404 template or a block's reference; 422 invalid_date_range (date_to before date_from, or over ${MAX_APPLY_DAYS} days), template_archived, unknown fields; 409 template_application_running.`,
        },
      },
    )
    .get("/templates/:template_uuid/applications", ({ ctx, params, query }) => listApplications(ctx, params.template_uuid, query), {
      permission: "schedule.read",
      query: ApplicationListQuery,
      response: { 200: PageSchema(TemplateApplication), ...orgErrors() },
      detail: {
        summary: "List a schedule template's applications",
        description: "Newest first, archived templates' too. Paged by page and page_size (default 50, at most 200). 404 when the template is unknown.",
      },
    })
    .get("/template-applications/:application_uuid", ({ ctx, params }) => getApplication(ctx, params.application_uuid), {
      permission: "schedule.read",
      response: { 200: TemplateApplication, ...orgErrors() },
      detail: {
        summary: "Get a schedule template application (its progress)",
        description:
          "status queued, running, completed or failed (error says why); days_done of days_total; schedules_written, blockouts_written; days_skipped (date, provider, reason). 404 when unknown.",
      },
    });
