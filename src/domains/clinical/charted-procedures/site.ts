import { z } from "zod";
import { invalid } from "@/platform/errors";
import { toothOf, UNIVERSAL_TOOTH_PATTERN } from "@/domains/codes/dental-vocabulary";
import type { TreatmentArea } from "@db/tenant/codes";

// Where on the mouth a procedure is charted. The field schemas normalize each
// value; checkSite judges the whole site against the code's treatment_area on
// the record as it will be after the write (docs/clinical/charting.md has the table).

export const QUADRANTS = ["UL", "UR", "LL", "LR"] as const;

const rangeEnds = (v: string) => {
  const [a, b] = v.split("-").map((s) => toothOf(s.trim()));
  return a && b ? { a, b } : null;
};
const orderOf = (t: string) => (/^\d+$/.test(t) ? Number(t) : t.charCodeAt(0));

export const ToothRange = z
  .string()
  .regex(
    new RegExp(`^\\s*${UNIVERSAL_TOOTH_PATTERN}\\s*-\\s*${UNIVERSAL_TOOTH_PATTERN}\\s*$`),
    "Must be two Universal tooth numbers joined by a dash, e.g. 3-5 or A-C",
  )
  .refine((v) => {
    const ends = rangeEnds(v); // null when the format check already failed (zod runs every check)
    return !ends || (ends.a.arch === ends.b.arch && ends.a.dentition === ends.b.dentition && orderOf(ends.a.tooth) < orderOf(ends.b.tooth));
  }, "Both ends must be on one arch and of one dentition, the first before the second in Universal numbering")
  .transform((v) => {
    const { a, b } = rangeEnds(v)!;
    return `${a.tooth}-${b.tooth}`;
  })
  .describe("First and last tooth of the range on one arch, e.g. 3-5 (upper right) or 28-30; answered canonical");

export type Site = {
  tooth_number: string | null;
  surfaces: string | null;
  quadrant: string | null;
  arch: string | null;
  sextant: number | null;
  tooth_range: string | null;
};
export const SITE_FIELDS = ["tooth_number", "surfaces", "quadrant", "arch", "sextant", "tooth_range"] as const satisfies readonly (keyof Site)[];

/** What each treatment area needs; every other site field must be empty. */
export const AREA_NEEDS: Record<TreatmentArea, readonly (keyof Site)[]> = {
  surface: ["tooth_number", "surfaces"],
  tooth: ["tooth_number"],
  quadrant: ["quadrant"],
  arch: ["arch"],
  sextant: ["sextant"],
  tooth_range: ["tooth_range"],
  mouth: [],
};

/**
 * 422 invalid_site unless the site fits the code's treatment area: the fields
 * the area needs are present and every other site field is empty. Occlusal
 * surfaces belong to back teeth and incisal edges to front teeth.
 */
export function checkSite(area: TreatmentArea, site: Site): void {
  const needs = AREA_NEEDS[area];
  const present = (f: keyof Site) => site[f] !== null && site[f] !== undefined;
  for (const f of needs) if (!present(f)) throw invalid(["body", f], `A ${area} code needs ${f}`, "missing", "invalid_site");
  for (const f of SITE_FIELDS) if (!needs.includes(f) && present(f)) throw invalid(["body", f], `A ${area} code takes no ${f}`, "value_error", "invalid_site");
  if (site.surfaces && site.tooth_number) {
    const position = toothOf(site.tooth_number)!.tooth_position;
    if (position === "anterior" && site.surfaces.includes("O"))
      throw invalid(["body", "surfaces"], "Front teeth have no occlusal (O) surface: use I (incisal)", "value_error", "invalid_site");
    if (position === "posterior" && site.surfaces.includes("I"))
      throw invalid(["body", "surfaces"], "Back teeth have no incisal (I) edge: use O (occlusal)", "value_error", "invalid_site");
  }
}
