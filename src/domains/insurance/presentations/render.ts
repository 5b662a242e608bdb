import { PDFDocument, type RGB, rgb, StandardFonts } from "pdf-lib";
import { dollars, Layout, longDate } from "@/platform/pdf/layout";

// The treatment-plan presentation as a PDF: what the patient reads and signs.
// US letter: the practice, the patient and the plan, the tooth chart of the
// plan's procedures, the procedures with their fees, what each insurance is
// estimated to pay and the patient's portion, the estimate's warnings, and a
// signature block. Pure: it gets the figures (integer cents) and returns the
// bytes and the text it laid out (stored for document search). The same data
// gives the same bytes: the PDF's dates derive from `prepared_on`.

export type PresentationLine = {
  position: number;
  code: string;
  description: string;
  /** The tooth as the practice numbers teeth ("3", "16") or an area ("UR", "Upper arch"); null for the mouth. */
  tooth: string | null;
  surfaces: string | null;
  fee_cents: number;
  /** Per insurance column (the order of PresentationData.insurance); null: no estimate from that plan. */
  insurance_cents: (number | null)[];
  patient_cents: number;
};
export type PresentationGroup = { title: string | null; lines: PresentationLine[]; fee_cents: number; insurance_cents: number[]; patient_cents: number };
export type PresentationData = {
  practice: { name: string; address: string[]; contact: string[] };
  patient: { name: string; date_of_birth: string | null; chart_number: string | null };
  plan: { name: string; note: string | null };
  /** YYYY-MM-DD */
  prepared_on: string;
  /** The tooth chart of the plan's procedures (PNG, about 2:1 wide), drawn across the text width. */
  chart_png: Uint8Array;
  /** The amount columns between Fee and Patient: each insurance ("Primary: Delta Dental"), then "Write-off" when a PPO write-off is expected; empty without insurance. */
  insurance: { name: string }[];
  estimate_state: "current" | "stale" | "none";
  /** In the plan's order; one group titled null when the plan has no phases. */
  groups: PresentationGroup[];
  totals: { fee_cents: number; insurance_cents: number[]; patient_cents: number };
  /** The estimate's warnings, e.g. "D1110 on 2026-12-01: frequency limit reached (2 per 12 months)". */
  notes: string[];
  note: string | null;
  /** The patient (or guardian) named under the signature line. */
  signer_name: string;
};
/** Where the chart image was drawn: its page (1-based) and rectangle in PDF points, origin bottom left. */
export type ChartBox = { page: number; x: number; y: number; width: number; height: number };
export type RenderedPresentation = { bytes: Uint8Array; text: string; pages: number; chart_box: ChartBox | null };

export const SIGNATURE_STATEMENT =
  "I have read this treatment plan, its fees and the estimate of what my insurance may pay, and I accept it. Insurance estimates are not a guarantee of payment.";
export const STALE_WARNING = "Warning: the insurance estimates may be out of date. Please ask us to update them before relying on these amounts.";
export const NO_ESTIMATE = "No insurance estimate on this plan: the patient portion shown is the full fee.";

const GREY = rgb(0.35, 0.35, 0.35);
const WARNING = rgb(0.7, 0.1, 0.1);
const BLACK = rgb(0, 0, 0);
const CHART_MAX_HEIGHT = 300;
const ROW = 13;
const TABLE_SIZE = 8.5;
const HEADER_SIZE = 7.5;
const GAP = 5;
/** Fits $123,456.78 in bold 9 pt (the totals row). */
const MONEY_WIDTH = 50;
const INSURANCE_MAX_WIDTH = 96;
const DESCRIPTION_MIN_WIDTH = 110;
/** No estimate from that plan for the line. */
const NO_AMOUNT = "—";

/** `money`: right-aligned and never shortened (an amount cut short would read as another amount). */
type Column = { x: number; width: number; money: boolean };
type Cell = string | null;
type RowStyle = { size: number; bold?: boolean; color?: RGB };

