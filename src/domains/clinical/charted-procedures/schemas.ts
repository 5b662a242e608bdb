import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, DateTime, DollarsInput, QueryBool, QueryList, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { BILLING_ORDERS } from "@/domains/codes/procedure-codes/schemas";
import { PROCEDURE_CATEGORIES, TREATMENT_AREAS } from "@db/tenant/codes";
import { ARCHES } from "@db/tenant/dental-vocabulary";
import { ProcedureStatus, Surfaces, ToothNumber } from "@/domains/codes/dental-vocabulary";
import { QUADRANTS, ToothRange } from "./site";

/** The statuses a procedure may be charted in (docs/clinical/charting.md). */
export const ENTRY_STATUSES = ["treatment_planned", "complete", "existing_current", "existing_other", "referred"] as const satisfies readonly ProcedureStatus[];

const Money = DollarsInput();
const text = (max: number) => z.string().max(max).nullable();
const IcdCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z][0-9][0-9A-Za-z](?:\.?[0-9A-Za-z]{1,4})?$/, "Must be an ICD-10 code, e.g. K02.9")
  .transform((v) => v.toUpperCase())
  .nullable();

/** Fields both create and PATCH take (PATCH: each optional; null clears the nullable ones). */
const editable = {
  procedure_code_uuid: Uuid.describe("The procedure code; changing it re-checks the site and resolves office_fee again for the new code"),
  tooth_number: ToothNumber.procedure.nullable(),
  surfaces: Surfaces.procedure.nullable(),
  quadrant: z.enum(QUADRANTS).nullable(),
  arch: z.enum(ARCHES).nullable(),
  sextant: z.number().int().min(1).max(6).nullable(),
  tooth_range: ToothRange.nullable(),
  provider_uuid: Uuid.nullable().describe("The provider; changing it resolves office_fee again (the provider may name a fee schedule)"),
  location_uuid: Uuid.nullable(),
  appointment_uuid: Uuid.nullable().describe("An appointment of the same patient"),
  date_service: DateOnly.describe("Default today (in the practice's time zone); completing a procedure moves it to the day of completion unless given"),
  date_original_prosthetic: DateOnly.nullable().describe("When the prosthesis being replaced was placed"),
  fee_override: Money.nullable().describe("Dollars; replaces office_fee as effective_fee while set. null clears it"),
  billing_order_code: z.enum(BILLING_ORDERS).describe("Default: the code's default_billing_order. N means non-insurance"),
  do_not_bill_insurance: z.boolean(),
  is_prosthetic: z.boolean(),
  note: z.string().max(2000),
  clinical_note: text(10_000),
  billing_note: text(2000),
  material_type_code: text(50),
  priority_uuid: Uuid.nullable().describe("A definition of category priority"),
  prognosis_uuid: Uuid.nullable().describe("A definition of category prognosis"),
  diagnostic_code_uuid: Uuid.nullable().describe("A definition of category diagnosis_codes"),
  diagnosis_code_1: IcdCode,
  diagnosis_code_2: IcdCode,
  diagnosis_code_3: IcdCode,
  diagnosis_code_4: IcdCode,
  bundle_group_id: z.number().int().min(0).nullable(),
  item_order: z.number().int().min(0).nullable(),
  visit_phase_hint: z.number().int().min(0).max(100).nullable(),
};

const READ_ONLY = [
  "id",
  "version",
  "created_at",
  "updated_at",
  "deleted_at",
  "patient",
  "procedure_code",
  "procedure_description",
  "procedure_category",
  "treatment_area",
  "office_fee",
  "fee_schedule",
  "effective_fee",
  "fee_source",
  "has_active_claim",
  "date_completed",
  "date_treatment_planned",
  "code_sent",
  "provider",
  "location",
  "appointment",
  "priority",
  "prognosis",
  "diagnostic_code",
  "explosion_code",
];

const optional = z.object(editable).partial().shape;

export const ProcedureCreate = z
  .strictObject({
    ...optional,
    procedure_code_uuid: editable.procedure_code_uuid,
    status: ProcedureStatus.extract(ENTRY_STATUSES)
      .optional()
      .describe("Default treatment_planned; complete charts work done today; existing_* record earlier work"),
    explosion_code_uuid: Uuid.nullable().optional().describe("The explosion code this procedure was charted from"),
  })
  .meta({ readOnly: READ_ONLY });
