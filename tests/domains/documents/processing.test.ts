import { afterAll, describe, expect, test } from "bun:test";
import { fileTypeFromBuffer } from "file-type";
import sharp from "sharp";
import type { Worker } from "tesseract.js";
import { classifyDocument, dicomTags, MIN_CONFIDENCE } from "@/domains/documents/processing/classify";
import { checkDeclaredType, SNIFF_HEAD_BYTES, type SniffedType, sniffFileType } from "@/domains/documents/processing/file-types";
import {
  createOcrService,
  OCR_MAX_SIDE_PX,
  OcrClosedError,
  type OcrService,
  prepareForOcr,
  sharpCanDecodeHeic,
  UnreadableImageError,
} from "@/domains/documents/processing/ocr";
import { documentText, pdfText, renderPdfPage } from "@/domains/documents/processing/pdf";
import { imageInfo, makeThumbnail, THUMBNAIL_LONGEST_SIDE_PX } from "@/domains/documents/processing/thumbnail";
import {
  bitewingPng,
  CARD_FRONT_MEMBER_ID,
  cardBackJpeg,
  cardFrontJpeg,
  DICOM_COLUMNS,
  DICOM_ROWS,
  dicomBitewing,
  dicomPanoramic,
  EOB_CLAIM_NUMBER,
  eicar,
  encodeDicom,
  eobPdf,
  heicHeader,
  labPrescriptionTiff,
  mixedPdf,
  panoramicJpeg,
  REFERRAL_PATIENT,
  scannedReferralPdf,
  twoPageLabTiff,
} from "@tests/support/documents/fixtures";

// One real Tesseract pool for the whole file (a worker costs ~0.3 s to start), and each
// fixture OCR'd at most once: the classifier tests reuse the texts the OCR tests produced.
const ocr = createOcrService({ poolSize: 1 });
afterAll(() => ocr.close());

/** Counts how often the pipeline asked for OCR, so "read without OCR" is observable. */
function countingOcr(): OcrService & { calls: number } {
  const counter = {
    calls: 0,
    recognize(image: Uint8Array) {
      counter.calls += 1;
      return ocr.recognize(image);
    },
    close: async () => {},
  };
  return counter;
}

const textCache = new Map<string, ReturnType<typeof documentText>>();
function textOf(name: string, bytes: () => Promise<Uint8Array>, mime: string) {
  let cached = textCache.get(name);
  if (!cached) {
    cached = bytes().then((content) => documentText(content, mime, ocr));
    textCache.set(name, cached);
  }
  return cached;
}

const cardFrontText = () => textOf("card-front", cardFrontJpeg, "image/jpeg");
const cardBackText = () => textOf("card-back", cardBackJpeg, "image/jpeg");
const scannedReferralText = () => textOf("scanned-referral", scannedReferralPdf, "application/pdf");
const labTiffText = () => textOf("lab-tiff", labPrescriptionTiff, "image/tiff");

async function sniffHead(bytes: Uint8Array) {
  return sniffFileType(bytes.subarray(0, SNIFF_HEAD_BYTES));
}

async function sniffedOf(bytes: Uint8Array): Promise<SniffedType> {
  const result = await sniffHead(bytes);
  if (!result.allowed) throw new Error(`fixture not allowed: ${result.reason}`);
  return { kind: result.kind, mime: result.mime, ext: result.ext };
}

