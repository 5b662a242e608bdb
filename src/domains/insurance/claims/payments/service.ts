import { and, desc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import { claimPaymentSplits, claimPayments, claimProcedures } from "@db/tenant/claims";
import { insuranceCarriers } from "@db/tenant/insurance";
import { all, get, type Work } from "@/platform/db/work";
import { NotFound, ValidationFailed, invalid, type ValidationIssue } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { PATIENT_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref } from "@/platform/records/refs";
import { pageFrom } from "@/platform/records/paging";
import { checkDateRange } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { todayUtc } from "@/platform/time/dates";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import { claimPaymentRecords, claimsById, openOf, postSplits, reverseSplits, type ClaimPaymentRow, type SplitToPost } from "@/domains/insurance/claims/posting";
import type { ClaimProcedureRow, SplitRow } from "@/domains/insurance/claims/records";
import type { ClaimPayment, ClaimPaymentCreate, ClaimPaymentListQuery, ClaimPaymentVoid } from "./schemas";

// Claim payments entered by hand from a paper EOB (docs/insurance/claims.md,
// "Claim payments"): judged, then posted through the same path as an ERA's
// (posting.ts). A void reverses every split with entries; nothing is deleted.

function* serializePayments(db: TenantDb, rows: ClaimPaymentRow[]): Work<ClaimPayment[]> {
  const ids = rows.map((r) => r.id);
  const splits = ids.length
    ? yield* all<SplitRow & { claim_number: string; procedure_code: string }>(
        db
          .select({
            ...splitColumns,
            claim_number: sql<string>`(SELECT claim_number FROM claims WHERE claims.id = ${claimPaymentSplits.claim_id})`,
            procedure_code: claimProcedures.procedure_code,
          })
          .from(claimPaymentSplits)
          .innerJoin(claimProcedures, eq(claimProcedures.id, claimPaymentSplits.claim_procedure_id))
          .where(inArray(claimPaymentSplits.claim_payment_id, ids))
          .orderBy(claimPaymentSplits.id),
      )
    : [];
  const n = yield* namesOfEach(db, {
    carriers: [CARRIER_NAMES, idsOf(rows, (r) => r.carrier_id)],
    patients: [PATIENT_NAMES, idsOf(splits, (x) => x.patient_id)],
  });
  return rows.map((r) => ({
    id: r.id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    carrier: ref(r.carrier_id, n.carriers),
    payment_date: r.payment_date,
    amount: formatCents(r.amount_cents)!,
    check_number: r.check_number,
    payment_type: r.payment_type as ClaimPayment["payment_type"],
    era_uuid: r.era_id,
    note: r.note,
    status: r.status as ClaimPayment["status"],
    voided_at: r.voided_at,
    void_reason: r.void_reason,
    splits: splits
      .filter((x) => x.claim_payment_id === r.id)
      .map((x) => ({
        id: x.id,
        claim: { uuid: x.claim_id, name: x.claim_number },
        procedure: { uuid: x.procedure_id, name: x.procedure_code },
        patient: ref(x.patient_id, n.patients),
        paid: formatCents(x.paid_cents)!,
        allowed: formatCents(x.allowed_cents),
        write_off: formatCents(x.write_off_cents)!,
        deductible: formatCents(x.deductible_cents)!,
        patient_responsibility: formatCents(x.patient_responsibility_cents)!,
        remark_codes: x.remark_codes,
        reverses_uuid: x.reverses_id,
      })),
  }));
}

const S = claimPaymentSplits;
const splitColumns = {
  id: S.id,
  claim_payment_id: S.claim_payment_id,
  claim_id: S.claim_id,
  claim_procedure_id: S.claim_procedure_id,
  procedure_id: S.procedure_id,
  patient_id: S.patient_id,
  paid_cents: S.paid_cents,
  allowed_cents: S.allowed_cents,
  write_off_cents: S.write_off_cents,
  deductible_cents: S.deductible_cents,
  patient_responsibility_cents: S.patient_responsibility_cents,
  remark_codes: S.remark_codes,
  payment_entry_id: S.payment_entry_id,
  write_off_entry_id: S.write_off_entry_id,
  reverses_id: S.reverses_id,
  created_at: S.created_at,
};

/**
 * The splits as they will post: 404 for a missing claim; then one 422 naming
 * each split whose claim is another carrier's, a pre-authorization, not yet
 * sent, or void; whose procedure is not on the claim (or is left out on a
 * claim of several); given twice; or whose paid and write-off exceed what is
 * open on the procedure.
 */
function* judgeSplits(db: TenantDb, carrierId: string, input: ClaimPaymentCreate["splits"]): Work<SplitToPost[]> {
  const claimRows = yield* claimsById(db, [...new Set(input.map((x) => x.claim_uuid))]);
  for (const x of input) if (!claimRows.has(x.claim_uuid)) throw new NotFound("Claim");
  const cps = yield* all<ClaimProcedureRow>(
    db
      .select()
      .from(claimProcedures)
      .where(inArray(claimProcedures.claim_id, [...claimRows.keys()])),
  );
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  const out: SplitToPost[] = [];
  input.forEach((x, i) => {
    const loc = ["body", "splits", i];
    const claim = claimRows.get(x.claim_uuid)!;
    const on = cps.filter((c) => c.claim_id === claim.id);
    const problem = (field: string, msg: string) => issues.push({ loc: [...loc, field], msg, type: "value_error" });
    if (claim.carrier_id !== carrierId) return problem("claim_uuid", `Claim ${claim.claim_number} bills another carrier`);
    if (claim.claim_type === "preauth") return problem("claim_uuid", `Claim ${claim.claim_number} is a pre-authorization: it takes no payment`);
    if (!["sent", "received"].includes(claim.status))
      return problem("claim_uuid", `Claim ${claim.claim_number} is ${claim.status}: only sent or received claims take payments`);
    const cp = x.procedure_uuid ? on.find((c) => c.procedure_id === x.procedure_uuid) : on.length === 1 ? on[0] : undefined;
    if (!cp)
      return problem(
        "procedure_uuid",
        x.procedure_uuid ? `The procedure is not on claim ${claim.claim_number}` : `Claim ${claim.claim_number} has ${on.length} procedures: say which one`,
      );
    if (seen.has(cp.id)) return problem("procedure_uuid", `Procedure ${cp.procedure_code} of claim ${claim.claim_number} is split twice`);
    seen.add(cp.id);
    const paid = centsFromNumber(x.paid);
    const writeOff = centsFromNumber(x.write_off ?? 0);
    if (paid + writeOff > openOf(cp))
      return problem("paid", `Paid and write-off (${formatCents(paid + writeOff)}) exceed what is open on ${cp.procedure_code} (${formatCents(openOf(cp))})`);
    const deductible = centsFromNumber(x.deductible ?? 0);
    if (deductible > cp.fee_billed_cents) return problem("deductible", `More than ${cp.procedure_code}'s fee`);
    out.push({
      claim,
      procedure: cp,
      paid,
      allowed: x.allowed === null || x.allowed === undefined ? null : centsFromNumber(x.allowed),
      write_off: writeOff,
      deductible,
      remark_codes: x.remark_codes ?? [],
    });
  });
  if (issues.length) throw new ValidationFailed(issues);
  return out;
}

/** POST {P}/insurance/claim-payments */
export async function createClaimPayment(ctx: OrgContext, input: ClaimPaymentCreate): Promise<ClaimPayment> {
  return withTransaction(ctx, function* (s) {
    const carrier = yield* get<{ id: string }>(
      s.tx.select({ id: insuranceCarriers.id }).from(insuranceCarriers).where(eq(insuranceCarriers.id, input.carrier_uuid)),
    );
    if (!carrier) throw new NotFound("Insurance carrier");
    if (input.payment_date > todayUtc()) throw invalid(["body", "payment_date"], "Cannot be in the future");
    const splits = yield* judgeSplits(s.tx, carrier.id, input.splits);
    const row = yield* claimPaymentRecords.create(
      s,
      {
        carrier_id: carrier.id,
        payment_date: input.payment_date,
        amount_cents: centsFromNumber(input.amount),
        check_number: input.check_number ?? null,
        payment_type: input.payment_type ?? "check",
        era_id: null,
        note: input.note ?? null,
        status: "active",
        voided_at: null,
        void_reason: null,
      },
      { carrier_id: carrier.id, claim_ids: [...new Set(splits.map((x) => x.claim.id))] },
    );
    yield* postSplits(s, row, splits);
    return (yield* serializePayments(s.tx, [row]))[0]!;
  });
}

/** POST {P}/insurance/claim-payments/{id}/void */
export async function voidClaimPayment(ctx: OrgContext, id: string, input: ClaimPaymentVoid): Promise<ClaimPayment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* claimPaymentRecords.requireCurrent(s.tx, id, input.base_version);
    if (row.status === "voided") throw invalid(["path", "claim_payment_uuid"], "The claim payment is voided", "value_error", "payment_voided");
    yield* reverseSplits(s, row, todayUtc());
    const voided = yield* claimPaymentRecords.update(
      s,
      row.id,
      row.version,
      { status: "voided", voided_at: s.now, void_reason: input.reason ?? null },
      { action: "voided" },
    );
    return (yield* serializePayments(s.tx, [voided]))[0]!;
  });
}

