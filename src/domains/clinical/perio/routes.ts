import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { NoQuery } from "@/domains/clinical/tooth-chart/schemas";
import { PerioExam, PerioExamCreate, PerioExamListQuery, ToothIndicatorList } from "./schemas";
import { createPerioExam, getPerioExam, listPerioExams, toothIndicators } from "./service";

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
          description: "Per tooth: mobility, furcation, six pocket depths, recession, bleeding sites. 404 for an unknown or archived provider.",
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
      detail: { summary: "Get a perio exam", description: "404 also when it belongs to another patient." },
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
