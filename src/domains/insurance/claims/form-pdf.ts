import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import { encodable } from "@/platform/pdf/standard-fonts";

// The printable claim as a PDF: US letter, laid out with the numbered fields
// (1-58) of the ADA Dental Claim Form (2019/2024) in boxes and labels of our
// own drawing, never the ADA's artwork. Ten service lines a page, the whole
// form repeated on each further page (a payer reads each sheet on its own);
// the claim's totals (31a, 32) only on the last page. Pure: it gets the
// figures (integer cents, dates as YYYY-MM-DD) and returns the bytes and the
// text it laid out (for search and tests).

export type ClaimFormData = {
  claim_number: string;
  /** Field 1: "preauth" is a Request for Predetermination/Preauthorization, the rest a Statement of Actual Services. */
  claim_type: "primary" | "secondary" | "preauth" | "other";
  /** Field 2. */
  prior_authorization_number: string | null;
  /** Field 3. */
  payer: { name: string; address: string[] };
  /** Fields 4-11. */
  other_coverage: { name: string; member_id: string | null; subscriber_name: string | null; relationship: string | null } | null;
  /** Fields 12-17. */
  subscriber: {
    name: string;
    address: string[];
    birthdate: string | null;
    gender: string | null;
    member_id: string | null;
    group_number: string | null;
    employer: string | null;
  };
  /** Fields 18-23. */
  patient: {
    name: string;
    address: string[];
    birthdate: string | null;
    gender: string | null;
    relationship: "self" | "spouse" | "dependent" | "other";
    account_id: string;
  };
  /** Fields 24-31, ten a page. */
  lines: {
    date_service: string;
    area: string | null;
    tooth_system: "JP";
    tooth_number: string | null;
    surfaces: string | null;
    procedure_code: string;
    description: string;
    fee_cents: number;
  }[];
  /** Field 33: teeth marked with an X on the chart. */
  missing_teeth: string[];
  /** Field 35. */
  remarks: string | null;
  /** Field 32. */
  total_fee_cents: number;
  /** Field 31a. */
  other_fees_cents: number;
  /** Field 38. */
  place_of_service: string;
  /** Field 39: the number of enclosures. */
  attachments: number;
  /** Fields 48-52a. */
  billing_provider: { name: string; address: string[]; npi: string | null; license: string | null; tax_id: string | null; phone: string | null };
  /** Fields 53-58. */
  treating_provider: { name: string; npi: string | null; license: string | null; address: string[]; taxonomy: string | null } | null;
  /** YYYY-MM-DD. */
  date_prepared: string;
};

export type RenderedClaimForm = { bytes: Uint8Array; text: string; pages: number };

const PAGE = { width: 612, height: 792 };
const MARGIN = 24;
const LEFT = MARGIN;
const RIGHT = PAGE.width - MARGIN;
const MID = PAGE.width / 2;
const LINES_PER_PAGE = 10;
const SIZE = { label: 5.6, value: 8.5, heading: 6.5, check: 6.8 };
const VALUE_LEADING = 9.5;
const BLACK = rgb(0, 0, 0);
const GREY = rgb(0.4, 0.4, 0.4);
const BORDER = rgb(0.55, 0.55, 0.55);
const BAND = rgb(0.9, 0.9, 0.9);
const CLAIMED = rgb(0.78, 0.88, 1);

/** `2025-03-05` as `03/05/2025`, as the ADA form asks; anything else as given. */
const formDate = (date: string | null) => {
  if (!date) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  return m ? `${m[2]}/${m[3]}/${m[1]}` : date;
};