describe("file types", () => {
  test("each fixture is recognised from its first 4100 bytes", async () => {
    expect(SNIFF_HEAD_BYTES).toBe(4100);
    const expectations: [Uint8Array, string, string][] = [
      [await cardFrontJpeg(), "jpeg", "image/jpeg"],
      [await bitewingPng(), "png", "image/png"],
      [await eobPdf(), "pdf", "application/pdf"],
      [await scannedReferralPdf(), "pdf", "application/pdf"],
      [await labPrescriptionTiff(), "tiff", "image/tiff"],
      [await dicomPanoramic(), "dicom", "application/dicom"],
      [heicHeader(), "heif", "image/heic"],
    ];
    for (const [bytes, kind, mime] of expectations) {
      expect(await sniffHead(bytes)).toMatchObject({ allowed: true, kind, mime });
    }
  });

  test("a TIFF whose first IFD lies past the head is still a TIFF (file-type alone says unknown)", async () => {
    const tiff = await labPrescriptionTiff();
    expect(tiff.length).toBeGreaterThan(SNIFF_HEAD_BYTES);
    expect(await fileTypeFromBuffer(tiff.subarray(0, SNIFF_HEAD_BYTES))).toBeUndefined();
    expect(await sniffHead(tiff)).toEqual({ allowed: true, kind: "tiff", mime: "image/tiff", ext: "tif" });
  });

  test("a DICOM file whose preamble holds a TIFF header is DICOM", async () => {
    const dualPersonality = new Uint8Array(await dicomPanoramic());
    dualPersonality.set([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00], 0);
    expect(await sniffHead(dualPersonality)).toEqual({ allowed: true, kind: "dicom", mime: "application/dicom", ext: "dcm" });
  });

  test("EICAR (plain text) is unrecognised and a GIF is recognised but not allowed", async () => {
    expect(eicar().length).toBe(68);
    expect(await sniffHead(eicar())).toEqual({ allowed: false, detected: null, reason: "unrecognised_content" });
    const gif = new Uint8Array(
      await sharp({ create: { width: 4, height: 4, channels: 3, background: "#808080" } })
        .gif()
        .toBuffer(),
    );
    expect(await sniffHead(gif)).toEqual({ allowed: false, detected: "image/gif", reason: "type_not_allowed" });
  });

  test("declarations that agree with the bytes, or say nothing, pass", async () => {
    const jpeg = await sniffedOf(await cardFrontJpeg());
    expect(checkDeclaredType(jpeg, "image/jpeg", "card.jpg")).toEqual({ ok: true });
    expect(checkDeclaredType(jpeg, "Image/JPG; charset=binary", "CARD.JPEG")).toEqual({ ok: true });
    expect(checkDeclaredType(jpeg, "application/octet-stream", "IMG_0001")).toEqual({ ok: true });
    expect(checkDeclaredType(jpeg, null, "scan.001")).toEqual({ ok: true });
    expect(checkDeclaredType(jpeg, undefined, undefined)).toEqual({ ok: true });
    const heic = await sniffedOf(heicHeader());
    expect(checkDeclaredType(heic, "image/heif", "photo.HEIC")).toEqual({ ok: true });
    const dicom = await sniffedOf(await dicomPanoramic());
    expect(checkDeclaredType(dicom, "application/octet-stream", "pano.dcm")).toEqual({ ok: true });
  });

  test("declarations that contradict the bytes are mismatches, content type checked first", async () => {
    const jpeg = await sniffedOf(await cardFrontJpeg());
    expect(checkDeclaredType(jpeg, "application/pdf", "card.jpg")).toEqual({
      ok: false,
      source: "content_type",
      declared: "application/pdf",
      detected: "image/jpeg",
      message: "declared Content-Type application/pdf but the content is image/jpeg",
    });
    expect(checkDeclaredType(jpeg, "application/octet-stream", "card.pdf")).toMatchObject({ ok: false, source: "file_name", declared: ".pdf" });
    const pdf = await sniffedOf(await eobPdf());
    expect(checkDeclaredType(pdf, "text/plain", "eob.pdf")).toMatchObject({ ok: false, source: "content_type", declared: "text/plain" });
    expect(checkDeclaredType(pdf, "", "eob.txt")).toMatchObject({ ok: false, source: "file_name", declared: ".txt", detected: "application/pdf" });
    expect(checkDeclaredType(pdf, "", "eob.zip")).toMatchObject({ ok: false, source: "file_name", declared: ".zip" });
  });
});

