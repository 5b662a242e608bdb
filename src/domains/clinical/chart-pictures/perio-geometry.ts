import type { PerioSite } from "./model";

// Where everything of the perio chart sits. The layout does not depend on the
// data (every picture has the same size and the same place for each site), so
// the tests can find a site's bar and dots from the tooth and site alone.
//
// Four bands, as perio charts are printed: upper facial, upper lingual (teeth
// 1..16 left to right), lower lingual, lower facial (teeth 32..17 left to
// right). In every band the gingival margin is a horizontal line and a pocket
// is a bar drawn from it toward the ROOT, at a fixed scale: upward for upper
// teeth, downward for lower ones, as a probe goes in. On the crown side of the
// margin come, moving away from it: the recession line, `recession` mm
// crownward of the margin (where the cementoenamel junction is, so the gap
// shows the exposed root and gap + bar the attachment lost), the bleeding,
// suppuration and plaque dots (one row each), the depths in mm, and (when
// compared) the +2 / -2 change marks.

export const PX_PER_MM = 5;
/** The deepest pocket drawn to scale (the largest depth a record may hold); deeper values are drawn at this length. */
export const MAX_DRAWN_DEPTH_MM = 15;
/** Recession drawn to scale up to this many mm; beyond, at this distance (the description says the real value). */
export const MAX_DRAWN_RECESSION_MM = 6;
export const BAR_WIDTH = 8;
/** The earlier exam's outline is a little wider than the bar so its sides show beside a deeper current bar. */
export const OUTLINE_WIDTH = 11;
export const DOT_RADIUS = 3;
export const PLAQUE_DOT_RADIUS = 2.5;

export const LEFT = 84;
export const COLUMN = 48;
export const SITE_SPACING = 14;
export const CHART_WIDTH = LEFT + 16 * COLUMN + 16;

export const TITLE_HEIGHT = 56;
export const HEADER_HEIGHT = 32;
/** Root side of the margin: the longest bar and a little air. */
const ROOT_SIDE = MAX_DRAWN_DEPTH_MM * PX_PER_MM + 5;
/** Crown side of the margin, in distance from it (see the rows below). */
const CROWN_SIDE = 89;
export const BAND_HEIGHT = ROOT_SIDE + CROWN_SIDE;
const ARCH_GAP = 12;

/** Distances from the margin toward the crown of the rows on that side. */
const CROWN_ROWS = { bleeding: 36, suppuration: 45, plaque: 54, numbers: 66, change: 79 } as const;

export type Arch = "upper" | "lower";
export type Side = "facial" | "lingual";
export type Band = {
  arch: Arch;
  side: Side;
  top: number;
  /** The gingival margin line's y. */
  margin: number;
  /** +1 when the root (and the bars) go down the page, -1 when up. */
  rootward: 1 | -1;
};

const UPPER_HEADER_TOP = TITLE_HEIGHT;
const UPPER_TOP = UPPER_HEADER_TOP + HEADER_HEIGHT;
const LOWER_TOP = UPPER_TOP + 2 * BAND_HEIGHT + ARCH_GAP;
export const LOWER_HEADER_TOP = LOWER_TOP + 2 * BAND_HEIGHT;
export const LEGEND_TOP = LOWER_HEADER_TOP + HEADER_HEIGHT;
export const LEGEND_ROWS = [LEGEND_TOP + 14, LEGEND_TOP + 32] as const;
export const SUMMARY_BASELINE = LEGEND_TOP + 64;
export const CHART_HEIGHT = SUMMARY_BASELINE + 12;
/** The line between the arches. */
export const OCCLUSAL_Y = UPPER_TOP + 2 * BAND_HEIGHT + ARCH_GAP / 2;

const upperBand = (side: Side, top: number): Band => ({ arch: "upper", side, top, margin: top + ROOT_SIDE, rootward: -1 });
const lowerBand = (side: Side, top: number): Band => ({ arch: "lower", side, top, margin: top + CROWN_SIDE, rootward: 1 });

/** Top to bottom. */
export const BANDS: readonly Band[] = [
  upperBand("facial", UPPER_TOP),
  upperBand("lingual", UPPER_TOP + BAND_HEIGHT),
  lowerBand("lingual", LOWER_TOP),
  lowerBand("facial", LOWER_TOP + BAND_HEIGHT),
];

