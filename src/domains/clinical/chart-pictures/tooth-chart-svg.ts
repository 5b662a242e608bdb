import { type ChartSpan, MARK_COLORS, MARK_STATUSES, type MarkStatus, type ToothChartPicture } from "./model";
import { CHART_INK, escapeXml, FONT_FAMILY, line, tag, textTag, truncate } from "./tooth-chart-markup";
import { CHART_SIDE_PAD, CHART_WIDTH, chartFrame, spanBarHeight, type ToothLayout, toothLayout } from "./tooth-geometry";
import { toothSvg } from "./tooth-drawing";

// The tooth chart as one self-contained SVG document (docs/clinical/chart-pictures.md):
// a pure function of the picture, so the same picture gives the same bytes.
// Under the teeth: the note, the colour legend and the marks on no single tooth.

const SIDE_PAD = CHART_SIDE_PAD;
const BELOW_GAP = 12;
const NOTE_LINE = 22;
const LEGEND_LINE = 28;
const ITEM_LINE = 18;
/** Lines of the list of marks on no single tooth, "and N more" included. */
const MAX_ITEM_LINES = 12;
const BOTTOM_PAD = 8;

const STATUS_WORDS: Record<MarkStatus, string> = {
  planned: "Planned",
  completed: "Completed",
  existing: "Existing",
  referred: "Referred",
  condition: "Condition",
};

type Below = { noteY: number | null; legendY: number; itemsY: number | null; items: { status: MarkStatus | null; text: string }[]; height: number };

/** The elsewhere list as drawn: at most MAX_ITEM_LINES lines, the last one "and N more" when they do not fit. */
function elsewhereLines(picture: ToothChartPicture): { status: MarkStatus | null; text: string }[] {
  const all = picture.elsewhere;
  if (all.length <= MAX_ITEM_LINES) return all;
  const shown = all.slice(0, MAX_ITEM_LINES - 1);
  return [...shown, { status: null, text: `and ${all.length - shown.length} more` }];
}

function belowChart(picture: ToothChartPicture): Below {
  let y = chartFrame(picture.primary_row).bottom + BELOW_GAP;
  const noteY = picture.note === null ? null : y;
  if (picture.note !== null) y += NOTE_LINE;
  const legendY = y;
  y += LEGEND_LINE;
  const items = elsewhereLines(picture);
  const itemsY = items.length === 0 ? null : y;
  if (items.length > 0) y += ITEM_LINE * (items.length + 1); // + the heading
  return { noteY, legendY, itemsY, items, height: Math.ceil(y + BOTTOM_PAD) };
}

