import { and, eq, inArray, isNull } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { providerLocationOverrides } from "@db/tenant/provider-credentials";
import { toothStatuses } from "@db/tenant/tooth-statuses";
import { all, get, type Work } from "@/platform/db/work";
import { audit } from "@/platform/audit/audit";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { nameSource, namesOf } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import { patientForRead } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { providerRecords } from "@/domains/providers/record/service";
import { locationRecords, todayAt } from "@/domains/providers/locations/service";
import { toothOrder } from "@/domains/clinical/tooth-chart/teeth";
import { carrierRecords } from "@/domains/insurance/carriers/service";
import { planRecords } from "@/domains/insurance/plans/service";
import { subscriptionRecords } from "@/domains/insurance/subscriptions/service";
import { patientPlanRecords } from "@/domains/insurance/patient-plans/records";
import { loadCoverage } from "@/domains/insurance/patient-plans/benefits";
import { type ClaimFormData, renderClaimFormPdf } from "./form-pdf";
import { claimRecords, proceduresOf, type ClaimRow } from "./records";

// The printable claim (docs/insurance/claims.md, "The printable claim"): what
// the ADA form's fields show, read from the claim and the records it names as
// they are now (the lines as billed), then laid out by form-pdf.ts. Printing
// is reading PHI as a file: the read is audited (`claim.form_printed`) in a
// write of its own, through the one audit mechanism (platform/audit/audit.ts).

type Address = { address_line1: string | null; address_line2: string | null; city: string | null; state: string | null };

