import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ArchiveQuery } from "@/domains/insurance/plans/schemas";
import { Subscription, SubscriptionCreate, SubscriptionListQuery, SubscriptionPatch } from "./schemas";
import { archiveSubscription, createSubscription, getSubscription, listSubscriptions, updateSubscription } from "./service";

/** Subscriptions: a subscriber's enrolment in a plan (the card). */
export const subscriptionRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/insurance/subscriptions", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listSubscriptions(ctx, query), {
      permission: "insurance.read",
      query: SubscriptionListQuery,
      response: { 200: PageSchema(Subscription), ...orgErrors() },
      detail: { summary: "List subscriptions", description: "Archived subscriptions are left out; creation order." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createSubscription(ctx, body);
      },
      {
        permission: "insurance.write",
        body: SubscriptionCreate,
        response: { 201: Subscription, ...orgErrors(413, 415) },
        detail: {
          summary: "Create a subscription",
          description:
            "404 when the subscriber patient or the plan is missing or archived. termination_date before effective_date is 422 termination_before_effective. The subscriber is covered once a patient plan with relationship self names the subscription.",
        },
      },
    )
    .get("/:subscription_uuid", ({ ctx, params }) => getSubscription(ctx, params.subscription_uuid), {
      permission: "insurance.read",
      response: { 200: Subscription, ...orgErrors() },
      detail: {
        summary: "Get a subscription",
        description:
          "A subscriber's enrollment in an insurance plan: the plan and its carrier, the subscriber patient, member id and effective and termination dates. An archived subscription is 404.",
      },
    })
    .patch("/:subscription_uuid", ({ ctx, params, body }) => updateSubscription(ctx, params.subscription_uuid, body), {
      permission: "insurance.write",
      body: SubscriptionPatch,
      response: { 200: Subscription, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a subscription",
        description:
          "Only fields present change; the subscriber cannot (422 read_only). The date rule is judged on the record as it would be stored. Estimates of every patient on the card are marked for recomputation.",
      },
    })
    .post("/:subscription_uuid/archive", ({ ctx, params, query }) => archiveSubscription(ctx, params.subscription_uuid, query), {
      permission: "insurance.write",
      query: ArchiveQuery,
      response: { 200: Subscription, ...orgErrors(409) },
      detail: {
        summary: "Archive a subscription",
        description: "Soft delete; answers the archived record. The patient plans that name it are archived with it.",
      },
    });
