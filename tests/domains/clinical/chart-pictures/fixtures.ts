import type { ChartTooth, PerioChartTooth, SiteValues, ToothChartPicture } from "@/domains/clinical/chart-pictures/model";
import { toothLabel } from "@/domains/clinical/chart-pictures/numbering";

// The pictures the renderer tests draw: plain data, no database.

export const PERMANENT = Array.from({ length: 32 }, (_, i) => String(i + 1));
export const PRIMARY = [..."ABCDEFGHIJKLMNOPQRST"];

/** All teeth present with nothing charted, but for `teeth`. */
export function toothPicture(over: Partial<Omit<ToothChartPicture, "teeth">> = {}, teeth: Record<string, Partial<ChartTooth>> = {}): ToothChartPicture {
  const numbering = over.numbering ?? "universal";
  const primaryRow = over.primary_row ?? false;
  return {
    title: "Tooth chart: Jane Doe, 2026-11-29",
    numbering,
    primary_row: primaryRow,
    spans: [],
    elsewhere: [],
    note: null,
    ...over,
    teeth: [...PERMANENT, ...(primaryRow ? PRIMARY : [])].map((tooth) => ({
      tooth,
      label: toothLabel(tooth, numbering),
      shape: "present",
      status_text: null,
      marks: [],
      ...teeth[tooth],
    })),
  };
}

export const DEPTHS: SiteValues = { mb: 3, b: 2, db: 3, ml: 3, l: 2, dl: 3 };

/** A probed tooth: 3 2 3 / 3 2 3, nothing else recorded, but for `o`. */
export const perioTooth = (n: string, o: Partial<PerioChartTooth> = {}): PerioChartTooth => ({
  tooth: n,
  label: n,
  pocket_depths: { ...DEPTHS },
  recession: null,
  bleeding_sites: [],
  plaque_sites: [],
  suppuration_sites: [],
  mobility: null,
  furcation: null,
  ...o,
});