/** The picture's size in px (its viewBox is the same): taller with the primary row, the note and the list under the legend. */
export function toothChartSize(picture: ToothChartPicture): { width: number; height: number } {
  return { width: CHART_WIDTH, height: belowChart(picture).height };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The picture's <desc>: what is on it, in a sentence or two. */
export function toothChartSummary(picture: ToothChartPicture): string {
  const primary = picture.teeth.filter((t) => /^[A-T]$/.test(t.tooth)).length;
  const permanent = picture.teeth.length - primary;
  const teeth = primary > 0 ? `${permanent} permanent and ${primary} primary teeth` : `${plural(permanent, "permanent tooth", "permanent teeth")}`;
  const numbering = picture.numbering === "fdi" ? "FDI numbering" : "Universal numbering";
  const shapeCount = (shape: string) => picture.teeth.filter((t) => t.shape === shape).length;
  const shapes = [
    [shapeCount("absent"), "missing"],
    [shapeCount("unerupted"), "unerupted"],
    [shapeCount("root_only"), "root only"],
  ]
    .filter(([n]) => n !== 0)
    .map(([n, word]) => `${n} ${word}`);
  const marks = picture.teeth.flatMap((t) => t.marks);
  const byStatus = MARK_STATUSES.map((s) => [marks.filter((m) => m.status === s).length, s] as const)
    .filter(([n]) => n > 0)
    .map(([n, s]) => `${n} ${s}`);
  const parts = [
    `${teeth}, ${numbering}`,
    ...(shapes.length > 0 ? [shapes.join(", ")] : []),
    byStatus.length > 0 ? `marks on teeth: ${byStatus.join(", ")}` : "nothing charted on the teeth",
    ...(picture.spans.length > 0 ? [plural(picture.spans.length, "bridge or splint", "bridges or splints")] : []),
    ...(picture.elsewhere.length > 0 ? [`${plural(picture.elsewhere.length, "item", "items")} not on a single tooth`] : []),
  ];
  return `${parts.join("; ")}.${picture.note === null ? "" : ` ${picture.note}`}`;
}

/** The runs of consecutive teeth of `span` in each row (two or more teeth each); teeth not on the chart are left out. */
function spanRuns(span: ChartSpan, primaryRow: boolean): ToothLayout[][] {
  const placed = span.teeth.map((tooth) => toothLayout(tooth, primaryRow)).filter((t): t is ToothLayout => t !== null);
  const rows = [...new Set(placed.map((t) => t.row))];
  const runs: ToothLayout[][] = [];
  for (const row of rows) {
    const inRow = placed.filter((t) => t.row === row).sort((a, b) => a.index - b.index);
    let run: ToothLayout[] = [];
    for (const t of inRow) {
      const last = run[run.length - 1];
      if (last && t.index === last.index) continue;
      if (last && t.index !== last.index + 1) {
        runs.push(run);
        run = [];
      }
      run.push(t);
    }
    runs.push(run);
  }
  return runs.filter((run) => run.length >= 2);
}

/** A bar across the crowns' middles from the first tooth to the last; drawn under the teeth, it shows in the gaps between crowns. */
function spanSvg(span: ChartSpan, picture: ToothChartPicture, labels: Map<string, string>): string {
  const colour = MARK_COLORS[span.status];
  const bars = spanRuns(span, picture.primary_row).map((run) => {
    const [first, last] = [run[0]!, run[run.length - 1]!];
    const bar = spanBarHeight(first);
    return tag("rect", {
      x: first.crown.x + first.crown.size / 2,
      y: first.crown.y + (first.crown.size - bar) / 2,
      width: last.crown.x - first.crown.x,
      height: bar,
      fill: colour,
    });
  });
  const teeth = span.teeth.map((t) => labels.get(t) ?? t);
  const desc = `${span.text.trim() === "" ? "Span" : span.text.trim().replace(/[.]$/, "")}: teeth ${teeth.join(", ")}.`;
  const name = `${span.teeth[0] ?? ""}-${span.teeth[span.teeth.length - 1] ?? ""}`;
  return tag("g", { "data-span": name, "data-teeth": span.teeth.join(" "), "data-status": span.status }, tag("desc", {}, escapeXml(desc)) + bars.join(""));
}

/** The midlines (between 8 and 9, and between the arches) and which side is the patient's right. */
function guidesSvg(primaryRow: boolean): string {
  const f = chartFrame(primaryRow);
  const dashed = { "stroke-dasharray": "4 4", "stroke-linecap": "butt" };
  const words = (x: number, word: string) => textTag({ x, y: f.occlusalY + 4, "font-size": 11, "text-anchor": "middle", fill: CHART_INK.guideText }, word);
  return tag(
    "g",
    { "data-part": "guides" },
    line({ x: f.midX, y: f.top }, { x: f.midX, y: f.bottom }, CHART_INK.guide, 1, dashed) +
      line({ x: SIDE_PAD, y: f.occlusalY }, { x: CHART_WIDTH - SIDE_PAD, y: f.occlusalY }, CHART_INK.guide, 1, dashed) +
      words(SIDE_PAD / 2, "Right") +
      words(CHART_WIDTH - SIDE_PAD / 2, "Left"),
  );
}

/** Text that may be cut to fit; the full text stays readable in a <title>. */
function fittedText(attrs: Record<string, string | number>, text: string, max: number): string {
  const shown = truncate(text, max);
  return tag("text", attrs, (shown === text ? "" : tag("title", {}, escapeXml(text))) + escapeXml(shown));
}

function belowSvg(picture: ToothChartPicture, below: Below): string {
  const parts: string[] = [];
  if (below.noteY !== null && picture.note !== null) {
    parts.push(tag("g", { "data-part": "note" }, fittedText({ x: SIDE_PAD, y: below.noteY + 14, "font-size": 13, fill: CHART_INK.text }, picture.note, 110)));
  }
  const legend = MARK_STATUSES.map((status, i) => {
    const x = SIDE_PAD + i * 140;
    return (
      tag("rect", { x, y: below.legendY + 2, width: 14, height: 14, fill: MARK_COLORS[status], "data-status": status }) +
      textTag({ x: x + 20, y: below.legendY + 14, "font-size": 13, fill: CHART_INK.text }, STATUS_WORDS[status])
    );
  }).join("");
  parts.push(tag("g", { "data-part": "legend" }, legend));
  const itemsY = below.itemsY;
  if (itemsY !== null) {
    const heading = textTag({ x: SIDE_PAD, y: itemsY + 13, "font-size": 12, "font-weight": "bold", fill: CHART_INK.text }, "Not on a single tooth:");
    const items = below.items.map((item, i) => {
      const y = itemsY + ITEM_LINE * (i + 1);
      const bullet =
        item.status === null ? "" : tag("circle", { cx: SIDE_PAD + 5, cy: y + 9, r: 5, fill: MARK_COLORS[item.status], "data-status": item.status });
      return bullet + fittedText({ x: SIDE_PAD + 16, y: y + 13, "font-size": 12, fill: CHART_INK.text }, item.text, 120);
    });
    parts.push(tag("g", { "data-part": "elsewhere" }, heading + items.join("")));
  }
  return parts.join("");
}

/** The tooth chart as a standalone SVG document; every tooth of `picture.teeth` that has a place on the chart is drawn, in the given order. */
export function renderToothChartSvg(picture: ToothChartPicture): string {
  const below = belowChart(picture);
  const { width, height } = { width: CHART_WIDTH, height: below.height };
  const labels = new Map(picture.teeth.map((t) => [t.tooth, t.label]));
  const teeth = picture.teeth.map((tooth) => {
    const at = toothLayout(tooth.tooth, picture.primary_row);
    return at === null ? "" : toothSvg(tooth, at);
  });
  const body =
    tag("title", { id: "chart-title" }, escapeXml(picture.title)) +
    tag("desc", { id: "chart-desc" }, escapeXml(toothChartSummary(picture))) +
    tag("rect", { width, height, fill: "#ffffff" }) +
    guidesSvg(picture.primary_row) +
    picture.spans.map((span) => spanSvg(span, picture, labels)).join("") +
    teeth.join("") +
    belowSvg(picture, below);
  return tag(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-labelledby": "chart-title chart-desc",
      "font-family": FONT_FAMILY,
    },
    body,
  );
}
