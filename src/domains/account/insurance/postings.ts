import type { Work } from "@/platform/db/work";
import type { TxScope } from "@/platform/records/context";
import { patientForRead } from "@/domains/patients/record/scope";
import type { ClaimPaymentMoment, InsuranceLedgerLine } from "@/domains/insurance/claims/moments";
import { postEntries, type NewEntry } from "@/domains/account/ledger/service";

// Insurance money on the patient's account (docs/account/account.md,
// "Insurance"): the account's reaction to a claim payment posted or voided,
// inside that write. Each claim procedure's paid amount is a payment entry
// (payer insurance, credited to the procedure's provider) and its write-off a
// negative adjustment; both name the claim and the procedure, and take the ids
// the claim payment's split keeps, so a void reverses exactly them.

function entriesOf(l: InsuranceLedgerLine): NewEntry[] {
  const common = {
    source: "insurance" as const,
    payer: "insurance" as const,
    claim_id: l.claim_id,
    procedure_id: l.procedure_id,
    provider_id: l.provider_id,
    location_id: l.location_id,
    entry_date: l.entry_date,
  };
  const out: NewEntry[] = [];
  if (l.paid)
    out.push({
      ...common,
      id: l.paid.entry_id,
      entry_type: "payment",
      amount_cents: l.paid.cents,
      reverses_id: l.paid.reverses_entry_id,
      description: `${l.paid.reverses_entry_id ? "Insurance payment voided" : "Insurance payment"}: ${l.carrier_name}, claim ${l.claim_number}, ${l.procedure_code}`,
    });
  if (l.write_off)
    out.push({
      ...common,
      id: l.write_off.entry_id,
      entry_type: "adjustment",
      // a write-off lowers what is owed; its reversal raises it back
      amount_cents: -l.write_off.cents,
      reverses_id: l.write_off.reverses_entry_id,
      description: `${l.write_off.reverses_entry_id ? "Insurance write-off reversed" : "Insurance write-off"}: ${l.carrier_name}, claim ${l.claim_number}, ${l.procedure_code}`,
    });
  return out;
}

/** claim_payment.posted and claim_payment.voided: each patient's entries in one post (one re-aging per patient). */
export function* postInsuranceMoney(s: TxScope, m: ClaimPaymentMoment): Work<void> {
  const byPatient = new Map<string, NewEntry[]>();
  for (const l of m.lines) byPatient.set(l.patient_id, [...(byPatient.get(l.patient_id) ?? []), ...entriesOf(l)]);
  for (const [patientId, entries] of byPatient) {
    if (!entries.length) continue;
    yield* postEntries(s, yield* patientForRead(s.tx, patientId), entries);
  }
}
