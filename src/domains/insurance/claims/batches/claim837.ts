import { inArray } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { claims } from "@db/tenant/claims";
import { documents } from "@db/tenant/documents";
import { insuranceCarriers, insurancePlans, insuranceSubscriptions, patientPlans } from "@db/tenant/insurance";
import { patients } from "@db/tenant/patients";
import { locations, providers } from "@db/tenant/practice";
import { all, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import { proceduresOf, type ClaimProcedureRow, type ClaimRow } from "@/domains/insurance/claims/records";
import type { Claim837, ClaimType837, Line837, X12Address } from "@/domains/insurance/claims/x12/types";

// The claims of a batch as the 837D builder takes them (x12/types.ts):
// everything a claim row names (patient, subscriber, plan, carrier, patient
// plan, providers, location, primary claim, attachments) read in one pass per
// table, then mapped claim by claim. Pure reads: what cannot be mapped (a
// claim without a billing provider) is a problem of that claim, never a throw.

type PatientRow = typeof patients.$inferSelect;
type ProviderRow = typeof providers.$inferSelect;
type LocationRow = typeof locations.$inferSelect;
type CarrierRow = typeof insuranceCarriers.$inferSelect;

/**
 * PWK01 report type of an attached document, by its document_type
 * (docs/insurance/claims.md, "Attachments"): radiographs RB, periodontal
 * charts P6, photographs XP, models DA, clinical notes OB, reports DG,
 * referrals B4, the primary's EOB EB, the medical history P5; anything else
 * OZ (support data for claim).
 */
export const PWK_REPORT_TYPES: Readonly<Record<string, string>> = {
  bitewing: "RB",
  periapical: "RB",
  panoramic: "RB",
  cephalometric: "RB",
  cbct: "RB",
  periodontal_chart: "P6",
  intraoral_photo: "XP",
  extraoral_photo: "XP",
  smile_design_photo: "XP",
  lab_case_photos: "XP",
  digital_impression: "DA",
  progress_notes: "OB",
  specialist_report: "DG",
  referral_letter_incoming: "B4",
  referral_letter_outgoing: "B4",
  eob: "EB",
  medical_history: "P5",
};
export const PWK_DEFAULT = "OZ";

/** A claim mapped for the builder, or why it cannot be (a problem the builder would not name itself). */
export type Mapped = { claim: ClaimRow } & ({ x12: Claim837; problems?: undefined } | { x12?: undefined; problems: string[] });

const byId = <T extends { id: string }>(rows: T[]) => new Map(rows.map((r) => [r.id, r]));

function* rowsOf<T extends { id: string }>(db: TenantDb, table: any, ids: (string | null | undefined)[]): Work<Map<string, T>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  if (!wanted.length) return new Map();
  return byId(yield* all<T>(db.select().from(table).where(inArray(table.id, wanted))));
}

const responsibility = (ordinal: number): "P" | "S" | "T" => (ordinal <= 1 ? "P" : ordinal === 2 ? "S" : "T");

function gender(g: string | null): "F" | "M" | "U" {
  return g === "female" ? "F" : g === "male" ? "M" : "U";
}

function patientAddress(p: PatientRow): X12Address {
  return { line1: p.address_line1, line2: p.address_line2, city: p.city, state: p.state, zip: p.postal_code };
}

function locationAddress(l: LocationRow | undefined): X12Address {
  return { line1: l?.address_line1 ?? null, line2: l?.address_line2 ?? null, city: l?.city ?? null, state: l?.state ?? null, zip: l?.postal_code ?? null };
}

function carrierAddress(c: CarrierRow): X12Address {
  return { line1: c.address_line1, line2: c.address_line2, city: c.city, state: c.state, zip: c.zip_code };
}

const providerName = (p: ProviderRow) => (p.is_not_person ? p.last_name : [p.first_name, p.last_name].filter(Boolean).join(" "));

/** PAT01 of the patient plan's relationship: spouse 01, child 19, anything else G8. */
function relationshipCode(relationship: string): "01" | "19" | "G8" {
  return relationship === "spouse" ? "01" : relationship === "child" ? "19" : "G8";
}

/**
 * How the primary carrier adjusted a procedure, as the secondary's 2430 CAS
 * says it: the write-off as CO (the reason it gave, else 45: over the fee
 * schedule), the patient's share as PR-1 (its deductible) and PR-2 (the rest),
 * so paid + adjustments = the fee billed.
 */
