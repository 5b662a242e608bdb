import { PDFDocument, StandardFonts } from "pdf-lib";
import sharp from "sharp";

/**
 * Documents for the processing tests, generated in code (SVG rendered by sharp with the system's
 * DejaVu Sans, PDFs by pdf-lib, DICOM by the tiny encoder below) so no binary is committed.
 * Each fixture is built once per test process and shared.
 */

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    cached ??= make();
    return cached;
  };
}

type Line = { text: string; x: number; y: number; size: number; bold?: boolean; fill?: string };

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function svgPage(width: number, height: number, background: string, lines: Line[], extra = ""): Buffer {
  const texts = lines
    .map(
      (line) =>
        `<text x="${line.x}" y="${line.y}" font-family="DejaVu Sans" font-size="${line.size}" font-weight="${line.bold ? "bold" : "normal"}" fill="${line.fill ?? "#222222"}">${escapeXml(line.text)}</text>`,
    )
    .join("");
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${background}"/>${extra}${texts}</svg>`,
  );
}

/** ID-1 card proportions (85.6 x 54 mm) at the size of a phone photo filling the frame. */
const CARD_WIDTH = 1600;
const CARD_HEIGHT = Math.round(CARD_WIDTH / (85.6 / 54));

export const CARD_FRONT_MEMBER_ID = "XYZ123456789";

/**
 * A phone photo of the front of a dental insurance card: off-white card under indoor light, a
 * little soft focus, JPEG, and stored the way phones store portrait shots: pixels rotated, with
 * EXIF Orientation 6 saying "turn 90 degrees clockwise to view" (so 1009x1600 stored, 1600x1009 seen).
 */
export const cardFrontJpeg = once(async () => {
  const svg = svgPage(CARD_WIDTH, CARD_HEIGHT, "#dcd9d2", [
    { text: "DELTA DENTAL", x: 90, y: 170, size: 84, bold: true, fill: "#1d3f73" },
    { text: `Member ID ${CARD_FRONT_MEMBER_ID}`, x: 90, y: 430, size: 58 },
    { text: "Group 0045821", x: 90, y: 560, size: 58 },
    { text: "Subscriber JANE DOE", x: 90, y: 690, size: 58 },
  ]);
  const upright = await sharp(svg).blur(0.8).png().toBuffer();
  return new Uint8Array(await sharp(upright).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 82 }).toBuffer());
});

/** The back of the same card, as an upright JPEG. */
export const cardBackJpeg = once(async () => {
  const svg = svgPage(CARD_WIDTH, CARD_HEIGHT, "#e2e0da", [
    { text: "Customer Service 1-800-765-4321", x: 80, y: 150, size: 52, bold: true },
    { text: "Providers: send claims to", x: 80, y: 330, size: 50 },
    { text: "Delta Dental, P.O. Box 1809", x: 80, y: 430, size: 50 },
    { text: "Alameda, CA 94501", x: 80, y: 530, size: 50 },
    { text: "Payer ID 94276", x: 80, y: 710, size: 50 },
    { text: "www.deltadental.com", x: 80, y: 810, size: 50 },
  ]);
  return new Uint8Array(await sharp(svg).blur(0.6).jpeg({ quality: 85 }).toBuffer());
});

export const EOB_CLAIM_NUMBER = "2025-118-00731";

/** A one-page EOB with a real text layer (pdf-lib, Helvetica). */
export const eobPdf = once(async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const lines: [string, number, boolean][] = [
    ["DELTA DENTAL OF CALIFORNIA", 16, true],
    ["EXPLANATION OF BENEFITS", 20, true],
    ["THIS IS NOT A BILL", 14, true],
    ["Patient: Jane Doe    Member ID XYZ123456789", 11, false],
    [`Claim Number: ${EOB_CLAIM_NUMBER}`, 11, false],
    ["Date of service 03/14/2025   Procedure D1110   Amount billed $120.00   Plan paid $96.00", 10, false],
    ["Patient responsibility: $24.00", 11, false],
  ];
  let y = 720;
  for (const [text, size, isBold] of lines) {
    page.drawText(text, { x: 54, y, size, font: isBold ? bold : regular });
    y -= size + 16;
  }
  return doc.save();
});

export const REFERRAL_PATIENT = "John Smith";

const LETTER_WIDTH = 1275; // US letter at 150 dpi
const LETTER_HEIGHT = 1650;

