import { type ChartTooth, DRAWN_SURFACES, type DrawnSurface, MARK_COLORS, type ToothMark, type ToothShape } from "./model";
import { CHART_INK, escapeXml, line, pointList, tag, textTag } from "./tooth-chart-markup";
import { type Point, surfacePolygon, type ToothLayout } from "./tooth-geometry";

// One tooth of the tooth chart: its root glyph, its 5-surface crown, the marks
// over them, its label, and a <desc> saying in words what is drawn.

const SHAPE_WORDS: Record<ToothShape, string> = { present: "present", absent: "missing", unerupted: "unerupted", root_only: "root only" };
const STROKE = 1.2;

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/** "Tooth 3: present. D2160 amalgam, MOD, planned." or "Tooth 3: present, nothing charted." */
export function toothDescription(tooth: ChartTooth): string {
  const status = tooth.status_text ?? SHAPE_WORDS[tooth.shape];
  const marks = tooth.marks.map((m) => m.text.trim()).filter((text) => text !== "");
  if (marks.length === 0) return `Tooth ${tooth.label}: ${status}, nothing charted.`;
  return [`Tooth ${tooth.label}: ${sentence(status)}`, ...marks.map(sentence)].join(" ");
}

/** A pontic or an implant stands in for the natural tooth: no natural root is drawn, and a missing tooth is not crossed out under it. */
const isReplaced = (tooth: ChartTooth): boolean => tooth.marks.some((m) => m.kind === "implant" || m.kind === "pontic");
const hasRoot = (tooth: ChartTooth): boolean => tooth.shape !== "absent" && !isReplaced(tooth);

/** The colour of each surface region: the last mark that fills it wins (later marks draw over earlier ones). */
function surfaceFills(marks: ToothMark[]): Partial<Record<DrawnSurface, string>> {
  const fills: Partial<Record<DrawnSurface, string>> = {};
  for (const mark of marks) {
    const colour = MARK_COLORS[mark.status];
    const filled = mark.kind === "surfaces" ? mark.surfaces : mark.kind === "crown" || mark.kind === "pontic" ? DRAWN_SURFACES : [];
    for (const surface of filled) fills[surface] = colour;
  }
  return fills;
}

/** The root: a tapered glyph, rounded at the tip, on the outer side of the crown. */
function rootGlyph(t: ToothLayout): string {
  const cx = t.crown.x + t.crown.size / 2;
  const { rootBaseY: base, rootTipY: tip, rootDir: dir, rootBaseHalf: bh, rootTipHalf: th } = t;
  const shoulder = tip - dir * 3; // the sides end a little short of the tip, which the curve reaches
  const d = `M${pointList([{ x: cx - bh, y: base }])}L${pointList([{ x: cx - th, y: shoulder }])}Q${pointList([
    { x: cx, y: tip + dir * 3 },
    { x: cx + th, y: shoulder },
  ])}L${pointList([{ x: cx + bh, y: base }])}Z`;
  return tag("path", { "data-part": "root", d, fill: CHART_INK.root, stroke: CHART_INK.stroke, "stroke-width": STROKE, "stroke-linejoin": "round" });
}

/** The corners of the box around crown and root: what the crosses of a missing or extracted tooth span. */
function toothExtent(t: ToothLayout): { top: number; bottom: number; left: number; right: number } {
  const inner = t.upper ? t.crown.y + t.crown.size : t.crown.y;
  return { top: Math.min(t.rootTipY, inner), bottom: Math.max(t.rootTipY, inner), left: t.crown.x, right: t.crown.x + t.crown.size };
}

function cross(t: ToothLayout, inset: number, stroke: string, width: number, part: string): string {
  const e = toothExtent(t);
  const [l, r, top, bottom] = [e.left + inset, e.right - inset, e.top + inset / 2, e.bottom - inset / 2];
  return tag(
    "g",
    { "data-part": part },
    line({ x: l, y: top }, { x: r, y: bottom }, stroke, width) + line({ x: r, y: top }, { x: l, y: bottom }, stroke, width),
  );
}

function crownRegions(tooth: ChartTooth, t: ToothLayout): string {
  const fills = surfaceFills(tooth.marks);
  const sound = tooth.shape === "present" || tooth.shape === "unerupted";
  return DRAWN_SURFACES.map((surface) => {
    const fill = fills[surface] ?? (sound ? CHART_INK.crown : "none");
    return tag("polygon", {
      "data-surface": surface,
      points: pointList(surfacePolygon(surface, t)),
      fill,
      stroke: fill === "none" ? "none" : CHART_INK.stroke,
      "stroke-width": fill === "none" ? null : STROKE,
      "stroke-linejoin": "round",
    });
  }).join("");
}

