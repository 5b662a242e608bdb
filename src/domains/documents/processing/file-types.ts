import { fileTypeFromBuffer, supportedExtensions } from "file-type";

/**
 * How many leading bytes the sniffer needs. It is file-type's own detection window
 * (its `reasonableDetectionSizeInBytes`, not exported in its typings), so the upload
 * route can sniff from the first chunk(s) of a stream without buffering the file.
 */
export const SNIFF_HEAD_BYTES = 4100;

/** The families of content the practice may store; everything else is refused at upload. */
export type AllowedKind = "pdf" | "jpeg" | "png" | "tiff" | "heif" | "dicom";

export type SniffedType = { kind: AllowedKind; mime: string; ext: string };

export type SniffResult =
  | ({ allowed: true } & SniffedType)
  /** `detected` is what the bytes are when file-type knows them (e.g. "application/zip"), else null. */
  | { allowed: false; detected: string | null; reason: "unrecognised_content" | "type_not_allowed" };

/** Every mime type we accept for a kind; the first is the canonical one we report. */
const MIME_TYPES_BY_KIND: Record<AllowedKind, readonly string[]> = {
  pdf: ["application/pdf", "application/x-pdf"],
  jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"],
  png: ["image/png", "image/x-png"],
  tiff: ["image/tiff", "image/tif", "image/x-tiff"],
  heif: ["image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence"],
  dicom: ["application/dicom", "application/dicom+dcm"],
};

const EXTENSIONS_BY_KIND: Record<AllowedKind, readonly string[]> = {
  pdf: ["pdf"],
  jpeg: ["jpg", "jpeg", "jpe", "jfif"],
  png: ["png"],
  tiff: ["tif", "tiff"],
  heif: ["heic", "heif", "hif"],
  dicom: ["dcm", "dicom", "dic"],
};

/** Extensions that name a definite non-binary or office format; file-type's list covers binary formats only. */
const OTHER_KNOWN_EXTENSIONS = new Set(["txt", "csv", "html", "htm", "xml", "json", "js", "doc", "docx", "xls", "xlsx", "rtf", "svg", "exe", "bat", "sh"]);

const KIND_BY_MIME = new Map<string, AllowedKind>(
  (Object.entries(MIME_TYPES_BY_KIND) as [AllowedKind, readonly string[]][]).flatMap(([kind, mimes]) => mimes.map((mime) => [mime, kind] as const)),
);
const KIND_BY_EXTENSION = new Map<string, AllowedKind>(
  (Object.entries(EXTENSIONS_BY_KIND) as [AllowedKind, readonly string[]][]).flatMap(([kind, exts]) => exts.map((ext) => [ext, kind] as const)),
);

const DICOM_MAGIC_OFFSET = 128;

function hasDicomMagic(head: Uint8Array): boolean {
  // "DICM" after the 128-byte preamble (DICOM PS3.10 §7.1).
  return head.length >= DICOM_MAGIC_OFFSET + 4 && head[128] === 0x44 && head[129] === 0x49 && head[130] === 0x43 && head[131] === 0x4d;
}

function hasTiffHeader(head: Uint8Array): boolean {
  const littleEndian = head[0] === 0x49 && head[1] === 0x49 && head[2] === 0x2a && head[3] === 0x00;
  const bigEndian = head[0] === 0x4d && head[1] === 0x4d && head[2] === 0x00 && head[3] === 0x2a;
  return littleEndian || bigEndian;
}

/**
 * Decides what a file is from its first bytes (pass at least SNIFF_HEAD_BYTES, or the whole
 * file if shorter). The declared Content-Type and file name play no part here: see checkDeclaredType.
 */
export async function sniffFileType(head: Uint8Array): Promise<SniffResult> {
  // file-type 22 knows DICM@128 too, but tests it after TIFF: a "dual personality"
  // DICOM file whose preamble holds a TIFF header would then be reported as TIFF.
  if (hasDicomMagic(head)) return { allowed: true, kind: "dicom", mime: "application/dicom", ext: "dcm" };

  const window = head.length > SNIFF_HEAD_BYTES ? head.subarray(0, SNIFF_HEAD_BYTES) : head;
  const detected = await fileTypeFromBuffer(window);
  if (!detected) {
    // libtiff (and so sharp) writes the first IFD after the pixels; file-type follows that
    // offset, runs off the end of a head-only buffer and answers "unknown". The header is enough.
    if (hasTiffHeader(window)) return { allowed: true, kind: "tiff", mime: "image/tiff", ext: "tif" };
    return { allowed: false, detected: null, reason: "unrecognised_content" };
  }
  const kind = KIND_BY_MIME.get(detected.mime);
  if (!kind) return { allowed: false, detected: detected.mime, reason: "type_not_allowed" };
  return { allowed: true, kind, mime: detected.mime, ext: detected.ext };
}

/** Lower-cases and drops parameters: "Image/JPEG; charset=binary" -> "image/jpeg". */
function normaliseMime(mime: string | null | undefined): string {
  return (mime ?? "").split(";")[0].trim().toLowerCase();
}

function extensionOf(fileName: string | null | undefined): string | null {
  const base = (fileName ?? "").split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  if (dot <= 0 || dot === base.length - 1) return null;
  return base.slice(dot + 1).toLowerCase();
}

export type DeclaredTypeCheck = { ok: true } | { ok: false; source: "content_type" | "file_name"; declared: string; detected: string; message: string };

/** Declarations that say "I don't know"; they can never contradict the bytes. */
const UNINFORMATIVE_MIMES = new Set(["", "application/octet-stream", "binary/octet-stream", "application/unknown"]);

/**
 * Compares what the client declared (the multipart part's Content-Type, the file name's
 * extension) with what the bytes are. A declaration contradicts the bytes when it names another
 * format: another allowed kind, or any other concrete mime type / a well-known extension.
 * No declaration, application/octet-stream, no extension or an unheard-of extension
 * (scanners write ".001", ".scan"; DICOM often has none) is not a contradiction.
 */
export function checkDeclaredType(sniffed: SniffedType, declaredMime: string | null | undefined, fileName: string | null | undefined): DeclaredTypeCheck {
  const mime = normaliseMime(declaredMime);
  if (!UNINFORMATIVE_MIMES.has(mime) && KIND_BY_MIME.get(mime) !== sniffed.kind) {
    return {
      ok: false,
      source: "content_type",
      declared: mime,
      detected: sniffed.mime,
      message: `declared Content-Type ${mime} but the content is ${sniffed.mime}`,
    };
  }
  const ext = extensionOf(fileName);
  if (ext !== null) {
    const extKind = KIND_BY_EXTENSION.get(ext);
    const namesAnotherFormat = extKind !== undefined ? extKind !== sniffed.kind : supportedExtensions.has(ext) || OTHER_KNOWN_EXTENSIONS.has(ext);
    if (namesAnotherFormat) {
      return {
        ok: false,
        source: "file_name",
        declared: `.${ext}`,
        detected: sniffed.mime,
        message: `file name ends in .${ext} but the content is ${sniffed.mime}`,
      };
    }
  }
  return { ok: true };
}
