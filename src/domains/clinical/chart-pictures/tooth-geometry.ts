import type { DrawnSurface } from "./model";

// Where each tooth of the tooth chart sits, in SVG user units (1 unit = 1 CSS
// px). Standard odontogram, viewer facing the patient: upper teeth 1-16 left
// to right on top, lower 32-17 below them; the primary rows (A-J, T-K) sit
// between the arches when drawn. Each tooth is a crown box (the 5-surface
// occlusal diagram) with its root on the outer side of the mouth.

export type Point = { x: number; y: number };

export type ToothRowKind = "upper_permanent" | "upper_primary" | "lower_primary" | "lower_permanent";

type ToothScale = { crown: number; pitch: number; root: number; rootBaseHalf: number; rootTipHalf: number; ring: number; labelSize: number };

const PERMANENT: ToothScale = { crown: 48, pitch: 58, root: 40, rootBaseHalf: 13, rootTipHalf: 5, ring: 6, labelSize: 13 };
// Primary teeth are smaller and spread over the width of permanent 3-14, centred on the midline.
const PRIMARY: ToothScale = { crown: 40, pitch: 68, root: 28, rootBaseHalf: 11, rootTipHalf: 4, ring: 5, labelSize: 12 };

const numbers = (from: number, to: number): string[] => {
  const step = from <= to ? 1 : -1;
  return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => String(from + i * step));
};
const letters = (from: string, to: string): string[] => {
  const [a, b] = [from.charCodeAt(0), to.charCodeAt(0)];
  const step = a <= b ? 1 : -1;
  return Array.from({ length: Math.abs(b - a) + 1 }, (_, i) => String.fromCharCode(a + i * step));
};

/** The teeth of each row, left to right as the viewer sees them. */
export const TOOTH_ROWS: Readonly<Record<ToothRowKind, readonly string[]>> = {
  upper_permanent: numbers(1, 16),
  upper_primary: letters("A", "J"),
  lower_primary: letters("T", "K"),
  lower_permanent: numbers(32, 17),
};

export const CHART_WIDTH = 1000;
/** Left and right of the permanent rows (41): the legend and lists under the chart start here too. */
export const CHART_SIDE_PAD = (CHART_WIDTH - (15 * PERMANENT.pitch + PERMANENT.crown)) / 2;
const CHART_TOP = 6;
const LABEL_BAND = 20;
/** Room between the label and the root tip, for the periapical ring. */
const TIP_PAD = 8;
/** Room on the inner side of the crown for the "W" (watch) mark. */
const WATCH_BAND = 20;
const BAND_GAP = 8;
/** Between the upper and lower arches: the occlusal line runs in its middle. */
const ARCH_GAP = 24;

const scaleOf = (row: ToothRowKind): ToothScale => (row.endsWith("primary") ? PRIMARY : PERMANENT);
const bandHeight = (s: ToothScale): number => LABEL_BAND + TIP_PAD + s.root + s.crown + WATCH_BAND;

/** The rows drawn, top to bottom. */
export function chartRows(primaryRow: boolean): ToothRowKind[] {
  return primaryRow ? ["upper_permanent", "upper_primary", "lower_primary", "lower_permanent"] : ["upper_permanent", "lower_permanent"];
}

/** The top of each drawn row's band, the occlusal line between the arches, and the bottom of the teeth. */
export function chartFrame(primaryRow: boolean): {
  top: number;
  bottom: number;
  occlusalY: number;
  midX: number;
  rowTop: Partial<Record<ToothRowKind, number>>;
} {
  const rowTop: Partial<Record<ToothRowKind, number>> = {};
  let y = CHART_TOP;
  let occlusalY = 0;
  for (const row of chartRows(primaryRow)) {
    if (row.startsWith("lower") && occlusalY === 0) {
      occlusalY = y + ARCH_GAP / 2 - BAND_GAP;
      y += ARCH_GAP - BAND_GAP;
    }
    rowTop[row] = y;
    y += bandHeight(scaleOf(row)) + BAND_GAP;
  }
  return { top: CHART_TOP, bottom: y - BAND_GAP, occlusalY, midX: CHART_WIDTH / 2, rowTop };
}

/** Everything the renderer needs to place one tooth. `rootDir` is -1 when the root points up (upper rows). */
export type ToothLayout = {
  tooth: string;
  row: ToothRowKind;
  /** Position in its row, 0 at the viewer's left. */
  index: number;
  upper: boolean;
  /** Teeth on the viewer's left have their mesial side (towards the midline) on the right. */
  mesialRight: boolean;
  crown: { x: number; y: number; size: number };
  rootDir: -1 | 1;
  rootBaseY: number;
  rootTipY: number;
  rootBaseHalf: number;
  rootTipHalf: number;
  ringRadius: number;
  label: Point & { size: number };
  /** Baseline of the "W" (watch) mark, on the inner side of the crown. */
  watch: Point;
};

function rowOf(tooth: string, primaryRow: boolean): { row: ToothRowKind; index: number } | null {
  for (const row of chartRows(primaryRow)) {
    const index = TOOTH_ROWS[row].indexOf(tooth);
    if (index >= 0) return { row, index };
  }
  return null;
}

