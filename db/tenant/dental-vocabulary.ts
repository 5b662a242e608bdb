// The dental vocabulary (docs/clinical/charting.md, "One dental vocabulary"):
// the values the chart's columns hold (tooth_statuses, charted_procedures,
// patient_conditions, the conditions of auto-code rules and explosion codes)
// and starter data uses, each list defined here once. The zod schemas that
// check them in requests, and their OpenAPI components, are built from these
// lists in src/domains/codes/dental-vocabulary.ts.

// ---- tooth numbers: Universal (ADA) numbering ----
// 1-16 run along the upper arch from the patient's right third molar to the
// left one, 17-32 back along the lower arch from left to right; A-J and K-T
// likewise for the primary teeth (second molar to second molar).

/** Permanent teeth, "1"-"32" (no leading zeros). */
export const PERMANENT_TEETH: readonly string[] = Array.from({ length: 32 }, (_, i) => String(i + 1));
/** Primary teeth, "A"-"T" (stored upper case). */
export const PRIMARY_TEETH: readonly string[] = [..."ABCDEFGHIJKLMNOPQRST"];
/** Every Universal tooth number: permanent, then primary. */
export const UNIVERSAL_TEETH: readonly string[] = [...PERMANENT_TEETH, ...PRIMARY_TEETH];
/**
 * Supernumerary teeth by the ADA convention (the tooth chart only): "51"-"82"
 * is the extra tooth beside permanent tooth n-50 ("51" beside "1"), "AS"-"TS"
 * the extra tooth beside primary tooth A-T.
 */
export const SUPERNUMERARY_TEETH: readonly string[] = [...PERMANENT_TEETH.map((t) => String(Number(t) + 50)), ...PRIMARY_TEETH.map((t) => `${t}S`)];

// What a tooth number says about the tooth (toothOf in src/domains/codes/dental-vocabulary.ts).
export const ARCHES = ["upper", "lower"] as const;
export const DENTITIONS = ["primary", "permanent"] as const;
export const TOOTH_POSITIONS = ["anterior", "posterior"] as const;
/** Auto-code rules' tooth_type (db/seeds/auto-codes.ts). */
export const TOOTH_TYPES = ["incisor", "canine", "premolar", "molar"] as const;
/** Explosion-code conditions' tooth_type: the coarser grouping, incisors and canines together as anterior. */
export const TOOTH_GROUPS = ["anterior", "premolar", "molar"] as const;
export type Arch = (typeof ARCHES)[number];
export type Dentition = (typeof DENTITIONS)[number];
export type ToothPosition = (typeof TOOTH_POSITIONS)[number];
export type ToothType = (typeof TOOTH_TYPES)[number];
export type ToothGroup = (typeof TOOTH_GROUPS)[number];

// ---- surfaces ----

/**
 * Surface letters in canonical order, as charted procedures and conditions
 * store theirs ("MOD"): mesial, occlusal, distal, buccal, lingual, incisal,
 * facial, class V (cervical).
 */
export const SURFACE_LETTERS = ["M", "O", "D", "B", "L", "I", "F", "V"] as const;
/** The surfaces the odontogram's tools toggle (hotkeys, macros): every letter but class V. */
export const ODONTOGRAM_SURFACE_LETTERS = SURFACE_LETTERS.filter((l) => l !== "V");

// ---- tooth statuses (tooth_statuses.status) ----

export const TOOTH_STATUSES = [
  "present",
  "missing",
  "primary",
  "prosthetic",
  "unerupted",
  "supernumerary",
  "hidden",
  "congenitally_absent",
  "partially_erupted",
  "over_retained",
  "residual_root",
  "impacted",
  "avulsed",
  "exfoliating",
] as const;

// ---- procedure statuses (charted_procedures.status) ----

export const PROCEDURE_STATUSES = [
  "treatment_planned",
  "scheduled",
  "in_progress",
  "complete",
  "complete_referred",
  "existing_current",
  "existing_other",
  "referred",
] as const;

// ---- conditions (patient_conditions.condition_type, status, severity) ----

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
export const CONDITION_SEVERITIES = ["mild", "moderate", "severe"] as const;
