import { and, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { claimProcedures, claims } from "@db/tenant/claims";
import { patients } from "@db/tenant/patients";
import { all, type Work } from "@/platform/db/work";
import { formatCents } from "@/platform/money";
import type { TenantDb } from "@/platform/records/context";
import { openOf, type SplitToPost } from "@/domains/insurance/claims/posting";
import type { ClaimProcedureRow, ClaimRow } from "@/domains/insurance/claims/records";
import type { Adjustment835, EraClaim835 } from "@/domains/insurance/claims/x12/types";
import type { EraClaimRow, EraRow } from "./records";

// An ERA's claims matched to ours and turned into splits (docs/insurance/claims.md,
// "Matching" and "What a CLP posts"). Matching: the claim number the 837
// sent (CLP01) first; else one sent claim of the patient (last and first
// name), service date and billed amount. Each SVC is the claim procedure whose
// id came back as its line control (REF*6R), else the first unused one of
// its code. A CLP whose numbers do not fit the claim is not posted: its
// problems say why, and it waits for review.

const money = (c: number) => formatCents(c)!;
const sumOf = (list: Adjustment835[], groups: string[]) => list.filter((a) => groups.includes(a.group)).reduce((n, a) => n + a.amount_cents, 0);

/** The claim a CLP names: by number, else by patient, date and billed amount (exactly one sent claim). */
export function* findClaim(db: TenantDb, clp: EraClaim835): Work<{ claim: ClaimRow; method: "claim_number" | "patient_date_amount" } | null> {
  const byNumber = yield* all<ClaimRow>(db.select().from(claims).where(eq(claims.claim_number, clp.claim_number.trim().toUpperCase())));
  if (byNumber[0]) return { claim: byNumber[0], method: "claim_number" };
  if (!clp.date_service || !clp.patient.last_name) return null;
  const candidates = yield* all<ClaimRow>(
    db
      .select(getTableColumns(claims))
      .from(claims)
      .innerJoin(patients, eq(patients.id, claims.patient_id))
      .where(
        and(
          eq(claims.date_service, clp.date_service),
          inArray(claims.status, ["sent", "received"]),
          sql`lower(${patients.last_name}) = lower(${clp.patient.last_name})`,
          clp.patient.first_name ? sql`lower(${patients.first_name}) = lower(${clp.patient.first_name})` : undefined,
          sql`(SELECT sum(${claimProcedures.fee_billed_cents}) FROM ${claimProcedures} WHERE ${claimProcedures.claim_id} = ${claims.id}) = ${clp.billed_cents}`,
        ),
      ),
  );
  return candidates.length === 1 ? { claim: candidates[0]!, method: "patient_date_amount" } : null;
}

/**
 * What posting a CLP to a claim would write, or why it cannot: the claim must
 * be the ERA's carrier's, sent or received, not a pre-authorization; each line
 * must find its procedure, bill its fee, and leave paid + write-off within
 * what is open; a secondary's other-insurance adjustment must be what the
 * primary settled; reversals and claim-level adjustments are posted by hand.
 */
export function* splitsForClp(
  db: TenantDb,
  era: Pick<EraRow, "carrier_id">,
  clp: EraClaim835,
  claim: ClaimRow,
): Work<{ splits: SplitToPost[]; problems: string[] }> {
  const problems: string[] = [...clp.problems];
  if (era.carrier_id && claim.carrier_id !== era.carrier_id) problems.push(`Claim ${claim.claim_number} bills another carrier than this ERA's payer`);
  if (claim.claim_type === "preauth") problems.push(`Claim ${claim.claim_number} is a pre-authorization: it takes no payment`);
  if (!["sent", "received"].includes(claim.status)) problems.push(`Claim ${claim.claim_number} is ${claim.status}: only sent or received claims take payments`);
  if (clp.status_code === "22" || clp.paid_cents < 0)
    problems.push("A reversal of an earlier payment (CLP02 22): void that payment and post the correction by hand");
  const cps = yield* all<ClaimProcedureRow>(
    db.select().from(claimProcedures).where(eq(claimProcedures.claim_id, claim.id)).orderBy(claimProcedures.item_order),
  );
  // a claim answered without lines: its one procedure takes the claim's adjustments
  const services =
    clp.services.length || cps.length !== 1
      ? clp.services
      : [
          {
            procedure_code: cps[0]!.procedure_code,
            billed_cents: clp.billed_cents,
            paid_cents: clp.paid_cents,
            line_control: cps[0]!.procedure_id,
            tooth_number: null,
            date_service: clp.date_service,
            allowed_cents: null,
            adjustments: clp.adjustments,
            remark_codes: [],
          },
        ];
  if (!services.length) problems.push(`The ERA gives no service lines and claim ${claim.claim_number} has ${cps.length} procedures`);
  else if (clp.services.length && clp.adjustments.length)
    problems.push("Claim-level adjustments (CAS under CLP) cannot be put on a procedure: post it by hand");
  const used = new Set<string>();
  const splits: SplitToPost[] = [];
  services.forEach((svc, i) => {
    const line = `Service line ${i + 1} (${svc.procedure_code})`;
    const cp =
      cps.find((c) => !used.has(c.id) && c.procedure_id === svc.line_control) ??
      cps.find((c) => !used.has(c.id) && c.procedure_code === svc.procedure_code && (!svc.tooth_number || c.tooth_number === svc.tooth_number));
    if (!cp) return problems.push(`${line} matches no procedure on claim ${claim.claim_number}`);
    used.add(cp.id);
    if (svc.billed_cents !== cp.fee_billed_cents) problems.push(`${line} billed ${money(svc.billed_cents)}; the claim billed ${money(cp.fee_billed_cents)}`);
    const writeOff = sumOf(svc.adjustments, ["CO", "PI", "CR"]);
    const otherInsurance = sumOf(svc.adjustments, ["OI"]);
    const patient = sumOf(svc.adjustments, ["PR"]);
    if (otherInsurance !== cp.prior_paid_cents)
      problems.push(`${line}: other-insurance adjustments (OI) of ${money(otherInsurance)}; the primary settled ${money(cp.prior_paid_cents)}`);
    if (svc.paid_cents < 0 || writeOff < 0 || patient < 0) problems.push(`${line}: negative amounts are posted by hand`);
    else if (svc.paid_cents + writeOff > openOf(cp))
      problems.push(`${line}: paid and write-off (${money(svc.paid_cents + writeOff)}) exceed what is open on it (${money(openOf(cp))})`);
    else if (svc.paid_cents + writeOff + patient !== openOf(cp))
      problems.push(
        `${line}: paid, write-off and patient responsibility add up to ${money(svc.paid_cents + writeOff + patient)}, not the ${money(openOf(cp))} open on it`,
      );
    splits.push({
      claim,
      procedure: cp,
      paid: svc.paid_cents,
      allowed: svc.allowed_cents,
      write_off: writeOff,
      deductible: svc.adjustments.filter((a) => a.group === "PR" && a.reason === "1").reduce((n, a) => n + a.amount_cents, 0),
      remark_codes: [...new Set([...svc.adjustments.map((a) => `${a.group}-${a.reason}`), ...svc.remark_codes])],
    });
  });
  return { splits: problems.length ? [] : splits, problems };
}

/** The problems of posting this ERA claim to `claim` (a hand match is judged as an automatic one). */
export function* problemsOfMatch(db: TenantDb, era: EraRow, clp: EraClaimRow, claim: ClaimRow): Work<string[]> {
  return (yield* splitsForClp(db, era, clp.clp as EraClaim835, claim)).problems;
}
