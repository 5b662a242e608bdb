import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { Daysheet, DaysheetQuery, ProductionCollections, ProductionCollectionsQuery } from "./schemas";
import { daysheet, productionCollections, productionCollectionsCsv } from "./service";

const csvAttachment = (body: string, fileName: string) =>
  new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${fileName}"`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
    },
  });

export const reportRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.account-reports", prefix: "/api/v1/:org_id/reports", tags: ["Reports"] })
    .use(guard(rt))
    .get(
      "/production-collections",
      ({ ctx, query }): Promise<ProductionCollections> | Promise<Response> => {
        if (query.format !== "csv") return productionCollections(ctx, query);
        const fileName = `production-collections-${query.date_from}-${query.date_to}-${query.group_by}.csv`;
        return productionCollections(ctx, query).then<Response>((report) => csvAttachment(productionCollectionsCsv(report), fileName));
      },
      {
        permission: "billing.ledger.read",
        query: ProductionCollectionsQuery,
        response: { 200: ProductionCollections, ...orgErrors() },
        detail: {
          summary: "Production and collections over a date range",
          description:
            "Gross production (charges of completed procedures), adjustments, net production, what else moved the balances (manual charges, payment plan entries), patient and insurance collections (net of voids and refunds, each on its own date) and net collections, summed from the ledger's entries by entry_date, grouped by day, provider or location, with totals equal to the ledger's sums over the range. `format=csv` answers the same figures as a text/csv attachment: a header row, one row per group and a total row, money as plain decimals. Both dates are required; date_to before date_from, or a range of more than 366 days, is 422 invalid_date_range.",
        },
      },
    )
    .get("/daysheet", ({ ctx, query }) => daysheet(ctx, query), {
      permission: "billing.ledger.read",
      query: DaysheetQuery,
      response: { 200: Daysheet, ...orgErrors() },
      detail: {
        summary: "The day's ledger entries by provider",
        description:
          "Every ledger entry dated `date` (charges, payments with their voids and refunds, adjustments), as the patient ledger answers them, grouped by provider (by name; entries without a provider last), each group and the day with its count and sums by entry kind. Not paged: one day of one org.",
      },
    });