/** Baselines of the tooth headers: the label outermost, mobility and furcation next to the chart. */
export const HEADER_BASELINES: Readonly<Record<Arch, { label: number; grades: number }>> = {
  upper: { label: UPPER_HEADER_TOP + 14, grades: UPPER_HEADER_TOP + 27 },
  lower: { label: LOWER_HEADER_TOP + 26, grades: LOWER_HEADER_TOP + 12 },
};

export const FACIAL_SITES = ["mb", "b", "db"] as const satisfies readonly PerioSite[];
export const LINGUAL_SITES = ["ml", "l", "dl"] as const satisfies readonly PerioSite[];

/** Universal number 1-32 of `tooth`, or null for anything else. */
export function permanentNumber(tooth: string): number | null {
  if (!/^\d{1,2}$/.test(tooth)) return null;
  const n = Number(tooth);
  return n >= 1 && n <= 32 ? n : null;
}

function numberOf(tooth: string): number {
  const n = permanentNumber(tooth);
  if (n === null) throw new Error(`not a permanent tooth (Universal 1-32): ${tooth}`);
  return n;
}

export function archOf(tooth: string): Arch {
  return numberOf(tooth) <= 16 ? "upper" : "lower";
}

/** 0-15 from the viewer's left: 1..16 above, 32..17 below. */
export function columnIndex(tooth: string): number {
  const n = numberOf(tooth);
  return n <= 16 ? n - 1 : 32 - n;
}

export function columnLeft(tooth: string): number {
  return LEFT + columnIndex(tooth) * COLUMN;
}

export function columnCentre(tooth: string): number {
  return columnLeft(tooth) + COLUMN / 2;
}

export function sideOf(site: PerioSite): Side {
  return (FACIAL_SITES as readonly PerioSite[]).includes(site) ? "facial" : "lingual";
}

export function bandOf(tooth: string, side: Side): Band {
  const arch = archOf(tooth);
  const band = BANDS.find((b) => b.arch === arch && b.side === side);
  if (!band) throw new Error(`no band for ${arch} ${side}`);
  return band;
}

/**
 * The side's three sites as drawn, left to right: mesial toward the midline,
 * so on the right of the column for the teeth on the viewer's left (1-8,
 * 25-32) and on the left for the others.
 */
export function sitesLeftToRight(tooth: string, side: Side): PerioSite[] {
  const [m, mid, d] = side === "facial" ? FACIAL_SITES : LINGUAL_SITES;
  const n = numberOf(tooth);
  const mesialOnRight = n <= 8 || n >= 25;
  return mesialOnRight ? [d, mid, m] : [m, mid, d];
}

export function siteX(tooth: string, site: PerioSite): number {
  const i = sitesLeftToRight(tooth, sideOf(site)).indexOf(site);
  return columnCentre(tooth) + (i - 1) * SITE_SPACING;
}

/** The y at `distance` px from the band's margin toward the crown. */
export function crownward(band: Band, distance: number): number {
  return band.margin - band.rootward * distance;
}

/**
 * Where the pocket bar of `site` starts: `x` is its centre line, `y0` the
 * gingival margin, and a depth of d mm covers y0 .. y0 + d × `mmPx` (mmPx is
 * negative for upper teeth, whose bars go up toward the root). `width` is the
 * bar's width.
 */
export function siteBar(tooth: string, site: PerioSite): { x: number; y0: number; mmPx: number; width: number } {
  const band = bandOf(tooth, sideOf(site));
  return { x: siteX(tooth, site), y0: band.margin, mmPx: band.rootward * PX_PER_MM, width: BAR_WIDTH };
}

export type DotKind = "bleeding" | "suppuration" | "plaque";

/** The centre of the site's dot of `kind` (each kind has its own row, so they never overlap). */
export function siteDot(tooth: string, site: PerioSite, kind: DotKind): { x: number; y: number } {
  return { x: siteX(tooth, site), y: crownward(bandOf(tooth, sideOf(site)), CROWN_ROWS[kind]) };
}

/** The vertical centre of the depth numbers row or the change marks row of a band. */
export function textRowCentre(band: Band, row: "numbers" | "change"): number {
  return crownward(band, CROWN_ROWS[row]);
}

/** The y of the recession line at `mm` of recession (drawn at most MAX_DRAWN_RECESSION_MM). */
export function recessionY(band: Band, mm: number): number {
  return crownward(band, Math.min(Math.max(mm, 0), MAX_DRAWN_RECESSION_MM) * PX_PER_MM);
}

/** The drawn length of a pocket of `mm`, in px. */
export function barLength(mm: number): number {
  return Math.min(Math.max(mm, 0), MAX_DRAWN_DEPTH_MM) * PX_PER_MM;
}
