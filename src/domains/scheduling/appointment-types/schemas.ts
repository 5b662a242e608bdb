import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool, RecordMeta, Ref, Uuid, HexColor } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { hasAtMostTwoDecimals } from "@/platform/money";

// ---------------------------------------------------------------- appointment types

/** A fee in a request: dollars as a number, 0 to 1,000,000, at most two decimals (stored as cents). */
export const Fee = z.number().min(0).max(1_000_000).refine(hasAtMostTwoDecimals, "Must have at most two decimals");

const typeFields = {
  code: z.string().trim().min(1).max(32).describe("Short code shown on the schedule; unique (ignoring case) among types that are not archived"),
  name: z.string().trim().min(1).max(200),
  duration_minutes: z
    .number()
    .int()
    .min(5)
    .max(480)
    .multipleOf(5, "Must be a multiple of 5")
    .describe("Default length of an appointment of this type: 5-480 minutes in steps of 5"),
  color: HexColor.transform((c) => c.toUpperCase()).describe("Display colour, #RRGGBB or #RGB; stored and returned upper-case"),
  requires_exam: z.boolean().describe("Whether an exam is required for this type"),
  is_active: z.boolean().describe("Inactive types stay readable but are hidden by is_active=true"),
  default_fee: Fee.nullable().describe("Dollars (number, at most two decimals); copied to each new appointment of this type as its fee. null: no default"),
};

export const AppointmentTypeCreate = z.strictObject({
  ...typeFields,
  requires_exam: typeFields.requires_exam.default(false),
  is_active: typeFields.is_active.default(true),
  default_fee: typeFields.default_fee.optional(),
});
export type AppointmentTypeCreate = z.infer<typeof AppointmentTypeCreate>;

export const AppointmentTypePatch = z.strictObject({ base_version: BaseVersion, ...z.object(typeFields).partial().shape });
export type AppointmentTypePatch = z.infer<typeof AppointmentTypePatch>;

export const AppointmentType = z
  .object({
    ...RecordMeta,
    uuid: z.string().describe("Same value as id (the booking pipeline reads uuid)"),
    code: z.string(),
    name: z.string(),
    duration_minutes: z.number().int(),
    color: z.string(),
    requires_exam: z.boolean(),
    is_active: z.boolean(),
    default_fee: z.string().nullable().describe('Dollars, two decimals ("95.00"); null: no default'),
    deleted_at: DateTime.nullable().describe("Set when the type was archived"),
  })
  .meta({ id: "AppointmentType" });
export type AppointmentType = z.infer<typeof AppointmentType>;

// Unknown query parameters are ignored (decisions.md), so this is not strict.
export const AppointmentTypeListQuery = z.strictObject({
  is_active: QueryBool.optional().describe("true: active types only; false: inactive types only; omitted: both. Archived types are never listed"),
});
export type AppointmentTypeListQuery = z.infer<typeof AppointmentTypeListQuery>;

export const AppointmentTypeList = z.object({
  items: z.array(AppointmentType),
  total: z.number().int().describe("Number of items (the list is not paged)"),
});

// ---------------------------------------------------------------- appointment rules

export const AppointmentRuleCreate = z.strictObject({
  appointment_type_a_uuid: Uuid.describe("One appointment type of the pair (order does not matter)"),
  appointment_type_b_uuid: Uuid.describe("The other appointment type of the pair; may equal a"),
  location_uuid: Uuid.nullable().optional().describe("The location the rule applies to; null or omitted: org-wide"),
  allow_overlap: z.boolean().describe("Whether appointments of these two types may overlap for one provider or operatory"),
});
export type AppointmentRuleCreate = z.infer<typeof AppointmentRuleCreate>;

// The pair and the location are immutable: naming them is 422 read_only, not "unknown field".
export const RULE_READ_ONLY = ["appointment_type_a_uuid", "appointment_type_b_uuid", "location_uuid", "appointment_type_a", "appointment_type_b", "location"];
export const AppointmentRulePatch = z
  .strictObject({
    allow_overlap: AppointmentRuleCreate.shape.allow_overlap,
    base_version: BaseVersion,
  })
  .meta({ readOnly: RULE_READ_ONLY });
export type AppointmentRulePatch = z.infer<typeof AppointmentRulePatch>;

export const AppointmentRule = z
  .object({
    ...RecordMeta,
    appointment_type_a: Ref,
    appointment_type_b: Ref,
    location: Ref.nullable().describe("null: the rule applies org-wide"),
    allow_overlap: z.boolean(),
  })
  .meta({ id: "AppointmentRule" });
export type AppointmentRule = z.infer<typeof AppointmentRule>;

export const AppointmentRuleListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  location_uuid: Uuid.optional().describe("Rules of this location; omitted: org-wide rules (no location)"),
  appointment_type_uuid: Uuid.optional().describe("Rules naming this type on either side of the pair"),
});
export type AppointmentRuleListQuery = z.infer<typeof AppointmentRuleListQuery>;

export const AppointmentRuleDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
