import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  CredentialArchiveQuery,
  CredentialListQuery,
  ProviderIdentity,
  ProviderIdentityCreate,
  ProviderLocationOverride,
  ProviderLocationOverrideCreate,
  ProviderPrescriptionAccess,
  ProviderPrescriptionAccessCreate,
} from "./schemas";
import {
  archiveIdentity,
  archiveLocationOverride,
  archivePrescriptionAccess,
  createIdentity,
  createLocationOverride,
  createPrescriptionAccess,
  listIdentities,
  listLocationOverrides,
  listPrescriptionAccess,
} from "./service";

const read = "providers.credentials.read" as const;
const write = "providers.credentials.write" as const;

// Sub-resources of a provider: the path parameter is :provider_uuid, as in the providers module.
export const providerCredentialRoutes = (rt: Runtime) =>
  new Elysia({ name: "provider-credentials", prefix: "/api/v1/:org_id/providers/:provider_uuid", tags: ["Providers"] })
    .use(guard(rt))
    // ---- identities
    .get("/identities", ({ ctx, params, query }) => listIdentities(ctx, params.provider_uuid, query), {
      permission: read,
      query: CredentialListQuery,
      response: { 200: PageSchema(ProviderIdentity), ...orgErrors() },
      detail: { summary: "List a provider's payer identities" },
    })
    .post(
      "/identities",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createIdentity(ctx, params.provider_uuid, body);
      },
      {
        permission: write,
        body: ProviderIdentityCreate,
        response: { 201: ProviderIdentity, ...orgErrors(409, 413, 415) },
        detail: { summary: "Add a payer identity", description: "409 duplicate when the provider already has one for this payor_id and supplemental_id_type" },
      },
    )
    .post("/identities/:identity_uuid/archive", ({ ctx, params, query }) => archiveIdentity(ctx, params.provider_uuid, params.identity_uuid, query), {
      permission: write,
      query: CredentialArchiveQuery,
      response: { 200: ProviderIdentity, ...orgErrors(409) },
      detail: { summary: "Archive a payer identity" },
    })
    // ---- location overrides
    .get("/location-overrides", ({ ctx, params, query }) => listLocationOverrides(ctx, params.provider_uuid, query), {
      permission: read,
      query: CredentialListQuery,
      response: { 200: PageSchema(ProviderLocationOverride), ...orgErrors() },
      detail: { summary: "List a provider's per-location licences (DEA, state)" },
    })
    .post(
      "/location-overrides",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createLocationOverride(ctx, params.provider_uuid, body);
      },
      {
        permission: write,
        body: ProviderLocationOverrideCreate,
        response: { 201: ProviderLocationOverride, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Add a per-location override",
          description: "404 unknown location; 409 duplicate when the provider already has one for the location",
        },
      },
    )
    .post(
      "/location-overrides/:override_uuid/archive",
      ({ ctx, params, query }) => archiveLocationOverride(ctx, params.provider_uuid, params.override_uuid, query),
      {
        permission: write,
        query: CredentialArchiveQuery,
        response: { 200: ProviderLocationOverride, ...orgErrors(409) },
        detail: { summary: "Archive a per-location override" },
      },
    )
    // ---- prescription access
    .get("/prescription-access", ({ ctx, params, query }) => listPrescriptionAccess(ctx, params.provider_uuid, query), {
      permission: read,
      query: CredentialListQuery,
      response: { 200: PageSchema(ProviderPrescriptionAccess), ...orgErrors() },
      detail: { summary: "List a provider's eRx access" },
    })
    .post(
      "/prescription-access",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createPrescriptionAccess(ctx, params.provider_uuid, body);
      },
      {
        permission: write,
        body: ProviderPrescriptionAccessCreate,
        response: { 201: ProviderPrescriptionAccess, ...orgErrors(409, 413, 415) },
        detail: { summary: "Add eRx access", description: "404 when user_uuid is not a member of the org; 409 duplicate for the same NPI and erx_type" },
      },
    )
    .post(
      "/prescription-access/:access_uuid/archive",
      ({ ctx, params, query }) => archivePrescriptionAccess(ctx, params.provider_uuid, params.access_uuid, query),
      {
        permission: write,
        query: CredentialArchiveQuery,
        response: { 200: ProviderPrescriptionAccess, ...orgErrors(409) },
        detail: { summary: "Archive eRx access" },
      },
    );
