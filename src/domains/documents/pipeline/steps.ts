import { and, asc, eq, sql } from "drizzle-orm";
import { documents, documentSteps, documentVersions } from "@db/tenant/documents";
import { allPrepared, prepared, run, type Work } from "@/platform/db/work";
import { queueJob } from "@/platform/queue/enqueue";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { PROCESSING_STEPS, type ProcessingStatus, type ProcessingStep, type StepStatus } from "@/domains/documents/schemas";
import { STALLED_AFTER_SECONDS, STEP_JOBS, type StepPayload } from "./jobs";

// The state of each processing step of one version (docs/documents/documents.md,
// "Processing"): written by the step's job as it starts, finishes or fails,
// and read by GET .../processing-status.

export type StepRow = typeof documentSteps.$inferSelect;

export const STEP_LABELS: Record<ProcessingStep, string> = {
  scan: "Virus scan",
  ocr: "OCR",
  classify: "AI classification",
  thumbnail: "Thumbnail",
};

const S = documentSteps;

const stepsOfVersion = prepared<StepRow>((db) =>
  db
    .select()
    .from(S)
    .where(and(eq(S.document_id, sql.placeholder("doc")), eq(S.version_number, sql.placeholder("n"))))
    .orderBy(asc(S.step))
    .prepare(),
);

/** The version's steps in pipeline order. */
export function* stepsOf(db: TenantDb, documentId: string, versionNumber: number): Work<StepRow[]> {
  const rows = yield* allPrepared(db, stepsOfVersion, { doc: documentId, n: versionNumber });
  const byStep = new Map(rows.map((r) => [r.step, r]));
  return PROCESSING_STEPS.flatMap((step) => byStep.get(step) ?? []);
}

/** One job per (document, version, step) at a time. */
export const stepJobKey = (p: StepPayload, step: ProcessingStep) => `${p.document_id}:${p.version_number}:${step}`;

/** Queue a step's job after the write commits. */
export function queueStep(s: TxScope, step: ProcessingStep, payload: StepPayload): void {
  queueJob(s, STEP_JOBS[step], payload, { singletonKey: stepJobKey(payload, step) });
}

/** A new version's steps, all pending, and its scan queued. */
export function* startPipeline(s: TxScope, documentId: string, versionNumber: number): Work<void> {
  yield* run(
    s.tx
      .insert(S)
      .values(PROCESSING_STEPS.map((step) => ({ document_id: documentId, version_number: versionNumber, step, status: "pending", updated_at: s.now }))),
  );
  queueStep(s, "scan", { document_id: documentId, version_number: versionNumber });
}

/** A version the pipeline does not process (a file the service generated): every step skipped, with why. */
export function* skipPipeline(s: TxScope, documentId: string, versionNumber: number, why: string): Work<void> {
  yield* run(
    s.tx
      .insert(S)
      .values(
        PROCESSING_STEPS.map((step) => ({ document_id: documentId, version_number: versionNumber, step, status: "skipped", message: why, updated_at: s.now })),
      ),
  );
}

/** Set a step's state (and the fields given). */
export function* setStep(
  s: TxScope,
  key: { documentId: string; versionNumber: number; step: ProcessingStep },
  values: Partial<Pick<StepRow, "status" | "attempts" | "started_at" | "finished_at" | "message" | "result">> & { status: StepStatus },
): Work<void> {
  yield* run(
    s.tx
      .update(S)
      .set({ ...values, updated_at: s.now })
      .where(and(eq(S.document_id, key.documentId), eq(S.version_number, key.versionNumber), eq(S.step, key.step))),
  );
}

/** What GET .../processing-status answers for a version's steps. */
export function processingStatusOf(documentId: string, versionNumber: number, state: ProcessingStatus["processing_status"], rows: StepRow[]): ProcessingStatus {
  const finished = rows.filter((r) => r.status === "completed" || r.status === "skipped").length;
  const running = rows.find((r) => r.status === "running");
  const failed = rows.find((r) => r.status === "failed");
  const parts = [`${finished} of ${rows.length} steps done`];
  if (failed) parts.push(`${STEP_LABELS[failed.step as ProcessingStep]} failed`);
  else if (running) parts.push(`${STEP_LABELS[running.step as ProcessingStep]} running`);
  return {
    document_uuid: documentId,
    version_number: versionNumber,
    overall_progress: parts.join("; "),
    processing_status: state,
    steps: rows.map((r) => ({
      step: r.step as ProcessingStep,
      label: STEP_LABELS[r.step as ProcessingStep],
      status: r.status as StepStatus,
      attempts: r.attempts,
      started_at: r.started_at,
      finished_at: r.finished_at,
      message: r.message,
    })),
  };
}

export type StalledStep = { document_id: string; version_number: number; step: ProcessingStep; request_id: string | null };

/**
 * The first unfinished step of each version still in the pipeline (its
 * document live and processing, the version current) when none of the
 * version's steps changed for STALLED_AFTER_SECONDS: what documents.resume
 * sends again.
 */
export function* stalledSteps(db: TenantDb, now: Date): Work<StalledStep[]> {
  const before = new Date(now.getTime() - STALLED_AFTER_SECONDS * 1000).toISOString();
  const versions = new Map<string, { first?: StalledStep; lastChange: string }>();
  for (const r of yield* allPrepared(db, stepsInPipeline, {})) {
    const key = `${r.document_id}:${r.version_number}`;
    const v = versions.get(key) ?? { lastChange: r.updated_at };
    if (r.updated_at > v.lastChange) v.lastChange = r.updated_at;
    const unfinished = r.status === "pending" || r.status === "running";
    const step = r.step as ProcessingStep;
    if (unfinished && (!v.first || PROCESSING_STEPS.indexOf(step) < PROCESSING_STEPS.indexOf(v.first.step))) {
      v.first = { document_id: r.document_id, version_number: r.version_number, step, request_id: r.request_id };
    }
    versions.set(key, v);
  }
  return [...versions.values()].filter((v) => v.first && v.lastChange < before).map((v) => v.first!);
}

/** Every step of the current versions of live documents still processing (few: a pipeline takes seconds). */
const stepsInPipeline = prepared<{ document_id: string; version_number: number; step: string; status: string; updated_at: string; request_id: string | null }>(
  (db) =>
    db
      .select({
        document_id: S.document_id,
        version_number: S.version_number,
        step: S.step,
        status: S.status,
        updated_at: S.updated_at,
        request_id: documentVersions.request_id,
      })
      .from(documents)
      .innerJoin(S, and(eq(S.document_id, documents.id), eq(S.version_number, documents.current_version)))
      .innerJoin(documentVersions, and(eq(documentVersions.document_id, documents.id), eq(documentVersions.version_number, documents.current_version)))
      .where(and(eq(documents.status, "processing"), sql`${documents.deleted_at} IS NULL`))
      .prepare(),
);
