import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { claimPaymentSplits, claimPayments, claimProcedures, claims } from "@db/tenant/claims";
import { insuranceCarriers, patientPlans } from "@db/tenant/insurance";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { announce } from "@/platform/records/moments";
import { queueJob } from "@/platform/queue/enqueue";
import { defineResource } from "@/platform/records/resource";
import { estimatesRecompute } from "@/domains/insurance/estimates/recompute.job";
import { estimateBooksLearn } from "@/domains/insurance/estimate-books/learn.job";
import { claimPaymentPosted, claimPaymentVoided, type InsuranceLedgerLine } from "./moments";
import { claimRecords, type ClaimPaymentRow, type ClaimProcedureRow, type ClaimRow, type SplitRow, type SplitToPost } from "./records";

export type { ClaimPaymentRow, SplitToPost };
import { moveClaim } from "./service";
import { forgetEvidence, recordEvidence } from "./evidence";

// Posting a carrier's payment (docs/insurance/claims.md, "Posting"): the one
// path an ERA and a paper EOB share. Each split says, for one claim
// procedure, what was paid, allowed, written off and applied to the
// deductible; the claim procedure's figures are rewritten from its standing
// splits, the claim is received, and the patient account posts the money
// (moment claim_payment.posted, in this write). A void adds reversing splits
// and announces claim_payment.voided. Posting one payment's split of a claim
// procedure twice adds nothing (a unique index), so a retried posting is safe.

export const claimPaymentRecords = defineResource<ClaimPaymentRow, ClaimPaymentRow>({
  table: claimPayments,
  name: "claim_payment",
  label: "Claim payment",
  serialize: (r) => r,
  eventFields: { stripIdSuffix: true },
  // a claim payment is posted when it is made: clients listen for claim_payment.posted
  eventAliases: { created: ["posted"] },
});

/** What is still open on a claim procedure: its fee less what the primary settled and what this plan's payments settled. */
export const openOf = (p: ClaimProcedureRow) => p.fee_billed_cents - p.prior_paid_cents - p.paid_cents - p.write_off_cents;

/** Rewrite the claim procedures' figures from their standing splits (reversed ones and their reversals cancel out). */
function* refreshAnswers(s: TxScope, claimProcedureIds: string[]): Work<void> {
  const splits = yield* all<SplitRow>(
    s.tx.select().from(claimPaymentSplits).where(inArray(claimPaymentSplits.claim_procedure_id, claimProcedureIds)).orderBy(asc(claimPaymentSplits.id)),
  );
  const reversed = new Set(splits.filter((x) => x.reverses_id).map((x) => x.reverses_id!));
  for (const id of claimProcedureIds) {
    const standing = splits.filter((x) => x.claim_procedure_id === id && !x.reverses_id && !reversed.has(x.id));
    const sum = (f: (x: SplitRow) => number) => standing.reduce((n, x) => n + f(x), 0);
    const remarks = [...new Set(standing.flatMap((x) => x.remark_codes))];
    const paid = sum((x) => x.paid_cents);
    const allowed = standing.findLast((x) => x.allowed_cents !== null)?.allowed_cents ?? null;
    yield* run(
      s.tx
        .update(claimProcedures)
        .set({
          answered: standing.length > 0,
          paid_cents: paid,
          write_off_cents: sum((x) => x.write_off_cents),
          deductible_cents: sum((x) => x.deductible_cents),
          allowed_cents: allowed,
          remark_codes: remarks,
          // paid nothing, with the carrier's reasons: a denial
          status: !standing.length ? "estimate" : paid === 0 && remarks.length ? "denied" : "received",
          updated_at: s.now,
        })
        .where(eq(claimProcedures.id, id)),
    );
  }
}

