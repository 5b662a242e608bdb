import { and, desc, eq, gte, isNotNull, sql } from "drizzle-orm";
import { adjustmentLogs, allowedFees, claimPaymentEvidence, estimateBookRuns } from "@db/tenant/insurance";
import { audit } from "@/platform/audit/audit";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import { formatCents } from "@/platform/money";
import type { OrgContext, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { withTransaction } from "@/platform/records/transaction";
import { addDays, todayUtc } from "@/platform/time/dates";
import { queueRecompute } from "@/domains/insurance/estimates/recompute.job";
import { bookRecords } from "./books";

// Learning allowed fees from claims (docs/insurance/estimate-books.md,
// "Learning from claims"): a run of an active `allowed_from_claims` book reads
// its evidence (what carriers allowed on posted claim payments, kept per book
// and scope by the claims domain) of the last two years and, per procedure
// code, takes the median allowed amount. Where that differs from the book's
// current fee for the code, a new fee is written (sample_count, confidence,
// the run) with an adjustment log saying why; fees are never edited. The
// estimates that use the book are then stale and recomputed by their job.

/** Evidence older than this says little about today's fee schedules. */
export const LEARNING_WINDOW_DAYS = 730;
/** Samples at which a learned fee is fully trusted (confidence 1). */
export const FULL_CONFIDENCE_SAMPLES = 10;

const SCOPE_TYPE: Record<string, string> = { plan: "insurance_plan", carrier: "insurance_carrier", tenant: "insurance_carrier" };

/** The median of sorted cents (the mean of the two middle ones, rounded half up, for an even count). */
export function medianCents(sorted: number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.floor((sorted[mid - 1]! + sorted[mid]! + 1) / 2);
}

function* learnBook(s: TxScope, bookId: string): Work<number> {
  const book = yield* bookRecords.find(s.tx, bookId);
  if (!book || book.rule_type !== "allowed_from_claims" || book.status !== "active") return 0;
  const E = claimPaymentEvidence;
  const evidence = yield* all<{ code: string; allowed: number }>(
    s.tx
      .select({ code: E.procedure_code_id, allowed: sql<number>`${E.allowed_cents}` })
      .from(E)
      .where(and(eq(E.estimate_book_id, book.id), isNotNull(E.allowed_cents), gte(E.date_paid, addDays(todayUtc(), -LEARNING_WINDOW_DAYS)))),
  );
  const byCode = new Map<string, number[]>();
  for (const e of evidence) byCode.set(e.code, [...(byCode.get(e.code) ?? []), e.allowed]);
  const runId = newId();
  let written = 0;
  for (const [code, values] of [...byCode].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const fee = medianCents(values.sort((a, b) => a - b));
    const current = yield* get<{ cents: number }>(
      s.tx
        .select({ cents: allowedFees.allowed_fee_cents })
        .from(allowedFees)
        .where(and(eq(allowedFees.estimate_book_id, book.id), eq(allowedFees.procedure_code_id, code)))
        .orderBy(desc(allowedFees.computed_at), desc(allowedFees.id)),
    );
    if (current?.cents === fee) continue;
    if (!written)
      yield* run(
        s.tx
          .insert(estimateBookRuns)
          .values({ id: runId, estimate_book_id: book.id, status: "completed", started_at: s.now, finished_at: s.now, created_at: s.now, updated_at: s.now }),
      );
    const row = {
      id: newId(),
      estimate_book_id: book.id,
      procedure_code_id: code,
      estimate_book_rule_step_id: null,
      estimate_book_run_id: runId,
      allowed_fee_cents: fee,
      computed_at: s.now,
      confidence: Math.min(1, Math.round((values.length / FULL_CONFIDENCE_SAMPLES) * 100) / 100),
      expires_at: null,
      group_number: null,
      resolution_scope_type: SCOPE_TYPE[book.scope_type] ?? "insurance_carrier",
      resolution_scope_identifier: null,
      sample_count: values.length,
      created_at: s.now,
      updated_at: s.now,
    };
    yield* run(s.tx.insert(allowedFees).values(row));
    yield* audit(s, { action: "allowed_fee.created", resource_type: "allowed_fee", resource_id: row.id, before: null, after: row });
    emit(s, {
      type: "allowed_fee.created",
      resource_type: "allowed_fee",
      resource_id: row.id,
      data: { id: row.id, estimate_book_id: book.id, procedure_code_id: code, resolution_scope_type: row.resolution_scope_type },
    });
    yield* run(
      s.tx.insert(adjustmentLogs).values({
        id: newId(),
        estimate_book_id: book.id,
        estimate_book_run_id: runId,
        procedure_code_id: code,
        change_reason: "recompute",
        description: `Learned from ${values.length} claim payment${values.length === 1 ? "" : "s"}: the median allowed amount is ${formatCents(fee)}`,
        new_allowed_fee_cents: fee,
        previous_allowed_fee_cents: current?.cents ?? null,
        delta_allowed_fee_cents: current ? fee - current.cents : null,
        insurance_claim_procedure_identifier: null,
        insurance_procedure_estimate_id: null,
        created_at: s.now,
      }),
    );
    written++;
  }
  return written;
}

/** One write per book; the estimates are queued for recomputation when any fee changed. */
export async function learnAllowedFees(ctx: OrgContext, bookIds: string[]): Promise<number> {
  let total = 0;
  for (const id of new Set(bookIds))
    total += await withTransaction(ctx, function* (s) {
      const n = yield* learnBook(s, id);
      if (n) queueRecompute(s, { all: true });
      return n;
    });
  return total;
}
