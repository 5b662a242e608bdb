import type { PlatformRuntime } from "@/platform/runtime";
import { createOcrService, type OcrService } from "@/domains/documents/processing/ocr";
import { createScanner } from "@/domains/documents/processing/scan/factory";
import type { Scanner } from "@/domains/documents/processing/scan/types";

// The pipeline's heavy services, made on first use in the process that runs
// the jobs and closed with its runtime.

export const scannerOf = (rt: PlatformRuntime): Scanner =>
  rt.shared.get(
    "documents.scanner",
    () => createScanner(rt.config.scan),
    (s) => s.close(),
  );

export const ocrOf = (rt: PlatformRuntime): OcrService =>
  rt.shared.get(
    "documents.ocr",
    () => createOcrService({ poolSize: rt.config.documents.ocrWorkers }),
    (o) => o.close(),
  );

/** Where a version's file and its thumbnail are kept in object storage. */
export const storageKeys = (orgId: string, documentId: string, versionNumber: number) => ({
  file: `${orgId}/documents/${documentId}/v${versionNumber}`,
  thumbnail: `${orgId}/documents/${documentId}/v${versionNumber}.thumbnail.jpg`,
});
