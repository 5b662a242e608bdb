import { DEEP_POCKET_MM, type PerioChartPicture, type PerioChartTooth, type PerioSite, POCKET_HIGHLIGHT_MM } from "./model";
import { toothLabel } from "./numbering";
import { escapeXml, FONT_FAMILY, num as n, truncate } from "./tooth-chart-markup";
import {
  archOf,
  BAND_HEIGHT,
  BANDS,
  type Band,
  bandOf,
  barLength,
  CHART_HEIGHT,
  CHART_WIDTH,
  COLUMN,
  columnLeft,
  DOT_RADIUS,
  type DotKind,
  HEADER_BASELINES,
  LEFT,
  LEGEND_ROWS,
  LOWER_HEADER_TOP,
  MAX_DRAWN_DEPTH_MM,
  OCCLUSAL_Y,
  OUTLINE_WIDTH,
  PLAQUE_DOT_RADIUS,
  PX_PER_MM,
  type Side,
  SUMMARY_BASELINE,
  siteBar,
  siteDot,
  sitesLeftToRight,
  siteX,
  recessionY,
  TITLE_HEIGHT,
  textRowCentre,
} from "./perio-geometry";
import { examLine, perioCounts, pictureDescription, probedTeeth, siteChange, signed, summaryLine, teethByNumber, toothDescription } from "./perio-summary";

// The perio chart as an SVG document (docs/clinical/chart-pictures.md): a pure
// function of the picture, so the same exam always gives the same bytes. The
// layout (perio-geometry.ts) is the same for every picture; this file only
// decides what is drawn where.

export { siteBar, siteDot } from "./perio-geometry";

export const PERIO_COLORS = {
  shallow: "#607d8b",
  highlighted: "#f57c00",
  deep: "#c62828",
  bleeding: "#d32f2f",
  suppuration: "#fbc02d",
  plaque: "#455a64",
  recession: "#1565c0",
  earlier: "#424242",
  deeper: "#c62828",
  shallower: "#2e7d32",
} as const;

const TEXT = "#212121";
const MUTED = "#546e7a";
const GRID = "#eceff1";
const SEPARATOR = "#e0e0e0";
const NOT_PROBED_FILL = "#eeeeee";
const NOT_PROBED_CROSS = "#9e9e9e";
const DOT_COLORS: Readonly<Record<DotKind, string>> = { bleeding: PERIO_COLORS.bleeding, suppuration: PERIO_COLORS.suppuration, plaque: PERIO_COLORS.plaque };
const DOT_KINDS: readonly DotKind[] = ["bleeding", "suppuration", "plaque"];

export function perioChartSize(_picture: PerioChartPicture): { width: number; height: number } {
  return { width: CHART_WIDTH, height: CHART_HEIGHT };
}

export function renderPerioChartSvg(picture: PerioChartPicture): string {
  const { width, height } = perioChartSize(picture);
  const counts = perioCounts(picture);
  const probed = probedTeeth(picture);
  const exam = teethByNumber(picture.exam);
  const before = picture.compare_to ? teethByNumber(picture.compare_to) : null;
  const absent = new Set(picture.absent_teeth);
  const teeth = Array.from({ length: 32 }, (_, i) => String(i + 1));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="perio-title perio-desc" font-family="${FONT_FAMILY}">`,
    `<title id="perio-title">${escapeXml(picture.title)}</title>`,
    `<desc id="perio-desc">${escapeXml(pictureDescription(picture, counts))}</desc>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    text(16, 22, truncate(picture.title, 90), { size: 15, weight: "bold" }),
    text(16, 42, examLine(picture), { size: 12, fill: MUTED }),
    ...grid(),
    ...teeth.map((tooth) => {
      const label = exam.get(tooth)?.label ?? toothLabel(tooth, picture.numbering);
      const compared = before ? (before.get(tooth) ?? null) : undefined;
      return toothGroup(tooth, label, probed.get(tooth) ?? null, absent.has(tooth), compared);
    }),
    ...legend(picture),
    text(16, SUMMARY_BASELINE, summaryLine(picture, counts), { size: 11 }),
    "</svg>",
  ].join("\n");
}

// ---- the tooth columns ----

