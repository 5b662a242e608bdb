import { and, eq, inArray, isNull, or } from "drizzle-orm";
import { claimPaymentEvidence, estimateBooks, insurancePlans } from "@db/tenant/insurance";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import type { TxScope } from "@/platform/records/context";
import type { ClaimPaymentRow, SplitToPost } from "./records";

// What carriers paid, as evidence for the estimate books that learn allowed
// fees from claims (docs/insurance/estimate-books.md, "Claim payment
// evidence"; docs/insurance/claims.md, "Learning allowed fees"): one row per
// posted split and active `allowed_from_claims` book whose scope holds the
// claim (the org, its carrier or its plan), named by the split (source_ref),
// so a void takes exactly its rows back. Returns the books that learned.

export function* recordEvidence(s: TxScope, payment: ClaimPaymentRow, splits: (SplitToPost & { split_id: string })[]): Work<string[]> {
  const books = yield* all<{ id: string; scope_type: string; carrier_id: string | null; insurance_plan_id: string | null }>(
    s.tx
      .select({
        id: estimateBooks.id,
        scope_type: estimateBooks.scope_type,
        carrier_id: estimateBooks.carrier_id,
        insurance_plan_id: estimateBooks.insurance_plan_id,
      })
      .from(estimateBooks)
      .where(and(eq(estimateBooks.rule_type, "allowed_from_claims"), eq(estimateBooks.status, "active"), isNull(estimateBooks.deleted_at))),
  );
  if (!books.length) return [];
  const learned = new Set<string>();
  const groups = new Map<string, string | null>();
  const rows = [];
  for (const x of splits) {
    // a denial or a line without an allowed amount says nothing about what the carrier allows
    if (x.allowed === null || x.procedure.status === "void") continue;
    if (!groups.has(x.claim.plan_id))
      groups.set(
        x.claim.plan_id,
        (yield* get<{ g: string | null }>(s.tx.select({ g: insurancePlans.group_number }).from(insurancePlans).where(eq(insurancePlans.id, x.claim.plan_id))))
          ?.g ?? null,
      );
    for (const b of books) {
      const inScope =
        b.scope_type === "tenant" ||
        (b.scope_type === "carrier" && b.carrier_id === x.claim.carrier_id) ||
        (b.scope_type === "plan" && b.insurance_plan_id === x.claim.plan_id);
      if (!inScope) continue;
      learned.add(b.id);
      rows.push({
        id: newId(),
        estimate_book_id: b.id,
        procedure_code_id: x.procedure.procedure_code_id,
        carrier_id: x.claim.carrier_id,
        group_number: groups.get(x.claim.plan_id) ?? null,
        fee_billed_cents: x.procedure.fee_billed_cents,
        allowed_cents: x.allowed,
        paid_cents: x.paid,
        date_paid: payment.payment_date,
        source_ref: x.split_id,
        created_at: s.now,
      });
    }
  }
  if (rows.length) yield* run(s.tx.insert(claimPaymentEvidence).values(rows));
  return [...learned];
}

/** A voided payment's evidence taken back (its splits no longer stand); returns the books that had learned from it. */
export function* forgetEvidence(s: TxScope, splitIds: string[]): Work<string[]> {
  if (!splitIds.length) return [];
  const E = claimPaymentEvidence;
  const rows = yield* all<{ book: string }>(s.tx.select({ book: E.estimate_book_id }).from(E).where(inArray(E.source_ref, splitIds)));
  if (rows.length) yield* run(s.tx.delete(E).where(or(inArray(E.source_ref, splitIds))));
  return [...new Set(rows.map((r) => r.book))];
}
