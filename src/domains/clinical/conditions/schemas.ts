import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ConditionSeverity, ConditionStatus, ConditionType, Surfaces, ToothNumber } from "@/domains/codes/dental-vocabulary";

const fields = {
  condition_type: ConditionType,
  date_identified: DateOnly.describe("Default: today in the patient's practice time zone; not in the future"),
  date_resolved: DateOnly.describe("Only with status resolved; default today when resolving; not before date_identified, not in the future"),
  tooth_number: ToothNumber.condition.nullable().describe("Universal numbering: 1-32 permanent, A-T primary; null for a finding that is not tooth-specific"),
  surface: Surfaces.condition.nullable().describe("Surface letters (M, O, D, B, L, I, F, V), e.g. MO; needs tooth_number"),
  severity: ConditionSeverity.nullable(),
  status: ConditionStatus.describe("Default active; resolved sets date_resolved, leaving resolved clears it"),
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
    severity: ConditionSeverity.nullable(),
    status: ConditionStatus,
    provider: Ref.nullable().describe('Provider {uuid, name: "First Last"}'),
    diagnostic_code: Ref.nullable().describe("Diagnosis definition {uuid, name: item_name}"),
    note: z.string(),
  })
  .meta({ id: "PatientCondition" });
export type Condition = z.infer<typeof Condition>;

export const ConditionListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: ConditionStatus.optional(),
  condition_type: ConditionType.optional(),
  tooth_number: ToothNumber.condition.optional(),
});
export type ConditionListQuery = z.infer<typeof ConditionListQuery>;

export const ConditionDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