/** The referral letter as a 150 dpi greyscale PNG, what a flatbed scanner hands over. */
const referralScanPng = once(async () => {
  const lines: Line[] = [
    { text: "REFERRAL FOR CONSULTATION", x: 110, y: 200, size: 44, bold: true },
    { text: "March 14, 2025", x: 110, y: 300, size: 32 },
    { text: "Dear Doctor,", x: 110, y: 420, size: 32 },
    { text: `I am referring my patient ${REFERRAL_PATIENT} for`, x: 110, y: 500, size: 32 },
    { text: "evaluation and extraction of tooth 17.", x: 110, y: 560, size: 32 },
    { text: "Please see him at your earliest convenience.", x: 110, y: 620, size: 32 },
    { text: "Sincerely,", x: 110, y: 760, size: 32 },
    { text: "Referred by Dr. Alice Moreno, DDS", x: 110, y: 840, size: 32 },
  ];
  return sharp(svgPage(LETTER_WIDTH, LETTER_HEIGHT, "#fbfbf8", lines))
    .greyscale()
    .png()
    .toBuffer();
});

/** A one-page scanned PDF: the page is only an image of the referral letter, no text layer. */
export const scannedReferralPdf = once(async () => {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const image = await doc.embedPng(await referralScanPng());
  page.drawImage(image, { x: 0, y: 0, width: 612, height: 792 });
  return doc.save();
});

/** Page 1 is the EOB (text layer), page 2 the scanned referral (image only). */
export const mixedPdf = once(async () => {
  const doc = await PDFDocument.create();
  for (const source of [await PDFDocument.load(await eobPdf()), await PDFDocument.load(await scannedReferralPdf())]) {
    const [page] = await doc.copyPages(source, [0]);
    doc.addPage(page);
  }
  return doc.save();
});

const LAB_SLIP_PAGES: Line[][] = [
  [
    { text: "DENTAL LAB PRESCRIPTION", x: 90, y: 140, size: 48, bold: true },
    { text: "Rx: Full contour zirconia crown", x: 90, y: 260, size: 38 },
    { text: "Tooth 30   Shade A2", x: 90, y: 340, size: 38 },
    { text: "Due date 04/02/2025", x: 90, y: 420, size: 38 },
  ],
  [
    { text: "Page 2 instructions", x: 90, y: 140, size: 48, bold: true },
    { text: "Light occlusal contact please", x: 90, y: 260, size: 38 },
  ],
];

const labSlipPagePng = (page: Line[]) =>
  sharp(svgPage(1275, 560, "#ffffff", page))
    .greyscale()
    .png()
    .toBuffer();

/** A lab prescription scanned to an LZW-compressed TIFF (which Tesseract's Leptonica cannot read itself). */
export const labPrescriptionTiff = once(async () => {
  return new Uint8Array(
    await sharp(await labSlipPagePng(LAB_SLIP_PAGES[0]))
      .tiff({ compression: "lzw" })
      .toBuffer(),
  );
});

/** The same slip with a second page, as a fax or document scanner delivers it: one multi-page TIFF. */
export const twoPageLabTiff = once(async () => {
  const pages = await Promise.all(LAB_SLIP_PAGES.map(labSlipPagePng));
  return new Uint8Array(
    await sharp(pages, { join: { animated: true } })
      .tiff({ compression: "lzw" })
      .toBuffer(),
  );
});

/** A panoramic-like radiograph: greyscale, 2:1, bright tooth shapes on a dark field, no text. */
export const panoramicJpeg = once(async () => {
  const teeth = Array.from({ length: 16 }, (_, index) => {
    const x = 500 + index * 90;
    return `<rect x="${x}" y="420" width="60" height="170" rx="24" fill="#d8d8d8"/><rect x="${x}" y="610" width="60" height="170" rx="24" fill="#cfcfcf"/>`;
  }).join("");
  const jaw = `<ellipse cx="1200" cy="600" rx="1050" ry="420" fill="#4a4a4a"/>${teeth}`;
  return new Uint8Array(
    await sharp(svgPage(2400, 1200, "#151515", [], jaw))
      .greyscale()
      .jpeg({ quality: 85 })
      .toBuffer(),
  );
});

/** A bitewing-like radiograph exported as PNG: greyscale, landscape 4:3, sensor-sized. */
export const bitewingPng = once(async () => {
  const teeth = Array.from({ length: 4 }, (_, index) => `<rect x="${80 + index * 170}" y="120" width="130" height="360" rx="40" fill="#d0d0d0"/>`).join("");
  return new Uint8Array(
    await sharp(svgPage(800, 600, "#202020", [], teeth))
      .greyscale()
      .png()
      .toBuffer(),
  );
});

// --- A minimal DICOM Part-10 encoder: explicit VR little endian, only the VRs used below. ---

const LONG_LENGTH_VRS = new Set(["OB", "OW", "OF", "SQ", "UT", "UN"]);

