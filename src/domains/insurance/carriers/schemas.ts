import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool, RecordMeta } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

export const ELECTRONIC_FILING_TYPES = ["do_not_send_electronically", "do_not_send_secondary_electronically", "send_electronically"] as const;
export const ERA_AUTOMATION_OVERRIDES = ["auto_receive", "do_not_process", "manual_review"] as const;
/**
 * How the other carrier's payment goes out on this carrier's secondary e-claims
 * (837D COB amounts): on the claim, on each procedure line, or both. Null: the
 * practice default (docs/insurance/insurance-catalogue.md).
 */
export const COB_INSURANCE_PAID_BEHAVIORS = ["claim_level", "procedure_level", "both"] as const;
/** Ranked lowest to highest: sort_by=trust_level follows this order, not the alphabet. */
export const TRUST_LEVELS = ["untrusted", "standard", "trusted"] as const;
export const CARRIER_SORTS = ["carrier_name", "electronic_id", "carrier_group_name", "trust_level", "created_at"] as const;

const text = (max: number) => z.string().trim().max(max);

const carrierFields = {
  carrier_name: z.string().trim().min(1).max(200).describe("The carrier as it appears on claims, e.g. Delta Dental of California; not unique"),
  carrier_group_name: text(200).nullable().describe("The family of carriers it belongs to, e.g. Delta Dental; the list filter matches it exactly (any case)"),
  address_line1: text(200).nullable().describe("Claims mailing address"),
  address_line2: text(200).nullable(),
  city: text(100).nullable(),
  state: text(100).nullable(),
  zip_code: text(20).nullable(),
  phone: text(40).nullable(),
  notes: text(4000).nullable(),
  electronic_id: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{1,20}$/, "Must be 1-20 letters, digits or dashes, e.g. 60054 or CDCA1")
    .transform((v) => v.toUpperCase())
    .nullable()
    .describe("Payer id for electronic claims (stored upper case); several carriers may share one"),
  electronic_filing_type: z.enum(ELECTRONIC_FILING_TYPES).describe("Default send_electronically"),
  era_automation_override: z.enum(ERA_AUTOMATION_OVERRIDES).nullable().describe("How this carrier's ERAs are posted; null: the practice default"),
  cob_insurance_paid_behavior_override: z
    .enum(COB_INSURANCE_PAID_BEHAVIORS)
    .nullable()
    .describe("Where the other insurance's payment is reported on secondary e-claims to this carrier; null: the practice default"),
  trust_level: z.enum(TRUST_LEVELS).describe("Default standard; how far its eligibility and payment data are taken without review"),
  is_hidden: z.boolean().describe("Default false; hidden carriers stay valid for existing plans but are not offered for new ones"),
};

type Shape = typeof carrierFields;
const optional = Object.fromEntries(Object.entries(carrierFields).map(([k, v]) => [k, v.optional()])) as { [K in keyof Shape]: z.ZodOptional<Shape[K]> };

export const CarrierCreate = z.strictObject({ ...optional, carrier_name: carrierFields.carrier_name });
export type CarrierCreate = z.infer<typeof CarrierCreate>;

export const CarrierPatch = z.strictObject({ base_version: BaseVersion, ...optional });
export type CarrierPatch = z.infer<typeof CarrierPatch>;

export const Carrier = z
  .object({
    ...RecordMeta,
    carrier_name: z.string(),
    carrier_group_name: z.string().nullable(),
    address_line1: z.string().nullable(),
    address_line2: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    zip_code: z.string().nullable(),
    phone: z.string().nullable(),
    notes: z.string().nullable(),
    electronic_id: z.string().nullable(),
    electronic_filing_type: z.enum(ELECTRONIC_FILING_TYPES),
    era_automation_override: z.enum(ERA_AUTOMATION_OVERRIDES).nullable(),
    cob_insurance_paid_behavior_override: z.enum(COB_INSURANCE_PAID_BEHAVIORS).nullable(),
    trust_level: z.enum(TRUST_LEVELS),
    is_hidden: z.boolean(),
    deleted_at: DateTime.nullable().describe("Set when archived: the carrier stays readable by id but leaves lists"),
  })
  .meta({ id: "Carrier" });
export type Carrier = z.infer<typeof Carrier>;

export const CarrierListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of carrier_name, electronic_id or carrier_group_name"),
  carrier_group_name: z.string().trim().min(1).max(200).optional().describe("Exact carrier_group_name, any case"),
  include_hidden: QueryBool.default(false).describe("Also list hidden carriers (default false)"),
  sort_by: z.enum(CARRIER_SORTS).default("carrier_name").describe("Default carrier_name; text sorts ignore case, empty values sort last"),
  sort_order: z.enum(["asc", "desc"]).default("asc"),
});
export type CarrierListQuery = z.infer<typeof CarrierListQuery>;

export const CarrierArchiveQuery = z.strictObject({ base_version: BaseVersionQuery });
export type CarrierArchiveQuery = z.infer<typeof CarrierArchiveQuery>;

export const CarrierStats = z
  .object({
    items: z.array(
      z.object({
        carrier_uuid: z.string(),
        carrier_name: z.string(),
        electronic_id: z.string().nullable(),
        plan_count: z.number().int().describe("Insurance plans of the carrier that are not archived"),
        subscriber_count: z.number().int().describe("Distinct subscriber patients of the non-archived subscriptions to those plans"),
      }),
    ),
  })
  .meta({ id: "CarrierStats" });
export type CarrierStats = z.infer<typeof CarrierStats>;
