import { PDFDocument, rgb, StandardFonts } from "pdf-lib";
import { dollars, Layout, longDate } from "@/platform/pdf/layout";

// The statement as a PDF (docs/account/statements.md, "The PDF"): US letter,
// the practice and the guarantor's address where a window envelope shows
// them, each family member's entries of the period, the aging of the family's
// balance, the amount due and its due date, and a remittance stub to detach.
// Pure: it gets the figures (integer cents) and returns the bytes and the text
// it laid out (stored for document search).

export type StatementEntryLine = { date: string; description: string; charge_cents: number | null; credit_cents: number | null };

export type StatementData = {
  statement_number: string;
  statement_date: string;
  date_from: string;
  date_to: string;
  due_date: string;
  note: string | null;
  practice: { name: string; address: string[]; contact: string[] };
  guarantor: { name: string; address: string[] };
  members: { name: string; entries: StatementEntryLine[] }[];
  balance_forward_cents: number;
  balance_at_end_cents: number;
  aging: { b0_30: number; b31_60: number; b61_90: number; over_90: number; total: number };
  amount_due_cents: number;
};

export type RenderedStatement = { bytes: Uint8Array; text: string; pages: number };

const PAGE = { width: 612, height: 792 };
const MARGIN = 48;
const STUB_HEIGHT = 170;
const GREY = rgb(0.35, 0.35, 0.35);

// send.ts and the statement tests read these from here
export { dollars, longDate };

const COL = { date: MARGIN, description: MARGIN + 80, charge: PAGE.width - MARGIN - 90, credit: PAGE.width - MARGIN };

function entriesHeader(l: Layout) {
  l.text("Date", COL.date, l.y, { size: 9, bold: true, color: GREY });
  l.text("Description", COL.description, l.y, { size: 9, bold: true, color: GREY });
  l.text("Charges", COL.charge, l.y, { size: 9, bold: true, color: GREY, align: "right" });
  l.text("Credits", COL.credit, l.y, { size: 9, bold: true, color: GREY, align: "right" });
  l.rule(l.y - 4);
}

/** The practice and the statement's heading, on the first page. */
function heading(l: Layout, d: StatementData) {
  const right = PAGE.width - MARGIN;
  let y = l.y;
  l.text(d.practice.name, MARGIN, y - 4, { size: 15, bold: true });
  l.text("STATEMENT", right, y - 4, { size: 16, bold: true, align: "right" });
  y -= 20;
  const left = [...d.practice.address, ...d.practice.contact];
  const info = [
    `Statement date: ${longDate(d.statement_date)}`,
    `Statement no.: ${d.statement_number}`,
    `Period: ${longDate(d.date_from)} to ${longDate(d.date_to)}`,
  ];
  for (let i = 0; i < Math.max(left.length, info.length); i++) {
    if (left[i]) l.text(left[i]!, MARGIN, y, { size: 9 });
    if (info[i]) l.text(info[i]!, right, y, { size: 9, align: "right" });
    y -= 12;
  }
  l.y = y - 8;
}

function addressBlock(l: Layout, d: StatementData) {
  // where a #10 window envelope shows the address
  l.y = Math.min(l.y, PAGE.height - 150);
  l.text(d.guarantor.name, MARGIN + 24, l.y, { size: 11, bold: true });
  for (const line of d.guarantor.address) {
    l.y -= 13;
    l.text(line, MARGIN + 24, l.y, { size: 10 });
  }
  l.y -= 30;
}

function entries(l: Layout, d: StatementData) {
  l.text("Account activity", MARGIN, l.y, { size: 12, bold: true });
  l.down(18);
  l.text(`Balance forward on ${longDate(d.date_from)}`, COL.description, l.y, { size: 10 });
  l.text(dollars(d.balance_forward_cents), COL.credit, l.y, { size: 10, align: "right" });
  for (const m of d.members) {
    l.down(22, 40);
    l.text(m.name, MARGIN, l.y, { size: 10.5, bold: true });
    l.down(14);
    entriesHeader(l);
    if (!m.entries.length) {
      l.down(14);
      l.text("No activity in this period", COL.description, l.y, { size: 9, color: GREY });
    }
    for (const e of m.entries) {
      l.down(13);
      if (l.y > PAGE.height - MARGIN - 20) {
        // a new page: repeat whose entries these are
        l.text(`${m.name} (continued)`, MARGIN, l.y, { size: 10, bold: true });
        l.down(14);
        entriesHeader(l);
        l.down(13);
      }
      l.text(longDate(e.date), COL.date, l.y, { size: 9 });
      l.text(l.fit(e.description, COL.charge - 70 - COL.description, 9), COL.description, l.y, { size: 9 });
      if (e.charge_cents !== null) l.text(dollars(e.charge_cents), COL.charge, l.y, { size: 9, align: "right" });
      if (e.credit_cents !== null) l.text(dollars(e.credit_cents), COL.credit, l.y, { size: 9, align: "right" });
    }
  }
  l.down(20);
  l.rule(l.y + 10);
  l.text(`Balance on ${longDate(d.date_to)}`, COL.description, l.y, { size: 10, bold: true });
  l.text(dollars(d.balance_at_end_cents), COL.credit, l.y, { size: 10, bold: true, align: "right" });
}

