import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { appointments } from "./appointments";
import { locations, providers } from "./practice";
import { patients } from "./patients";
import { procedureCodes } from "./codes";

// Charting (docs/clinical/charting.md): procedures charted on a patient's teeth, the
// treatment plans that group planned ones into phases, and spans (bridges and
// other multi-tooth work) that tie several procedures together.

export const chartedProcedures = sqliteTable(
  "charted_procedures",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    procedure_code_id: text("procedure_code_id")
      .notNull()
      .references(() => procedureCodes.id),
    // copies of the code's code and treatment area as charted (filters read them without a join)
    procedure_code: text("procedure_code").notNull(),
    treatment_area: text("treatment_area").notNull(),
    // a Universal tooth number and surface letters in canonical order, e.g. "MOD" (./dental-vocabulary.ts)
    tooth_number: text("tooth_number"),
    surfaces: text("surfaces"),
    quadrant: text("quadrant"),
    arch: text("arch"),
    sextant: integer("sextant"),
    tooth_range: text("tooth_range"),
    // PROCEDURE_STATUSES (./dental-vocabulary.ts)
    status: text("status").notNull(),
    date_service: text("date_service").notNull(),
    date_treatment_planned: text("date_treatment_planned"),
    date_completed: text("date_completed"),
    date_original_prosthetic: text("date_original_prosthetic"),
    provider_id: text("provider_id").references(() => providers.id),
    location_id: text("location_id").references(() => locations.id),
    appointment_id: text("appointment_id").references(() => appointments.id),
    // the fee resolved when charted (or when its provider or code changed): never replaced by fee_override
    office_fee_cents: integer("office_fee_cents").notNull(),
    // the fee schedule that gave office_fee_cents; null: the procedure code's default fee
    fee_schedule_id: text("fee_schedule_id"),
    fee_override_cents: integer("fee_override_cents"),
    billing_order_code: text("billing_order_code").notNull(),
    do_not_bill_insurance: bool("do_not_bill_insurance").notNull().default(false),
    is_prosthetic: bool("is_prosthetic").notNull().default(false),
    note: text("note").notNull().default(""),
    clinical_note: text("clinical_note"),
    billing_note: text("billing_note"),
    material_type_code: text("material_type_code"),
    // definitions items (categories priority, prognosis, diagnosis_codes)
    priority_id: text("priority_id"),
    prognosis_id: text("prognosis_id"),
    diagnostic_code_id: text("diagnostic_code_id"),
    diagnosis_code_1: text("diagnosis_code_1"),
    diagnosis_code_2: text("diagnosis_code_2"),
    diagnosis_code_3: text("diagnosis_code_3"),
    diagnosis_code_4: text("diagnosis_code_4"),
    explosion_code_id: text("explosion_code_id"),
    bundle_group_id: integer("bundle_group_id"),
    code_sent: text("code_sent"),
    // a live (not voided) insurance claim holds it: set and cleared by claims (docs/insurance/claims.md)
    has_active_claim: integer("has_active_claim", { mode: "boolean" }).notNull().default(false),
    item_order: integer("item_order"),
    visit_phase_hint: integer("visit_phase_hint"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("charted_procedures_patient_date_idx").on(t.patient_id, t.date_service),
    index("charted_procedures_patient_tooth_idx").on(t.patient_id, t.tooth_number),
    index("charted_procedures_appointment_idx").on(t.appointment_id),
    // the unscheduled-treatment list (docs/scheduling/front-desk-lists.md): planned work by patient, covering
    // every column the list groups so its scan never reads the table
    index("charted_procedures_planned_idx")
      .on(t.status, t.patient_id, t.appointment_id, t.provider_id, t.fee_override_cents, t.office_fee_cents, t.date_treatment_planned, t.date_service)
      .where(sql`deleted_at IS NULL`),
  ],
);

/** A named phase of a treatment plan, e.g. {phase: 1, name: "Urgent"}. */
export type PlanPhase = { phase: number; name: string };

export const treatmentPlans = sqliteTable(
  "treatment_plans",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    name: text("name").notNull(),
    note: text("note"),
    // draft | proposed | accepted | rejected | completed
    status: text("status").notNull().default("draft"),
    phases: json<PlanPhase[]>("phases").notNull(),
    status_changed_at: text("status_changed_at"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("treatment_plans_patient_idx").on(t.patient_id, t.status)],
);

// Links: hard-deleted when a procedure leaves the plan or is deleted.
export const treatmentPlanProcedures = sqliteTable(
  "treatment_plan_procedures",
  {
    id: id(),
    treatment_plan_id: text("treatment_plan_id")
      .notNull()
      .references(() => treatmentPlans.id),
    charted_procedure_id: text("charted_procedure_id")
      .notNull()
      .references(() => chartedProcedures.id),
    phase: integer("phase").notNull().default(1),
    item_order: integer("item_order").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("treatment_plan_procedures_pair_idx").on(t.treatment_plan_id, t.charted_procedure_id),
    index("treatment_plan_procedures_procedure_idx").on(t.charted_procedure_id),
  ],
);

export const procedureSpans = sqliteTable(
  "procedure_spans",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    note: text("note").notNull().default(""),
    // active | completed
    status: text("status").notNull().default("active"),
    // no span definitions catalogue yet: stored unchecked
    span_definition_id: text("span_definition_id"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("procedure_spans_patient_idx").on(t.patient_id, t.status)],
);

// Members: hard-deleted by the cascade delete (spec.md).
export const procedureSpanMembers = sqliteTable(
  "procedure_span_members",
  {
    id: id(),
    span_id: text("span_id")
      .notNull()
      .references(() => procedureSpans.id),
    charted_procedure_id: text("charted_procedure_id")
      .notNull()
      .references(() => chartedProcedures.id),
    // abutment | pontic | retainer | connector | other
    role: text("role").notNull(),
    position: integer("position").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("procedure_span_members_pair_idx").on(t.span_id, t.charted_procedure_id),
    index("procedure_span_members_procedure_idx").on(t.charted_procedure_id),
  ],
);

// Each patient's planned work on no live appointment, summed: what the
// unscheduled-treatment list pages through (docs/scheduling/front-desk-lists.md).
// Kept by triggers in the writing transaction (migration 0018): on charted
// procedures, on appointments (a status or archive frees their procedures) and
// on patients (home location, archived or deceased). Never written by code.
export const unscheduledTreatmentTotals = sqliteTable(
  "unscheduled_treatment_totals",
  {
    patient_id: text("patient_id").primaryKey(),
    total_cents: integer("total_cents").notNull(),
    procedure_count: integer("procedure_count").notNull(),
    // the oldest date_treatment_planned (else date_service) of the work
    oldest_planned: text("oldest_planned").notNull(),
    // the patient's home location, and whether the front desk should call them (not archived or deceased)
    location_id: text("location_id"),
    callable: integer("callable", { mode: "boolean" }).notNull(),
  },
  (t) => [
    index("unscheduled_treatment_totals_amount_idx").on(t.callable, sql`${t.total_cents} DESC`, t.patient_id),
    index("unscheduled_treatment_totals_oldest_idx").on(t.callable, t.oldest_planned, t.patient_id),
  ],
);
