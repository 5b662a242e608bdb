import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ToothNumber } from "@/domains/codes/dental-vocabulary";

/** The six probing sites of a tooth: mesio-buccal, buccal, disto-buccal, mesio-lingual, lingual, disto-lingual. */
export const PERIO_SITES = ["mb", "b", "db", "ml", "l", "dl"] as const;

const Mm = z.number().int().min(0).max(15);
const Sites = z.strictObject({ mb: Mm, b: Mm, db: Mm, ml: Mm, l: Mm, dl: Mm });
const SiteList = (what: string) => z.array(z.enum(PERIO_SITES)).max(6).describe(what);
/** Input: optional, default [], each site at most once. */
const siteListInput = (list: ReturnType<typeof SiteList>) => list.default([]).refine((v) => new Set(v).size === v.length, "A site is listed twice");

const tooth = {
  mobility: z.number().int().min(0).max(3).nullable().describe("Miller grade 0-3; null = not recorded"),
  furcation: z.number().int().min(0).max(3).nullable().describe("Furcation involvement grade 0-3 (Glickman I-III); null = not recorded"),
  pocket_depths: Sites.describe("Probing depth in whole mm (0-15) at each of the six sites"),
  recession: Sites.nullable().describe("Gingival recession in whole mm (0-15) at each site; null = not recorded"),
  bleeding_sites: SiteList("Sites that bled on probing"),
  plaque_sites: SiteList("Sites with plaque"),
  suppuration_sites: SiteList("Sites with suppuration (pus) on probing"),
};

const PerioToothInput = z.strictObject({
  tooth_number: ToothNumber.chart(),
  ...tooth,
  mobility: tooth.mobility.optional(),
  furcation: tooth.furcation.optional(),
  recession: tooth.recession.optional(),
  bleeding_sites: siteListInput(tooth.bleeding_sites),
  plaque_sites: siteListInput(tooth.plaque_sites),
  suppuration_sites: siteListInput(tooth.suppuration_sites),
});

const examFields = {
  exam_date: DateOnly.describe("At most one day ahead of today in the practice's time zone"),
  provider_uuid: Uuid.nullable().optional().describe("The examining provider (not archived)"),
  note: z.string().trim().max(5000).optional(),
  teeth: z.array(PerioToothInput).min(1).max(64).describe("One entry per examined tooth"),
};

function eachToothOnce(v: { teeth?: { tooth_number: string }[] }, ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  v.teeth?.forEach((t, i) => {
    if (seen.has(t.tooth_number)) ctx.addIssue({ code: "custom", path: ["teeth", i, "tooth_number"], message: "The tooth appears twice in the exam" });
    seen.add(t.tooth_number);
  });
}

export const PerioExamCreate = z
  .strictObject(examFields)
  .superRefine(eachToothOnce)
  .meta({ readOnly: ["patient", "provider"] });
export type PerioExamCreate = z.infer<typeof PerioExamCreate>;

export const PerioExamPatch = z
  .strictObject({
    base_version: BaseVersion,
    exam_date: examFields.exam_date.optional(),
    provider_uuid: examFields.provider_uuid,
    note: examFields.note,
    teeth: examFields.teeth.optional().describe("Replaces the exam's whole list of teeth (validated as on create)"),
  })
  .superRefine(eachToothOnce)
  .meta({ readOnly: ["patient", "provider"] });
export type PerioExamPatch = z.infer<typeof PerioExamPatch>;

export const PerioExamDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });

export const PerioTooth = z.object({ tooth_number: z.string(), ...tooth }).meta({ id: "PerioTooth" });

export const PerioExam = z
  .object({
    ...RecordMeta,
    patient: Ref,
    exam_date: z.string(),
    provider: Ref.nullable(),
    note: z.string(),
    teeth: z.array(PerioTooth).describe("In chart order"),
  })
  .meta({ id: "PerioExam" });
export type PerioExam = z.infer<typeof PerioExam>;

export const PerioExamListQuery = z.strictObject({ ...pagingQuery(50, 200) });

export const ToothIndicator = z
  .object({
    tooth_number: z.string(),
    source: z.literal("perio"),
    perio_exam: Ref.describe("The exam the values come from; name is its exam_date"),
    exam_date: z.string(),
    mobility: z.number().int().nullable(),
    furcation: z.number().int().nullable(),
    max_pocket_depth: z.number().int().describe("Deepest of the six probing depths, mm"),
    bleeding_site_count: z.number().int(),
  })
  .meta({ id: "ToothIndicator" });
export type ToothIndicator = z.infer<typeof ToothIndicator>;
export const ToothIndicatorList = z.object({ items: z.array(ToothIndicator) });

const Pct = z.number().describe("Percent of sites_charted, one decimal");
const Figures = {
  sites_4mm_or_more: z.number().int().describe("Sites with a pocket depth of 4 mm or more"),
  sites_6mm_or_more: z.number().int().describe("Sites with a pocket depth of 6 mm or more"),
};

export const PerioExamSummary = z
  .object({
    exam_uuid: z.string(),
    exam_date: z.string(),
    teeth_charted: z.number().int().describe("Teeth in the exam"),
    sites_charted: z.number().int().describe("6 per tooth charted (all six pocket depths are recorded)"),
    ...Figures,
    bleeding_sites: z.number().int().describe("Sites that bled on probing"),
    bleeding_percentage: Pct,
    plaque_sites: z.number().int(),
    plaque_percentage: Pct,
    suppuration_sites: z.number().int(),
    previous: z
      .object({ exam_uuid: z.string(), exam_date: z.string() })
      .nullable()
      .describe("The patient's latest exam dated before this one (same date: not previous); null when none"),
    change: z
      .object({
        sites_4mm_or_more: z.number().int().describe("This minus previous"),
        sites_6mm_or_more: z.number().int().describe("This minus previous"),
        bleeding_percentage: z.number().describe("Percentage points, this minus previous"),
        plaque_percentage: z.number().describe("Percentage points, this minus previous"),
        deeper_sites: z.number().int().describe("Same tooth and site in both exams, pocket depth 2 mm or more deeper now"),
        shallower_sites: z.number().int().describe("Same tooth and site in both exams, pocket depth 2 mm or more shallower now"),
      })
      .nullable()
      .describe("This exam minus the previous one; null when there is no previous exam"),
  })
  .meta({ id: "PerioExamSummary" });
export type PerioExamSummary = z.infer<typeof PerioExamSummary>;
