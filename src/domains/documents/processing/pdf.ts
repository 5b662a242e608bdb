import { sharp } from "@/platform/on-first-use";
import { createIsomorphicCanvasFactory, extractText, getDocumentProxy, renderPageAsImage } from "unpdf";
import type { AllowedKind } from "./file-types";
import { type OcrService, sharpCanDecodeHeic } from "./ocr";

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

const canvasImport = () => import("@napi-rs/canvas");

/** A rendered page never exceeds this many pixels on its longer side, whatever its size in points. */
export const MAX_RENDER_SIDE_PX = 2500;

export const DOCUMENT_TEXT_LIMITS = {
  /** Pages without a text layer beyond this many are not OCR'd (a 300-page scanned chart would take minutes). */
  maxOcrPages: 20,
  /** Stored OCR text is cut here; search needs the words, not a whole book. */
  maxTextChars: 200_000,
  /** A page whose text layer has fewer non-blank characters (a page number, a stray mark) is treated as scanned. */
  minTextLayerChars: 10,
  /** 2 = 144 dpi: enough for 10 pt print, and a letter page stays ~1.2 MP. */
  renderScale: 2,
};

export type DocumentTextLimits = typeof DOCUMENT_TEXT_LIMITS;

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  // pdf.js transfers (detaches) the buffer it is given: hand it a copy so the caller's bytes survive.
  const CanvasFactory = await createIsomorphicCanvasFactory(canvasImport);
  return getDocumentProxy(new Uint8Array(bytes), { CanvasFactory, verbosity: 0 });
}

async function withPdf<T>(bytes: Uint8Array, operation: (pdf: PdfDocument) => Promise<T>): Promise<T> {
  const pdf = await openPdf(bytes);
  try {
    return await operation(pdf);
  } finally {
    await pdf.loadingTask.destroy();
  }
}

async function renderOpenPage(pdf: PdfDocument, pageNumber: number, scale: number): Promise<Uint8Array> {
  const page = await pdf.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  const boundedScale = Math.min(scale, MAX_RENDER_SIDE_PX / Math.max(width, height, 1));
  const png = await renderPageAsImage(pdf, pageNumber, { scale: boundedScale, canvasImport });
  return new Uint8Array(png);
}

function pageTexts(pdf: PdfDocument): Promise<string[]> {
  return extractText(pdf, { mergePages: false }).then((result) => result.text);
}

/** The text layer of every page (empty string for a scanned page), and how many pages there are. */
export async function pdfText(bytes: Uint8Array): Promise<{ pages: string[]; page_count: number }> {
  return withPdf(bytes, async (pdf) => ({ pages: await pageTexts(pdf), page_count: pdf.numPages }));
}

/** One page (1-based) as PNG bytes; `scale` 1 = 72 dpi, bounded by MAX_RENDER_SIDE_PX. */
export async function renderPdfPage(bytes: Uint8Array, pageNumber: number, scale = DOCUMENT_TEXT_LIMITS.renderScale): Promise<Uint8Array> {
  return withPdf(bytes, (pdf) => renderOpenPage(pdf, pageNumber, scale));
}

/** How one page's text was obtained; "skipped" = no text layer and past the OCR page limit. */
export type PageTextMethod = "text_layer" | "ocr" | "skipped";

export type DocumentText = {
  text: string;
  page_count: number | null;
  ocr_status: "completed" | "skipped";
  /** Why nothing was read, when ocr_status is "skipped". */
  skipped_reason: string | null;
  method: PageTextMethod[];
  /** Mean OCR confidence (0..1) over the OCR'd pages; null when no page was OCR'd. */
  ocr_confidence: number | null;
  truncated: boolean;
};

function nonBlankLength(text: string): number {
  return text.replace(/\s+/g, "").length;
}

function skipped(reason: string, pageCount: number | null): DocumentText {
  return { text: "", page_count: pageCount, ocr_status: "skipped", skipped_reason: reason, method: [], ocr_confidence: null, truncated: false };
}