/** `before`: undefined when no comparison was asked for; null when the earlier exam did not probe the tooth. */
function toothGroup(tooth: string, label: string, now: PerioChartTooth | null, absent: boolean, before: PerioChartTooth | null | undefined): string {
  const state = absent ? "absent" : now ? "probed" : "not-probed";
  const sides: Side[] = ["facial", "lingual"];
  const body = sides.flatMap((side) => (now && !absent ? probedSide(tooth, side, now, before ?? null) : crossedOut(tooth, bandOf(tooth, side))));
  return [
    `<g data-tooth="${escapeXml(tooth)}" data-label="${escapeXml(label)}" data-state="${state}">`,
    `<desc>${escapeXml(toothDescription(label, absent ? null : now, absent, before))}</desc>`,
    ...toothHeader(tooth, label, absent ? null : now),
    ...body,
    "</g>",
  ].join("\n");
}

function toothHeader(tooth: string, label: string, now: PerioChartTooth | null): string[] {
  const x = columnLeft(tooth) + COLUMN / 2;
  const baselines = HEADER_BASELINES[archOf(tooth)];
  const lines = [text(x, baselines.label, label, { size: 11, weight: "bold", fill: now ? TEXT : NOT_PROBED_CROSS, anchor: "middle" })];
  const grades = [now?.mobility != null ? `M${now.mobility}` : null, now?.furcation != null ? `F${now.furcation}` : null].filter((g) => g !== null);
  if (grades.length > 0) lines.push(text(x, baselines.grades, grades.join(" "), { size: 9, fill: MUTED, anchor: "middle" }));
  return lines;
}

function crossedOut(tooth: string, band: Band): string[] {
  const left = columnLeft(tooth) + 1;
  const right = left + COLUMN - 2;
  const top = band.top + 1;
  const bottom = band.top + BAND_HEIGHT - 1;
  return [
    `<rect class="not-probed" x="${n(left)}" y="${n(top)}" width="${n(COLUMN - 2)}" height="${n(BAND_HEIGHT - 2)}" fill="${NOT_PROBED_FILL}"/>`,
    line(left + 8, top + 12, right - 8, bottom - 12, NOT_PROBED_CROSS, 1.5),
    line(right - 8, top + 12, left + 8, bottom - 12, NOT_PROBED_CROSS, 1.5),
  ];
}

function depthColor(mm: number): string {
  if (mm >= DEEP_POCKET_MM) return PERIO_COLORS.deep;
  if (mm >= POCKET_HIGHLIGHT_MM) return PERIO_COLORS.highlighted;
  return PERIO_COLORS.shallow;
}

/** A bar from the margin toward the root; `width` and the rest of the look come from the caller. */
function barRect(tooth: string, site: PerioSite, mm: number, width: number): { x: number; y: number; width: number; height: number } {
  const bar = siteBar(tooth, site);
  const length = barLength(mm);
  return { x: bar.x - width / 2, y: bar.mmPx < 0 ? bar.y0 - length : bar.y0, width, height: length };
}

const rectAttributes = (r: { x: number; y: number; width: number; height: number }): string =>
  `x="${n(r.x)}" y="${n(r.y)}" width="${n(r.width)}" height="${n(r.height)}"`;

