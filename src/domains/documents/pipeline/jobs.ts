import { z } from "zod";
import { defineJob, type JobDefinition } from "@/platform/queue/jobs";
import type { ProcessingStep } from "@/domains/documents/schemas";

// The documents pipeline (docs/documents/documents.md, "Processing"): one job type per
// step, each enqueued after the previous one commits. A job names one version
// of one document; its handler re-reads both and stops when they changed.

export const StepPayload = z.strictObject({ document_id: z.uuid(), version_number: z.number().int().min(1) });
export type StepPayload = z.infer<typeof StepPayload>;

/** Retried with backoff (10 s, 20 s, 40 s...); a step still running after its expiry is retried (a killed worker). */
const retried = (expireInSeconds: number) => ({ retryLimit: 4, retryDelay: 10, retryBackoff: true, expireInSeconds });

export const documentsScan = defineJob({
  id: "documents.scan",
  description: "Scan an uploaded document version for malware",
  payload: StepPayload,
  queue: retried(300),
  work: { concurrency: 2 },
});

export const documentsOcr = defineJob({
  id: "documents.ocr",
  description: "Read a document version's text (PDF text layer, OCR of images and scanned pages)",
  payload: StepPayload,
  queue: retried(900),
  // one page is OCR'd at a time per worker thread (DOCUMENT_OCR_WORKERS): more jobs would only queue for it
  work: { concurrency: 1 },
});

export const documentsClassify = defineJob({
  id: "documents.classify",
  description: "Suggest a document type from a document version's text and image features",
  payload: StepPayload,
  queue: retried(300),
  work: { concurrency: 2 },
});

export const documentsThumbnail = defineJob({
  id: "documents.thumbnail",
  description: "Make a JPEG thumbnail of a document version",
  payload: StepPayload,
  queue: retried(300),
  work: { concurrency: 2 },
});

export const STEP_JOBS: Record<ProcessingStep, JobDefinition<typeof StepPayload>> = {
  scan: documentsScan,
  ocr: documentsOcr,
  classify: documentsClassify,
  thumbnail: documentsThumbnail,
};

/** The retries a step's job gets: its last attempt marks the step failed instead of throwing. */
export const STEP_RETRY_LIMIT = 4;

/**
 * Picks up pipelines that stalled (docs/documents/documents.md, "Processing"): a step
 * left pending or running for longer than any attempt may take, because the
 * process that committed the upload (or the previous step) died before it
 * queued the next job, or a job was lost with an embedded queue. Every 10
 * minutes it sends the first unfinished step of each such version again;
 * the steps are idempotent, so one sent twice is done once.
 */
export const documentsResume = defineJob({
  id: "documents.resume",
  description: "Queue again the next step of document pipelines that stalled",
  payload: z.object({}).strict(),
  cron: "*/10 * * * *",
  queue: { retryLimit: 2, retryDelay: 60, expireInSeconds: 600 },
});

/** A step untouched for this long is stalled: longer than the longest step's expiry (OCR, 900 s) plus its retry delays. */
export const STALLED_AFTER_SECONDS = 30 * 60;