function assemble(pages: string[], method: PageTextMethod[], confidences: number[], maxTextChars: number): DocumentText {
  const joined = pages
    .map((page) => page.trim())
    .filter((page) => page.length > 0)
    .join("\n\n");
  const mean = confidences.length > 0 ? Math.round((confidences.reduce((sum, c) => sum + c, 0) / confidences.length) * 100) / 100 : null;
  return {
    text: joined.slice(0, maxTextChars),
    page_count: pages.length,
    ocr_status: "completed",
    skipped_reason: null,
    method,
    ocr_confidence: mean,
    truncated: joined.length > maxTextChars,
  };
}

async function pdfDocumentText(bytes: Uint8Array, ocr: OcrService, limits: DocumentTextLimits): Promise<DocumentText> {
  return withPdf(bytes, async (pdf) => {
    const pages = await pageTexts(pdf);
    const method: PageTextMethod[] = [];
    const confidences: number[] = [];
    let ocrPages = 0;
    for (let index = 0; index < pages.length; index += 1) {
      if (nonBlankLength(pages[index]) >= limits.minTextLayerChars) {
        method.push("text_layer");
        continue;
      }
      if (ocrPages >= limits.maxOcrPages) {
        method.push("skipped");
        continue;
      }
      ocrPages += 1;
      const result = await ocr.recognize(await renderOpenPage(pdf, index + 1, limits.renderScale));
      pages[index] = result.text;
      confidences.push(result.confidence);
      method.push("ocr");
    }
    return assemble(pages, method, confidences, limits.maxTextChars);
  });
}

async function imageDocumentText(bytes: Uint8Array, mayHavePages: boolean, ocr: OcrService, limits: DocumentTextLimits): Promise<DocumentText> {
  // Multi-page TIFFs are how fax and document scanners deliver several pages.
  const pageCount = mayHavePages ? ((await sharp()(bytes).metadata()).pages ?? 1) : 1;
  const pages: string[] = [];
  const method: PageTextMethod[] = [];
  const confidences: number[] = [];
  for (let index = 0; index < pageCount; index += 1) {
    if (index >= limits.maxOcrPages) {
      pages.push("");
      method.push("skipped");
      continue;
    }
    const image = pageCount === 1 ? bytes : await sharp()(bytes, { page: index }).png({ compressionLevel: 1 }).toBuffer();
    const result = await ocr.recognize(image);
    pages.push(result.text);
    confidences.push(result.confidence);
    method.push("ocr");
  }
  return assemble(pages, method, confidences, limits.maxTextChars);
}

const KIND_BY_MIME: Record<string, AllowedKind> = {
  "application/pdf": "pdf",
  "image/jpeg": "jpeg",
  "image/png": "png",
  "image/tiff": "tiff",
  "image/heic": "heif",
  "image/heif": "heif",
  "image/heic-sequence": "heif",
  "image/heif-sequence": "heif",
  "application/dicom": "dicom",
};

/**
 * The searchable text of a stored document; `mime` is the sniffed type (sniffFileType), never the
 * client's claim. PDFs use their text layer and OCR only the pages that have none; images are
 * OCR'd; DICOM carries pixels and coded tags, no text, so it is skipped.
 */
export async function documentText(bytes: Uint8Array, mime: string, ocr: OcrService, limits: Partial<DocumentTextLimits> = {}): Promise<DocumentText> {
  const bounds = { ...DOCUMENT_TEXT_LIMITS, ...limits };
  const kind = KIND_BY_MIME[mime];
  switch (kind) {
    case "pdf":
      return pdfDocumentText(bytes, ocr, bounds);
    case "jpeg":
    case "png":
    case "tiff":
      return imageDocumentText(bytes, kind === "tiff", ocr, bounds);
    case "heif":
      if (!sharpCanDecodeHeic()) return skipped("heic_not_decodable: sharp's prebuilt libvips reads AVIF but has no HEVC decoder for HEIC", 1);
      return imageDocumentText(bytes, false, ocr, bounds);
    case "dicom":
      return skipped("dicom_has_no_text: a DICOM object holds pixel data and coded tags, not printed text", 1);
    default:
      return skipped(`unsupported_type: ${mime}`, null);
  }
}
