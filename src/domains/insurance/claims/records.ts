import { asc, inArray } from "drizzle-orm";
import { claimPaymentSplits, claimPayments, claimProcedures, claims } from "@db/tenant/claims";
import { all, type Work } from "@/platform/db/work";
import { formatCents } from "@/platform/money";
import type { TenantDb } from "@/platform/records/context";
import { PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import { PLAN_NAMES } from "@/domains/insurance/estimate-books/references";
import { SUBSCRIPTION_NAMES } from "@/domains/insurance/subscriptions/service";
import type { Claim, ClaimStatus, ClaimType } from "./schemas";

// The claim record and how it is answered (docs/insurance/claims.md): the row,
// its procedures, and what the carrier's payments said about each.

export type ClaimRow = typeof claims.$inferSelect;
export type ClaimProcedureRow = typeof claimProcedures.$inferSelect;
export type SplitRow = typeof claimPaymentSplits.$inferSelect;
export type ClaimPaymentRow = typeof claimPayments.$inferSelect;

/** One claim procedure's answer in a payment. `paid + write_off` never exceeds what is open on it (the callers check). */
export type SplitToPost = {
  claim: ClaimRow;
  procedure: ClaimProcedureRow;
  paid: number;
  allowed: number | null;
  write_off: number;
  deductible: number;
  remark_codes: string[];
};

const auditForm = (r: ClaimRow) => ({
  id: r.id,
  claim_number: r.claim_number,
  claim_type: r.claim_type,
  status: r.status,
  patient_id: r.patient_id,
  patient_plan_id: r.patient_plan_id,
  carrier_id: r.carrier_id,
  treating_provider_id: r.treating_provider_id,
  billing_provider_id: r.billing_provider_id,
  place_of_service: r.place_of_service,
  prior_authorization_number: r.prior_authorization_number,
  attachment_document_ids: r.attachment_document_ids,
  date_service: r.date_service,
  date_sent: r.date_sent,
  date_received: r.date_received,
  secondary_ready: r.secondary_ready,
  batch_id: r.batch_id,
  version: r.version,
});

export const claimRecords = defineResource<ClaimRow, ReturnType<typeof auditForm>>({
  table: claims,
  name: "claim",
  label: "Claim",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
  eventFields: { stripIdSuffix: true, rename: { claim_seq: null, attachment_document_ids: "attachment_document_uuids" } },
});

export function* proceduresOf(db: TenantDb, claimIds: string[]): Work<ClaimProcedureRow[]> {
  if (!claimIds.length) return [];
  return yield* all<ClaimProcedureRow>(
    db
      .select()
      .from(claimProcedures)
      .where(inArray(claimProcedures.claim_id, claimIds))
      .orderBy(asc(claimProcedures.claim_id), asc(claimProcedures.item_order)),
  );
}

/**
 * A claim procedure's figures: the carrier's answer once it gave one (the
 * standing splits' sums, kept on the row by every posting and void), else the
 * estimate. Answered: paid + write-off + patient portion = fee - prior paid.
 */
export function figuresOf(p: ClaimProcedureRow) {
  const open = p.fee_billed_cents - p.prior_paid_cents;
  const estimate = p.preauth_estimate_cents ?? p.insurance_estimate_cents;
  if (p.answered)
    return { estimate, deductible: p.deductible_cents, paid: p.paid_cents, write_off: p.write_off_cents, patient: open - p.paid_cents - p.write_off_cents };
  return { estimate, deductible: p.deductible_estimate_cents, paid: 0, write_off: 0, patient: Math.max(0, open - estimate - p.write_off_estimate_cents) };
}

const money = (c: number) => formatCents(c)!;

/** Claims as the API answers them: refs named, procedures with their figures, totals summed. */
export function* serializeClaims(db: TenantDb, rows: ClaimRow[]): Work<Claim[]> {
  const ids = rows.map((r) => r.id);
  const procs = yield* proceduresOf(db, ids);
  const primaries = rows.flatMap((r) => (r.primary_claim_id ? [r.primary_claim_id] : []));
  const primaryNumbers = primaries.length
    ? new Map(
        (yield* all<{ id: string; claim_number: string }>(
          db.select({ id: claims.id, claim_number: claims.claim_number }).from(claims).where(inArray(claims.id, primaries)),
        )).map((c) => [c.id, c.claim_number]),
      )
    : new Map<string, string>();
  const n = yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, idsOf(rows, (r) => r.patient_id)],
    providers: [PROVIDER_NAMES, [...idsOf(rows, (r) => r.treating_provider_id), ...idsOf(rows, (r) => r.billing_provider_id)]],
    carriers: [CARRIER_NAMES, idsOf(rows, (r) => r.carrier_id)],
    plans: [PLAN_NAMES, idsOf(rows, (r) => r.plan_id)],
    subscriptions: [SUBSCRIPTION_NAMES, idsOf(rows, (r) => r.subscription_id)],
  });
  const byClaim = new Map<string, ClaimProcedureRow[]>();
  for (const p of procs) byClaim.set(p.claim_id, [...(byClaim.get(p.claim_id) ?? []), p]);
  return rows.map((r) => {
    const list = byClaim.get(r.id) ?? [];
    const totals = { fee: 0, estimate: 0, deductible: 0, paid: 0, write_off: 0, patient: 0 };
    const procedures = list.map((p) => {
      const f = figuresOf(p);
      totals.fee += p.fee_billed_cents;
      totals.estimate += f.estimate;
      totals.deductible += f.deductible;
      totals.paid += f.paid;
      totals.write_off += f.write_off;
      totals.patient += f.patient;
      return {
        id: p.id,
        procedure: { uuid: p.procedure_id, name: p.procedure_code },
        procedure_code: p.procedure_code,
        tooth_number: p.tooth_number,
        surfaces: p.surfaces,
        date_service: p.date_service,
        fee_billed: money(p.fee_billed_cents),
        insurance_estimate: money(f.estimate),
        deductible_applied: money(f.deductible),
        allowed_amount: formatCents(p.allowed_cents),
        insurance_paid: money(f.paid),
        write_off: money(f.write_off),
        patient_portion: money(f.patient),
        prior_paid: money(p.prior_paid_cents),
        remark_codes: p.remark_codes,
        status: p.status as Claim["procedures"][number]["status"],
      };
    });
    return {
      id: r.id,
      version: r.version,
      created_at: r.created_at,
      updated_at: r.updated_at,
      claim_number: r.claim_number,
      claim_type: r.claim_type as ClaimType,
      status: r.status as ClaimStatus,
      patient: ref(r.patient_id, n.patients),
      patient_plan: { uuid: r.patient_plan_id, name: n.plans.get(r.plan_id) ?? null },
      subscription: ref(r.subscription_id, n.subscriptions),
      carrier: ref(r.carrier_id, n.carriers),
      plan: ref(r.plan_id, n.plans),
      ordinal: r.ordinal,
      treating_provider: ref(r.treating_provider_id, n.providers),
      billing_provider: ref(r.billing_provider_id, n.providers),
      place_of_service: r.place_of_service,
      prior_authorization_number: r.prior_authorization_number,
      note: r.note,
      attachment_document_uuids: r.attachment_document_ids,
      date_service: r.date_service,
      date_sent: r.date_sent,
      date_received: r.date_received,
      primary_claim: r.primary_claim_id ? { uuid: r.primary_claim_id, name: primaryNumbers.get(r.primary_claim_id) ?? null } : null,
      secondary_ready: r.secondary_ready,
      batch_uuid: r.batch_id,
      status_note: r.status_note,
      fee_billed: money(totals.fee),
      insurance_estimate: money(totals.estimate),
      deductible_applied: money(totals.deductible),
      insurance_paid: money(totals.paid),
      write_off: money(totals.write_off),
      patient_portion: money(totals.patient),
      procedures,
    };
  });
}