export type ProcedureCreate = z.infer<typeof ProcedureCreate>;

export const ProcedurePatch = z
  .strictObject({
    base_version: BaseVersion,
    ...optional,
    status: ProcedureStatus.optional().describe("Moves along the transition table (422 invalid_transition otherwise); the same status is no change"),
  })
  .meta({ readOnly: READ_ONLY });
export type ProcedurePatch = z.infer<typeof ProcedurePatch>;

export const ChartedProcedure = z
  .object({
    ...RecordMeta,
    patient: Ref,
    procedure_code_uuid: z.string(),
    procedure_code: z.string().describe("The code as charted"),
    procedure_description: z.string().nullable().describe("The code's short name"),
    procedure_category: z.enum(PROCEDURE_CATEGORIES).nullable(),
    treatment_area: z.enum(TREATMENT_AREAS),
    tooth_number: z.string().nullable(),
    surfaces: z.string().nullable(),
    quadrant: z.enum(QUADRANTS).nullable(),
    arch: z.enum(ARCHES).nullable(),
    sextant: z.number().int().nullable(),
    tooth_range: z.string().nullable(),
    status: ProcedureStatus,
    date_service: z.string(),
    date_treatment_planned: z.string().nullable(),
    date_completed: DateTime.nullable().describe("UTC; set when the procedure becomes complete or complete_referred"),
    date_original_prosthetic: z.string().nullable(),
    provider: Ref.nullable(),
    location: Ref.nullable(),
    appointment: Ref.nullable().describe("name: the appointment's scheduled_start"),
    office_fee: z
      .string()
      .describe(
        "The fee resolved when charted, or when the code or provider changed (dollars; docs/codes/fee-schedules.md): from fee_schedule, else the code's default fee. Never replaced by fee_override",
      ),
    fee_schedule: Ref.nullable().describe("The fee schedule office_fee came from; null: the procedure code's default fee"),
    fee_override: z.string().nullable(),
    effective_fee: z.string().describe("fee_override when set, else office_fee"),
    fee_source: z.enum(["fee_schedule", "override"]),
    billing_order_code: z.enum(BILLING_ORDERS),
    do_not_bill_insurance: z.boolean(),
    is_prosthetic: z.boolean(),
    has_active_claim: z.boolean().describe("A live (not voided) insurance claim or pre-authorization holds it: its fee cannot change and it cannot be deleted"),
    note: z.string(),
    clinical_note: z.string().nullable(),
    billing_note: z.string().nullable(),
    material_type_code: z.string().nullable(),
    priority: Ref.nullable(),
    prognosis: Ref.nullable(),
    diagnostic_code: Ref.nullable(),
    diagnosis_code_1: z.string().nullable(),
    diagnosis_code_2: z.string().nullable(),
    diagnosis_code_3: z.string().nullable(),
    diagnosis_code_4: z.string().nullable(),
    explosion_code: Ref.nullable(),
    bundle_group_id: z.number().int().nullable(),
    code_sent: z.string().nullable(),
    item_order: z.number().int().nullable(),
    visit_phase_hint: z.number().int().nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "ChartedProcedure" });
export type ChartedProcedure = z.infer<typeof ChartedProcedure>;

export const ProcedureListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: QueryList(ProcedureStatus, 8).optional().describe("One or more statuses (comma separated or repeated)"),
  tooth_number: ToothNumber.procedure.optional(),
  date_from: DateOnly.optional().describe("date_service on or after"),
  date_to: DateOnly.optional().describe("date_service on or before"),
  provider_uuid: Uuid.optional(),
  procedure_code: z.string().trim().min(1).max(15).optional().describe("Prefix of the code as charted, case-insensitive (D27 finds D2740)"),
  treatment_area: z.enum(TREATMENT_AREAS).optional(),
  billable: QueryBool.optional().describe(
    "true: complete, not do_not_bill_insurance and billing_order_code not N (eligible for claims); false: every other procedure",
  ),
  do_not_bill_insurance: QueryBool.optional(),
  billing_order_code: z.enum(BILLING_ORDERS).optional(),
  has_active_claim: QueryBool.optional().describe("true: procedures a live claim or pre-authorization holds; false: the others"),
  include_deleted: QueryBool.optional().describe("Default false"),
});
export type ProcedureListQuery = z.infer<typeof ProcedureListQuery>;

export const DeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
