import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { LedgerEntry, LedgerEntryCreate, LedgerListQuery } from "./schemas";
import { listLedgerEntries, postLedgerEntry } from "./service";

export const ledgerRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.ledger", prefix: "/api/v1/:org_id/patients", tags: ["Patient ledger"] })
    .use(guard(rt))
    .get("/:patient_uuid/ledger-entries", ({ ctx, params, query }) => listLedgerEntries(ctx, params.patient_uuid, query), {
      permission: "billing.ledger.read",
      query: LedgerListQuery,
      response: { 200: PageSchema(LedgerEntry), ...orgErrors() },
      detail: {
        summary: "List a patient's ledger entries",
        description: "Ordered by entry_date, then posting order. 404 when the patient does not exist; archived patients stay readable.",
      },
    })
    .post(
      "/:patient_uuid/ledger-entries",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return postLedgerEntry(ctx, params.patient_uuid, body);
      },
      {
        permission: "billing.ledger.write",
        body: LedgerEntryCreate,
        response: { 201: LedgerEntry, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Post a charge, payment or adjustment",
          description:
            "Append-only. Updates the patient's aging buckets (balance_*) and scheduling_restricted in the same transaction. 422 patient_archived for an archived patient.",
        },
      },
    );
