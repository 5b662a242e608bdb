import { z } from "zod";
import { BaseVersionQuery, DateOnly, DateTime, Ref, Uuid } from "@/platform/records/fields";
import { ToothNumber, ToothStatusValue } from "@/domains/codes/dental-vocabulary";

/** age_seeded is written only by the seed operation. */
export const TOOTH_SOURCES = ["manual", "imported", "clinical_chart", "age_seeded"] as const;
export const CLIENT_SOURCES = ["manual", "imported", "clinical_chart"] as const;
export const ERUPTION_STAGES = ["pre_emergent", "emerging", "partial", "full"] as const;
/** Winter's classification of an impacted tooth's angulation. */
export const IMPACTION_ANGLES = ["vertical", "mesioangular", "distoangular", "horizontal", "buccoangular", "linguoangular", "inverted"] as const;
/** Tissue covering an impacted tooth (as CDT's D7220/D7230/D7240 distinguish it). */
export const IMPACTION_DEPTHS = ["soft_tissue", "partial_bony", "full_bony"] as const;

const Percent = z.number().int().min(0).max(100);
const degrees = (max: number) => z.number().min(-max).max(max);
const mm = z.number().min(-10).max(10);

/** The drawable and clinical detail of a tooth record, shared by request and response. */
const detail = {
  ectopic_slot_index: z.number().int().min(0).max(9).nullable().describe("Display slot for an ectopic or supernumerary tooth, 0-9"),
  eruption_pct: Percent.nullable().describe("0-100"),
  eruption_stage: z.enum(ERUPTION_STAGES).nullable(),
  impaction_angle: z.enum(IMPACTION_ANGLES).nullable(),
  impaction_depth: z.enum(IMPACTION_DEPTHS).nullable(),
  root_completion: Percent.nullable().describe("Root formation, percent of full length (0-100)"),
  scale_factor: z.number().min(0.5).max(2).describe("Drawing scale, 0.5-2 (1 = normal size)"),
  rotate: degrees(180).describe("Degrees, -180..180"),
  shift_b: mm.describe("Buccal shift in mm, -10..10"),
  shift_m: mm.describe("Mesial shift in mm, -10..10"),
  shift_o: mm.describe("Occlusal shift in mm, -10..10"),
  tip_b: degrees(45).describe("Buccal tip in degrees, -45..45"),
  tip_m: degrees(45).describe("Mesial tip in degrees, -45..45"),
};

export const ToothStatusPut = z
  .strictObject({
    tooth_number: ToothNumber.chart(),
    status: ToothStatusValue,
    effective_date: DateOnly.optional().describe("Default: today in the patient's practice time zone; at most one day ahead"),
    note: z.string().trim().max(2000).optional(),
    source: z.enum(CLIENT_SOURCES).default("manual").describe("age_seeded is written only by the seed operation"),
    charted_procedure_uuid: Uuid.nullable().optional().describe("A charted procedure of the same patient"),
    expected_version: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("The tooth's current record version you read; 0 = the tooth must have no current record. Stale: 409"),
    transposition_with: ToothNumber.chart().nullable().optional().describe("The tooth this one has swapped places with"),
    ...z.object(detail).partial().shape,
  })
  .superRefine((v, ctx) => {
    if (v.transposition_with && v.transposition_with === v.tooth_number) {
      ctx.addIssue({ code: "custom", path: ["transposition_with"], message: "A tooth cannot be transposed with itself" });
    }
  })
  .meta({ readOnly: ["patient", "superseded_at", "charted_procedure"] });
export type ToothStatusPut = z.infer<typeof ToothStatusPut>;

export const ToothStatus = z
  .object({
    id: z.string(),
    patient: Ref,
    tooth_number: z.string(),
    status: ToothStatusValue,
    effective_date: z.string(),
    note: z.string(),
    source: z.enum(TOOTH_SOURCES),
    charted_procedure: Ref.nullable().describe("name: the procedure code"),
    transposition_with: z.string().nullable(),
    ...detail,
    superseded_at: DateTime.nullable().describe("When a newer record replaced this one; null while current"),
    deleted_at: DateTime.nullable(),
    version: z.number().int().describe("The tooth's chart version: each new record of the tooth is one higher"),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: "ToothStatus" });
export type ToothStatus = z.infer<typeof ToothStatus>;

export const ToothStatusList = z.object({ items: z.array(ToothStatus), total: z.number().int() });
/** The chart lists take no parameters: an unknown one (a misspelt filter) is 422, not ignored. */
export const NoQuery = z.strictObject({});

export const ToothStatusDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });

export const SeedRequest = z.strictObject({ mode: z.enum(["age_based", "reseed"]) });
export const SeedResult = z.object({
  teeth_seeded: z.number().int(),
  teeth_removed: z.number().int().describe("age_seeded records soft-deleted (reseed); 0 for age_based"),
});

export const ToothTransition = z.strictObject({
  primary_tooth_number: ToothNumber.chart("primary"),
  primary_status: ToothStatusValue.extract(["exfoliating", "over_retained"]),
  successor_tooth_number: ToothNumber.chart("permanent"),
  successor_status: ToothStatusValue.extract(["partially_erupted", "present"]),
  successor_eruption_pct: Percent.optional(),
  successor_eruption_stage: z.enum(ERUPTION_STAGES).optional(),
  successor_root_completion: Percent.optional(),
});
export type ToothTransition = z.infer<typeof ToothTransition>;
export const ToothTransitionResult = z.object({ primary: ToothStatus, successor: ToothStatus });
