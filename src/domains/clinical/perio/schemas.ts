import { z } from "zod";
import { DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ToothNumber } from "@/domains/codes/dental-vocabulary";

/** The six probing sites of a tooth: mesio-buccal, buccal, disto-buccal, mesio-lingual, lingual, disto-lingual. */
export const PERIO_SITES = ["mb", "b", "db", "ml", "l", "dl"] as const;

const Mm = z.number().int().min(0).max(15);
const Sites = z.strictObject({ mb: Mm, b: Mm, db: Mm, ml: Mm, l: Mm, dl: Mm });

const tooth = {
  mobility: z.number().int().min(0).max(3).nullable().describe("Miller grade 0-3; null = not recorded"),
  furcation: z.number().int().min(0).max(3).nullable().describe("Furcation involvement grade 0-3 (Glickman I-III); null = not recorded"),
  pocket_depths: Sites.describe("Probing depth in whole mm (0-15) at each of the six sites"),
  recession: Sites.nullable().describe("Gingival recession in whole mm (0-15) at each site; null = not recorded"),
  bleeding_sites: z.array(z.enum(PERIO_SITES)).max(6).describe("Sites that bled on probing"),
};

const PerioToothInput = z.strictObject({
  tooth_number: ToothNumber.chart(),
  ...tooth,
  mobility: tooth.mobility.optional(),
  furcation: tooth.furcation.optional(),
  recession: tooth.recession.optional(),
  bleeding_sites: tooth.bleeding_sites.default([]).refine((v) => new Set(v).size === v.length, "A site is listed twice"),
});

export const PerioExamCreate = z
  .strictObject({
    exam_date: DateOnly.describe("At most one day ahead of today in the practice's time zone"),
    provider_uuid: Uuid.nullable().optional().describe("The examining provider (not archived)"),
    note: z.string().trim().max(5000).optional(),
    teeth: z.array(PerioToothInput).min(1).max(64).describe("One entry per examined tooth"),
  })
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.teeth.forEach((t, i) => {
      if (seen.has(t.tooth_number)) ctx.addIssue({ code: "custom", path: ["teeth", i, "tooth_number"], message: "The tooth appears twice in the exam" });
      seen.add(t.tooth_number);
    });
  })
  .meta({ readOnly: ["patient", "provider"] });
export type PerioExamCreate = z.infer<typeof PerioExamCreate>;

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
