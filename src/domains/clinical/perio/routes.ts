import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { NoQuery } from "@/domains/clinical/tooth-chart/schemas";
import { PerioExam, PerioExamCreate, PerioExamDeleteQuery, PerioExamListQuery, PerioExamPatch, PerioExamSummary, ToothIndicatorList } from "./schemas";
import { createPerioExam, deletePerioExam, getPerioExam, listPerioExams, perioExamSummary, toothIndicators, updatePerioExam } from "./service";

const NOT_FOUND = "404 when the patient or the exam is unknown, deleted, of another org, or the exam belongs to another patient.";
const ARCHIVED = "422 patient_archived when the patient is archived.";

/** Periodontal exams and the per-tooth indicators drawn from them (docs/clinical/tooth-chart.md). */
export const perioRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.perio", prefix: "/api/v1/:org_id/clinical/patients/:patient_uuid", tags: ["Clinical"] })
    .use(guard(rt))
    .post(
      "/perio-exams",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createPerioExam(ctx, params.patient_uuid, body);
      },
      {
        permission: "clinical.write",
        body: PerioExamCreate,
        response: { 201: PerioExam, ...orgErrors(413, 415) },
        detail: {
          summary: "Record a perio exam",
          description:
            "Per tooth: mobility, furcation, six pocket depths, recession, bleeding, plaque and suppuration sites. 404 for an unknown or archived provider. " +
            ARCHIVED,
        },
      },
    )
    .get("/perio-exams", ({ ctx, params, query }) => listPerioExams(ctx, params.patient_uuid, query), {
      permission: "clinical.read",
      query: PerioExamListQuery,
      response: { 200: PageSchema(PerioExam), ...orgErrors() },
      detail: { summary: "A patient's perio exams", description: "Newest exam_date first." },
    })
    .get("/perio-exams/:exam_uuid", ({ ctx, params }) => getPerioExam(ctx, params.patient_uuid, params.exam_uuid), {
      permission: "clinical.read",
      response: { 200: PerioExam, ...orgErrors() },
      detail: { summary: "Get a perio exam", description: NOT_FOUND },
    })
    .patch("/perio-exams/:exam_uuid", ({ ctx, params, body }) => updatePerioExam(ctx, params.patient_uuid, params.exam_uuid, body), {
      permission: "clinical.write",
      body: PerioExamPatch,
      response: { 200: PerioExam, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a perio exam",
        description: `exam_date, provider_uuid, note and teeth (the whole list replaced, validated as on create). ${NOT_FOUND} 404 for an unknown or archived provider. 409 version_conflict when base_version is stale. ${ARCHIVED}`,
      },
    })
    .delete(
      "/perio-exams/:exam_uuid",
      async ({ ctx, params, query, set }) => {
        await deletePerioExam(ctx, params.patient_uuid, params.exam_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "clinical.write",
        query: PerioExamDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Delete a perio exam (soft delete)",
          description: `Afterwards the exam is 404 and leaves the list, the tooth indicators and other exams' summaries. ${NOT_FOUND} 409 version_conflict when base_version is stale. ${ARCHIVED}`,
        },
      },
    )
    .get("/perio-exams/:exam_uuid/summary", ({ ctx, params }) => perioExamSummary(ctx, params.patient_uuid, params.exam_uuid), {
      permission: "clinical.read",
      query: NoQuery,
      response: { 200: PerioExamSummary, ...orgErrors() },
      detail: {
        summary: "Summary of a perio exam",
        description:
          "Sites charted, sites at 4 mm and 6 mm or more, bleeding, plaque and suppuration counts and percentages, and the change from the patient's previous exam (the latest dated before this one): differences and the sites 2 mm or more deeper or shallower. " +
          NOT_FOUND,
      },
    })
    .get("/tooth-indicators", ({ ctx, params }) => toothIndicators(ctx, params.patient_uuid), {
      permission: "clinical.read",
      query: NoQuery,
      response: { 200: ToothIndicatorList, ...orgErrors() },
      detail: {
        summary: "Per-tooth indicators",
        description:
          "Aggregated from specialty modules, currently perio: per tooth the mobility, furcation, deepest pocket and bleeding sites of the newest exam that examined it.",
      },
    });