function probedSide(tooth: string, side: Side, now: PerioChartTooth, before: PerioChartTooth | null): string[] {
  const band = bandOf(tooth, side);
  const sites = sitesLeftToRight(tooth, side);
  const out: string[] = [];
  if (now.recession) out.push(recessionLine(tooth, band, sites, now.recession));
  for (const site of sites) {
    const mm = now.pocket_depths[site];
    const bar = siteBar(tooth, site);
    out.push(`<rect class="pd-bar" data-site="${site}" data-depth="${mm}" ${rectAttributes(barRect(tooth, site, mm, bar.width))} fill="${depthColor(mm)}"/>`);
  }
  // Over the current bars, so an earlier deeper or shallower pocket shows either way.
  if (before) {
    for (const site of sites) {
      const mm = before.pocket_depths[site];
      out.push(
        `<rect class="pd-earlier" data-site="${site}" data-depth-earlier="${mm}" ${rectAttributes(barRect(tooth, site, mm, OUTLINE_WIDTH))} fill="none" stroke="${PERIO_COLORS.earlier}" stroke-width="1.5" stroke-dasharray="3 2"/>`,
      );
    }
  }
  for (const kind of DOT_KINDS) {
    const listed = kind === "bleeding" ? now.bleeding_sites : kind === "suppuration" ? now.suppuration_sites : now.plaque_sites;
    for (const site of sites.filter((s) => listed.includes(s))) {
      const dot = siteDot(tooth, site, kind);
      const r = kind === "plaque" ? PLAQUE_DOT_RADIUS : DOT_RADIUS;
      out.push(`<circle class="${kind}" data-site="${site}" cx="${n(dot.x)}" cy="${n(dot.y)}" r="${n(r)}" fill="${DOT_COLORS[kind]}"/>`);
    }
  }
  const numbersBaseline = textRowCentre(band, "numbers") + 3.5;
  for (const site of sites) {
    const mm = now.pocket_depths[site];
    const deep = mm >= POCKET_HIGHLIGHT_MM;
    out.push(
      text(siteX(tooth, site), numbersBaseline, String(mm), {
        size: 10,
        anchor: "middle",
        weight: deep ? "bold" : undefined,
        fill: deep ? PERIO_COLORS.deep : TEXT,
        cls: "pd-number",
        site,
      }),
    );
  }
  const changeBaseline = textRowCentre(band, "change") + 3;
  for (const site of sites) {
    const change = before ? siteChange(now, before, site) : null;
    if (change === null) continue;
    const fill = change > 0 ? PERIO_COLORS.deeper : PERIO_COLORS.shallower;
    out.push(text(siteX(tooth, site), changeBaseline, signed(change), { size: 9, anchor: "middle", weight: "bold", fill, cls: "pd-change", site }));
  }
  return out;
}

/** The recession across the side's three sites: a line `recession` mm crownward of the margin line. */
function recessionLine(tooth: string, band: Band, sites: PerioSite[], recession: Record<PerioSite, number>): string {
  const points = sites.map((s) => [siteX(tooth, s), recessionY(band, recession[s])] as const);
  const first = points[0];
  const last = points[points.length - 1];
  const all = [[first[0] - 6, first[1]] as const, ...points, [last[0] + 6, last[1]] as const];
  const values = sites.map((s) => `${s}:${recession[s]}`).join(" ");
  return `<polyline class="recession" data-recession="${values}" points="${all.map(([x, y]) => `${n(x)},${n(y)}`).join(" ")}" fill="none" stroke="${PERIO_COLORS.recession}" stroke-width="2" stroke-linejoin="round"/>`;
}

// ---- what every picture has: the bands, scale and legend ----

function grid(): string[] {
  const right = LEFT + 16 * COLUMN;
  const out: string[] = [];
  for (const band of BANDS) {
    for (let mm = 3; mm <= 12; mm += 3) {
      const y = band.margin + band.rootward * mm * PX_PER_MM;
      out.push(line(LEFT, y, right, y, GRID, 1));
      out.push(text(LEFT - 4, y + 3, String(mm), { size: 8, fill: MUTED, anchor: "end" }));
    }
    const middle = band.margin + (band.rootward * MAX_DRAWN_DEPTH_MM * PX_PER_MM) / 2;
    out.push(text(8, middle - 2, band.arch === "upper" ? "Upper" : "Lower", { size: 11, weight: "bold", fill: MUTED }));
    out.push(text(8, middle + 11, band.side, { size: 11, weight: "bold", fill: MUTED }));
    out.push(text(LEFT - 4, textRowCentre(band, "numbers") + 3, "mm", { size: 8, fill: MUTED, anchor: "end" }));
    out.push(line(LEFT, band.margin, right, band.margin, "#78909c", 1));
    if (band.side === "lingual") {
      const between = band.arch === "upper" ? band.top : band.top + BAND_HEIGHT;
      out.push(line(LEFT, between, right, between, SEPARATOR, 1));
    }
  }
  const top = TITLE_HEIGHT;
  const bottom = LOWER_HEADER_TOP + 32;
  for (let i = 0; i <= 16; i++) {
    const x = LEFT + i * COLUMN;
    const midline = i === 8;
    out.push(line(x, midline ? top : BANDS[0].top, x, midline ? bottom : BANDS[3].top + BAND_HEIGHT, midline ? "#90a4ae" : SEPARATOR, midline ? 1.5 : 1));
  }
  out.push(line(LEFT, OCCLUSAL_Y, right, OCCLUSAL_Y, "#b0bec5", 1.5));
  return out;
}

