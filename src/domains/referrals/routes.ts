import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  ArchiveQuery,
  Archived,
  ReferralAttribution,
  ReferralAttributionCreate,
  ReferralAttributionListQuery,
  ReferralAttributionPatch,
  ReferralPartner,
  ReferralPartnerCreate,
  ReferralPartnerListQuery,
  ReferralPartnerPatch,
  ReferralSource,
  ReferralSourceCreate,
  ReferralSourceListQuery,
  ReferralSourcePatch,
} from "./schemas";
import { archivePartner, createPartner, getPartner, listPartners, updatePartner } from "./partners";
import { archiveSource, createSource, getSource, listSources, updateSource } from "./sources";
import { archiveAttribution, createAttribution, getAttribution, listAttributions, updateAttribution } from "./attributions";

const partnerRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/referral-partners", tags: ["Referrals"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listPartners(ctx, query), {
      permission: "referrals.read",
      query: ReferralPartnerListQuery,
      response: { 200: PageSchema(ReferralPartner), ...orgErrors() },
      detail: { summary: "List referral partners" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createPartner(ctx, body);
      },
      {
        permission: "referrals.write",
        body: ReferralPartnerCreate,
        response: { 201: ReferralPartner, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a referral partner",
          description:
            "contact_type provider needs first_name and last_name (422 names_required); accepts_ereferral true needs ereferral_endpoint (422 ereferral_endpoint_required); npi needs a valid check digit.",
        },
      },
    )
    .get("/:referral_partner_uuid", ({ ctx, params }) => getPartner(ctx, params.referral_partner_uuid), {
      permission: "referrals.read",
      response: { 200: ReferralPartner, ...orgErrors() },
      detail: {
        summary: "Get a referral partner",
        description:
          "An outside provider, practice or lab that referrals go to or come from: its contact type, names, specialty, NPI, contact details and whether it accepts e-referrals. An archived partner is 404.",
      },
    })
    .patch("/:referral_partner_uuid", ({ ctx, params, body }) => updatePartner(ctx, params.referral_partner_uuid, body), {
      permission: "referrals.write",
      body: ReferralPartnerPatch,
      response: { 200: ReferralPartner, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a referral partner", description: "The create rules are checked on the record as it would be after the change." },
    })
    .post("/:referral_partner_uuid/archive", ({ ctx, params, query }) => archivePartner(ctx, params.referral_partner_uuid, query), {
      permission: "referrals.write",
      query: ArchiveQuery,
      response: { 200: ReferralPartner, ...orgErrors(409) },
      detail: { summary: "Archive a referral partner", description: "Soft delete; answers the archived record." },
    });

const sourceRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/referral-sources", tags: ["Referrals"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listSources(ctx, query), {
      permission: "referrals.read",
      query: ReferralSourceListQuery,
      response: { 200: PageSchema(ReferralSource), ...orgErrors() },
      detail: { summary: "List referral sources" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createSource(ctx, body);
      },
      {
        permission: "referrals.write",
        body: ReferralSourceCreate,
        response: { 201: ReferralSource, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a referral source", description: "409 duplicate when a non-archived source has the same name (any case)." },
      },
    )
    .get("/:referral_source_uuid", ({ ctx, params }) => getSource(ctx, params.referral_source_uuid), {
      permission: "referrals.read",
      response: { 200: ReferralSource, ...orgErrors() },
      detail: {
        summary: "Get a referral source",
        description: "A named way patients find the practice (its type, description and whether it is active). An archived source is 404.",
      },
    })
    .patch("/:referral_source_uuid", ({ ctx, params, body }) => updateSource(ctx, params.referral_source_uuid, body), {
      permission: "referrals.write",
      body: ReferralSourcePatch,
      response: { 200: ReferralSource, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a referral source" },
    })
    .post("/:referral_source_uuid/archive", ({ ctx, params, query }) => archiveSource(ctx, params.referral_source_uuid, query), {
      permission: "referrals.write",
      query: ArchiveQuery,
      response: { 200: ReferralSource, ...orgErrors(409) },
      detail: { summary: "Archive a referral source", description: "Soft delete; answers the archived record." },
    });

const attributionRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/patients/:patient_uuid/referral-attributions", tags: ["Referrals"] })
    .use(guard(rt))
    .get("", ({ ctx, params, query }) => listAttributions(ctx, params.patient_uuid, query), {
      permission: "patients.read",
      query: ReferralAttributionListQuery,
      response: { 200: PageSchema(ReferralAttribution), ...orgErrors() },
      detail: { summary: "List a patient's referral attributions", description: "Archived attributions are left out; oldest attributed_at first." },
    })
    .post(
      "",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAttribution(ctx, params.patient_uuid, body);
      },
      {
        permission: "patients.write",
        body: ReferralAttributionCreate,
        response: { 201: ReferralAttribution, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Attribute a patient to a referral",
          description:
            "Exactly one of provider_uuid, referral_partner_uuid, referral_source_uuid, referring_patient_uuid (422 exactly_one_source). 404 when it is missing or archived; 409 duplicate when the patient already has an active primary.",
        },
      },
    )
    .get("/:attribution_uuid", ({ ctx, params }) => getAttribution(ctx, params.patient_uuid, params.attribution_uuid), {
      permission: "patients.read",
      response: { 200: ReferralAttribution, ...orgErrors() },
      detail: {
        summary: "Get a referral attribution",
        description:
          "How one patient came to the practice: the role of the attribution and who or what referred them (a provider, a referral partner, a source or another patient), with a note and when it was attributed. 404 when it belongs to another patient.",
      },
    })
    .patch("/:attribution_uuid", ({ ctx, params, body }) => updateAttribution(ctx, params.patient_uuid, params.attribution_uuid, body), {
      permission: "patients.write",
      body: ReferralAttributionPatch,
      response: { 200: ReferralAttribution, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a referral attribution", description: "Only attribution_role and source_note change; the source fields are read-only (422)." },
    })
    .post("/:attribution_uuid/archive", ({ ctx, params, query }) => archiveAttribution(ctx, params.patient_uuid, params.attribution_uuid, query), {
      permission: "patients.write",
      query: ArchiveQuery,
      response: { 200: Archived, ...orgErrors(409) },
      detail: { summary: "Archive a referral attribution", description: 'Soft delete; answers {"detail": "archived"}.' },
    });

/** Referral partners, referral sources and the referral attributions under a patient. */
export const referralRoutes = (rt: Runtime) => new Elysia({ name: "referrals" }).use(partnerRoutes(rt)).use(sourceRoutes(rt)).use(attributionRoutes(rt));
