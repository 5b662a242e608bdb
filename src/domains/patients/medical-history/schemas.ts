import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ALLERGEN_CATEGORIES, WARNING_SEVERITIES } from "./drug-allergy-map";

export const ALERT_CATEGORIES = ["medical", "administrative", "financial", "behavioral", "other"] as const;
export const ALERT_SEVERITIES = ["low", "medium", "high"] as const;
export const ALERT_SCOPES = ["patient", "family"] as const;
export const ALERT_STATUSES = ["active", "disabled", "archived"] as const;
export const ALLERGY_SEVERITIES = ["mild", "moderate", "severe", "life_threatening"] as const;
export const PROBLEM_STATUSES = ["active", "resolved", "inactive"] as const;
export const MEDICATION_STATUSES = ["active", "completed", "discontinued", "on_hold"] as const;

const text = (max: number) => z.string().max(max).nullable();
const required = (max: number) => z.string().trim().min(1).max(max);
/** Every record here answers with its patient as a reference. */
const owner = { patient: Ref.describe("The patient this record belongs to") };
const meta = { ...RecordMeta, ...owner, deleted_at: DateTime.nullable() };

/** Create: the required fields as given, the rest optional. PATCH: base_version plus any field. */
function writeSchemas<T extends z.ZodRawShape, K extends keyof T>(fields: T, requiredKeys: K[], readOnly: string[]) {
  const optional = z.object(fields).partial().shape;
  const req = Object.fromEntries(requiredKeys.map((k) => [k, fields[k]])) as Pick<T, K>;
  const ro = ["id", "version", "created_at", "updated_at", "deleted_at", "patient", ...readOnly];
  return {
    create: z.strictObject({ ...(optional as Omit<typeof optional, K>), ...req }).meta({ readOnly: ro }),
    patch: z.strictObject({ base_version: BaseVersion, ...optional }).meta({ readOnly: ro }),
  };
}

// ---- alerts ---------------------------------------------------------------------------

const alertFields = {
  title: required(200),
  description: text(2000),
  category: z.enum(ALERT_CATEGORIES).describe("Default medical"),
  severity: z.enum(ALERT_SEVERITIES).describe("Default medium"),
  scope: z.enum(ALERT_SCOPES).describe("patient (default): this patient only; family: also listed for the members of the patient's family with include_family"),
  status: z.enum(["active", "disabled"]).describe("Default active; archived only through archive"),
};
const alertWrite = writeSchemas(alertFields, ["title"], []);
export const AlertCreate = alertWrite.create;
export type AlertCreate = z.infer<typeof AlertCreate>;
export const AlertPatch = alertWrite.patch;
export type AlertPatch = z.infer<typeof AlertPatch>;

export const Alert = z
  .object({
    ...meta,
    ...alertFields,
    status: z.enum(ALERT_STATUSES),
  })
  .meta({ id: "PatientAlert" });
export type Alert = z.infer<typeof Alert>;

export const AlertListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(ALERT_STATUSES).optional().describe("Without it, active and disabled alerts (archived ones only with status=archived)"),
  include_family: QueryBool.optional().describe("Also family-scoped alerts of the other members of the patient's family (same guarantor); default false"),
});
export type AlertListQuery = z.infer<typeof AlertListQuery>;

// ---- allergies ------------------------------------------------------------------------

const allergyFields = {
  allergen: required(200).describe("What the patient is allergic to, e.g. Penicillin, Latex, Peanuts"),
  allergen_category: z.enum(ALLERGEN_CATEGORIES).describe("Default other"),
  reaction: text(500).describe("e.g. hives, anaphylaxis"),
  severity: z.enum(ALLERGY_SEVERITIES).nullable(),
  is_active: z.boolean().describe("Default true; only active allergies are checked against new medications"),
  onset_date: DateOnly.nullable().describe("Not in the future"),
  note: text(2000),
};
const allergyWrite = writeSchemas(allergyFields, ["allergen"], []);
export const AllergyCreate = allergyWrite.create;
export type AllergyCreate = z.infer<typeof AllergyCreate>;
export const AllergyPatch = allergyWrite.patch;
export type AllergyPatch = z.infer<typeof AllergyPatch>;

export const Allergy = z.object({ ...meta, ...allergyFields }).meta({ id: "PatientAllergy" });
export type Allergy = z.infer<typeof Allergy>;

