import type { JobContext } from "@/platform/queue/handlers";
import type { ScanVerdict } from "@/domains/documents/processing/scan/types";
import { PermanentStepError, runStep } from "./run-step";
import type { StepPayload } from "./jobs";
import { scannerOf } from "./services";

/**
 * documents.scan: the version's bytes, streamed from storage, through the
 * scanner (clamd, or the builtin one). Clean: the version is confirmed (its
 * downloads open) and OCR is next. Infected: the version and the document are
 * quarantined, document.quarantined is sent, and the pipeline ends. A scanner
 * that cannot answer is retried; the file is never released on an error.
 */
export default async function scanDocument(jc: JobContext<StepPayload>) {
  return runStep(jc, "scan", async ({ rt, doc, version }) => {
    const source = await rt.storage.stream(version.storage_key);
    if (!source) throw new PermanentStepError(`the stored file of version ${version.version_number} is missing`);
    let verdict: ScanVerdict;
    try {
      verdict = await scannerOf(rt).scan(source);
    } finally {
      // a scan that stopped early (an error, a size limit) leaves the file open otherwise
      (source as { destroy?: () => void }).destroy?.();
    }
    if (!verdict.clean) {
      return {
        status: "completed",
        message: "malware found",
        result: { engine: verdict.engine, clean: false },
        version: { status: "quarantined", scan_signature: verdict.signature, scan_engine: verdict.engine },
        quarantine: { signature: verdict.signature },
      };
    }
    return {
      status: "completed",
      result: { engine: verdict.engine, clean: true },
      version: { status: "confirmed", scan_engine: verdict.engine },
      document: { confirmed_version: Math.max(doc.confirmed_version ?? 0, version.version_number) },
    };
  });
}
