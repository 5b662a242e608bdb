import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, timestamps, versioned } from "@db/columns";

// Code catalogues (docs/codes/codes.md): the org's procedure codes (seeded with a
// starter CDT catalogue), the read-only ICD-10-CM catalogue, and explosion codes
// that expand into several procedure codes under conditions.

export const procedureCodes = sqliteTable(
  "procedure_codes",
  {
    id: id(),
    // stored upper-case; unique among codes that are not archived
    code: text("code").notNull(),
    short_name: text("short_name").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    code_type: text("code_type").notNull(),
    code_in_claims: text("code_in_claims"),
    default_billing_order: text("default_billing_order").notNull(),
    default_fee_cents: integer("default_fee_cents").notNull().default(0),
    service_type: text("service_type").notNull(),
    // what charting must name: tooth | surface | quadrant | arch | mouth | sextant | tooth_range
    treatment_area: text("treatment_area").notNull(),
    apply_sales_tax: bool("apply_sales_tax").notNull().default(false),
    icd_code_mandatory: bool("icd_code_mandatory").notNull().default(false),
    is_ortho: bool("is_ortho").notNull().default(false),
    provider_mandatory: bool("provider_mandatory").notNull().default(false),
    smart_code_logic: bool("smart_code_logic").notNull().default(false),
    under_eighteen_only: bool("under_eighteen_only").notNull().default(false),
    effective_date: text("effective_date"),
    termination_date: text("termination_date"),
    label: text("label"),
    provider_type: text("provider_type"),
    status: text("status").notNull().default("active"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [uniqueIndex("procedure_codes_code_live_idx").on(t.code).where(sql`deleted_at IS NULL`), index("procedure_codes_category_idx").on(t.category, t.code)],
);

// A read-only reference catalogue: no version, no soft delete (spec.md).
export const icdCodes = sqliteTable(
  "icd_codes",
  {
    id: id(),
    code: text("code").notNull(),
    description: text("description").notNull(),
    category: text("category").notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex("icd_codes_code_idx").on(t.code), index("icd_codes_category_idx").on(t.category, t.code)],
);

/** One test on the charting context, e.g. {field: "patient_age", op: "lt", value: 18}. */
export type CodeCondition = { field: string; op: string; value: unknown };
/** An explosion entry as stored: the procedure code by id, so renaming a code keeps the link. */
export type StoredExplosionEntry = {
  procedure_code_id: string;
  quantity: number;
  tooth_number: string | null;
  surfaces: string | null;
  conditions: CodeCondition[];
};

export const explosionCodes = sqliteTable(
  "explosion_codes",
  {
    id: id(),
    name: text("name").notNull(),
    description: text("description"),
    conditions: json<CodeCondition[]>("conditions").notNull(),
    entries: json<StoredExplosionEntry[]>("entries").notNull(),
    status: text("status").notNull().default("active"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("explosion_codes_name_idx").on(t.name)],
);

// The vocabularies of the code columns (docs/codes/codes.md explains each choice); seeds and the codes domain share them.
export const PROCEDURE_CATEGORIES = [
  "diagnostic",
  "preventive",
  "restorative",
  "endodontics",
  "periodontics",
  "prosthodontics_removable",
  "maxillofacial_prosthetics",
  "implant_services",
  "prosthodontics_fixed",
  "oral_surgery",
  "orthodontics",
  "adjunctive",
  "other",
] as const;
export const TREATMENT_AREAS = ["tooth", "surface", "quadrant", "arch", "mouth", "sextant", "tooth_range"] as const;
export type ProcedureCategory = (typeof PROCEDURE_CATEGORIES)[number];
export type TreatmentArea = (typeof TREATMENT_AREAS)[number];

/**
 * X12 270/271 service type of each category: what an eligibility request asks
 * the payer about. The default when service_type is not given.
 */
export const SERVICE_TYPE_OF: Record<ProcedureCategory, string> = {
  diagnostic: "23",
  preventive: "41",
  restorative: "25",
  endodontics: "26",
  periodontics: "24",
  prosthodontics_removable: "39",
  maxillofacial_prosthetics: "27",
  implant_services: "35",
  prosthodontics_fixed: "36",
  oral_surgery: "40",
  orthodontics: "38",
  adjunctive: "28",
  other: "35",
};

export const ICD_CATEGORIES = [
  "dental_caries",
  "tooth_development",
  "hard_tissue",
  "pulp_periapical",
  "periodontal",
  "tooth_loss",
  "restoration",
  "dentofacial",
  "tmj",
  "jaw",
  "oral_mucosa",
  "salivary",
  "injury",
  "encounter",
  "systemic",
  "other",
] as const;