/**
 * The table's columns: #, Code, Tooth, Surf, Description, Fee, one per
 * insurance, Patient. An insurance column is as wide as its name needs (within
 * bounds) while the description keeps a readable width.
 */
function tableColumns(l: Layout, insurance: { name: string }[]): Column[] {
  const fixed = [14, 30, 44, 28];
  const count = fixed.length + 1 + 2 + insurance.length;
  const room = l.right - l.left - (count - 1) * GAP;
  const wanted = insurance.map((i) => Math.min(INSURANCE_MAX_WIDTH, Math.max(MONEY_WIDTH, l.bold.widthOfTextAtSize(l.clean(i.name), HEADER_SIZE) + 2)));
  const spare = room - fixed.reduce((a, b) => a + b, 0) - 2 * MONEY_WIDTH - DESCRIPTION_MIN_WIDTH;
  const sum = wanted.reduce((a, b) => a + b, 0);
  const insuranceWidths = sum <= spare ? wanted : wanted.map(() => Math.max(MONEY_WIDTH, spare / insurance.length));
  const money = [MONEY_WIDTH, ...insuranceWidths, MONEY_WIDTH];
  const description = room - fixed.reduce((a, b) => a + b, 0) - money.reduce((a, b) => a + b, 0);
  const widths = [...fixed, description, ...money];
  let x = l.left;
  return widths.map((width, i) => {
    const column: Column = { x, width, money: i > fixed.length };
    x += width + GAP;
    return column;
  });
}

/** One row at the layout's current y; each cell but an amount fitted to its column (`header`: every cell). */
function drawRow(l: Layout, columns: Column[], cells: Cell[], style: RowStyle, header = false) {
  const font = style.bold ? l.bold : l.regular;
  cells.forEach((cell, i) => {
    const column = columns[i];
    if (!cell || !column) return;
    const text = column.money && !header ? cell : l.fit(cell, column.width, style.size, font);
    if (column.money) l.text(text, column.x + column.width, l.y, { ...style, align: "right" });
    else l.text(text, column.x, l.y, style);
  });
}

const moneyCells = (fee: number, insurance: (number | null)[], patient: number): Cell[] => [
  dollars(fee),
  ...insurance.map((cents) => (cents === null ? NO_AMOUNT : dollars(cents))),
  dollars(patient),
];

/** The header; a name too long for its column ("Primary: Delta Dental") takes two lines, the rest on the lower one. */
function tableHeader(l: Layout, columns: Column[], d: PresentationData) {
  const labels = ["#", "Code", "Tooth", "Surf", "Description", "Fee", ...d.insurance.map((i) => i.name), "Patient"];
  const wrapped = labels.map((label, i) => {
    const width = columns[i]?.width ?? 0;
    const all = l.wrap(label, width, HEADER_SIZE, l.bold);
    // what does not fit on two lines ends the second with an ellipsis
    return all.length <= 2 ? all : [all[0]!, l.fit(all.slice(1).join(" "), width, HEADER_SIZE, l.bold)];
  });
  const style = { size: HEADER_SIZE, bold: true, color: GREY };
  if (wrapped.some((w) => w.length > 1)) {
    drawRow(
      l,
      columns,
      wrapped.map((w) => (w.length > 1 ? w[0]! : null)),
      style,
      true,
    );
    l.y -= HEADER_SIZE + 2;
  }
  drawRow(
    l,
    columns,
    wrapped.map((w) => w.at(-1) ?? null),
    style,
    true,
  );
  l.rule(l.y - 4);
}

/** Whose plan a page after the first continues. */
function continued(l: Layout, d: PresentationData) {
  l.text(l.fit(`${d.patient.name}: ${d.plan.name} (continued)`, l.right - l.left, 9), l.left, l.y - 8, { size: 9, color: GREY });
  l.y -= 26;
}

/** Moves down one table row; on a new page, repeats the table's header first. */
function tableRow(l: Layout, columns: Column[], d: PresentationData, height = ROW, room = 0) {
  if (l.y - height - room >= l.margin) {
    l.y -= height;
    return;
  }
  l.newPage();
  tableHeader(l, columns, d);
  l.y -= ROW + 2;
}