describe("OCR", () => {
  test("reads the member ID from the phone photo of the card front", async () => {
    const result = await ocr.recognize(await cardFrontJpeg());
    expect(result.text).toContain(CARD_FRONT_MEMBER_ID);
    expect(result.text).toContain("DELTA DENTAL");
    expect(result.text).toContain("0045821");
    expect(result.confidence).toBeGreaterThan(0.8);
    expect(result.confidence).toBeLessThanOrEqual(1);
  });

  test("prepares images upright, greyscale and bounded", async () => {
    const upright = await sharp(await prepareForOcr(await cardFrontJpeg())).metadata();
    expect([upright.format, upright.width, upright.height, upright.channels]).toEqual(["png", 1600, 1009, 1]);
    const photo = await sharp({ create: { width: 5000, height: 3000, channels: 3, background: "#ffffff" } })
      .jpeg()
      .toBuffer();
    const bounded = await sharp(await prepareForOcr(photo)).metadata();
    expect([bounded.width, bounded.height]).toEqual([OCR_MAX_SIDE_PX, 1500]);
  });

  test("bytes that are not an image fail with UnreadableImageError, and HEIC decoding is absent here", async () => {
    await expect(ocr.recognize(eicar())).rejects.toBeInstanceOf(UnreadableImageError);
    await expect(ocr.recognize(heicHeader())).rejects.toBeInstanceOf(UnreadableImageError);
    // sharp's prebuilt libvips decodes AVIF only; see docs/documents/document-processing.md.
    expect(sharpCanDecodeHeic()).toBe(false);
  });
});

describe("OCR pool", () => {
  const tinyPng = () =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();

  /** Workers that record their life; `recognizeText` decides each job's outcome. */
  function fakeWorkers(recognizeText: (job: number) => Promise<string>) {
    const workers: { jobs: number; terminated: boolean }[] = [];
    let jobs = 0;
    let running = 0;
    let mostRunning = 0;
    const createWorker = async () => {
      const record = { jobs: 0, terminated: false };
      workers.push(record);
      const worker = {
        async recognize() {
          jobs += 1;
          record.jobs += 1;
          running += 1;
          mostRunning = Math.max(mostRunning, running);
          try {
            return { data: { text: await recognizeText(jobs), confidence: 87 } };
          } finally {
            running -= 1;
          }
        },
        async terminate() {
          record.terminated = true;
        },
      };
      return worker as unknown as Worker;
    };
    return { createWorker, workers, mostRunning: () => mostRunning };
  }

  test("workers are created lazily, reused up to the pool size, and terminated on close", async () => {
    const fake = fakeWorkers(async (job) => {
      await Bun.sleep(15);
      return `page ${job}`;
    });
    const pool = createOcrService({ poolSize: 2, createWorker: fake.createWorker });
    expect(fake.workers.length).toBe(0);
    const image = await tinyPng();
    const results = await Promise.all(Array.from({ length: 5 }, () => pool.recognize(image)));
    expect(results.map((result) => result.text).sort()).toEqual(["page 1", "page 2", "page 3", "page 4", "page 5"]);
    expect(results[0].confidence).toBe(0.87);
    expect(fake.workers.length).toBe(2);
    expect(fake.mostRunning()).toBe(2);
    expect(fake.workers[0].jobs + fake.workers[1].jobs).toBe(5);
    await pool.close();
    expect(fake.workers.map((worker) => worker.terminated)).toEqual([true, true]);
    await expect(pool.recognize(image)).rejects.toBeInstanceOf(OcrClosedError);
  });

  test("a job that fails terminates its worker and the next job gets a new one", async () => {
    const fake = fakeWorkers(async (job) => {
      if (job === 1) throw new Error("tesseract: failed to read image");
      return "recovered";
    });
    const pool = createOcrService({ poolSize: 1, createWorker: fake.createWorker });
    const image = await tinyPng();
    await expect(pool.recognize(image)).rejects.toThrow("tesseract: failed to read image");
    await Bun.sleep(5);
    expect(fake.workers).toEqual([{ jobs: 1, terminated: true }]);
    expect(await pool.recognize(image)).toEqual({ text: "recovered", confidence: 0.87 });
    expect(fake.workers).toEqual([
      { jobs: 1, terminated: true },
      { jobs: 1, terminated: false },
    ]);
    await pool.close();
  });
});