/** `1 Harbor Way`, `Suite 2`, `Portland, OR 97201`: the lines that have something. */
function addressLines(a: Address, zip: string | null): string[] {
  const place = [a.city, [a.state, zip].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return [a.address_line1, a.address_line2, place].filter((l): l is string => !!l?.trim());
}

/** The form's person order: `Last, First M` (fields 5, 12, 20). */
const formName = (p: Pick<PatientRow, "first_name" | "last_name" | "middle_name">) =>
  `${p.last_name}, ${p.first_name}${p.middle_name?.trim() ? ` ${p.middle_name.trim()[0]}` : ""}`;

/** A dentist as they sign: `Ann B Apex, DDS`. */
const providerName = (p: { first_name: string; middle_name: string | null; last_name: string; suffix: string | null }) =>
  [p.first_name, p.middle_name, p.last_name].filter((s) => s?.trim()).join(" ") + (p.suffix?.trim() ? `, ${p.suffix.trim()}` : "");

/** The form's gender codes (fields 7, 14, 22): M, F, else U; nothing when not recorded. */
const GENDER: Record<string, string> = { male: "M", female: "F" };
const formGender = (g: string | null) => (g ? (GENDER[g] ?? "U") : null);

/** patient_plans.relationship (self | spouse | child | other) as the form's boxes. */
const RELATIONSHIP: Record<string, ClaimFormData["patient"]["relationship"]> = { self: "self", spouse: "spouse", child: "dependent" };
const formRelationship = (r: string) => RELATIONSHIP[r] ?? "other";

/**
 * Field 25, the area of the oral cavity, in the ADA's two-digit codes (those
 * the 837D sends): a quadrant, an arch or a sextant procedure; none for a
 * tooth, a range of teeth (they are in the tooth field) or the whole mouth.
 */
const QUADRANT_AREA: Record<string, string> = { UR: "10", UL: "20", LL: "30", LR: "40" };
const ARCH_AREA: Record<string, string> = { upper: "01", lower: "02" };
type Site = { quadrant: string | null; arch: string | null; sextant: number | null; tooth_range: string | null };
function areaOf(site: Site | undefined): string | null {
  if (!site) return null;
  if (site.quadrant) return QUADRANT_AREA[site.quadrant] ?? site.quadrant;
  if (site.arch) return ARCH_AREA[site.arch] ?? site.arch;
  // sextants 1-6 from the upper right, clockwise: ADA 03-08
  if (site.sextant) return `0${site.sextant + 2}`;
  return null;
}

/** Tooth statuses that mark a tooth missing on field 33 (an extraction charts `missing`). */
const MISSING = ["missing", "congenitally_absent"];

/** A procedure code in the form's description column: its description, else its short name. */
const CODE_DESCRIPTIONS = nameSource(
  procedureCodes.id,
  { description: procedureCodes.description, short_name: procedureCodes.short_name },
  (r) => r.description.trim() || r.short_name,
);

/** A dentist's state licence at the claim's location (providers' credentials). */
function* licenceAt(db: TenantDb, providerId: string, locationId: string | null): Work<string | null> {
  if (!locationId) return null;
  const o = providerLocationOverrides;
  const row = yield* get<{ state_license: string | null }>(
    db
      .select({ state_license: o.state_license })
      .from(o)
      .where(and(eq(o.provider_id, providerId), eq(o.location_id, locationId), isNull(o.deleted_at))),
  );
  return row?.state_license ?? null;
}

/** The patient's current missing teeth, in chart order. */
function* missingTeeth(db: TenantDb, patientId: string): Work<string[]> {
  const t = toothStatuses;
  const rows = yield* all<{ tooth_number: string }>(
    db
      .select({ tooth_number: t.tooth_number })
      .from(t)
      .where(and(eq(t.patient_id, patientId), inArray(t.status, MISSING), isNull(t.superseded_at), isNull(t.deleted_at))),
  );
  return rows.map((r) => r.tooth_number).sort((a, b) => toothOrder(a) - toothOrder(b));
}

/**
 * Fields 4-11. A secondary claim: the primary claim's carrier, member id and
 * subscriber; any other claim: the patient's next other plan in force on the
 * service date (coordination-of-benefits order), else none.
 */
function* otherCoverage(db: TenantDb, claim: ClaimRow): Work<ClaimFormData["other_coverage"]> {
  if (claim.claim_type === "secondary" && claim.primary_claim_id) {
    const primary = yield* claimRecords.require(db, claim.primary_claim_id);
    const carrier = yield* carrierRecords.require(db, primary.carrier_id, true);
    const subscription = yield* subscriptionRecords.require(db, primary.subscription_id, true);
    const subscriber = yield* patientForRead(db, subscription.subscriber_patient_id);
    const plan = yield* patientPlanRecords.require(db, primary.patient_plan_id, true);
    return {
      name: carrier.carrier_name,
      member_id: subscription.subscriber_id,
      subscriber_name: formName(subscriber),
      relationship: formRelationship(plan.relationship),
    };
  }
  const other = (yield* loadCoverage(db, claim.patient_id, claim.date_service)).find((c) => c.patientPlan.id !== claim.patient_plan_id);
  if (!other) return null;
  const carrier = yield* carrierRecords.require(db, other.carrierId, true);
  const subscriber = yield* patientForRead(db, other.subscriber.id);
  return {
    name: carrier.carrier_name,
    member_id: other.subscription.subscriber_id,
    subscriber_name: formName(subscriber),
    relationship: formRelationship(other.patientPlan.relationship),
  };
}

/**
 * Everything the form shows of one claim: archived records it names
 * (patient, carrier, plan, dentist, location) still print as they are.
 */
export function* claimFormData(db: TenantDb, claim: ClaimRow): Work<ClaimFormData> {
  const procedures = yield* proceduresOf(db, [claim.id]);
  const sites = procedures.length
    ? yield* all<Site & { id: string }>(
        db
          .select({
            id: chartedProcedures.id,
            quadrant: chartedProcedures.quadrant,
            arch: chartedProcedures.arch,
            sextant: chartedProcedures.sextant,
            tooth_range: chartedProcedures.tooth_range,
          })
          .from(chartedProcedures)
          .where(
            inArray(
              chartedProcedures.id,
              procedures.map((p) => p.procedure_id),
            ),
          ),
      )
    : [];
  const charted = new Map(sites.map((r) => [r.id, r]));
  const descriptions = yield* namesOf(
    db,
    CODE_DESCRIPTIONS,
    procedures.map((p) => p.procedure_code_id),
  );
  const patient = yield* patientForRead(db, claim.patient_id);
  const patientPlan = yield* patientPlanRecords.require(db, claim.patient_plan_id, true);
  const subscription = yield* subscriptionRecords.require(db, claim.subscription_id, true);
  const plan = yield* planRecords.require(db, claim.plan_id, true);
  const carrier = yield* carrierRecords.require(db, claim.carrier_id, true);
  const subscriber = subscription.subscriber_patient_id === patient.id ? patient : yield* patientForRead(db, subscription.subscriber_patient_id);
  const location = claim.location_id ? yield* locationRecords.find(db, claim.location_id, true) : undefined;
  const locationAddress = location ? addressLines(location, location.postal_code) : [];
  const billing = claim.billing_provider_id ? yield* providerRecords.require(db, claim.billing_provider_id, true) : undefined;
  const treating = claim.treating_provider_id ? yield* providerRecords.require(db, claim.treating_provider_id, true) : undefined;

  const lines = procedures.map((p) => {
    const site = charted.get(p.procedure_id);
    return {
      date_service: p.date_service,
      area: p.tooth_number ? null : areaOf(site),
      tooth_system: "JP" as const,
      tooth_number: p.tooth_number ?? site?.tooth_range ?? null,
      surfaces: p.surfaces,
      procedure_code: p.procedure_code,
      description: descriptions.get(p.procedure_code_id) ?? p.procedure_code,
      fee_cents: p.fee_billed_cents,
    };
  });
  return {
    claim_number: claim.claim_number,
    claim_type: claim.claim_type as ClaimFormData["claim_type"],
    prior_authorization_number: claim.prior_authorization_number,
    payer: { name: carrier.carrier_name, address: addressLines(carrier, carrier.zip_code) },
    other_coverage: yield* otherCoverage(db, claim),
    subscriber: {
      name: formName(subscriber),
      address: addressLines(subscriber, subscriber.postal_code),
      birthdate: subscriber.date_of_birth,
      gender: formGender(subscriber.gender),
      member_id: subscription.subscriber_id,
      group_number: plan.group_number,
      // the plan's group name is "the employer or group, as on the card"
      employer: plan.group_name,
    },
    patient: {
      name: formName(patient),
      address: addressLines(patient, patient.postal_code),
      birthdate: patient.date_of_birth,
      gender: formGender(patient.gender),
      relationship: formRelationship(patientPlan.relationship),
      account_id: patient.chart_number?.trim() || patient.id,
    },
    lines,
    missing_teeth: yield* missingTeeth(db, patient.id),
    remarks: claim.note,
    total_fee_cents: procedures.reduce((sum, p) => sum + p.fee_billed_cents, 0),
    other_fees_cents: 0,
    place_of_service: claim.place_of_service,
    attachments: claim.attachment_document_ids.length,
    billing_provider: billing
      ? {
          name: providerName(billing),
          address: locationAddress,
          npi: billing.national_provider_id,
          license: yield* licenceAt(db, billing.id, claim.location_id),
          tax_id: billing.ssn_tin,
          phone: location?.phone ?? null,
        }
      : { name: location?.name ?? "", address: locationAddress, npi: null, license: null, tax_id: null, phone: location?.phone ?? null },
    treating_provider: treating
      ? {
          name: providerName(treating),
          npi: treating.national_provider_id,
          license: yield* licenceAt(db, treating.id, claim.location_id),
          address: locationAddress,
          taxonomy: treating.taxonomy_code_override,
        }
      : null,
    date_prepared: yield* todayAt(db, claim.location_id),
  };
}

export type PrintedClaim = { claim_number: string; bytes: Uint8Array<ArrayBuffer> };

/**
 * GET {P}/insurance/claims/{claim_uuid}/form.pdf: the form's figures are read
 * and the print audited in one write (404 for a missing claim writes
 * nothing), then laid out.
 */
export async function printClaimForm(ctx: OrgContext, id: string): Promise<PrintedClaim> {
  const data = await withTransaction(ctx, function* (s) {
    const claim = yield* claimRecords.require(s.tx, id);
    const form = yield* claimFormData(s.tx, claim);
    yield* audit(s, {
      action: "claim.form_printed",
      resource_type: "claim",
      resource_id: claim.id,
      before: null,
      // what was handed out, by ids and figures: names and the member id stay on the records
      after: {
        claim_number: claim.claim_number,
        claim_type: claim.claim_type,
        status: claim.status,
        patient_id: claim.patient_id,
        carrier_id: claim.carrier_id,
        lines: form.lines.length,
        total_fee_cents: form.total_fee_cents,
        date_prepared: form.date_prepared,
      },
    });
    return form;
  });
  const rendered = await renderClaimFormPdf(data);
  // pdf-lib writes into a fresh ArrayBuffer (what a Response body takes)
  return { claim_number: data.claim_number, bytes: rendered.bytes as Uint8Array<ArrayBuffer> };
}