const crownOutline = (t: ToothLayout, stroke: string, width: number, extra: Record<string, string> = {}): string =>
  tag("rect", { x: t.crown.x, y: t.crown.y, width: t.crown.size, height: t.crown.size, fill: "none", stroke, "stroke-width": width, ...extra });

/** Root and crown as the tooth's shape has them, with the surface fills of its marks. */
function toothBody(tooth: ChartTooth, t: ToothLayout): string {
  const root = hasRoot(tooth) ? rootGlyph(t) : "";
  switch (tooth.shape) {
    case "present":
      return root + crownRegions(tooth, t);
    case "unerupted":
      return tag("g", { opacity: 0.35 }, root + crownRegions(tooth, t));
    case "root_only":
      return root + crownRegions(tooth, t) + crownOutline(t, CHART_INK.faint, STROKE, { "data-part": "faint-crown" });
    case "absent":
      return (
        crownOutline(t, CHART_INK.faint, STROKE, { "data-part": "absent-outline", "stroke-dasharray": "4 3" }) +
        (isReplaced(tooth) ? "" : cross(t, 4, CHART_INK.cross, 1.5, "absent-cross")) +
        crownRegions(tooth, t)
      );
  }
}

const centreX = (t: ToothLayout): number => t.crown.x + t.crown.size / 2;
/** A point along the root, 0 at the crown and 1 at the tip. */
const alongRoot = (t: ToothLayout, fraction: number): number => t.rootBaseY + (t.rootTipY - t.rootBaseY) * fraction;

function implant(t: ToothLayout, colour: string): string {
  const cx = centreX(t);
  const body = tag("rect", {
    x: cx - 5,
    y: Math.min(t.rootBaseY, t.rootTipY),
    width: 10,
    height: Math.abs(t.rootTipY - t.rootBaseY),
    fill: colour,
  });
  const threads = [0.2, 0.4, 0.6, 0.8].map((f) => line({ x: cx - 9, y: alongRoot(t, f) }, { x: cx + 9, y: alongRoot(t, f) }, colour, 2.5)).join("");
  return body + threads;
}

function fracture(t: ToothLayout, colour: string): string {
  const { x, y, size: s } = t.crown;
  const points: Point[] = Array.from({ length: 6 }, (_, i) => ({ x: x - 2 + (i * (s + 4)) / 5, y: y + s / 2 + (i % 2 === 0 ? -s / 7 : s / 7) }));
  return tag("polyline", { points: pointList(points), fill: "none", stroke: colour, "stroke-width": 2.5, "stroke-linejoin": "miter" });
}

/** What one mark draws over the tooth body (fills are already in the crown regions). */
function markOverlay(mark: ToothMark, t: ToothLayout): string {
  const colour = MARK_COLORS[mark.status];
  const cx = centreX(t);
  const part = (body: string): string => tag("g", { "data-mark": mark.kind, "data-status": mark.status }, body);
  switch (mark.kind) {
    case "crown":
      return part(crownOutline(t, colour, 3));
    case "root_canal":
      return part(line({ x: cx, y: alongRoot(t, 0.05) }, { x: cx, y: alongRoot(t, 0.92) }, colour, 3.5));
    case "post":
      return part(
        tag("rect", { x: cx - 3.5, y: Math.min(t.rootBaseY, alongRoot(t, 0.4)), width: 7, height: Math.abs(alongRoot(t, 0.4) - t.rootBaseY), fill: colour }),
      );
    case "implant":
      return part(implant(t, colour));
    case "extraction":
      return part(cross(t, 0, colour, 4, "extraction-cross"));
    case "fracture":
      return part(fracture(t, colour));
    case "periapical":
      return part(tag("circle", { cx, cy: t.rootTipY, r: t.ringRadius, fill: "none", stroke: colour, "stroke-width": 2.5 }));
    case "watch":
      return part(textTag({ x: t.watch.x, y: t.watch.y, "font-size": 13, "font-weight": "bold", "text-anchor": "middle", fill: colour }, "W"));
    case "surfaces":
    case "pontic":
    case "other":
      return "";
  }
}

/** The tooth's group: `data-tooth` is its Universal number, `data-label` what is shown. */
export function toothSvg(tooth: ChartTooth, t: ToothLayout): string {
  const label = textTag({ x: t.label.x, y: t.label.y, "font-size": t.label.size, "text-anchor": "middle", fill: CHART_INK.text }, tooth.label);
  const body = tag("desc", {}, escapeXml(toothDescription(tooth))) + toothBody(tooth, t) + tooth.marks.map((m) => markOverlay(m, t)).join("") + label;
  return tag("g", { "data-tooth": tooth.tooth, "data-label": tooth.label, "data-shape": tooth.shape, "aria-label": `Tooth ${tooth.label}` }, body);
}