describe("document text", () => {
  test("a PDF with a text layer is read without OCR", async () => {
    const bytes = await eobPdf();
    const layer = await pdfText(bytes);
    expect(layer.page_count).toBe(1);
    expect(layer.pages[0]).toContain("EXPLANATION OF BENEFITS");
    const counting = countingOcr();
    const result = await documentText(bytes, "application/pdf", counting);
    expect(counting.calls).toBe(0);
    expect(result).toMatchObject({ page_count: 1, ocr_status: "completed", method: ["text_layer"], ocr_confidence: null, truncated: false });
    expect(result.text).toContain("THIS IS NOT A BILL");
    expect(result.text).toContain(`Claim Number: ${EOB_CLAIM_NUMBER}`);
  });

  test("a scanned PDF has no text layer and is rendered and OCR'd", async () => {
    expect((await pdfText(await scannedReferralPdf())).pages).toEqual([""]);
    const result = await scannedReferralText();
    expect(result).toMatchObject({ page_count: 1, ocr_status: "completed", method: ["ocr"], skipped_reason: null });
    expect(result.text).toContain("Dear Doctor");
    expect(result.text).toContain(REFERRAL_PATIENT);
    expect(result.ocr_confidence).toBeGreaterThan(0.8);
  });

  test("only pages without text are OCR'd, and no more than the page limit", async () => {
    const counting = countingOcr();
    const result = await documentText(await mixedPdf(), "application/pdf", counting, { maxOcrPages: 0 });
    expect(counting.calls).toBe(0);
    expect(result.page_count).toBe(2);
    expect(result.method).toEqual(["text_layer", "skipped"]);
    expect(result.text).toContain("EXPLANATION OF BENEFITS");
    expect(result.text).not.toContain("Dear Doctor");
  });

  test("text is capped", async () => {
    const result = await documentText(await eobPdf(), "application/pdf", countingOcr(), { maxTextChars: 23 });
    expect(result.text).toBe("DELTA DENTAL OF CALIFOR");
    expect(result.truncated).toBe(true);
  });

  test("a page renders to PNG at the requested scale", async () => {
    const oneX = await sharp(await renderPdfPage(await eobPdf(), 1, 1)).metadata();
    expect([oneX.format, oneX.width, oneX.height]).toEqual(["png", 612, 792]);
    const twoX = await sharp(await renderPdfPage(await eobPdf(), 1, 2)).metadata();
    expect([twoX.width, twoX.height]).toEqual([1224, 1584]);
  });

  test("images are OCR'd, TIFF after conversion by sharp", async () => {
    const front = await cardFrontText();
    expect(front).toMatchObject({ page_count: 1, ocr_status: "completed", method: ["ocr"] });
    expect(front.text).toContain(CARD_FRONT_MEMBER_ID);
    const tiff = await labTiffText();
    expect(tiff).toMatchObject({ page_count: 1, ocr_status: "completed", method: ["ocr"] });
    expect(tiff.text).toContain("DENTAL LAB PRESCRIPTION");
    expect(tiff.text).toContain("Shade A2");
  });

  test("each page of a multi-page TIFF is OCR'd, up to the page limit", async () => {
    const tiff = await twoPageLabTiff();
    expect(await sniffHead(tiff)).toMatchObject({ allowed: true, kind: "tiff" });
    const both = await documentText(tiff, "image/tiff", ocr);
    expect(both).toMatchObject({ page_count: 2, method: ["ocr", "ocr"] });
    expect(both.text).toContain("Shade A2");
    expect(both.text).toContain("Light occlusal contact");
    const firstOnly = await documentText(tiff, "image/tiff", ocr, { maxOcrPages: 1 });
    expect(firstOnly).toMatchObject({ page_count: 2, method: ["ocr", "skipped"] });
    expect(firstOnly.text).not.toContain("occlusal");
  });

  test("DICOM, undecodable HEIC and other types are skipped with a reason", async () => {
    const counting = countingOcr();
    const dicom = await documentText(await dicomPanoramic(), "application/dicom", counting);
    expect(dicom).toMatchObject({ text: "", ocr_status: "skipped", method: [] });
    expect(dicom.skipped_reason).toStartWith("dicom_has_no_text");
    const heic = await documentText(heicHeader(), "image/heic", counting);
    expect(heic.ocr_status).toBe("skipped");
    expect(heic.skipped_reason).toStartWith("heic_not_decodable");
    const gif = await documentText(new Uint8Array(), "image/gif", counting);
    expect(gif).toMatchObject({ ocr_status: "skipped", skipped_reason: "unsupported_type: image/gif", page_count: null });
    expect(counting.calls).toBe(0);
  });
});

