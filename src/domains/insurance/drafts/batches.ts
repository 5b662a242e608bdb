import { and, count, eq, sql } from "drizzle-orm";
import { insuranceDrafts } from "@db/tenant/insurance";
import { all, get, type Work } from "@/platform/db/work";
import type { OrgContext, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { withTransaction } from "@/platform/records/transaction";
import { inPatientContext } from "@/domains/insurance/patient-plans/records";
import { MatchMemo, matchDraft, type MatchStatus } from "./match";
import { draftRecords, type DraftRow } from "./records";

// The matching job's work (drafts-match.handler.ts): an import's drafts not yet attempted, in
// batches, each batch matched and marked attempted in one write (docs/insurance/insurance-drafts.md).

/** Drafts matched per write: short enough for one writer on a local file, long enough to share lookups. */
export const MATCH_BATCH_SIZE = 500;

const t = insuranceDrafts;

export type BatchResult = { matched: number; pending: number; error: number; remaining: number };
export type ImportMatchResult = { drafts_matched: number; matched: number; pending: number; error: number; batches: number };

/** The unattempted drafts of an import (through the partial index insurance_drafts_unmatched_idx), oldest first. */
function unattempted(importId: string, patientId: string) {
  return and(sql`${t.match_attempted} = 0`, eq(t.import_id, importId), eq(t.patient_id, patientId));
}

/** Match one batch; null when nothing was left. */
function* matchBatch(s: TxScope, importId: string, patientId: string, size: number): Work<BatchResult | null> {
  const rows = yield* all<DraftRow>(s.tx.select().from(t).where(unattempted(importId, patientId)).orderBy(t.id).limit(size));
  if (!rows.length) return null;
  const memo = new MatchMemo();
  const counts: Record<MatchStatus, number> = { matched: 0, pending: 0, error: 0 };
  yield* inPatientContext(
    s,
    patientId,
    (function* () {
      for (const row of rows) {
        const outcome = yield* matchDraft(s.tx, row, memo);
        counts[outcome.review_status]++;
        yield* draftRecords.update(
          s,
          row.id,
          row.version,
          { ...outcome, match_attempted: true },
          { action: "matched", eventData: { review_status: outcome.review_status, import_id: importId } },
        );
      }
    })(),
  );
  const left = yield* get<{ n: number }>(s.tx.select({ n: count() }).from(t).where(unattempted(importId, patientId)));
  const remaining = left?.n ?? 0;
  if (remaining === 0) yield* importFinished(s, importId, patientId);
  return { ...counts, remaining };
}

/** The batch that leaves nothing to attempt tells the import's outcome once: how many drafts ended in each status. */
function* importFinished(s: TxScope, importId: string, patientId: string): Work<void> {
  const byStatus = yield* all<{ status: string; n: number }>(
    s.tx
      .select({ status: t.review_status, n: count() })
      .from(t)
      .where(and(eq(t.import_id, importId), eq(t.patient_id, patientId)))
      .groupBy(t.review_status),
  );
  const n = (status: string) => byStatus.find((b) => b.status === status)?.n ?? 0;
  yield* inPatientContext(
    s,
    patientId,
    (function* (): Work<void> {
      emit(s, {
        type: "insurance_draft_import.matched",
        resource_type: "insurance_draft_import",
        resource_id: importId,
        data: {
          import_id: importId,
          draft_count: byStatus.reduce((sum, b) => sum + b.n, 0),
          matched: n("matched"),
          pending: n("pending"),
          error: n("error"),
          converted: n("converted"),
          rejected: n("rejected"),
        },
      });
    })(),
  );
}

/**
 * Match what is left of an import, one write per batch, yielding to the event loop between
 * batches. `onBatch` runs after each batch has committed (the job logs there; tests stop there).
 */
export async function matchImportDrafts(
  ctx: OrgContext,
  importId: string,
  patientId: string,
  options: { batchSize?: number; onBatch?: (batch: BatchResult & { batch: number }) => void | Promise<void> } = {},
): Promise<ImportMatchResult> {
  const size = options.batchSize ?? MATCH_BATCH_SIZE;
  const total: ImportMatchResult = { drafts_matched: 0, matched: 0, pending: 0, error: 0, batches: 0 };
  for (;;) {
    const batch = await withTransaction(ctx, (s) => matchBatch(s, importId, patientId, size));
    if (!batch) break;
    total.batches++;
    total.matched += batch.matched;
    total.pending += batch.pending;
    total.error += batch.error;
    total.drafts_matched += batch.matched + batch.pending + batch.error;
    await options.onBatch?.({ ...batch, batch: total.batches });
    if (batch.remaining === 0) break;
    await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
  }
  return total;
}