export const AllergyListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  is_active: QueryBool.optional().describe("true: active only; false: inactive only; omitted: all"),
});
export type AllergyListQuery = z.infer<typeof AllergyListQuery>;

// ---- diseases and problems ------------------------------------------------------------

const diseaseFields = {
  disease_name: required(200).describe("The disease or problem, e.g. Type 2 diabetes"),
  icd_code: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,20}$/, "Letters, digits, dots and dashes, at most 20")
    .nullable()
    .describe("ICD-10 code, e.g. E11.9 (not checked against a code list)"),
  snomed_code: z
    .string()
    .regex(/^\d{6,18}$/, "6 to 18 digits")
    .nullable()
    .describe("SNOMED CT concept id"),
  problem_status: z.enum(PROBLEM_STATUSES).describe("Default active"),
  date_start: DateOnly.nullable().describe("Onset"),
  date_stop: DateOnly.nullable().describe("Resolved on; not before date_start"),
  note: text(2000),
};
const diseaseWrite = writeSchemas(diseaseFields, ["disease_name"], []);
export const DiseaseCreate = diseaseWrite.create;
export type DiseaseCreate = z.infer<typeof DiseaseCreate>;
export const DiseasePatch = diseaseWrite.patch;
export type DiseasePatch = z.infer<typeof DiseasePatch>;

export const Disease = z.object({ ...meta, ...diseaseFields }).meta({ id: "PatientDisease" });
export type Disease = z.infer<typeof Disease>;

export const DiseaseListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  problem_status: z.enum(PROBLEM_STATUSES).optional(),
});
export type DiseaseListQuery = z.infer<typeof DiseaseListQuery>;

// ---- medications ----------------------------------------------------------------------

const medicationFields = {
  medication_definition_uuid: Uuid.nullable().describe("Medication definition (stored unchecked: definitions are not served yet; its name is null)"),
  med_descript: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .nullable()
    .describe("The medication as written, e.g. Amoxicillin 500 mg capsule; checked against active allergies on create"),
  provider_uuid: Uuid.nullable().describe("Prescribing provider; 404 when not a provider of this org"),
  dosage: text(100),
  frequency: text(100),
  route: text(50).describe("e.g. oral, topical, injection"),
  rx_cui: z
    .string()
    .regex(/^\d{1,10}$/, "RxNorm concept id: 1 to 10 digits")
    .nullable()
    .describe("RxNorm concept id; ingredient ids in the drug-allergy map are checked on create"),
  date_start: DateOnly.nullable(),
  date_stop: DateOnly.nullable().describe("Not before date_start"),
  discontinuation_reason: text(500),
  patient_note: text(2000),
  is_cpoe: z.boolean().describe("Entered through computerized provider order entry; default false"),
  status: z.enum(MEDICATION_STATUSES).describe("Default active"),
};
const medicationWrite = writeSchemas(medicationFields, [] as never[], ["medication_definition", "provider", "interaction_warnings"]);
export const MedicationCreate = medicationWrite.create;
export type MedicationCreate = z.infer<typeof MedicationCreate>;
export const MedicationPatch = medicationWrite.patch;
export type MedicationPatch = z.infer<typeof MedicationPatch>;

export const InteractionWarning = z
  .object({
    allergy_id: z.string().describe("The active allergy that matched"),
    allergen: z.string(),
    medication_term: z.string().describe("The drug term of the map (or the allergen itself) found in the medication"),
    severity: z.enum(WARNING_SEVERITIES),
    rule: z.string().describe("Id of the drug-allergy map entry, or same_substance"),
    message: z.string(),
  })
  .meta({ id: "InteractionWarning" });

const { medication_definition_uuid: _d, provider_uuid: _p, ...medicationPlain } = medicationFields;
export const Medication = z
  .object({
    ...meta,
    ...medicationPlain,
    medication_definition: Ref.nullable(),
    provider: Ref.nullable(),
    interaction_warnings: z.array(InteractionWarning).describe("Drug-allergy warnings: filled on create, empty on every later read"),
  })
  .meta({ id: "PatientMedication" });
export type Medication = z.infer<typeof Medication>;

export const MedicationListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(MEDICATION_STATUSES).optional(),
});
export type MedicationListQuery = z.infer<typeof MedicationListQuery>;