/** Wrapped lines, moving to a new page as needed; `bullet` hangs before the first line. */
function paragraph(l: Layout, text: string, style: RowStyle & { bullet?: boolean; gap?: number }) {
  const indent = style.bullet ? 12 : 0;
  const lineHeight = style.size + 3.5;
  l.wrap(text, l.right - l.left - indent, style.size, style.bold ? l.bold : l.regular).forEach((line, i) => {
    l.down(i === 0 ? (style.gap ?? lineHeight) : lineHeight);
    if (style.bullet && i === 0) l.text("•", l.left + 2, l.y, style);
    l.text(line, l.left + indent, l.y, style);
  });
}

/** The practice on the left, the document's name and date on the right. */
function heading(l: Layout, d: PresentationData) {
  let y = l.y;
  l.text(l.fit(d.practice.name, l.right - l.left - 170, 15, l.bold), l.left, y - 4, { size: 15, bold: true });
  l.text("TREATMENT PLAN", l.right, y - 4, { size: 16, bold: true, align: "right" });
  y -= 20;
  const left = [...d.practice.address, ...d.practice.contact];
  const info = [`Prepared ${longDate(d.prepared_on)}`];
  for (let i = 0; i < Math.max(left.length, info.length); i++) {
    if (left[i]) l.text(l.fit(left[i]!, l.right - l.left - 170, 9), l.left, y, { size: 9 });
    if (info[i]) l.text(info[i]!, l.right, y, { size: 9, align: "right" });
    y -= 12;
  }
  l.y = y - 2;
  l.rule(l.y);
}

function patientAndPlan(l: Layout, d: PresentationData) {
  l.down(20);
  l.text(l.fit(d.patient.name, l.right - l.left, 12, l.bold), l.left, l.y, { size: 12, bold: true });
  const facts = [
    d.patient.date_of_birth ? `Date of birth: ${longDate(d.patient.date_of_birth)}` : null,
    d.patient.chart_number ? `Chart no.: ${d.patient.chart_number}` : null,
  ].filter((fact): fact is string => fact !== null);
  if (facts.length) {
    l.down(13);
    facts.forEach((fact, i) => l.text(l.fit(fact, 190, 9), l.left + i * 200, l.y, { size: 9 }));
  }
  l.down(20);
  l.text(l.fit(`Plan: ${d.plan.name}`, l.right - l.left, 11, l.bold), l.left, l.y, { size: 11, bold: true });
  if (d.plan.note) paragraph(l, d.plan.note, { size: 9, color: GREY });
}

