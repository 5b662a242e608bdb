import { z } from "zod";
import { DateOnly, Uuid } from "@/platform/records/fields";
import { TOOTH_NUMBERINGS } from "./model";
import { CHART_SHOWS } from "./tooth-chart";

/** PNG widths a client may ask for: a phone thumbnail to a printed page. */
export const PNG_WIDTH = { min: 400, max: 2400, default: 1200 } as const;

const Width = z.coerce
  .number()
  .int()
  .min(PNG_WIDTH.min)
  .max(PNG_WIDTH.max)
  .default(PNG_WIDTH.default)
  .describe(`Pixels across, ${PNG_WIDTH.min}-${PNG_WIDTH.max} (default ${PNG_WIDTH.default}); the height follows`);
const Numbering = z.enum(TOOTH_NUMBERINGS).optional().describe("Tooth labels; default the org's odontogram setting tooth_numbering");

const chartQuery = {
  date: DateOnly.optional().describe(
    "The chart as it was on this date (as GET .../chart/at-date); not before the patient's birth, not in the future. Default: now",
  ),
  show: z.enum(CHART_SHOWS).default("all").describe("all; planned (planned and referred work); completed; existing. Conditions are drawn with all only"),
  treatment_plan_uuid: Uuid.optional().describe("Only this plan's procedures (no conditions); a plan of this patient"),
  numbering: Numbering,
};
export const ChartSvgQuery = z.strictObject(chartQuery);
export const ChartPngQuery = z.strictObject({ ...chartQuery, width: Width });
export type ChartPngQuery = z.infer<typeof ChartPngQuery>;

const perioQuery = {
  compare_to: Uuid.optional().describe("Another exam of the patient, overlaid to show the change per site"),
  numbering: Numbering,
};
export const PerioSvgQuery = z.strictObject(perioQuery);
export const PerioPngQuery = z.strictObject({ ...perioQuery, width: Width });
export type PerioPngQuery = z.infer<typeof PerioPngQuery>;

export const SvgFile = z.string().meta({ contentMediaType: "image/svg+xml" }).describe("The picture as SVG (image/svg+xml, inline)");
export const PngFile = z.string().meta({ contentMediaType: "image/png", format: "binary" }).describe("The picture as PNG (image/png, inline)");
