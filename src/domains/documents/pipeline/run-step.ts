import { and, eq, inArray } from "drizzle-orm";
import { documentSteps as stepsTable, documentVersions } from "@db/tenant/documents";
import type { JobContext } from "@/platform/queue/handlers";
import { run, type Work } from "@/platform/db/work";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { documentRecords, findVersion, type DocumentRow, type VersionRow } from "@/domains/documents/records";
import { PROCESSING_STEPS, type ProcessingStep } from "@/domains/documents/schemas";
import { STEP_RETRY_LIMIT, type StepPayload } from "./jobs";
import { queueStep, setStep, stepsOf, type StepRow } from "./steps";

// How every step of the pipeline runs (docs/documents/documents.md, "Processing"), so the
// four handlers hold only their own work:
//   1. begin, in a write: re-read the document, the version and the step; stop
//      (the step marked skipped) when the document was archived or a newer
//      version superseded this one; when the step is already done, make sure
//      what follows is queued and stop; else mark it running (attempts + 1).
//   2. the work itself, outside any transaction (scanning or OCR take seconds).
//   3. finish, in a write: re-read again; apply the outcome only if the step is
//      still running for this same version, mark it done and queue the next
//      step (after commit) or, after the last, make the document active.
// A worker killed in 2 leaves the step running: pg-boss retries the job after
// its expiry, which does the work again and applies it once (3 is one write).
// The last attempt that fails marks the step failed and the document `error`.

export type StepInput = {
  rt: PlatformRuntime;
  ctx: OrgContext;
  doc: DocumentRow;
  version: VersionRow;
  /** The version's bytes from storage (for steps that need them whole). */
  bytes(): Promise<Uint8Array>;
};

export type StepOutcome = {
  status: "completed" | "skipped";
  /** Why it was skipped, or a short note (never document content). */
  message?: string | null;
  result?: Record<string, unknown>;
  /** Changes to the document (audited as `document.<step>` with no event of its own). */
  document?: Partial<DocumentRow>;
  version?: Partial<VersionRow>;
  /** The scan found malware: the pipeline ends here, the document quarantined. */
  quarantine?: { signature: string };
};

/** For tests: called once a step is marked running, before its work; a hook that throws stands for a worker killed mid-step. */
export const stepHooks: { beforeWork?: (info: { step: ProcessingStep; payload: StepPayload; attempt: number }) => void } = {};

/** Thrown by a step for a failure that retrying cannot fix (the step fails at once). */
export class PermanentStepError extends Error {
  readonly retryable = false;
}

type Current = { doc: DocumentRow; version: VersionRow; steps: StepRow[] } | { stop: string };

const NO_EVENT = { event: false } as const;

function* currentState(db: TenantDb, p: StepPayload): Work<Current> {
  const doc = yield* documentRecords.find(db, p.document_id, true);
  if (!doc) return { stop: "the document no longer exists" };
  if (doc.deleted_at) return { stop: "the document was archived" };
  if (doc.current_version !== p.version_number) return { stop: `version ${doc.current_version} superseded this one` };
  const version = yield* findVersion(db, p.document_id, p.version_number);
  if (!version) return { stop: "the version no longer exists" };
  if (version.status === "quarantined" || version.status === "error") return { stop: `the version is ${version.status}` };
  return { doc, version, steps: yield* stepsOf(db, p.document_id, p.version_number) };
}

const nextStep = (step: ProcessingStep): ProcessingStep | undefined => PROCESSING_STEPS[PROCESSING_STEPS.indexOf(step) + 1];

/** After `step` is done: queue the next one, or after the last make the document active (once). */
function* proceed(s: TxScope, doc: DocumentRow, p: StepPayload, step: ProcessingStep): Work<void> {
  const next = nextStep(step);
  if (next) return queueStep(s, next, p);
  if (doc.status !== "processing") return;
  yield* documentRecords.update(
    s,
    doc.id,
    undefined,
    { status: "active" },
    { action: "processed", eventData: { status: "active", version_number: p.version_number } },
  );
}