/** Cents as `1,300.00` (the form's fee columns carry no currency sign). */
const money = (cents: number) => {
  const abs = Math.abs(Math.round(cents));
  const whole = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${cents < 0 ? "-" : ""}${whole}.${String(abs % 100).padStart(2, "0")}`;
};

/** Permanent teeth (1-32) named in a tooth field: `3`, `2,3`, `2-4`, `2 3`. */
function permanentTeeth(value: string | null): number[] {
  const teeth: number[] = [];
  for (const token of (value ?? "").split(/[\s,;/]+/)) {
    const range = /^(\d{1,2})-(\d{1,2})$/.exec(token);
    const [from, to] = range ? [Number(range[1]), Number(range[2])] : [Number(token), Number(token)];
    if (!token || !Number.isInteger(from) || !Number.isInteger(to)) continue;
    for (let t = Math.min(from, to); t <= Math.max(from, to); t++) if (t >= 1 && t <= 32) teeth.push(t);
  }
  return teeth;
}

/** What the standard fonts can encode (WinAnsi), the same for every form. */
let winAnsi: Set<number> | null = null;

type TextOpts = { size?: number; bold?: boolean; align?: "left" | "right" | "center"; color?: ReturnType<typeof rgb> };

/** Draws on the current page; keeps every string drawn, in drawing (reading) order, for the form's text. */
class Layout {
  page!: PDFPage;
  readonly pages: PDFPage[] = [];
  readonly lines: string[] = [];
  private readonly charset: Set<number>;

  constructor(
    private readonly doc: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
  ) {
    this.charset = winAnsi ??= new Set(regular.getCharacterSet());
  }

  newPage() {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
  }

  /** What WinAnsi cannot encode becomes its unaccented letter, else "?", so drawing never throws. */
  clean(text: string): string {
    return encodable(text, this.charset);
  }

  width(text: string, size: number, bold = false) {
    return (bold ? this.bold : this.regular).widthOfTextAtSize(text, size);
  }

  /** Shortened with "..." to fit `width` points (the longest prefix that fits, by bisection). */
  fit(text: string, width: number, size: number, bold = false): string {
    const t = this.clean(text).trim();
    if (this.width(t, size, bold) <= width) return t;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (this.width(`${t.slice(0, mid).trimEnd()}...`, size, bold) <= width) lo = mid;
      else hi = mid - 1;
    }
    return `${t.slice(0, lo).trimEnd()}...`;
  }

  /** Word-wrapped to `width`, at most `max` lines, the last shortened with "..." when text is left over. */
  wrap(text: string, width: number, size: number, max: number, bold = false): string[] {
    const words = this.clean(text).split(/\s+/).filter(Boolean);
    const out: string[] = [];
    let i = 0;
    while (i < words.length && out.length < max) {
      let line = words[i++]!;
      while (i < words.length && this.width(`${line} ${words[i]}`, size, bold) <= width) line += ` ${words[i++]}`;
      out.push(line);
    }
    if (i < words.length || out.some((l) => this.width(l, size, bold) > width)) {
      const last = out.length - 1;
      out[last] = i < words.length ? this.fit(`${out[last]} ${words.slice(i).join(" ")}`, width, size, bold) : this.fit(out[last]!, width, size, bold);
      for (let j = 0; j < last; j++) out[j] = this.fit(out[j]!, width, size, bold);
    }
    return out;
  }

  /** Draws at (x, y); `align: "right"` ends the text at x, `"center"` centres it on x. */
  text(text: string, x: number, y: number, opts: TextOpts = {}) {
    const size = opts.size ?? SIZE.value;
    const t = this.clean(text);
    if (!t.trim()) return;
    const w = this.width(t, size, opts.bold);
    const left = opts.align === "right" ? x - w : opts.align === "center" ? x - w / 2 : x;
    this.page.drawText(t, { x: left, y, size, font: opts.bold ? this.bold : this.regular, color: opts.color ?? BLACK });
    this.lines.push(t);
  }

  /** A rectangle by its top-left corner. */
  rect(x: number, top: number, w: number, h: number, opts: { fill?: ReturnType<typeof rgb>; border?: boolean } = {}) {
    this.page.drawRectangle({
      x,
      y: top - h,
      width: w,
      height: h,
      color: opts.fill,
      borderColor: opts.border === false ? undefined : BORDER,
      borderWidth: opts.border === false ? 0 : 0.5,
    });
  }

  line(x1: number, y1: number, x2: number, y2: number, thickness = 0.5, color = BORDER) {
    this.page.drawLine({ start: { x: x1, y: y1 }, end: { x: x2, y: y2 }, thickness, color });
  }
}

type Value = string | null | undefined | (string | null | undefined)[];

/** A section's grey band with its heading; returns the top of what follows. */
function section(l: Layout, x: number, top: number, w: number, title: string): number {
  l.rect(x, top, w, 10, { fill: BAND });
  l.text(l.fit(title, w - 6, SIZE.heading, true), x + 3, top - 7.3, { size: SIZE.heading, bold: true });
  return top - 10;
}

/** One numbered box: its number and label small and grey, the value below it (one line an entry), shortened to fit. */
function box(l: Layout, x: number, top: number, w: number, h: number, label: string, value: Value, opts: { align?: "left" | "right"; bold?: boolean } = {}) {
  l.rect(x, top, w, h);
  l.text(l.fit(label, w - 4, SIZE.label), x + 2, top - 6.3, { size: SIZE.label, color: GREY });
  const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => !!v?.trim());
  values.forEach((v, i) => {
    const y = top - 15.3 - i * VALUE_LEADING;
    if (y < top - h + 1.5) return; // no room left in the box
    const size = SIZE.value;
    l.text(l.fit(v, w - 6, size, opts.bold), opts.align === "right" ? x + w - 3 : x + 3, y, { size, bold: opts.bold, align: opts.align });
  });
}

/** Boxes side by side across `width`, each taking its share (weights). */
function row(l: Layout, x: number, top: number, width: number, h: number, fields: [weight: number, label: string, value: Value][]) {
  const total = fields.reduce((s, [w]) => s + w, 0);
  let at = x;
  for (const [weight, label, value] of fields) {
    const w = (width * weight) / total;
    box(l, at, top, w, h, label, value);
    at += w;
  }
}

/** Checkboxes in a row from (x, y); a checked one shows an "X". Returns the x after the last. */
function checks(l: Layout, x: number, y: number, options: [label: string, checked: boolean][]): number {
  let at = x;
  for (const [label, checked] of options) {
    l.rect(at, y + 6, 6, 6);
    if (checked) l.text("X", at + 3, y + 1.2, { size: 5.8, bold: true, align: "center" });
    l.text(label, at + 8.5, y + 0.8, { size: SIZE.check });
    at += 8.5 + l.width(l.clean(label), SIZE.check) + 9;
  }
  return at;
}

/** A box whose value is a row of checkboxes. */
function checkBox(l: Layout, x: number, top: number, w: number, h: number, label: string, options: [string, boolean][]) {
  l.rect(x, top, w, h);
  l.text(l.fit(label, w - 4, SIZE.label), x + 2, top - 6.3, { size: SIZE.label, color: GREY });
  checks(l, x + 3, top - 15.5, options);
}

/** The patient's relationship as the form's four boxes (self, spouse, dependent child, other). */
function relationshipChecks(relationship: string | null): [string, boolean][] {
  const r = (relationship ?? "").trim().toLowerCase();
  const kind = !r ? null : r === "self" ? "self" : r === "spouse" ? "spouse" : /^(dependent|child)/.test(r) ? "dependent" : "other";
  return [
    ["Self", kind === "self"],
    ["Spouse", kind === "spouse"],
    ["Dependent Child", kind === "dependent"],
    ["Other", kind === "other"],
  ];
}

const nameAndAddress = (name: string | null | undefined, address: string[] | undefined) => [name, ...(address ?? [])];

function title(l: Layout, d: ClaimFormData, top: number): number {
  const heading = d.claim_type === "preauth" ? "Request for Predetermination/Preauthorization" : "Dental Claim: Statement of Actual Services";
  l.text(heading, LEFT, top - 12, { size: 13, bold: true });
  const kind = { primary: "Primary claim", secondary: "Secondary claim", preauth: "Predetermination", other: "Claim" }[d.claim_type];
  l.text(l.fit(`Claim ${d.claim_number}`, 180, 10, true), RIGHT, top - 9, { size: 10, bold: true, align: "right" });
  l.text(`${kind} · prepared ${formDate(d.date_prepared)}`, RIGHT, top - 19, { size: 7, color: GREY, align: "right" });
  return top - 26;
}

/** Fields 1-11, the left column at the top. */
function headerColumn(l: Layout, d: ClaimFormData, top: number): number {
  const w = MID - LEFT - 3;
  let y = section(l, LEFT, top, w, "HEADER INFORMATION");
  l.rect(LEFT, y, w, 32);
  l.text("1. Type of Transaction (Mark all applicable boxes)", LEFT + 2, y - 6.3, { size: SIZE.label, color: GREY });
  const preauth = d.claim_type === "preauth";
  checks(l, LEFT + 3, y - 16, [
    ["Statement of Actual Services", !preauth],
    ["EPSDT / Title XIX", false],
  ]);
  checks(l, LEFT + 3, y - 27, [["Request for Predetermination/Preauthorization", preauth]]);
  y -= 32;
  box(l, LEFT, y, w, 20, "2. Predetermination/Preauthorization Number", d.prior_authorization_number);
  y -= 20;
  y = section(l, LEFT, y, w, "DENTAL BENEFIT PLAN INFORMATION");
  box(l, LEFT, y, w, 48, "3. Company/Plan Name, Address, City, State, Zip Code", nameAndAddress(d.payer.name, d.payer.address));
  y -= 48;
  const o = d.other_coverage;
  y = section(l, LEFT, y, w, "OTHER COVERAGE (mark applicable box and complete 5-11; if none, leave blank)");
  checkBox(l, LEFT, y, w, 20, "4. Dental? Medical? (If both, complete 5-11 for dental only.)", [
    ["Dental", !!o],
    ["Medical", false],
  ]);
  y -= 20;
  box(l, LEFT, y, w, 20, "5. Name of Policyholder/Subscriber in #4 (Last, First, Middle Initial, Suffix)", o?.subscriber_name);
  y -= 20;
  row(l, LEFT, y, w, 20, [
    [1.1, "6. Date of Birth (MM/DD/CCYY)", null],
    [0.5, "7. Gender", null],
    [1.6, "8. Policyholder/Subscriber ID (SSN or ID#)", o?.member_id],
  ]);
  y -= 20;
  box(l, LEFT, y, 80, 20, "9. Plan/Group Number", null);
  checkBox(l, LEFT + 80, y, w - 80, 20, "10. Patient's Relationship to Person named in #5", o ? relationshipChecks(o.relationship) : relationshipChecks(null));
  y -= 20;
  box(l, LEFT, y, w, 20, "11. Other Insurance Company/Dental Benefit Plan Name, Address, City, State, Zip Code", o?.name);
  return y - 20;
}

/** Fields 12-23, the right column at the top. */
function peopleColumn(l: Layout, d: ClaimFormData, top: number): number {
  const x = MID + 3;
  const w = RIGHT - x;
  const s = d.subscriber;
  const p = d.patient;
  let y = section(l, x, top, w, "POLICYHOLDER/SUBSCRIBER INFORMATION (assigned by plan named in #3)");
  box(
    l,
    x,
    y,
    w,
    48,
    "12. Policyholder/Subscriber Name (Last, First, Middle Initial, Suffix), Address, City, State, Zip Code",
    nameAndAddress(s.name, s.address),
  );
  y -= 48;
  row(l, x, y, w, 20, [
    [1.1, "13. Date of Birth (MM/DD/CCYY)", formDate(s.birthdate)],
    [0.5, "14. Gender", s.gender],
    [1.6, "15. Policyholder/Subscriber ID (Assigned by Plan)", s.member_id],
  ]);
  y -= 20;
  row(l, x, y, w, 20, [
    [1, "16. Plan/Group Number", s.group_number],
    [1.6, "17. Employer Name", s.employer],
  ]);
  y -= 20;
  y = section(l, x, y, w, "PATIENT INFORMATION");
  checkBox(l, x, y, w - 84, 20, "18. Relationship to Policyholder/Subscriber in #12 Above", relationshipChecks(p.relationship));
  box(l, x + w - 84, y, 84, 20, "19. Reserved For Future Use", null);
  y -= 20;
  box(l, x, y, w, 48, "20. Name (Last, First, Middle Initial, Suffix), Address, City, State, Zip Code", nameAndAddress(p.name, p.address));
  y -= 48;
  row(l, x, y, w, 20, [
    [1.1, "21. Date of Birth (MM/DD/CCYY)", formDate(p.birthdate)],
    [0.5, "22. Gender", p.gender],
    [1.6, "23. Patient ID/Account # (Assigned by Dentist)", p.account_id],
  ]);
  return y - 20;
}

/** The service table's columns, left to right; `width` 0 takes what is left (the description). */
const COLUMNS = [
  { label: "", width: 12 },
  { label: "24. Procedure Date (MM/DD/CCYY)", width: 50 },
  { label: "25. Area of Oral Cavity", width: 32 },
  { label: "26. Tooth System", width: 30 },
  { label: "27. Tooth Number(s) or Letter(s)", width: 64 },
  { label: "28. Tooth Surface", width: 40 },
  { label: "29. Procedure Code", width: 42 },
  { label: "30. Description", width: 0 },
  { label: "31. Fee", width: 62 },
] as const;
const ROW_HEIGHT = 14;

/** Fields 24-31: this page's lines, numbered on from the pages before. */
function services(l: Layout, lines: ClaimFormData["lines"], first: number, count: number, top: number): number {
  const fixed = COLUMNS.reduce((s, c) => s + c.width, 0);
  const widths = COLUMNS.map((c) => c.width || RIGHT - LEFT - fixed);
  const xs = widths.map((_, i) => LEFT + widths.slice(0, i).reduce((s, w) => s + w, 0));
  const range = lines.length ? ` (lines ${first + 1}-${first + lines.length} of ${count})` : "";
  let y = section(l, LEFT, top, RIGHT - LEFT, `RECORD OF SERVICES PROVIDED${range}`);
  const headerHeight = 19;
  COLUMNS.forEach((c, i) => {
    l.rect(xs[i]!, y, widths[i]!, headerHeight);
    l.wrap(c.label, widths[i]! - 3, SIZE.label, 3).forEach((t, j) => l.text(t, xs[i]! + 1.5, y - 5.8 - j * 5.8, { size: SIZE.label, color: GREY }));
  });
  y -= headerHeight;
  for (let r = 0; r < LINES_PER_PAGE; r++) {
    const line = lines[r];
    widths.forEach((w, i) => l.rect(xs[i]!, y, w, ROW_HEIGHT));
    const base = y - ROW_HEIGHT + 4.2;
    l.text(String(first + r + 1), xs[0]! + widths[0]! / 2, base, { size: 6, color: GREY, align: "center" });
    if (line) {
      const cells = [formDate(line.date_service), line.area, line.tooth_system, line.tooth_number, line.surfaces, line.procedure_code, line.description];
      cells.forEach((v, i) => {
        if (v) l.text(l.fit(v, widths[i + 1]! - 4, 8), xs[i + 1]! + 2, base, { size: 8 });
      });
      l.text(money(line.fee_cents), RIGHT - 3, base, { size: 8, align: "right" });
    }
    y -= ROW_HEIGHT;
  }
  return y;
}

const TOOTH = { w: 18, h: 10.5 };

/** Field 33: permanent teeth 1-16 over 32-17, an X over each missing tooth, the teeth on this claim shaded. */
function toothChart(l: Layout, d: ClaimFormData, x: number, top: number, w: number, h: number) {
  l.rect(x, top, w, h);
  l.text(l.fit('33. Missing Teeth Information (Place an "X" on each missing tooth; shaded: teeth on this claim)', w - 4, SIZE.label), x + 2, top - 6.3, {
    size: SIZE.label,
    color: GREY,
  });
  const missing = new Set(d.missing_teeth.flatMap(permanentTeeth));
  const claimed = new Set(d.lines.flatMap((line) => permanentTeeth(line.tooth_number)));
  const left = x + 14;
  const rows = [Array.from({ length: 16 }, (_, i) => i + 1), Array.from({ length: 16 }, (_, i) => 32 - i)];
  rows.forEach((teeth, r) => {
    const rowTop = top - 10 - r * (TOOTH.h + 1.5);
    // the patient's right is the chart's left, as the form shows it
    l.text(r ? "" : "R", x + 6, rowTop - 8, { size: 6, bold: true, color: GREY });
    teeth.forEach((tooth, i) => {
      const bx = left + i * TOOTH.w;
      const isClaimed = claimed.has(tooth);
      l.rect(bx, rowTop, TOOTH.w, TOOTH.h, { fill: isClaimed ? CLAIMED : undefined });
      l.text(String(tooth), bx + TOOTH.w / 2, rowTop - 7.6, { size: 6.5, bold: isClaimed, align: "center" });
      if (missing.has(tooth)) {
        l.line(bx + 1.5, rowTop - 1, bx + TOOTH.w - 1.5, rowTop - TOOTH.h + 1, 1, BLACK);
        l.line(bx + 1.5, rowTop - TOOTH.h + 1, bx + TOOTH.w - 1.5, rowTop - 1, 1, BLACK);
      }
    });
    if (!r) l.text("L", left + 16 * TOOTH.w + 3, rowTop - 8, { size: 6, bold: true, color: GREY });
  });
  const list = (teeth: Set<number>) => [...teeth].sort((a, b) => a - b).join(", ") || "none";
  const legend = `Missing (X): ${list(missing)} · On this claim (shaded): ${list(claimed)}`;
  l.text(l.fit(legend, w - 8, 6), x + 3, top - h + 3.5, { size: 6, color: GREY });
}

/** Fields 31a-35 under the table; the totals only on the last page. */
function belowServices(l: Layout, d: ClaimFormData, last: boolean, page: number, top: number): number {
  const totalsW = 130;
  const chartW = 318;
  const diagX = LEFT + chartW;
  const totalsX = RIGHT - totalsW;
  const h = 62;
  const chartTop = section(l, LEFT, top, chartW, "MISSING TEETH INFORMATION");
  toothChart(l, d, LEFT, chartTop, chartW, h - 10);
  box(l, diagX, top, totalsX - diagX, 24, "34. Diagnosis Code List Qualifier", null);
  box(l, diagX, top - 24, totalsX - diagX, h - 24, "34a. Diagnosis Code(s)", null);
  if (last) {
    box(l, totalsX, top, totalsW, 22, "31a. Other Fee(s)", money(d.other_fees_cents), { align: "right" });
    box(l, totalsX, top - 22, totalsW, h - 22, "32. Total Fee", money(d.total_fee_cents), { align: "right", bold: true });
  } else {
    box(l, totalsX, top, totalsW, 22, "31a. Other Fee(s)", "see last page", { align: "right" });
    box(l, totalsX, top - 22, totalsW, h - 22, "32. Total Fee", `continued on page ${page + 2}`, { align: "right" });
  }
  const remarksTop = top - h;
  const remarksH = 28;
  l.rect(LEFT, remarksTop, RIGHT - LEFT, remarksH);
  l.text("35. Remarks", LEFT + 2, remarksTop - 6.3, { size: SIZE.label, color: GREY });
  l.wrap(d.remarks ?? "", RIGHT - LEFT - 6, 8, 2).forEach((t, i) => l.text(t, LEFT + 3, remarksTop - 14.5 - i * 9, { size: 8 }));
  return remarksTop - remarksH;
}

/** Fields 36-37 and 48-52a, the left column at the foot. */
function billingColumn(l: Layout, d: ClaimFormData, top: number) {
  const w = MID - LEFT - 3;
  const b = d.billing_provider;
  let y = section(l, LEFT, top, w, "AUTHORIZATIONS");
  box(l, LEFT, y, w, 20, "36. Patient/Guardian Signature (release of information; Signed, Date)", null);
  y -= 20;
  box(l, LEFT, y, w, 20, "37. Subscriber Signature (payment of benefits to the dentist; Signed, Date)", null);
  y -= 20;
  y = section(l, LEFT, y, w, "BILLING DENTIST OR DENTAL ENTITY");
  box(l, LEFT, y, w, 48, "48. Name, Address, City, State, Zip Code", nameAndAddress(b.name, b.address));
  y -= 48;
  row(l, LEFT, y, w, 20, [
    [1, "49. NPI", b.npi],
    [1, "50. License Number", b.license],
    [1, "51. SSN or TIN", b.tax_id],
  ]);
  y -= 20;
  row(l, LEFT, y, w, 20, [
    [1, "52. Phone Number", b.phone],
    [1, "52a. Additional Provider ID", null],
  ]);
}

/** Fields 38-47 and 53-58, the right column at the foot. */
function treatingColumn(l: Layout, d: ClaimFormData, top: number) {
  const x = MID + 3;
  const w = RIGHT - x;
  const t = d.treating_provider;
  let y = section(l, x, top, w, "ANCILLARY CLAIM/TREATMENT INFORMATION");
  row(l, x, y, w, 20, [
    [1.4, "38. Place of Treatment (e.g. 11=office; 22=O/P Hospital)", d.place_of_service],
    [1, "39. Enclosures (Y or N)", d.attachments > 0 ? `Y (${d.attachments})` : "N"],
  ]);
  y -= 20;
  row(l, x, y, w, 20, [
    [1, "40. Is Treatment for Orthodontics?", null],
    [1, "41. Date Appliance Placed", null],
    [1, "42. Months of Treatment", null],
  ]);
  y -= 20;
  row(l, x, y, w, 20, [
    [1, "43. Replacement of Prosthesis?", null],
    [1, "44. Date of Prior Placement", null],
  ]);
  y -= 20;
  row(l, x, y, w, 20, [
    [1.6, "45. Treatment Resulting from", null],
    [1, "46. Date of Accident", null],
    [0.8, "47. Auto Accident State", null],
  ]);
  y -= 20;
  y = section(l, x, y, w, "TREATING DENTIST AND TREATING LOCATION INFORMATION");
  box(l, x, y, w, 20, "53. Treating Dentist (certifies the procedures as dated are in progress or completed)", t?.name);
  y -= 20;
  row(l, x, y, w, 20, [
    [1, "54. NPI", t?.npi],
    [1, "55. License Number", t?.license],
  ]);
  y -= 20;
  box(l, x, y, w, 38, "56. Address, City, State, Zip Code", t?.address.slice(0, 3));
  y -= 38;
  row(l, x, y, w, 20, [
    [1, "56a. Provider Specialty Code", t?.taxonomy],
    [1, "57. Phone Number", null],
    [1, "58. Additional Provider ID", null],
  ]);
}

function footer(l: Layout, d: ClaimFormData, page: number, pages: number) {
  const text = `Cusp claim ${d.claim_number} · page ${page + 1} of ${pages} · laid out after the ADA Dental Claim Form fields; not the ADA's form`;
  l.text(l.fit(text, RIGHT - LEFT, 6.5), LEFT, 14, { size: 6.5, color: GREY });
}

