// What the chart pictures draw (docs/clinical/chart-pictures.md): the records
// (tooth statuses, procedures, spans, conditions, perio exams) reduced to what
// a picture needs, so the renderers are pure functions of plain data and the
// same data always gives the same bytes.

import type { ToothNumbering } from "@db/tenant/odontogram-tools";

export { TOOTH_NUMBERINGS, type ToothNumbering } from "@db/tenant/odontogram-tools";

/**
 * How a mark is coloured, as practices expect: planned work red, work done
 * here blue, work found existing (or done elsewhere) green, work referred out
 * purple, a condition orange.
 */
export const MARK_STATUSES = ["planned", "completed", "existing", "referred", "condition"] as const;
export type MarkStatus = (typeof MARK_STATUSES)[number];

export const MARK_COLORS: Readonly<Record<MarkStatus, string>> = {
  planned: "#d32f2f",
  completed: "#1565c0",
  existing: "#2e7d32",
  referred: "#7b1fa2",
  condition: "#ef6c00",
};

/** The five drawn surfaces of a tooth (occlusal view). I draws as O, F and V as B: the same place on the drawing. */
export const DRAWN_SURFACES = ["M", "O", "D", "B", "L"] as const;
export type DrawnSurface = (typeof DRAWN_SURFACES)[number];

/**
 * What a mark draws on its tooth:
 * - `surfaces`: fills the listed surfaces (fillings, sealants, veneers, caries);
 * - `crown`: covers every surface;
 * - `root_canal`: a line down the root;
 * - `post`: a short bar in the root;
 * - `implant`: a screw in place of the root;
 * - `pontic`: a replacement tooth, no root;
 * - `extraction`: a cross over the tooth (done: the tooth is drawn absent instead);
 * - `fracture`: a jagged line across the crown;
 * - `periapical`: a ring at the root tip (abscess, periapical lesion);
 * - `watch`: a small "W" above the tooth;
 * - `other`: no drawing; listed in the tooth's description only.
 */
export const MARK_KINDS = ["surfaces", "crown", "root_canal", "post", "implant", "pontic", "extraction", "fracture", "periapical", "watch", "other"] as const;
export type MarkKind = (typeof MARK_KINDS)[number];

export type ToothMark = {
  kind: MarkKind;
  status: MarkStatus;
  /** For `surfaces`: which to fill (each once, in M O D B L order). Empty for other kinds. */
  surfaces: DrawnSurface[];
  /** What the mark is, for the tooth's description: "D2160 amalgam, three surfaces (MOD), planned". */
  text: string;
};

/**
 * How the tooth itself is drawn:
 * - `present`: crown and root;
 * - `absent`: missing, extracted or congenitally absent: a faint outline only, crossed out;
 * - `unerupted`: drawn faint (unerupted, impacted, partially erupted);
 * - `root_only`: a residual root, no crown.
 */
export const TOOTH_SHAPES = ["present", "absent", "unerupted", "root_only"] as const;
export type ToothShape = (typeof TOOTH_SHAPES)[number];

export type ChartTooth = {
  /** Universal number, "1"-"32" or "A"-"T": the data-tooth attribute. */
  tooth: string;
  /** The number shown, in the chart's numbering ("3" or "16"). */
  label: string;
  shape: ToothShape;
  /** The tooth's recorded status, for its description ("present", "missing", ...); null when none was charted. */
  status_text: string | null;
  /** In the order they are drawn (earliest first; later marks draw over earlier ones). */
  marks: ToothMark[];
};

/** Teeth joined by a bridge (or a splint): abutments and pontics, drawn joined. */
export type ChartSpan = {
  /** Universal numbers of the members, in arch order. */
  teeth: string[];
  status: MarkStatus;
  text: string;
};

export type ToothChartPicture = {
  /** The picture's <title>: "Tooth chart: Jane Doe, 2026-11-29". */
  title: string;
  numbering: ToothNumbering;
  /**
   * Which rows are drawn: the 32 permanent teeth always; the 20 primary teeth
   * as an inner row when the child has primary teeth charted (mixed or primary).
   */
  primary_row: boolean;
  /** Every tooth of the drawn rows (32, or 52 with the primary row), in chart order. */
  teeth: ChartTooth[];
  spans: ChartSpan[];
  /** Procedures and conditions on no single tooth (quadrant, arch, mouth, a range without a span): listed under the chart. */
  elsewhere: { status: MarkStatus; text: string }[];
  /** A line under the chart, e.g. "This treatment plan has no procedures." */
  note: string | null;
};

// ---- the perio chart ----

export const PERIO_SITES = ["mb", "b", "db", "ml", "l", "dl"] as const;
export type PerioSite = (typeof PERIO_SITES)[number];
export type SiteValues = Record<PerioSite, number>;

export type PerioChartTooth = {
  /** Universal number "1"-"32". */
  tooth: string;
  label: string;
  pocket_depths: SiteValues;
  recession: SiteValues | null;
  bleeding_sites: PerioSite[];
  plaque_sites: PerioSite[];
  suppuration_sites: PerioSite[];
  mobility: number | null;
  furcation: number | null;
};

export type PerioExamPicture = { exam_date: string; teeth: PerioChartTooth[] };

export type PerioChartPicture = {
  title: string;
  numbering: ToothNumbering;
  exam: PerioExamPicture;
  /** An earlier (or later) exam overlaid to show change; null when not asked for. */
  compare_to: PerioExamPicture | null;
  /** Universal numbers of teeth charted absent: drawn crossed out, not probed. */
  absent_teeth: string[];
};

/** Pocket depths at or above this are highlighted; at or above DEEP_POCKET_MM more strongly. */
export const POCKET_HIGHLIGHT_MM = 4;
export const DEEP_POCKET_MM = 6;
