import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ArchiveQuery, Provider, ProviderCreate, ProviderListQuery, ProviderPatch, ProviderSummary, ProviderSummaryQuery } from "./schemas";
import { archiveProvider, createProvider, getProvider, listProviders, providerSummary, updateProvider } from "./service";

export const providerRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/providers", tags: ["Providers"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listProviders(ctx, query), {
      permission: "providers.read",
      query: ProviderListQuery,
      response: { 200: PageSchema(Provider), ...orgErrors() },
      detail: { summary: "List providers" },
    })
    .get("/summary", ({ ctx, query }) => providerSummary(ctx, query), {
      permission: "providers.read",
      query: ProviderSummaryQuery,
      response: { 200: ProviderSummary, ...orgErrors() },
      detail: {
        summary: "Count providers by status (no provider rows)",
        description:
          "How many non-archived providers are in the statuses of `status_set` (default `active`; repeat the parameter or separate with commas), leaving hidden providers out unless `include_hidden=true`. Answers the count only, for dashboards that need no provider rows.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createProvider(ctx, body);
      },
      {
        permission: "providers.write",
        body: ProviderCreate,
        response: { 201: Provider, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a provider",
          description:
            "`abbreviation` is unique among the org's non-archived providers, ignoring case: 409 `duplicate` (an archived provider's can be reused). `billing_override_provider_uuid` must name another non-archived provider (404). `national_provider_id` must pass the NPI check digit (422).",
        },
      },
    )
    .get("/:provider_uuid", ({ ctx, params }) => getProvider(ctx, params.provider_uuid), {
      permission: "providers.read",
      response: { 200: Provider, ...orgErrors() },
      detail: {
        summary: "Get a provider",
        description:
          "The provider with names, abbreviation, identifiers (NPI, Medicaid id), type, specialty, colours and flags, and the billing override provider as a reference. An archived provider is 404.",
      },
    })
    .patch("/:provider_uuid", ({ ctx, params, body }) => updateProvider(ctx, params.provider_uuid, body), {
      permission: "providers.write",
      body: ProviderPatch,
      response: { 200: Provider, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a provider",
        description:
          "Takes any create field. An abbreviation another live provider has is 409 `duplicate` (judged after `base_version`); a billing override naming the provider itself is 422.",
      },
    })
    .post("/:provider_uuid/archive", ({ ctx, params, query }) => archiveProvider(ctx, params.provider_uuid, query), {
      permission: "providers.write",
      query: ArchiveQuery,
      response: { 200: Provider, ...orgErrors(409) },
      detail: { summary: "Archive a provider" },
    });
