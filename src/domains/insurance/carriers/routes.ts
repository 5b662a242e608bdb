import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Carrier, CarrierArchiveQuery, CarrierCreate, CarrierListQuery, CarrierPatch, CarrierStats } from "./schemas";
import { archiveCarrier, carrierStats, createCarrier, getCarrier, listCarriers, updateCarrier } from "./service";

const ARCHIVED_RULE = "An archived carrier is read-only: 422 carrier_archived.";

/** Insurance carriers: the payers plans belong to. */
export const carrierRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.insurance.carriers", prefix: "/api/v1/:org_id/insurance/carriers", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listCarriers(ctx, query), {
      permission: "insurance.read",
      query: CarrierListQuery,
      response: { 200: PageSchema(Carrier), ...orgErrors() },
      detail: {
        summary: "List insurance carriers",
        description:
          "Archived carriers are left out; hidden ones only with include_hidden=true. Sorted by sort_by (text ignoring case, empty values last, trust_level by rank untrusted < standard < trusted), then carrier_name and id.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createCarrier(ctx, body);
      },
      {
        permission: "insurance.write",
        body: CarrierCreate,
        response: { 201: Carrier, ...orgErrors(413, 415) },
        detail: { summary: "Create an insurance carrier", description: "Only carrier_name is required. Names and electronic ids need not be unique." },
      },
    )
    // declared before /:carrier_uuid so "stats" is never read as an id
    .get("/stats", ({ ctx }) => carrierStats(ctx), {
      permission: "insurance.read",
      response: { 200: CarrierStats, ...orgErrors() },
      detail: {
        summary: "Plan and subscriber counts per active carrier",
        description:
          "One item per carrier that is neither archived nor hidden, by carrier_name: plan_count counts its plans that are not archived; subscriber_count the distinct subscriber patients of the non-archived subscriptions to those plans.",
      },
    })
    .get("/:carrier_uuid", ({ ctx, params }) => getCarrier(ctx, params.carrier_uuid), {
      permission: "insurance.read",
      response: { 200: Carrier, ...orgErrors() },
      detail: { summary: "Get an insurance carrier", description: "Archived carriers are still answered (deleted_at set): plans and claims keep naming them." },
    })
    .patch("/:carrier_uuid", ({ ctx, params, body }) => updateCarrier(ctx, params.carrier_uuid, body), {
      permission: "insurance.write",
      body: CarrierPatch,
      response: { 200: Carrier, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update an insurance carrier", description: `Only the fields sent change; null clears an optional field. ${ARCHIVED_RULE}` },
    })
    .post("/:carrier_uuid/archive", ({ ctx, params, query }) => archiveCarrier(ctx, params.carrier_uuid, query), {
      permission: "insurance.write",
      query: CarrierArchiveQuery,
      response: { 200: Carrier, ...orgErrors(409) },
      detail: {
        summary: "Archive an insurance carrier",
        description: `Soft delete with ?base_version=: the carrier leaves lists and stats but stays readable by id; its plans keep it. ${ARCHIVED_RULE}`,
      },
    });