/** The tooth chart across the text width, keeping its aspect ratio (a tall image is capped in height and centred). */
async function chart(l: Layout, doc: PDFDocument, png: Uint8Array): Promise<ChartBox | null> {
  if (!png.length) return null;
  const image = await doc.embedPng(png);
  const textWidth = l.right - l.left;
  const scale = Math.min(textWidth / image.width, CHART_MAX_HEIGHT / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  l.down(12 + height);
  const box = { x: l.left + (textWidth - width) / 2, y: l.y, width, height };
  l.page.drawImage(image, box);
  return { page: l.pages.length, ...box };
}

function procedures(l: Layout, d: PresentationData) {
  const columns = tableColumns(l, d.insurance);
  l.down(26, 3 * ROW);
  tableHeader(l, columns, d);
  l.y -= 2;
  for (const group of d.groups) {
    if (group.title !== null) {
      tableRow(l, columns, d, ROW + 5, ROW);
      l.text(l.fit(group.title, l.right - l.left, 9.5, l.bold), l.left, l.y, { size: 9.5, bold: true });
    }
    for (const line of group.lines) {
      tableRow(l, columns, d);
      const cells = [String(line.position), line.code, line.tooth, line.surfaces, line.description];
      drawRow(l, columns, [...cells, ...moneyCells(line.fee_cents, line.insurance_cents, line.patient_cents)], { size: TABLE_SIZE });
    }
    if (group.title !== null) {
      tableRow(l, columns, d, ROW + 2);
      l.rule(l.y + 9, columns[5]!.x);
      const label = columns[1]!.x;
      l.text(l.fit(`Subtotal: ${group.title}`, columns[5]!.x - GAP - label, TABLE_SIZE), label, l.y, { size: TABLE_SIZE });
      drawRow(l, columns, [null, null, null, null, null, ...moneyCells(group.fee_cents, group.insurance_cents, group.patient_cents)], { size: TABLE_SIZE });
    }
  }
  tableRow(l, columns, d, ROW + 6);
  l.rule(l.y + 11, l.left, l.right, undefined, BLACK, 0.75);
  const totals = moneyCells(d.totals.fee_cents, d.totals.insurance_cents, d.totals.patient_cents);
  drawRow(l, columns, [null, "Total", null, null, null, ...totals], { size: 9, bold: true });
}

function estimateAndNotes(l: Layout, d: PresentationData) {
  if (d.estimate_state === "stale") paragraph(l, STALE_WARNING, { size: 10, bold: true, color: WARNING, gap: 24 });
  if (d.estimate_state === "none") paragraph(l, NO_ESTIMATE, { size: 10, bold: true, gap: 24 });
  if (d.notes.length) {
    l.down(22, 2 * ROW);
    l.text("Insurance notes", l.left, l.y, { size: 10.5, bold: true });
    for (const note of d.notes) paragraph(l, note, { size: 9, bullet: true });
  }
  if (d.note) paragraph(l, d.note, { size: 10, gap: 22 });
}

/** The acceptance, the signature line with who signs under it, and the date line; kept on one page. */
function signature(l: Layout, d: PresentationData) {
  const size = 10;
  const sentence = l.wrap(SIGNATURE_STATEMENT, l.right - l.left, size);
  const needed = 28 + sentence.length * (size + 3.5) + 44 + 12;
  if (l.y - needed < l.margin) l.newPage();
  l.y -= 28 - (size + 3.5);
  for (const line of sentence) {
    l.y -= size + 3.5;
    l.text(line, l.left, l.y, { size });
  }
  l.y -= 44;
  const signatureEnd = l.left + 300;
  const dateStart = l.right - 150;
  l.rule(l.y, l.left, signatureEnd, undefined, BLACK, 0.75);
  l.rule(l.y, dateStart, l.right, undefined, BLACK, 0.75);
  l.y -= 12;
  l.text(l.fit(d.signer_name, signatureEnd - l.left, 9), l.left, l.y, { size: 9 });
  l.text("Date", dateStart, l.y, { size: 9 });
}

/** The presentation's PDF, the text laid out in it, and where its chart was drawn. */
export async function renderPresentationPdf(d: PresentationData): Promise<RenderedPresentation> {
  const doc = await PDFDocument.create();
  const preparedAt = new Date(`${d.prepared_on}T00:00:00Z`);
  doc.setTitle(`Treatment plan of ${longDate(d.prepared_on)}`);
  doc.setAuthor(d.practice.name.replace(/[^\x20-\x7e]/g, "?"));
  doc.setProducer("Cusp");
  doc.setCreator("Cusp");
  doc.setCreationDate(preparedAt);
  doc.setModificationDate(preparedAt);
  const l = new Layout(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  l.pageHeader = (layout) => continued(layout, d);
  heading(l, d);
  patientAndPlan(l, d);
  const chartBox = await chart(l, doc, d.chart_png);
  procedures(l, d);
  estimateAndNotes(l, d);
  signature(l, d);
  l.pageNumbers({ color: GREY });
  // without object streams, as the statement: faster to write, a few kilobytes more
  const bytes = await doc.save({ useObjectStreams: false });
  return { bytes, text: l.lines.join("\n"), pages: l.pages.length, chart_box: chartBox };
}