describe("classification", () => {
  async function classifyImage(bytes: Uint8Array, mime: string, text: string) {
    const info = await imageInfo(bytes);
    return classifyDocument({ text, mime, width: info?.width, height: info?.height, greyscale: info?.greyscale, pageCount: 1 });
  }

  test("the card photos are insurance card front and back", async () => {
    const front = await classifyImage(await cardFrontJpeg(), "image/jpeg", (await cardFrontText()).text);
    expect(front).toEqual({
      document_type: "insurance_card_front",
      confidence: 0.95,
      reasons: ["member/subscriber ID", "group number", "carrier name", "card aspect ratio 1.59"],
    });
    const back = await classifyImage(await cardBackJpeg(), "image/jpeg", (await cardBackText()).text);
    expect(back.document_type).toBe("insurance_card_back");
    expect(back.confidence).toBe(0.95);
    expect(back.reasons).toContain('"customer service"');
    expect(back.reasons).toContain("claims address");
  });

  test("card wording without a card's shape scores lower", () => {
    const result = classifyDocument({ text: "DELTA DENTAL Member ID XYZ123456789 Group 0045821", mime: "application/pdf", pageCount: 1 });
    expect(result).toEqual({ document_type: "insurance_card_front", confidence: 0.8, reasons: ["member/subscriber ID", "group number", "carrier name"] });
  });

  test("the EOB, the scanned referral and the TIFF lab slip", async () => {
    const eob = classifyDocument({ text: (await pdfText(await eobPdf())).pages.join("\n"), mime: "application/pdf", pageCount: 1 });
    expect(eob.document_type).toBe("eob");
    expect(eob.reasons.slice(0, 2)).toEqual(['"explanation of benefits"', '"this is not a bill"']);
    const referral = classifyDocument({ text: (await scannedReferralText()).text, mime: "application/pdf", pageCount: 1 });
    expect(referral.document_type).toBe("referral_letter_incoming");
    expect(referral.reasons).toContain('"dear doctor"');
    const lab = await classifyImage(await labPrescriptionTiff(), "image/tiff", (await labTiffText()).text);
    expect(lab.document_type).toBe("lab_prescription");
    expect(lab.reasons).toContain("due date");
  });

  test("radiograph images by shape and colour", async () => {
    expect(await classifyImage(await panoramicJpeg(), "image/jpeg", "")).toEqual({
      document_type: "panoramic",
      confidence: 0.6,
      reasons: ["greyscale, wide (>= 1.8:1) and large: panoramic shape"],
    });
    expect((await classifyImage(await bitewingPng(), "image/png", "")).document_type).toBe("bitewing");
    const portrait = classifyDocument({ text: "", mime: "image/png", width: 600, height: 800, greyscale: true });
    expect(portrait).toMatchObject({ document_type: "periapical", confidence: 0.45 });
    const colourPhoto = classifyDocument({ text: "", mime: "image/jpeg", width: 2400, height: 1200, greyscale: false });
    expect(colourPhoto).toEqual({ document_type: null, confidence: 0, reasons: ["no rule matched"] });
  });

  test("DICOM tags are read and decide the radiograph type", async () => {
    const panoramicTags = dicomTags(await dicomPanoramic());
    expect(panoramicTags).toEqual({
      modality: "PX",
      seriesDescription: "PAN",
      studyDescription: "PANORAMIC",
      bodyPartExamined: "JAW",
      imageType: ["ORIGINAL", "PRIMARY"],
      viewPosition: null,
      rows: DICOM_ROWS,
      columns: DICOM_COLUMNS,
    });
    expect(classifyDocument({ text: "", mime: "application/dicom", dicomTags: panoramicTags })).toEqual({
      document_type: "panoramic",
      confidence: 0.95,
      reasons: ["DICOM Modality PX (panoramic)"],
    });
    const bitewing = classifyDocument({ text: "", mime: "application/dicom", dicomTags: dicomTags(await dicomBitewing()) });
    expect(bitewing).toMatchObject({ document_type: "bitewing", confidence: 0.9 });
    const periapical = encodeDicom({ modality: "IO", seriesDescription: "PA #8", studyDescription: "", bodyPart: "TOOTH", imageType: "ORIGINAL\\PRIMARY" });
    expect(classifyDocument({ text: "", mime: "application/dicom", dicomTags: dicomTags(periapical) })).toMatchObject({
      document_type: "periapical",
      confidence: 0.9,
    });
    const intraoralOnly = encodeDicom({ modality: "IO", seriesDescription: "", studyDescription: "", bodyPart: "", imageType: "ORIGINAL\\PRIMARY" });
    expect(classifyDocument({ text: "", mime: "application/dicom", dicomTags: dicomTags(intraoralOnly) })).toMatchObject({
      document_type: "periapical",
      confidence: 0.5,
    });
    expect(dicomTags(await eobPdf())).toBeNull();
  });

  test("consents, medical history and questionnaire texts", () => {
    const classify = (text: string) => classifyDocument({ text, mime: "application/pdf", pageCount: 1 }).document_type;
    expect(
      classify(
        "CONSENT FOR SEDATION AND GENERAL ANESTHESIA. I authorize Dr. Reyes to administer IV sedation. The risks include nausea. Nothing by mouth after midnight; an escort must drive me home.",
      ),
    ).toBe("anesthesia_consent");
    expect(
      classify(
        "Consent for extraction of teeth. I consent to the removal of tooth 32. Risks and complications include dry socket and nerve injury. Alternatives were explained.",
      ),
    ).toBe("procedure_consent");
    expect(
      classify("General consent to dental treatment. I consent to examination, x-rays and cleanings as my dentist finds necessary, and understand the risks."),
    ).toBe("general_consent");
    expect(
      classify(
        "MEDICAL HISTORY. Diabetes Yes No. Heart disease Yes No. High blood pressure Yes No. Asthma Yes No. List your medications. Allergies to penicillin or latex?",
      ),
    ).toBe("medical_history");
    expect(classify("Patient health questionnaire. Are you pregnant? Yes No. Do you have asthma? Yes No. Hepatitis? Yes No. Current medications:")).toBe(
      "health_questionnaire",
    );
  });

  test("unrelated text is not classified", () => {
    const result = classifyDocument({
      text: "The committee discussed quarterly parking arrangements and agreed to repaint the bicycle shed before the summer picnic.",
      mime: "application/pdf",
      pageCount: 1,
    });
    expect(result).toEqual({ document_type: null, confidence: 0, reasons: ["no rule matched"] });
    const weak = classifyDocument({ text: "Our referral program gives you a coffee mug.", mime: "application/pdf", pageCount: 1 });
    expect(weak.document_type).toBeNull();
    expect(weak.confidence).toBe(0.3);
    expect(weak.confidence).toBeLessThan(MIN_CONFIDENCE);
  });
});

