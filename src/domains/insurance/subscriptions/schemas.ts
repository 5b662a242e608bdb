import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

// Subscriptions: a subscriber's enrolment in a plan, i.e. the insurance card (docs/insurance/insurance.md, "Subscriptions").

const text = (max: number) => z.string().trim().max(max);

const fields = {
  plan_uuid: Uuid.describe("The insurance plan (404 when missing or archived)"),
  subscriber_id: text(50).min(1).nullable().describe("The member id on the card"),
  effective_date: DateOnly.nullable().describe("First day of coverage; null: covered since before anything recorded"),
  termination_date: DateOnly.nullable().describe("Last day of coverage (inclusive); null: open-ended. Not before effective_date"),
  notes: text(4000).nullable(),
};

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const DERIVED = ["plan", "carrier", "subscriber"];

export const SubscriptionCreate = z
  .strictObject({
    ...optional(fields),
    plan_uuid: fields.plan_uuid,
    subscriber_patient_uuid: Uuid.describe("The patient who holds the card (404 when missing or archived); cannot change later"),
  })
  .meta({ readOnly: DERIVED });
export type SubscriptionCreate = z.infer<typeof SubscriptionCreate>;

export const SubscriptionPatch = z.strictObject({ base_version: BaseVersion, ...optional(fields) }).meta({ readOnly: [...DERIVED, "subscriber_patient_uuid"] });
export type SubscriptionPatch = z.infer<typeof SubscriptionPatch>;

export const SubscriptionListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  subscriber_patient_uuid: Uuid.optional(),
  plan_uuid: Uuid.optional(),
});
export type SubscriptionListQuery = z.infer<typeof SubscriptionListQuery>;

export const Subscription = z
  .object({
    ...RecordMeta,
    plan: Ref.describe("name is the plan name, else its group name, else its group number"),
    carrier: Ref.describe("The plan's carrier (read-only)"),
    subscriber: Ref.describe('The subscriber patient; name is "First Last"'),
    subscriber_id: z.string().nullable(),
    effective_date: z.string().nullable().describe("YYYY-MM-DD"),
    termination_date: z.string().nullable().describe("YYYY-MM-DD"),
    notes: z.string().nullable(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "InsuranceSubscription" });
export type Subscription = z.infer<typeof Subscription>;
