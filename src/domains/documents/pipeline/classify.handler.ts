import type { JobContext } from "@/platform/queue/handlers";
import { classifyDocument, dicomTags } from "@/domains/documents/processing/classify";
import { imageInfo } from "@/domains/documents/processing/thumbnail";
import { runStep } from "./run-step";
import type { StepPayload } from "./jobs";

const IMAGE = /^image\//;

/**
 * documents.classify: a suggested document_type (ai_classification with
 * ai_confidence) from the text OCR read, the image's shape and colour, or a
 * DICOM file's tags. It never changes the document_type the uploader chose.
 */
export default async function classifyDocumentVersion(jc: JobContext<StepPayload>) {
  return runStep(jc, "classify", async ({ doc, version, bytes }) => {
    const mime = version.mime_type;
    const needsBytes = IMAGE.test(mime) || mime === "application/dicom";
    const data = needsBytes ? await bytes() : null;
    const info = data && IMAGE.test(mime) ? await imageInfo(data) : null;
    const guess = classifyDocument({
      text: doc.ocr_text ?? "",
      mime,
      width: info?.width ?? null,
      height: info?.height ?? null,
      greyscale: info?.greyscale ?? null,
      pageCount: version.page_count,
      dicomTags: data && mime === "application/dicom" ? dicomTags(data) : null,
    });
    return {
      status: "completed",
      result: { document_type: guess.document_type, confidence: guess.confidence, reasons: guess.reasons },
      document: { ai_classification: guess.document_type, ai_confidence: guess.document_type ? guess.confidence : null },
    };
  });
}