function primaryAdjustments(p: ClaimProcedureRow): NonNullable<Line837["other_payer_adjustments"]> {
  const coReason = p.remark_codes.find((c) => c.startsWith("CO-"))?.slice(3) ?? "45";
  const patientShare = Math.max(0, p.fee_billed_cents - p.prior_paid_cents - p.paid_cents - p.write_off_cents);
  const deductible = Math.min(p.deductible_cents, patientShare);
  return [
    { group: "CO" as const, reason: coReason, amount_cents: p.write_off_cents },
    { group: "PR" as const, reason: "1", amount_cents: deductible },
    { group: "PR" as const, reason: "2", amount_cents: patientShare - deductible },
  ].filter((a) => a.amount_cents > 0);
}

/** SV304 area of a procedure charted by quadrant or arch. */
function areaOf(p: { quadrant: string | null; arch: string | null } | undefined): string | null {
  if (!p) return null;
  if (p.quadrant) return p.quadrant;
  if (p.arch === "upper") return "U";
  if (p.arch === "lower") return "L";
  return null;
}

/** The claims as Claim837 (lines in item order), in the order given. */
export function* claims837(db: TenantDb, rows: ClaimRow[]): Work<Mapped[]> {
  if (!rows.length) return [];
  const primaries = yield* rowsOf<ClaimRow>(
    db,
    claims,
    rows.map((r) => r.primary_claim_id),
  );
  const all837 = [...rows, ...primaries.values()];
  const procs = yield* proceduresOf(
    db,
    rows.map((r) => r.id),
  );
  const primaryProcs = yield* proceduresOf(db, [...primaries.keys()]);
  const charted = yield* rowsOf<typeof chartedProcedures.$inferSelect>(
    db,
    chartedProcedures,
    procs.map((p) => p.procedure_id),
  );
  const subscriptions = yield* rowsOf<typeof insuranceSubscriptions.$inferSelect>(
    db,
    insuranceSubscriptions,
    all837.map((r) => r.subscription_id),
  );
  const people = yield* rowsOf<PatientRow>(db, patients, [
    ...rows.map((r) => r.patient_id),
    ...[...subscriptions.values()].map((s) => s.subscriber_patient_id),
  ]);
  const plans = yield* rowsOf<typeof insurancePlans.$inferSelect>(
    db,
    insurancePlans,
    rows.map((r) => r.plan_id),
  );
  const carriers = yield* rowsOf<CarrierRow>(
    db,
    insuranceCarriers,
    all837.map((r) => r.carrier_id),
  );
  const patientPlanRows = yield* rowsOf<typeof patientPlans.$inferSelect>(
    db,
    patientPlans,
    all837.map((r) => r.patient_plan_id),
  );
  const providerRows = yield* rowsOf<ProviderRow>(db, providers, [...rows.map((r) => r.billing_provider_id), ...rows.map((r) => r.treating_provider_id)]);
  const locationRows = yield* rowsOf<LocationRow>(
    db,
    locations,
    rows.map((r) => r.location_id),
  );
  const docs = yield* rowsOf<{ id: string; document_type: string }>(
    db,
    documents,
    rows.flatMap((r) => r.attachment_document_ids),
  );

  const linesOf = new Map<string, ClaimProcedureRow[]>();
  for (const p of procs) linesOf.set(p.claim_id, [...(linesOf.get(p.claim_id) ?? []), p]);

  return rows.map((claim): Mapped => {
    const lines = linesOf.get(claim.id) ?? [];
    const problems: string[] = [];
    const patient = people.get(claim.patient_id);
    const subscription = subscriptions.get(claim.subscription_id);
    const subscriber = subscription ? people.get(subscription.subscriber_patient_id) : undefined;
    const plan = plans.get(claim.plan_id);
    const carrier = carriers.get(claim.carrier_id);
    const patientPlan = patientPlanRows.get(claim.patient_plan_id);
    const billing = claim.billing_provider_id ? providerRows.get(claim.billing_provider_id) : undefined;
    const treating = claim.treating_provider_id ? providerRows.get(claim.treating_provider_id) : undefined;
    if (!billing) problems.push("The claim has no billing provider");
    if (!patient || !subscription || !subscriber || !plan || !carrier || !patientPlan)
      problems.push("The claim's patient plan is incomplete (subscription, plan or carrier missing)");
    if (claim.location_id && !locationRows.get(claim.location_id)) problems.push("The claim's location is missing");

    // a secondary claim: what its primary claim's carrier paid, in total and per procedure
    let other: Claim837["other_payer"] = null;
    let otherPaid: Map<string, number> | null = null;
    let otherAdjustments: Map<string, NonNullable<Line837["other_payer_adjustments"]>> | null = null;
    if (claim.primary_claim_id) {
      const primary = primaries.get(claim.primary_claim_id);
      const primaryCarrier = primary ? carriers.get(primary.carrier_id) : undefined;
      if (!primary || !primaryCarrier) problems.push("The secondary claim's primary claim is missing");
      else {
        const mine = primaryProcs.filter((p) => p.claim_id === primary.id);
        otherPaid = new Map(mine.map((p) => [p.procedure_id, p.paid_cents]));
        otherAdjustments = new Map(mine.map((p) => [p.procedure_id, primaryAdjustments(p)]));
        const primarySubscription = subscriptions.get(primary.subscription_id);
        const primarySubscriber = primarySubscription ? people.get(primarySubscription.subscriber_patient_id) : undefined;
        const primaryPlan = patientPlanRows.get(primary.patient_plan_id);
        other = {
          name: primaryCarrier.carrier_name,
          id: primaryCarrier.electronic_id,
          member_id: primarySubscription?.subscriber_id ?? null,
          paid_cents: mine.reduce((sum, p) => sum + p.paid_cents, 0),
          payer_responsibility: responsibility(primary.ordinal),
          subscriber: primarySubscriber
            ? {
                first_name: primarySubscriber.first_name,
                last_name: primarySubscriber.last_name,
                relationship: primarySubscriber.id === claim.patient_id ? "18" : relationshipCode(primaryPlan?.relationship ?? "other"),
              }
            : null,
          paid_date: primary.date_received,
        };
      }
    }
    if (problems.length) return { claim, problems };

    // the patient is the subscriber: no 2000C loop
    const isSubscriber = subscriber!.id === patient!.id;
    const x12: Claim837 = {
      claim_number: claim.claim_number,
      claim_type: claim.claim_type as ClaimType837,
      place_of_service: claim.place_of_service,
      prior_authorization_number: claim.prior_authorization_number,
      billing_provider: {
        name: providerName(billing!),
        npi: billing!.national_provider_id,
        tax_id: billing!.ssn_tin,
        taxonomy: billing!.taxonomy_code_override,
        address: locationAddress(claim.location_id ? locationRows.get(claim.location_id) : undefined),
      },
      treating_provider:
        treating && treating.id !== billing!.id
          ? { first_name: treating.first_name, last_name: treating.last_name, npi: treating.national_provider_id, taxonomy: treating.taxonomy_code_override }
          : null,
      payer: { name: carrier!.carrier_name, id: carrier!.electronic_id, address: carrierAddress(carrier!) },
      subscriber: {
        member_id: subscription!.subscriber_id,
        first_name: subscriber!.first_name,
        last_name: subscriber!.last_name,
        birthdate: subscriber!.date_of_birth,
        gender: gender(subscriber!.gender),
        address: patientAddress(subscriber!),
        group_number: plan!.group_number,
        group_name: plan!.group_name,
        payer_responsibility: responsibility(claim.ordinal),
      },
      patient: isSubscriber
        ? null
        : {
            first_name: patient!.first_name,
            last_name: patient!.last_name,
            birthdate: patient!.date_of_birth,
            gender: gender(patient!.gender),
            address: patientAddress(patient!),
            relationship: relationshipCode(patientPlan!.relationship),
          },
      other_payer: other,
      lines: lines.map((l) => {
        const cp = charted.get(l.procedure_id);
        return {
          line_control: l.procedure_id,
          procedure_code: l.procedure_code,
          fee_cents: l.fee_billed_cents,
          date_service: l.date_service,
          tooth_number: l.tooth_number,
          surfaces: l.surfaces,
          area: areaOf(cp),
          requires_tooth: cp?.treatment_area === "tooth" || cp?.treatment_area === "surface",
          other_payer_paid_cents: otherPaid ? (otherPaid.get(l.procedure_id) ?? null) : null,
          other_payer_adjustments: otherAdjustments?.get(l.procedure_id) ?? [],
        };
      }),
      attachments: claim.attachment_document_ids.map((id) => ({
        report_type: PWK_REPORT_TYPES[docs.get(id)?.document_type ?? ""] ?? PWK_DEFAULT,
        control_number: id,
      })),
    };
    return { claim, x12 };
  });
}

/** The claims of these ids as stored, in the order given (missing ids left out). */
export function* claimRowsOf(db: TenantDb, ids: string[]): Work<ClaimRow[]> {
  const found = yield* rowsOf<ClaimRow>(db, claims, ids);
  return ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : []));
}
