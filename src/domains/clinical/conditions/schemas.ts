import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { toothOf } from "@/domains/odontogram/auto-codes/teeth";

export const CONDITION_TYPES = [
  "abrasion",
  "abscess",
  "ankylosis",
  "attrition",
  "caries",
  "decalcification",
  "defective_restoration",
  "diastema",
  "dilaceration",
  "erosion",
  "fracture",
  "fracture_root",
  "fusion",
  "gemination",
  "hypoplasia",
  "impaction",
  "luxation",
  "macrodontia",
  "microdontia",
  "open_contact",
  "other",
  "periapical_lesion",
  "periodontal",
  "root_resorption_external",
  "root_resorption_internal",
  "watch",
] as const;
export const CONDITION_STATUSES = ["active", "monitoring", "resolved"] as const;
export const SEVERITIES = ["mild", "moderate", "severe"] as const;
/** Canonical surface order, as charted procedures store theirs. */
export const SURFACE_ORDER = "MODBLIFV";

/** Universal tooth number: "1"-"32" or "A"-"T" (lower case accepted); answered in canonical form. */
export const ToothNumber = z
  .string()
  .regex(/^(?:[1-9]|[12][0-9]|3[0-2]|[A-Ta-t])$/, "Universal tooth number: 1-32 (permanent) or A-T (primary)")
  .transform((s) => toothOf(s)!.tooth);

/** One or more distinct surface letters, answered in canonical order (M O D B L I F V): "om" -> "MO". */
export const Surface = z
  .string()
  .regex(/^[MODBLIFVmodblifv]{1,8}$/, "Surface letters M, O, D, B, L, I, F, V")
  .refine((s) => new Set(s.toUpperCase()).size === s.length, "Each surface letter at most once")
  .transform((s) => [...SURFACE_ORDER].filter((c) => s.toUpperCase().includes(c)).join(""));

const fields = {
  condition_type: z.enum(CONDITION_TYPES),
  date_identified: DateOnly.describe("Default: today in the patient's practice time zone; not in the future"),
  date_resolved: DateOnly.describe("Only with status resolved; default today when resolving; not before date_identified, not in the future"),
  tooth_number: ToothNumber.nullable().describe("Universal numbering: 1-32 permanent, A-T primary; null for a finding that is not tooth-specific"),
  surface: Surface.nullable().describe("Surface letters (M, O, D, B, L, I, F, V), e.g. MO; needs tooth_number"),
  severity: z.enum(SEVERITIES).nullable(),
  status: z.enum(CONDITION_STATUSES).describe("Default active; resolved sets date_resolved, leaving resolved clears it"),
  provider_uuid: Uuid.nullable().describe("Who identified it; 404 when not a current provider of this org"),
  diagnostic_code_uuid: Uuid.nullable().describe("A definitions item of category diagnosis_codes (its item_value is the ICD-10-CM code); 404 otherwise"),
  note: z.string().max(2000).describe("Default empty"),
};
const READ_ONLY = ["id", "version", "created_at", "updated_at", "deleted_at", "patient", "provider", "diagnostic_code"];

const optional = z.object(fields).partial().shape;
export const ConditionCreate = z.strictObject({ ...optional, condition_type: fields.condition_type }).meta({ readOnly: READ_ONLY });
export type ConditionCreate = z.infer<typeof ConditionCreate>;
export const ConditionPatch = z.strictObject({ base_version: BaseVersion, ...optional }).meta({ readOnly: READ_ONLY });
export type ConditionPatch = z.infer<typeof ConditionPatch>;

export const Condition = z
  .object({
    ...RecordMeta,
    patient: Ref.describe("The patient this condition belongs to"),
    condition_type: fields.condition_type,
    date_identified: z.string().describe("YYYY-MM-DD"),
    date_resolved: z.string().nullable().describe("YYYY-MM-DD; set exactly when status is resolved"),
    tooth_number: z.string().nullable(),
    surface: z.string().nullable(),
    severity: z.enum(SEVERITIES).nullable(),
    status: z.enum(CONDITION_STATUSES),
    provider: Ref.nullable().describe('Provider {uuid, name: "First Last"}'),
    diagnostic_code: Ref.nullable().describe("Diagnosis definition {uuid, name: item_name}"),
    note: z.string(),
  })
  .meta({ id: "PatientCondition" });
export type Condition = z.infer<typeof Condition>;

export const ConditionListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(CONDITION_STATUSES).optional(),
  condition_type: z.enum(CONDITION_TYPES).optional(),
  tooth_number: ToothNumber.optional(),
});
export type ConditionListQuery = z.infer<typeof ConditionListQuery>;

export const ConditionDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