/** Rough width of a text in DejaVu Sans, to place the legend's items one after another. */
const textWidth = (s: string, size: number): number => s.length * size * 0.6;

function legend(picture: PerioChartPicture): string[] {
  const out: string[] = [];
  type Item = { swatch: (x: number, y: number) => string[]; label: string; swatchWidth?: number };
  const row = (y: number, items: Item[]): void => {
    let x = 16;
    for (const item of items) {
      const labelX = x + (item.swatchWidth ?? 14) + 6;
      out.push(...item.swatch(x, y));
      out.push(text(labelX, y + 3.5, item.label, { size: 10, fill: TEXT }));
      x = labelX + textWidth(item.label, 10) + 18;
    }
  };
  const box = (fill: string) => (x: number, y: number) => [`<rect x="${n(x)}" y="${n(y - 5)}" width="14" height="10" fill="${fill}"/>`];
  const dot = (fill: string, r: number) => (x: number, y: number) => [`<circle cx="${n(x + 7)}" cy="${n(y)}" r="${n(r)}" fill="${fill}"/>`];
  row(LEGEND_ROWS[0], [
    { swatch: box(PERIO_COLORS.shallow), label: `Pocket < ${POCKET_HIGHLIGHT_MM} mm` },
    { swatch: box(PERIO_COLORS.highlighted), label: `${POCKET_HIGHLIGHT_MM}–${DEEP_POCKET_MM - 1} mm` },
    { swatch: box(PERIO_COLORS.deep), label: `≥ ${DEEP_POCKET_MM} mm` },
    { swatch: (x, y) => [line(x, y, x + 14, y, PERIO_COLORS.recession, 2)], label: "Recession" },
    {
      swatch: (x, y) => [
        `<rect x="${n(x)}" y="${n(y - 5)}" width="14" height="10" fill="${NOT_PROBED_FILL}"/>`,
        line(x + 2, y - 4, x + 12, y + 4, NOT_PROBED_CROSS, 1.5),
      ],
      label: "Absent or not probed",
    },
  ]);
  const second: Item[] = [
    { swatch: dot(PERIO_COLORS.bleeding, DOT_RADIUS), label: "Bleeding" },
    { swatch: dot(PERIO_COLORS.suppuration, DOT_RADIUS), label: "Suppuration" },
    { swatch: dot(PERIO_COLORS.plaque, PLAQUE_DOT_RADIUS), label: "Plaque" },
  ];
  if (picture.compare_to) {
    second.push({
      swatch: (x, y) => [
        `<rect x="${n(x + 1)}" y="${n(y - 5)}" width="12" height="10" fill="none" stroke="${PERIO_COLORS.earlier}" stroke-width="1.5" stroke-dasharray="3 2"/>`,
      ],
      label: `Earlier exam ${picture.compare_to.exam_date}`,
    });
    second.push({
      swatch: (x, y) => [
        text(x, y + 3.5, "+2", { size: 9, weight: "bold", fill: PERIO_COLORS.deeper }),
        text(x + 16, y + 3.5, "-2", { size: 9, weight: "bold", fill: PERIO_COLORS.shallower }),
      ],
      label: "deeper / shallower by 2 mm or more",
      swatchWidth: 28,
    });
  }
  row(LEGEND_ROWS[1], second);
  return out;
}

// ---- SVG markup (numbers and escaping as in tooth-chart-markup.ts) ----

function line(x1: number, y1: number, x2: number, y2: number, stroke: string, width: number): string {
  return `<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" stroke="${stroke}" stroke-width="${n(width)}"/>`;
}

type TextStyle = { size: number; fill?: string; weight?: "bold"; anchor?: "middle" | "end"; cls?: string; site?: PerioSite };

function text(x: number, y: number, content: string, style: TextStyle): string {
  const attributes = [
    style.cls ? `class="${style.cls}"` : null,
    style.site ? `data-site="${style.site}"` : null,
    `x="${n(x)}"`,
    `y="${n(y)}"`,
    `font-size="${n(style.size)}"`,
    style.weight ? `font-weight="${style.weight}"` : null,
    style.anchor ? `text-anchor="${style.anchor}"` : null,
    `fill="${style.fill ?? TEXT}"`,
  ].filter((a) => a !== null);
  return `<text ${attributes.join(" ")}>${escapeXml(content)}</text>`;
}