function dicomElement(group: number, element: number, vr: string, value: Uint8Array): Uint8Array {
  const padded = value.length % 2 === 0 ? value : Uint8Array.from([...value, vr === "UI" || vr === "OB" ? 0 : 0x20]);
  const long = LONG_LENGTH_VRS.has(vr);
  const header = new Uint8Array(long ? 12 : 8);
  const view = new DataView(header.buffer);
  view.setUint16(0, group, true);
  view.setUint16(2, element, true);
  header[4] = vr.charCodeAt(0);
  header[5] = vr.charCodeAt(1);
  if (long) view.setUint32(8, padded.length, true);
  else view.setUint16(6, padded.length, true);
  return concat([header, padded]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const ascii = (text: string) => new TextEncoder().encode(text);
const uint16 = (value: number) => new Uint8Array(new Uint16Array([value]).buffer);
const uint32 = (value: number) => new Uint8Array(new Uint32Array([value]).buffer);

export type DicomFixtureTags = { modality: string; seriesDescription: string; studyDescription: string; bodyPart: string; imageType: string };

export const DICOM_ROWS = 8;
export const DICOM_COLUMNS = 16;

/** A tiny valid DICOM file (DX for-presentation SOP class, 8x16 8-bit monochrome pixels). */
export function encodeDicom(tags: DicomFixtureTags): Uint8Array {
  const explicitVrLittleEndian = "1.2.840.10008.1.2.1";
  const sopClass = "1.2.840.10008.5.1.4.1.1.1.1";
  const sopInstance = "1.2.826.0.1.3680043.2.1125.1.1";
  const metaElements = concat([
    dicomElement(0x0002, 0x0001, "OB", Uint8Array.from([0x00, 0x01])),
    dicomElement(0x0002, 0x0002, "UI", ascii(sopClass)),
    dicomElement(0x0002, 0x0003, "UI", ascii(sopInstance)),
    dicomElement(0x0002, 0x0010, "UI", ascii(explicitVrLittleEndian)),
  ]);
  const dataset = concat([
    dicomElement(0x0008, 0x0008, "CS", ascii(tags.imageType)),
    dicomElement(0x0008, 0x0016, "UI", ascii(sopClass)),
    dicomElement(0x0008, 0x0018, "UI", ascii(sopInstance)),
    dicomElement(0x0008, 0x0060, "CS", ascii(tags.modality)),
    dicomElement(0x0008, 0x1030, "LO", ascii(tags.studyDescription)),
    dicomElement(0x0008, 0x103e, "LO", ascii(tags.seriesDescription)),
    dicomElement(0x0010, 0x0010, "PN", ascii("DOE^JANE")),
    dicomElement(0x0018, 0x0015, "CS", ascii(tags.bodyPart)),
    dicomElement(0x0028, 0x0002, "US", uint16(1)),
    dicomElement(0x0028, 0x0004, "CS", ascii("MONOCHROME2")),
    dicomElement(0x0028, 0x0010, "US", uint16(DICOM_ROWS)),
    dicomElement(0x0028, 0x0011, "US", uint16(DICOM_COLUMNS)),
    dicomElement(0x0028, 0x0100, "US", uint16(8)),
    dicomElement(0x0028, 0x0101, "US", uint16(8)),
    dicomElement(0x0028, 0x0102, "US", uint16(7)),
    dicomElement(0x0028, 0x0103, "US", uint16(0)),
    dicomElement(
      0x7fe0,
      0x0010,
      "OB",
      Uint8Array.from({ length: DICOM_ROWS * DICOM_COLUMNS }, (_, index) => (index * 2) % 256),
    ),
  ]);
  return concat([new Uint8Array(128), ascii("DICM"), dicomElement(0x0002, 0x0000, "UL", uint32(metaElements.length)), metaElements, dataset]);
}

export const dicomPanoramic = once(async () =>
  encodeDicom({ modality: "PX", seriesDescription: "PAN", studyDescription: "PANORAMIC", bodyPart: "JAW", imageType: "ORIGINAL\\PRIMARY" }),
);

export const dicomBitewing = once(async () =>
  encodeDicom({ modality: "IO", seriesDescription: "BW RIGHT", studyDescription: "BITEWINGS", bodyPart: "JAW", imageType: "ORIGINAL\\PRIMARY" }),
);

/** An ISO-BMFF "ftyp" box with the heic brand: enough to sniff as HEIC, not a decodable picture. */
export function heicHeader(): Uint8Array {
  return concat([uint32BigEndian(24), ascii("ftypheic"), uint32BigEndian(0), ascii("mif1heic"), new Uint8Array(64)]);
}

function uint32BigEndian(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, false);
  return out;
}

/**
 * EICAR's antivirus test file, exactly its 68 bytes. Assembled from two halves so that this
 * source file itself is not what a scanner on a developer's machine quarantines.
 */
export function eicar(): Uint8Array {
  return ascii(["X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-", "ANTIVIRUS-TEST-FILE!$H+H*"].join(""));
}

/** A PDF carrying the EICAR test string after its end: an allowed upload that every scanner here must quarantine. */
export const pdfWithEicar = once(async () => {
  const pdf = await eobPdf();
  const out = new Uint8Array(pdf.length + 1 + 68);
  out.set(pdf);
  out[pdf.length] = 0x0a;
  out.set(eicar(), pdf.length + 1);
  return out;
});
