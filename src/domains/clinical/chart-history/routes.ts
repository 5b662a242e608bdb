import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { AtDateQuery, ChartAtDate, ChartTimeline, TimelineQuery } from "./schemas";
import { chartAtDate, chartTimeline } from "./service";

// How a patient's chart looked on a past date, and when it changed (docs/clinical/chart-history.md).
export const chartHistoryRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.chart-history", prefix: "/api/v1/:org_id/clinical/patients/:patient_uuid/chart", tags: ["Clinical: chart history"] })
    .use(guard(rt))
    .get("/at-date", ({ ctx, params, query }) => chartAtDate(ctx, params.patient_uuid, query.date), {
      permission: "clinical.read",
      query: AtDateQuery,
      response: { 200: ChartAtDate, ...orgErrors() },
      detail: {
        summary: "The chart as of a date",
        description:
          "Tooth statuses in effect on the date, procedures with date_service on or before it (current statuses), conditions identified on or before it and unresolved at it. 422 when date is missing or not a real YYYY-MM-DD date.",
      },
    })
    .get("/timeline", ({ ctx, params }) => chartTimeline(ctx, params.patient_uuid), {
      permission: "clinical.read",
      query: TimelineQuery,
      response: { 200: ChartTimeline, ...orgErrors() },
      detail: {
        summary: "Dates with chart activity",
        description: "Oldest first; each date with counts per source (tooth statuses, procedures, conditions identified and resolved).",
      },
    });
