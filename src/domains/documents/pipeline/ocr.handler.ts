import type { JobContext } from "@/platform/queue/handlers";
import { documentText } from "@/domains/documents/processing/pdf";
import { runStep } from "./run-step";
import type { StepPayload } from "./jobs";
import { ocrOf } from "./services";

/**
 * documents.ocr: the version's text, for search and the classifier. PDFs give
 * their text layer, and pages without one are rendered and OCR'd; images are
 * OCR'd; DICOM (and HEIC where sharp cannot decode it) is skipped with the
 * reason. The text is stored on the document, never put in events or audit.
 */
export default async function readDocumentText(jc: JobContext<StepPayload>) {
  return runStep(jc, "ocr", async ({ rt, version, bytes }) => {
    const text = await documentText(await bytes(), version.mime_type, ocrOf(rt));
    return {
      status: "completed",
      message: text.ocr_status === "skipped" ? text.skipped_reason : null,
      result: { pages: text.method, ocr_confidence: text.ocr_confidence, characters: text.text.length, truncated: text.truncated },
      document: { ocr_text: text.text || null, ocr_status: text.ocr_status, page_count: text.page_count },
      version: { page_count: text.page_count },
    };
  });
}