/** The procedures' provider and location, as the ledger credits them. */
function* chartFacts(s: TxScope, procedureIds: string[]) {
  const rows = yield* all<{ id: string; provider_id: string | null; location_id: string | null }>(
    s.tx
      .select({ id: chartedProcedures.id, provider_id: chartedProcedures.provider_id, location_id: chartedProcedures.location_id })
      .from(chartedProcedures)
      .where(inArray(chartedProcedures.id, procedureIds)),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

function* carrierName(s: TxScope, carrierId: string): Work<string> {
  return (
    (yield* get<{ name: string }>(s.tx.select({ name: insuranceCarriers.carrier_name }).from(insuranceCarriers).where(eq(insuranceCarriers.id, carrierId))))
      ?.name ?? "Insurance"
  );
}

/** The patient has an active plan after this claim's: the claim, once received, is ready for the next one. */
function* hasNextPlan(s: TxScope, claim: ClaimRow): Work<boolean> {
  if (claim.claim_type === "preauth") return false;
  const next = yield* get<{ id: string }>(
    s.tx
      .select({ id: patientPlans.id })
      .from(patientPlans)
      .where(
        and(
          eq(patientPlans.patient_id, claim.patient_id),
          gt(patientPlans.ordinal, claim.ordinal),
          eq(patientPlans.is_active, true),
          isNull(patientPlans.deleted_at),
        ),
      ),
  );
  return !!next;
}

/**
 * Post a payment's splits: each split once (a split this payment already
 * posted for the claim procedure is skipped), the figures rewritten, sent
 * claims received, the money announced to the account, the patients'
 * estimates queued for recomputation (benefits used changed) and what was
 * paid recorded as evidence for allowed fees.
 */
export function* postSplits(s: TxScope, payment: ClaimPaymentRow, splits: SplitToPost[], after?: FollowUps): Work<{ posted: number }> {
  if (!splits.length) return { posted: 0 };
  const already = new Set(
    (yield* all<{ id: string }>(
      s.tx
        .select({ id: claimPaymentSplits.claim_procedure_id })
        .from(claimPaymentSplits)
        .where(and(eq(claimPaymentSplits.claim_payment_id, payment.id), isNull(claimPaymentSplits.reverses_id))),
    )).map((r) => r.id),
  );
  const fresh = splits.filter((x) => !already.has(x.procedure.id));
  if (!fresh.length) return { posted: 0 };
  const facts = yield* chartFacts(
    s,
    fresh.map((x) => x.procedure.procedure_id),
  );
  const carrier = yield* carrierName(s, payment.carrier_id);
  const lines: InsuranceLedgerLine[] = [];
  const rows = fresh.map((x) => {
    const paidEntry = x.paid ? newId() : null;
    const writeOffEntry = x.write_off ? newId() : null;
    const f = facts.get(x.procedure.procedure_id);
    lines.push({
      patient_id: x.claim.patient_id,
      claim_id: x.claim.id,
      claim_number: x.claim.claim_number,
      carrier_name: carrier,
      procedure_id: x.procedure.procedure_id,
      procedure_code: x.procedure.procedure_code,
      provider_id: f?.provider_id ?? null,
      location_id: f?.location_id ?? null,
      entry_date: payment.payment_date,
      paid: paidEntry ? { entry_id: paidEntry, cents: x.paid, reverses_entry_id: null } : null,
      write_off: writeOffEntry ? { entry_id: writeOffEntry, cents: x.write_off, reverses_entry_id: null } : null,
    });
    return {
      id: newId(),
      claim_payment_id: payment.id,
      claim_id: x.claim.id,
      claim_procedure_id: x.procedure.id,
      procedure_id: x.procedure.procedure_id,
      patient_id: x.claim.patient_id,
      paid_cents: x.paid,
      allowed_cents: x.allowed,
      write_off_cents: x.write_off,
      deductible_cents: x.deductible,
      patient_responsibility_cents: openOf(x.procedure) - x.paid - x.write_off,
      remark_codes: x.remark_codes,
      payment_entry_id: paidEntry,
      write_off_entry_id: writeOffEntry,
      reverses_id: null,
      created_at: s.now,
    };
  });
  yield* run(s.tx.insert(claimPaymentSplits).values(rows));
  yield* refreshAnswers(
    s,
    fresh.map((x) => x.procedure.id),
  );
  const claimIds = [...new Set(fresh.map((x) => x.claim.id))];
  for (const id of claimIds) {
    const claim = yield* claimRecords.require(s.tx, id);
    if (claim.status === "sent") yield* moveClaim(s, claim, "received", { date: payment.payment_date, secondaryReady: yield* hasNextPlan(s, claim) });
  }
  yield* announce(s, claimPaymentPosted, { claim_payment_id: payment.id, lines });
  const f = after ?? followUps();
  for (const x of fresh) f.patients.add(x.claim.patient_id);
  const learned = yield* recordEvidence(
    s,
    payment,
    fresh.map((x, i) => ({ ...x, split_id: rows[i]!.id })),
  );
  for (const b of learned) f.books.add(b);
  if (!after) queueFollowUps(s, f);
  return { posted: fresh.length };
}

/**
 * Void a payment's standing splits: a reversing split for each (its amounts
 * negated), the figures rewritten, the ledger entries reversed (dated
 * `today`), and a claim left with no answer back to sent.
 */
export function* reverseSplits(s: TxScope, payment: ClaimPaymentRow, today: string): Work<void> {
  const splits = yield* all<SplitRow>(
    s.tx.select().from(claimPaymentSplits).where(eq(claimPaymentSplits.claim_payment_id, payment.id)).orderBy(asc(claimPaymentSplits.id)),
  );
  const reversed = new Set(splits.filter((x) => x.reverses_id).map((x) => x.reverses_id!));
  const standing = splits.filter((x) => !x.reverses_id && !reversed.has(x.id));
  if (!standing.length) return;
  const cps = yield* all<ClaimProcedureRow>(
    s.tx
      .select()
      .from(claimProcedures)
      .where(
        inArray(
          claimProcedures.id,
          standing.map((x) => x.claim_procedure_id),
        ),
      ),
  );
  const byId = new Map(cps.map((c) => [c.id, c]));
  const claimRows = new Map<string, ClaimRow>();
  for (const id of new Set(standing.map((x) => x.claim_id))) claimRows.set(id, yield* claimRecords.require(s.tx, id));
  const facts = yield* chartFacts(
    s,
    standing.map((x) => x.procedure_id),
  );
  const carrier = yield* carrierName(s, payment.carrier_id);
  const lines: InsuranceLedgerLine[] = standing.map((x) => {
    const claim = claimRows.get(x.claim_id)!;
    const f = facts.get(x.procedure_id);
    return {
      patient_id: x.patient_id,
      claim_id: x.claim_id,
      claim_number: claim.claim_number,
      carrier_name: carrier,
      procedure_id: x.procedure_id,
      procedure_code: byId.get(x.claim_procedure_id)?.procedure_code ?? "",
      provider_id: f?.provider_id ?? null,
      location_id: f?.location_id ?? null,
      entry_date: today,
      paid: x.payment_entry_id ? { entry_id: newId(), cents: -x.paid_cents, reverses_entry_id: x.payment_entry_id } : null,
      write_off: x.write_off_entry_id ? { entry_id: newId(), cents: -x.write_off_cents, reverses_entry_id: x.write_off_entry_id } : null,
    };
  });
  yield* run(
    s.tx.insert(claimPaymentSplits).values(
      standing.map((x, i) => ({
        ...x,
        id: newId(),
        paid_cents: -x.paid_cents,
        allowed_cents: x.allowed_cents === null ? null : -x.allowed_cents,
        write_off_cents: -x.write_off_cents,
        deductible_cents: -x.deductible_cents,
        patient_responsibility_cents: -x.patient_responsibility_cents,
        payment_entry_id: lines[i]!.paid?.entry_id ?? null,
        write_off_entry_id: lines[i]!.write_off?.entry_id ?? null,
        reverses_id: x.id,
        created_at: s.now,
      })),
    ),
  );
  yield* refreshAnswers(s, [...byId.keys()]);
  for (const claim of claimRows.values()) {
    const left = yield* get<{ id: string }>(
      s.tx
        .select({ id: claimProcedures.id })
        .from(claimProcedures)
        .where(and(eq(claimProcedures.claim_id, claim.id), eq(claimProcedures.answered, true))),
    );
    if (!left && claim.status === "received") yield* reopenClaim(s, claim);
  }
  yield* announce(s, claimPaymentVoided, { claim_payment_id: payment.id, lines });
  const forgotten = yield* forgetEvidence(
    s,
    standing.map((x) => x.id),
  );
  queueFollowUps(s, { patients: new Set(standing.map((x) => x.patient_id)), books: new Set(forgotten) });
}

/**
 * What a posting leaves to jobs after its commit: the patients whose estimates
 * are stale (benefits used changed) and the books whose evidence changed. A
 * write that posts many claims (an ERA's chunk) collects them and queues each
 * job once.
 */
export type FollowUps = { patients: Set<string>; books: Set<string> };
export const followUps = (): FollowUps => ({ patients: new Set(), books: new Set() });

export function queueFollowUps(s: TxScope, f: FollowUps): void {
  if (f.patients.size) queueJob(s, estimatesRecompute, { patient_ids: [...f.patients] });
  if (f.books.size) queueJob(s, estimateBooksLearn, { book_ids: [...f.books] });
}

/** A received claim whose every answer was voided is waiting for the carrier again: back to sent. */
function* reopenClaim(s: TxScope, claim: ClaimRow): Work<void> {
  yield* claimRecords.update(
    s,
    claim.id,
    claim.version,
    { status: "sent", date_received: null, secondary_ready: false },
    { action: "status_changed", eventData: { patient_id: claim.patient_id, from_status: "received", status: "sent" }, changedFields: false },
  );
}

/** The claims a payment names, by id (for callers that judge splits). */
export function* claimsById(db: TenantDb, ids: string[]): Work<Map<string, ClaimRow>> {
  if (!ids.length) return new Map();
  return new Map((yield* all<ClaimRow>(db.select().from(claims).where(inArray(claims.id, ids)))).map((c) => [c.id, c]));
}