export async function getClaimPayment(ctx: OrgContext, id: string): Promise<ClaimPayment> {
  return ctx.db.read(function* (db) {
    return (yield* serializePayments(db, [yield* claimPaymentRecords.require(db, id)]))[0]!;
  });
}

/** GET {P}/insurance/claim-payments: newest payment date first. */
export async function listClaimPayments(ctx: OrgContext, q: ClaimPaymentListQuery) {
  checkDateRange(q);
  const P = claimPayments;
  const where = and(
    q.carrier_uuid ? eq(P.carrier_id, q.carrier_uuid) : undefined,
    q.status ? eq(P.status, q.status) : undefined,
    q.date_from ? gte(P.payment_date, q.date_from) : undefined,
    q.date_to ? lte(P.payment_date, q.date_to) : undefined,
    q.claim_uuid
      ? (sql`EXISTS (SELECT 1 FROM claim_payment_splits x WHERE x.claim_payment_id = "claim_payments"."id" AND x.claim_id = ${q.claim_uuid})` as SQL)
      : undefined,
  );
  return ctx.db.read(function* (db) {
    const page = yield* pageFrom<ClaimPaymentRow>(
      q,
      db.select({ n: sql<number>`count(*)` }).from(P).where(where),
      db.select().from(P).where(where).orderBy(desc(P.payment_date), desc(P.id)),
    );
    return { ...page, items: yield* serializePayments(db, page.items) };
  });
}