describe("thumbnails", () => {
  const JPEG_MAGIC = [0xff, 0xd8, 0xff];

  async function thumbnailOf(bytes: Uint8Array, mime: string) {
    const thumbnail = await makeThumbnail(bytes, mime);
    if (!thumbnail) throw new Error(`no thumbnail for ${mime}`);
    const metadata = await sharp(thumbnail).metadata();
    return { magic: [...thumbnail.subarray(0, 3)], size: [metadata.width, metadata.height] };
  }

  test("images and a PDF's first page become 320 px JPEGs, the phone photo turned upright", async () => {
    expect(await thumbnailOf(await cardFrontJpeg(), "image/jpeg")).toEqual({ magic: JPEG_MAGIC, size: [THUMBNAIL_LONGEST_SIDE_PX, 202] });
    expect(await thumbnailOf(await eobPdf(), "application/pdf")).toEqual({ magic: JPEG_MAGIC, size: [247, THUMBNAIL_LONGEST_SIDE_PX] });
    expect(await thumbnailOf(await labPrescriptionTiff(), "image/tiff")).toEqual({ magic: JPEG_MAGIC, size: [320, 141] });
    expect(await thumbnailOf(await bitewingPng(), "image/png")).toEqual({ magic: JPEG_MAGIC, size: [320, 240] });
  });

  test("DICOM and undecodable HEIC get no thumbnail", async () => {
    expect(await makeThumbnail(await dicomPanoramic(), "application/dicom")).toBeNull();
    expect(await makeThumbnail(heicHeader(), "image/heic")).toBeNull();
  });

  test("imageInfo reports the upright size and whether the picture has colour", async () => {
    expect(await imageInfo(await cardFrontJpeg())).toEqual({ width: 1600, height: 1009, greyscale: false });
    expect(await imageInfo(await panoramicJpeg())).toEqual({ width: 2400, height: 1200, greyscale: true });
    expect(await imageInfo(eicar())).toBeNull();
  });
});
