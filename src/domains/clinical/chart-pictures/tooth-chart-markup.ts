import type { Point } from "./tooth-geometry";

// Small helpers that write SVG markup the same way every time: numbers with at
// most 2 decimals and escaped text, so one picture always gives the same bytes.

/** Fonts every viewer has; none is loaded (the picture references nothing outside itself). */
export const FONT_FAMILY = "DejaVu Sans, Arial, Helvetica, sans-serif";

/** The inks of a tooth that has nothing charted (full #rrggbb, as the pixel tests compare them). */
export const CHART_INK = {
  stroke: "#555555",
  crown: "#ffffff",
  /** Light grey, so a root reads as a root and not as empty paper. */
  root: "#d0d0d0",
  faint: "#bbbbbb",
  cross: "#999999",
  text: "#333333",
  guide: "#cccccc",
  guideText: "#777777",
} as const;

export function num(n: number): string {
  return String(Math.round(n * 100) / 100);
}

// Characters XML 1.0 does not allow at all (C0 controls but tab/newline/return, lone surrogates, U+FFFE/U+FFFF).
const NOT_XML = /[\u{0}-\u{8}\u{B}\u{C}\u{E}-\u{1F}\u{FFFE}\u{FFFF}]|\p{Cs}/gu;
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeXml(text: string): string {
  return text.replace(NOT_XML, "").replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** Cut long text for drawing (it has no wrapping); the full text stays in the descriptions. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

export type Attrs = Record<string, string | number | null | undefined>;

/** An element; numbers are rounded, values escaped, null/undefined attributes left out; no children makes it self-closing. */
export function tag(name: string, attrs: Attrs, children?: string): string {
  let out = `<${name}`;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;
    out += ` ${key}="${typeof value === "number" ? num(value) : escapeXml(value)}"`;
  }
  return children === undefined ? `${out}/>` : `${out}>${children}</${name}>`;
}

export const textTag = (attrs: Attrs, text: string): string => tag("text", attrs, escapeXml(text));

export const pointList = (points: Point[]): string => points.map((p) => `${num(p.x)},${num(p.y)}`).join(" ");

export const line = (a: Point, b: Point, stroke: string, width: number, extra: Attrs = {}): string =>
  tag("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke, "stroke-width": width, "stroke-linecap": "round", ...extra });
