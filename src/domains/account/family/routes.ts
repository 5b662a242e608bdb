import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { LedgerEntry } from "@/domains/account/ledger/schemas";
import { Account, AccountEntriesQuery, AccountEntry, AdjustmentCreate } from "./schemas";
import { createAdjustment, getAccount, listAccountEntries } from "./service";

export const familyAccountRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.family-account", prefix: "/api/v1/:org_id/patients", tags: ["Patient account"] })
    .use(guard(rt))
    .get("/:patient_uuid/account", ({ ctx, params }) => getAccount(ctx, params.patient_uuid), {
      permission: "billing.ledger.read",
      response: { 200: Account, ...orgErrors() },
      detail: {
        summary: "The family account",
        description:
          "The patient's guarantor (responsible party, else the patient) and family: each member's aged balance (0-30, 31-60, 61-90, over 90 days), total, insurance pending, patient portion and unallocated credit, with the family's totals, last payment and last statement. 404 when the patient does not exist.",
      },
    })
    .get("/:patient_uuid/account/entries", ({ ctx, params, query }) => listAccountEntries(ctx, params.patient_uuid, query), {
      permission: "billing.ledger.read",
      query: AccountEntriesQuery,
      response: { 200: PageSchema(AccountEntry), ...orgErrors() },
      detail: {
        summary: "The family's ledger with a running balance",
        description:
          "Every family member's entries merged in ledger order (entry date, then posting order), each with the family's balance after it; a date range narrows the page, not the running balance.",
      },
    })
    .post(
      "/:patient_uuid/adjustments",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAdjustment(ctx, params.patient_uuid, body);
      },
      {
        permission: "billing.ledger.write",
        body: AdjustmentCreate,
        response: { 201: LedgerEntry, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Post an adjustment",
          description:
            "One signed ledger entry of an adjustment type (a discount or write-off lowers what is owed; a finance charge raises it), optionally for one of the patient's procedures and a provider (default: the procedure's). 404 for a missing adjustment type, procedure or provider; 422 patient_archived for an archived patient.",
        },
      },
    );