function summary(l: Layout, d: StatementData) {
  l.down(34, 110);
  l.text("Aging of the family balance", MARGIN, l.y, { size: 12, bold: true });
  const cols = [
    ["0-30 days", d.aging.b0_30],
    ["31-60 days", d.aging.b31_60],
    ["61-90 days", d.aging.b61_90],
    ["Over 90 days", d.aging.over_90],
    ["Total balance", d.aging.total],
  ] as const;
  const width = (PAGE.width - 2 * MARGIN) / cols.length;
  l.down(16);
  cols.forEach(([label], i) => l.text(label, MARGIN + width * (i + 1) - 8, l.y, { size: 9, bold: true, color: GREY, align: "right" }));
  l.down(14);
  cols.forEach(([, cents], i) => l.text(dollars(cents), MARGIN + width * (i + 1) - 8, l.y, { size: 10, align: "right" }));
  l.down(30);
  l.text(`Amount due: ${dollars(d.amount_due_cents)}`, MARGIN, l.y, { size: 14, bold: true });
  l.text(`Due date: ${longDate(d.due_date)}`, PAGE.width - MARGIN, l.y, { size: 12, bold: true, align: "right" });
  if (d.aging.total < 0) {
    l.down(14);
    l.text(`Your account has a credit of ${dollars(-d.aging.total)}.`, MARGIN, l.y, { size: 9 });
  }
  if (d.note) {
    l.down(22);
    l.text(l.fit(d.note, PAGE.width - 2 * MARGIN, 10), MARGIN, l.y, { size: 10 });
  }
}

/** The remittance stub at the foot of the last page, below a dashed line to cut along. */
function stub(l: Layout, d: StatementData) {
  if (l.y - 24 < MARGIN + STUB_HEIGHT) l.newPage();
  const top = MARGIN + STUB_HEIGHT;
  const right = PAGE.width - MARGIN;
  l.rule(top, MARGIN, right, [4, 3]);
  let y = top - 14;
  l.text("Please detach and return this portion with your payment.", MARGIN, y, { size: 8, color: GREY });
  y -= 20;
  l.text("REMITTANCE", MARGIN, y, { size: 11, bold: true });
  l.text(`Amount due: ${dollars(d.amount_due_cents)}`, right, y, { size: 11, bold: true, align: "right" });
  y -= 16;
  const left = [`Remit to: ${d.practice.name}`, ...d.practice.address];
  const info = [
    `Account: ${d.guarantor.name}`,
    `Statement no.: ${d.statement_number}`,
    `Statement date: ${longDate(d.statement_date)}`,
    `Due date: ${longDate(d.due_date)}`,
  ];
  for (let i = 0; i < Math.max(left.length, info.length); i++) {
    if (left[i]) l.text(left[i]!, MARGIN, y, { size: 9 });
    if (info[i]) l.text(info[i]!, right, y, { size: 9, align: "right" });
    y -= 12;
  }
  y -= 10;
  l.text("Amount enclosed: $____________", right, y, { size: 10, bold: true, align: "right" });
  l.y = MARGIN;
}

/** The statement's PDF and the text laid out in it. */
export async function renderStatementPdf(d: StatementData, createdAt = new Date()): Promise<RenderedStatement> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Statement ${d.statement_number}`);
  doc.setSubject(`Statement of ${longDate(d.statement_date)}`);
  doc.setAuthor(d.practice.name.replace(/[^\x20-\x7e]/g, "?"));
  doc.setProducer("Cusp");
  doc.setCreator("Cusp");
  doc.setCreationDate(createdAt);
  doc.setModificationDate(createdAt);
  const l = new Layout(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  heading(l, d);
  addressBlock(l, d);
  entries(l, d);
  summary(l, d);
  stub(l, d);
  // the page numbers are not part of a statement's search text
  l.pageNumbers({ color: GREY, inText: false });
  const total = l.pages.length;
  // without object streams: three times faster to write, for a file of a few kilobytes more
  const bytes = await doc.save({ useObjectStreams: false });
  return { bytes, text: l.lines.join("\n"), pages: total };
}
