import { type PDFDocument, type PDFFont, type PDFPage, type RGB, rgb } from "pdf-lib";
import { encodable } from "./standard-fonts";

// Text layout shared by the PDFs the service draws with pdf-lib's standard
// fonts (statements, treatment-plan presentations): pages, text made
// encodable, fitting and wrapping to a width, and every string drawn kept in
// order so the caller can store it for document search.

export type PageSize = { width: number; height: number };
export type LayoutOptions = { page?: PageSize; margin?: number };
export type TextOptions = { size?: number; bold?: boolean; align?: "left" | "right"; color?: RGB };

export const US_LETTER: PageSize = { width: 612, height: 792 };
export const DEFAULT_MARGIN = 48;
const LIGHT = rgb(0.8, 0.8, 0.8);

const DATE_FORMAT = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
/** `2025-03-05` as `Mar 5, 2025`. */
export const longDate = (date: string) => DATE_FORMAT.format(new Date(`${date}T00:00:00Z`));

/** Cents as `$1,234.56` (`-$12.00` for a credit). */
export function dollars(cents: number): string {
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toLocaleString("en-US");
  return `${cents < 0 ? "-" : ""}$${whole}.${String(abs % 100).padStart(2, "0")}`;
}

/** What the standard fonts can encode (WinAnsi), the same for every document. */
let winAnsi: Set<number> | null = null;

/** Lays text out page by page; keeps every string drawn for the document's search text. */
export class Layout {
  page!: PDFPage;
  y = 0;
  readonly pages: PDFPage[] = [];
  readonly lines: string[] = [];
  readonly width: number;
  readonly height: number;
  readonly margin: number;
  /** Drawn at the top of every page after the first (a "continued" line); moves y below what it draws. */
  pageHeader: ((layout: Layout) => void) | null = null;
  private readonly charset: Set<number>;

  constructor(
    private readonly doc: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
    options: LayoutOptions = {},
  ) {
    this.width = (options.page ?? US_LETTER).width;
    this.height = (options.page ?? US_LETTER).height;
    this.margin = options.margin ?? DEFAULT_MARGIN;
    this.charset = winAnsi ??= new Set(regular.getCharacterSet());
    this.newPage();
  }

  /** The left and right ends of the text area. */
  get left(): number {
    return this.margin;
  }
  get right(): number {
    return this.width - this.margin;
  }

  newPage() {
    this.page = this.doc.addPage([this.width, this.height]);
    this.pages.push(this.page);
    this.y = this.height - this.margin;
    if (this.pages.length > 1) this.pageHeader?.(this);
  }

  /** What the standard fonts cannot encode (WinAnsi) becomes its unaccented letter, else "?". */
  clean(text: string): string {
    return encodable(text, this.charset);
  }

  /** Shortened with an ellipsis to fit `width` points. */
  fit(text: string, width: number, size: number, font = this.regular): string {
    let t = this.clean(text);
    if (font.widthOfTextAtSize(t, size) <= width) return t;
    while (t.length > 1 && font.widthOfTextAtSize(`${t}…`, size) > width) t = t.slice(0, -1);
    return `${t.trimEnd()}…`;
  }

  /** Broken into lines of at most `width` points, at spaces; a word wider than a line is cut where it must be. */
  wrap(text: string, width: number, size: number, font = this.regular): string[] {
    const lines: string[] = [];
    let line = "";
    for (const word of this.clean(text).split(" ").filter(Boolean)) {
      const joined = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(joined, size) <= width) {
        line = joined;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      while (line.length > 1 && font.widthOfTextAtSize(line, size) > width) {
        let cut = line.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  /** Draws at (x, y) on the current page; `align: "right"` ends the text at x. */
  text(text: string, x: number, y: number, opts: TextOptions = {}) {
    this.drawOn(this.page, text, x, y, opts);
  }

  /** "Page N of M" at the foot of every page, right-aligned; in the search text unless `inText` is false. Call after the layout is done. */
  pageNumbers(opts: { size?: number; color?: RGB; inText?: boolean } = {}) {
    const total = this.pages.length;
    this.pages.forEach((page, i) => {
      this.drawOn(page, `Page ${i + 1} of ${total}`, this.right, 24, { size: opts.size ?? 8, color: opts.color, align: "right" }, opts.inText ?? true);
    });
  }

  /** Moves down by `height`, starting a new page when less than `room` would be left above the margin. */
  down(height: number, room = 0) {
    if (this.y - height - room < this.margin) this.newPage();
    this.y -= height;
  }

  rule(y: number, x1 = this.margin, x2 = this.width - this.margin, dash?: number[], color: RGB = LIGHT, thickness = 0.5) {
    this.page.drawLine({ start: { x: x1, y }, end: { x: x2, y }, thickness, color, dashArray: dash });
  }

  private drawOn(page: PDFPage, text: string, x: number, y: number, opts: TextOptions, inText = true) {
    const size = opts.size ?? 10;
    const font = opts.bold ? this.bold : this.regular;
    const t = this.clean(text);
    if (!t) return;
    const left = opts.align === "right" ? x - font.widthOfTextAtSize(t, size) : x;
    page.drawText(t, { x: left, y, size, font, color: opts.color ?? rgb(0, 0, 0) });
    if (inText) this.lines.push(t);
  }
}
