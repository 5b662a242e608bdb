// Uploads over HTTP (multipart/form-data, as a browser sends them) and the
// processing pipeline run by hand, one step after another, as the workers
// would run it.
import { systemActor } from "@/platform/auth/actor";
import type { JobContext } from "@/platform/queue/handlers";
import { PROCESSING_STEPS, type ProcessingStep } from "@/domains/documents/schemas";
import { STEP_JOBS, type StepPayload } from "@/domains/documents/pipeline/jobs";
import scanDocument from "@/domains/documents/pipeline/scan.handler";
import readDocumentText from "@/domains/documents/pipeline/ocr.handler";
import classifyDocumentVersion from "@/domains/documents/pipeline/classify.handler";
import thumbnailDocument from "@/domains/documents/pipeline/thumbnail.handler";
import type { TestApp, TestResponse } from "@tests/helpers";

export type UploadFile = { bytes: Uint8Array; name: string; type?: string };

/** A multipart POST: the file in part `file` (unless `fileField` says otherwise), the fields as text parts. */
export async function postForm(
  t: TestApp,
  token: string | null,
  path: string,
  file: UploadFile | null,
  fields: Record<string, string | string[]> = {},
  opts: { fileField?: string; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  if (file) form.append(opts.fileField ?? "file", new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type ?? "" }), file.name);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await t.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body: form }));
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body, text };
}

const HANDLERS: Record<ProcessingStep, (jc: JobContext<StepPayload>) => Promise<unknown>> = {
  scan: scanDocument,
  ocr: readDocumentText,
  classify: classifyDocumentVersion,
  thumbnail: thumbnailDocument,
};

/** One step's job, run by hand as the worker would (attempt `retryCount + 1`). */
export function runStepJob(t: TestApp, orgId: string, step: ProcessingStep, payload: StepPayload, retryCount = 0, requestId: string | null = null) {
  return HANDLERS[step]({
    rt: t.rt,
    payload,
    logger: t.rt.logger,
    actor: systemActor(STEP_JOBS[step].id),
    causedBy: systemActor(STEP_JOBS[step].id),
    orgId,
    requestId,
    job: { id: `test-${step}`, name: STEP_JOBS[step].id, retryCount },
  }) as Promise<Record<string, unknown>>;
}

/** Every step of a version, in order; the outcomes by step. */
export async function runPipeline(t: TestApp, orgId: string, documentId: string, versionNumber = 1) {
  const out: Record<string, unknown> = {};
  for (const step of PROCESSING_STEPS) out[step] = await runStepJob(t, orgId, step, { document_id: documentId, version_number: versionNumber });
  return out as Record<ProcessingStep, Record<string, unknown>>;
}