/** Where `tooth` is drawn, or null when it has no place on the chart (a primary tooth without the primary row, a supernumerary). */
export function toothLayout(tooth: string, primaryRow: boolean): ToothLayout | null {
  const at = rowOf(tooth, primaryRow);
  if (!at) return null;
  const { row, index } = at;
  const s = scaleOf(row);
  const count = TOOTH_ROWS[row].length;
  const rowWidth = (count - 1) * s.pitch + s.crown;
  const x = (CHART_WIDTH - rowWidth) / 2 + index * s.pitch;
  const cx = x + s.crown / 2;
  const top = chartFrame(primaryRow).rowTop[row] ?? 0;
  const upper = row.startsWith("upper");
  const height = bandHeight(s);
  const crownY = upper ? top + LABEL_BAND + TIP_PAD + s.root : top + WATCH_BAND;
  const rootBaseY = upper ? crownY : crownY + s.crown;
  const rootDir = upper ? -1 : 1;
  return {
    tooth,
    row,
    index,
    upper,
    mesialRight: index < count / 2,
    crown: { x, y: crownY, size: s.crown },
    rootDir,
    rootBaseY,
    rootTipY: rootBaseY + rootDir * s.root,
    rootBaseHalf: s.rootBaseHalf,
    rootTipHalf: s.rootTipHalf,
    ringRadius: s.ring,
    label: { x: cx, y: upper ? top + LABEL_BAND - 5 : top + height - 5, size: s.labelSize },
    watch: { x: cx, y: upper ? crownY + s.crown + 15 : crownY - 5 },
  };
}

type Side = "top" | "bottom" | "left" | "right" | "centre";

function sideOf(surface: DrawnSurface, t: ToothLayout): Side {
  switch (surface) {
    case "O":
      return "centre";
    case "B":
      return t.upper ? "top" : "bottom";
    case "L":
      return t.upper ? "bottom" : "top";
    case "M":
      return t.mesialRight ? "right" : "left";
    case "D":
      return t.mesialRight ? "left" : "right";
  }
}

/** The region of `surface` on the crown: the centre square (O) or one of the four trapezoids around it. */
export function surfacePolygon(surface: DrawnSurface, t: ToothLayout): Point[] {
  const { x, y, size: s } = t.crown;
  const i = s / 4;
  const p = (px: number, py: number): Point => ({ x: px, y: py });
  switch (sideOf(surface, t)) {
    case "centre":
      return [p(x + i, y + i), p(x + s - i, y + i), p(x + s - i, y + s - i), p(x + i, y + s - i)];
    case "top":
      return [p(x, y), p(x + s, y), p(x + s - i, y + i), p(x + i, y + i)];
    case "bottom":
      return [p(x + i, y + s - i), p(x + s - i, y + s - i), p(x + s, y + s), p(x, y + s)];
    case "left":
      return [p(x, y), p(x + i, y + i), p(x + i, y + s - i), p(x, y + s)];
    case "right":
      return [p(x + s - i, y + i), p(x + s, y), p(x + s, y + s), p(x + s - i, y + s - i)];
  }
}

function surfaceCentre(surface: DrawnSurface, t: ToothLayout): Point {
  const { x, y, size: s } = t.crown;
  const edge = s / 8; // the middle of a trapezoid's depth (s/4)
  switch (sideOf(surface, t)) {
    case "centre":
      return { x: x + s / 2, y: y + s / 2 };
    case "top":
      return { x: x + s / 2, y: y + edge };
    case "bottom":
      return { x: x + s / 2, y: y + s - edge };
    case "left":
      return { x: x + edge, y: y + s / 2 };
    case "right":
      return { x: x + s - edge, y: y + s / 2 };
  }
}

function layoutOrThrow(tooth: string, primaryRow: boolean): ToothLayout {
  const t = toothLayout(tooth, primaryRow);
  if (!t) throw new Error(`tooth ${tooth} is not on the chart${primaryRow ? "" : " without the primary row"}`);
  return t;
}

export type ToothGeometry = {
  x: number;
  y: number;
  width: number;
  height: number;
  surfaces: Record<DrawnSurface, Point>;
  root: Point;
};

/** The crown box of `tooth`, the centre of each surface region, and the middle of its root glyph. */
export function toothGeometry(tooth: string, primaryRow: boolean): ToothGeometry {
  const t = layoutOrThrow(tooth, primaryRow);
  const surfaces = { M: surfaceCentre("M", t), O: surfaceCentre("O", t), D: surfaceCentre("D", t), B: surfaceCentre("B", t), L: surfaceCentre("L", t) };
  return {
    x: t.crown.x,
    y: t.crown.y,
    width: t.crown.size,
    height: t.crown.size,
    surfaces,
    root: { x: t.crown.x + t.crown.size / 2, y: (t.rootBaseY + t.rootTipY) / 2 },
  };
}

/** The height of a span's bar: a quarter of the crown, across the crown's middle. */
export const spanBarHeight = (t: ToothLayout): number => t.crown.size / 4;

/** The middle of the gap between the crowns of `a` and `b`, neighbours in one row: a span joining them colours it. */
export function spanConnectorPoint(a: string, b: string, primaryRow: boolean): Point {
  const [ta, tb] = [layoutOrThrow(a, primaryRow), layoutOrThrow(b, primaryRow)];
  if (ta.row !== tb.row || Math.abs(ta.index - tb.index) !== 1) throw new Error(`teeth ${a} and ${b} are not neighbours in a row`);
  const [left, right] = ta.index < tb.index ? [ta, tb] : [tb, ta];
  return { x: (left.crown.x + left.crown.size + right.crown.x) / 2, y: left.crown.y + left.crown.size / 2 };
}