/** The claim form's PDF, one full form per ten service lines, and the text laid out in it. */
export async function renderClaimFormPdf(d: ClaimFormData): Promise<RenderedClaimForm> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Claim ${d.claim_number}`);
  doc.setSubject(d.claim_type === "preauth" ? "Request for Predetermination/Preauthorization" : "Dental claim");
  doc.setAuthor(d.billing_provider.name.replace(/[^\x20-\x7e]/g, "?"));
  doc.setProducer("Cusp");
  doc.setCreator("Cusp");
  // dated by the claim, not the clock: the same claim renders the same bytes
  const prepared = new Date(`${d.date_prepared}T00:00:00Z`);
  const stamp = Number.isNaN(prepared.getTime()) ? new Date(0) : prepared;
  doc.setCreationDate(stamp);
  doc.setModificationDate(stamp);
  const l = new Layout(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  const pages = Math.max(1, Math.ceil(d.lines.length / LINES_PER_PAGE));
  for (let page = 0; page < pages; page++) {
    l.newPage();
    const top = title(l, d, PAGE.height - MARGIN);
    const columns = Math.min(headerColumn(l, d, top), peopleColumn(l, d, top));
    const first = page * LINES_PER_PAGE;
    const tableBottom = services(l, d.lines.slice(first, first + LINES_PER_PAGE), first, d.lines.length, columns - 4);
    const foot = belowServices(l, d, page === pages - 1, page, tableBottom - 4) - 4;
    billingColumn(l, d, foot);
    treatingColumn(l, d, foot);
    footer(l, d, page, pages);
  }
  // without object streams: faster to write, for a file of a few kilobytes more
  const bytes = await doc.save({ useObjectStreams: false });
  return { bytes, text: l.lines.join("\n"), pages };
}
