import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { RecallListQuery, RecallListRow, RecallSummary, RecallSummaryQuery } from "./schemas";
import { listRecalls, recallSummary } from "./service";

export const recallListRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.recall-list", prefix: "/api/v1/:org_id/recalls", tags: ["Recall"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listRecalls(ctx, query), {
      permission: "recall.read",
      query: RecallListQuery,
      response: { 200: PageSchema(RecallListRow), ...orgErrors() },
      detail: {
        summary: "The recall list",
        description:
          "Recalls of active patients to call, the earliest due first (or by last name): each row the patient with their contact fields, their latest communication log entry, the recall, and the family members with a recall due in the same window. Filters: due window, status (repeatable; default due, overdue and scheduled), recall type, the patient's home location, their primary provider or hygienist, unscheduled only; include_family keeps each family's rows together. Recalls of archived types are left out. 422 invalid_date_range when due_to is before due_from, 422 for unknown parameters. Paged: page_size 50 by default, at most 200.",
      },
    })
    .get("/summary", ({ ctx, query }) => recallSummary(ctx, query), {
      permission: "recall.read",
      query: RecallSummaryQuery,
      response: { 200: RecallSummary, ...orgErrors() },
      detail: {
        summary: "Recalls of a month by week",
        description:
          "For each week of the month (days 1-7, 8-14, 15-21, 22-28, 29 to the end) the recalls of active patients falling due then: due, scheduled and overdue (as of today), and their totals; disabled recalls are not counted. Filters as the list's. 422 for a month that is not YYYY-MM.",
      },
    });