/** The step's work could not be done: the step failed, the document is `error`, and the pipeline stops. */
function* failStep(s: TxScope, p: StepPayload, step: ProcessingStep, message: string): Work<void> {
  const state = yield* currentState(s.tx, p);
  if ("stop" in state) return;
  const row = state.steps.find((r) => r.step === step);
  if (!row || row.status === "completed" || row.status === "skipped") return;
  yield* setStep(s, { documentId: p.document_id, versionNumber: p.version_number, step }, { status: "failed", finished_at: s.now, message });
  const patch: Partial<DocumentRow> = { status: "error", ...(step === "ocr" ? { ocr_status: "failed" } : {}) };
  if (step === "scan") yield* run(s.tx.update(documentVersions).set({ status: "error", updated_at: s.now }).where(eq(documentVersions.id, state.version.id)));
  yield* documentRecords.update(s, p.document_id, undefined, patch, { action: "processed", eventData: { status: "error", version_number: p.version_number } });
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

/** Run one step of one version (see the top of this file). */
export async function runStep(jc: JobContext<StepPayload>, step: ProcessingStep, work: (input: StepInput) => Promise<StepOutcome>) {
  const p = jc.payload;
  const ctx = jc.orgId ? await jc.rt.orgs.openOrgForJob(jc.orgId, { actor: jc.actor, requestId: jc.requestId }) : null;
  if (!ctx) return { outcome: "org_missing" };
  const key = { documentId: p.document_id, versionNumber: p.version_number, step };

  const begun = await withTransaction(ctx, function* (s) {
    const state = yield* currentState(s.tx, p);
    if ("stop" in state) {
      yield* skipUnfinished(s, p, state.stop, step);
      return { stop: state.stop };
    }
    const row = state.steps.find((r) => r.step === step);
    if (!row) return { stop: "the version has no such step" };
    if (row.status === "completed" || row.status === "skipped") {
      yield* proceed(s, state.doc, p, step); // a retry after the commit: what follows may not have been queued
      return { stop: "already done" };
    }
    if (row.status === "failed") return { stop: "failed before" };
    yield* setStep(s, key, { status: "running", attempts: row.attempts + 1, started_at: s.now, message: null });
    if (step === "ocr" && state.doc.ocr_status !== "processing") {
      yield* documentRecords.update(s, state.doc.id, undefined, { ocr_status: "processing" }, { action: "ocr_started", ...NO_EVENT });
    }
    return { doc: state.doc, version: state.version };
  });
  if ("stop" in begun) return { outcome: "stopped", reason: begun.stop };
  stepHooks.beforeWork?.({ step, payload: p, attempt: jc.job.retryCount + 1 });

  let outcome: StepOutcome;
  try {
    outcome = await work({ rt: jc.rt, ctx, doc: begun.doc, version: begun.version, bytes: () => versionBytes(jc.rt, begun.version) });
  } catch (err) {
    const permanent = (err as { retryable?: unknown }).retryable === false;
    if (!permanent && jc.job.retryCount < STEP_RETRY_LIMIT) {
      await withTransaction(ctx, (s) => setStep(s, key, { status: "running", message: `attempt failed, will retry: ${errorText(err)}` }));
      throw err;
    }
    await withTransaction(ctx, (s) => failStep(s, p, step, errorText(err)));
    return { outcome: "failed", error: errorText(err) };
  }

  return withTransaction(ctx, function* (s) {
    const state = yield* currentState(s.tx, p);
    if ("stop" in state) return { outcome: "stopped", reason: state.stop };
    const row = state.steps.find((r) => r.step === step);
    if (row?.status !== "running") return { outcome: "stopped", reason: `the step is ${row?.status ?? "gone"}` }; // another attempt finished it
    if (outcome.version) {
      yield* run(
        s.tx
          .update(documentVersions)
          .set({ ...outcome.version, updated_at: s.now })
          .where(eq(documentVersions.id, state.version.id)),
      );
    }
    let doc = state.doc;
    if (outcome.document)
      doc = yield* documentRecords.update(s, doc.id, undefined, outcome.document, { action: step === "scan" ? "scanned" : `${step}_done`, ...NO_EVENT });
    yield* setStep(s, key, { status: outcome.status, finished_at: s.now, message: outcome.message ?? null, result: outcome.result ?? null });
    if (outcome.quarantine) {
      yield* skipUnfinished(s, p, "the file is quarantined");
      yield* documentRecords.update(
        s,
        doc.id,
        undefined,
        { status: "quarantined" },
        { action: "quarantined", eventData: { version_number: p.version_number } },
      );
      return { outcome: "quarantined" };
    }
    yield* proceed(s, doc, p, step);
    return { outcome: outcome.status };
  });
}

async function versionBytes(rt: PlatformRuntime, version: VersionRow): Promise<Uint8Array> {
  const bytes = await rt.storage.get(version.storage_key);
  if (!bytes) throw new PermanentStepError(`the stored file of version ${version.version_number} is missing`);
  return bytes;
}

/** Marks the version's unfinished steps (or the one step) skipped, saying why. */
function skipUnfinished(s: TxScope, p: StepPayload, why: string, step?: ProcessingStep): Work<void> {
  return run(
    s.tx
      .update(stepsTable)
      .set({ status: "skipped", message: why, finished_at: s.now, updated_at: s.now })
      .where(
        and(
          eq(stepsTable.document_id, p.document_id),
          eq(stepsTable.version_number, p.version_number),
          inArray(stepsTable.status, ["pending", "running"]),
          step ? eq(stepsTable.step, step) : undefined,
        ),
      ),
  );
}
