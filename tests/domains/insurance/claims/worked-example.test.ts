import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { check837D } from "@/domains/insurance/claims/x12/837d";
import { waitFor } from "@tests/helpers";
import { balancedClaim, balancedEra, build835 } from "@tests/support/era835";
import { claimsWorldWithWorkers, type ClaimsWorkersWorld } from "./fixtures";

// The worked example of docs/insurance/claims.md ("A worked example: a
// two-plan family"), end to end on the embedded queue with the workers
// running: Sofia's crown billed to her father's Delta plan (an 837D batch),
// Delta's ERA posted, the secondary claim to her mother's Cigna plan (its
// 837D carrying what Delta paid), Cigna's paper EOB entered by hand; the
// claims, the ledger, the family account and the benefits used at each step.

let w: ClaimsWorkersWorld;
beforeAll(async () => {
  w = await claimsWorldWithWorkers();
}, 60_000);
afterAll(() => w.close());

const until = <T>(probe: () => Promise<T | null | undefined | false>, what: string) => waitFor(probe, { timeoutMs: 20_000, intervalMs: 50, what });

/** Queue a claim and send it in a batch of its own; the batch's file. */
async function send(claimId: string) {
  const claim = await w.ok(w.get(`/insurance/claims/${claimId}`), 200);
  await w.ok(w.post(`/insurance/claims/${claimId}/status`, { base_version: claim.version, status: "queued" }), 200);
  const batch = await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [claimId] }), 202);
  await until(async () => (await w.get(`/insurance/claim-batches/${batch.id}`)).body.status === "ready", "the batch ready");
  return (await w.get(`/insurance/claim-batches/${batch.id}/file`)).text;
}

describe("a worked example: a two-plan family", () => {
  test("primary ERA, secondary claim, secondary paper EOB", async () => {
    const { post, ok, get, office, location, dentist } = w;
    // the family: Robert (Delta, through his employer) and Elena (Cigna) and their daughter Sofia, 9
    const person = async (first: string, dob: string, extra: Record<string, unknown> = {}) =>
      (
        await ok(
          post("/patients", {
            first_name: first,
            last_name: "Reyes",
            date_of_birth: dob,
            location_uuid: location.id,
            gender: first === "Robert" ? "male" : "female",
            ...extra,
          }),
        )
      ).id as string;
    const robert = await person("Robert", "1984-06-02");
    const elena = await person("Elena", "1986-09-14");
    const sofia = await person("Sofia", "2016-01-20", { responsible_party_uuid: robert });
    const delta = await ok(
      post("/insurance/subscriptions", { plan_uuid: office.planA, subscriber_patient_uuid: robert, subscriber_id: "DLT100200", effective_date: "2025-01-01" }),
    );
    const cigna = await ok(
      post("/insurance/subscriptions", { plan_uuid: office.planB, subscriber_patient_uuid: elena, subscriber_id: "CIG300400", effective_date: "2025-01-01" }),
    );
    const primary = (await ok(post("/insurance/patient-plans", { patient_uuid: sofia, subscription_uuid: delta.id, ordinal: 1, relationship: "child" }))).id;
    const secondary = (await ok(post("/insurance/patient-plans", { patient_uuid: sofia, subscription_uuid: cigna.id, ordinal: 2, relationship: "child" }))).id;

    // the crown on tooth 3, planned and estimated, then done on 5 March 2025
    const plan = await ok(post(`/clinical/patients/${sofia}/treatment-plans`, { name: "Crown" }));
    const crown = await ok(
      post(`/clinical/patients/${sofia}/procedures`, {
        procedure_code_uuid: office.codes.D2740,
        fee_override: 1300,
        tooth_number: "3",
        provider_uuid: dentist.id,
        location_uuid: location.id,
      }),
    );
    await ok(post(`/clinical/patients/${sofia}/treatment-plans/${plan.id}/procedures`, { procedure_uuid: crown.id }));
    await ok(post(`/clinical/patients/${sofia}/treatment-plans/${plan.id}/estimate`, {}), 200);
    await ok(w.patch(`/clinical/procedures/${crown.id}`, { base_version: 1, status: "complete", date_service: "2025-03-05" }), 200);

    // 1. the primary claim to Delta, sent in an 837D batch
    const first = await ok(post("/insurance/claims", { patient_uuid: sofia, patient_plan_uuid: primary, claim_type: "primary", procedure_uuids: [crown.id] }));
    expect([first.fee_billed, first.insurance_estimate, first.deductible_applied, first.patient_portion]).toEqual(["1300.00", "425.00", "50.00", "475.00"]);
    const file1 = await send(first.id);
    const sent1 = check837D(file1).claims[0]!;
    expect([sent1.claim_number, sent1.total_cents, sent1.member_id, sent1.payer_id, sent1.billing_npi]).toEqual([
      first.claim_number,
      130000,
      "DLT100200",
      "CDCA1",
      "1234567893",
    ]);
    expect(file1).toContain("PAT*19~"); // Sofia is the subscriber's child
    expect((await get(`/patients/${sofia}/account`)).body.members.find((m: any) => m.patient.uuid === sofia)).toMatchObject({
      balance_total: "1300.00",
      insurance_pending: "425.00",
      patient_portion: "875.00",
    });

    // 2. Delta's ERA: allowed 900.00, the 50.00 deductible, 50 % of the rest paid (425.00), 400.00 written off (CO-45)
    const era = build835(
      balancedEra(
        [
          balancedClaim(
            first.claim_number,
            [{ code: "D2740", billed: 130000, allowed: 90000, paid: 42500, deductible: 5000, line_control: crown.id, date: "2025-03-05" }],
            {
              patient: { first_name: "SOFIA", last_name: "REYES", member_id: "DLT100200" },
              date_service: "2025-03-05",
            },
          ),
        ],
        { payer: { name: "DELTA DENTAL", id: "CDCA1" }, trace_number: "EFT-DELTA-0412", payment_date: "2025-04-12" },
      ),
    );
    const upload = await w.t.request("POST", `${w.A}/insurance/eras`, { token: w.token, rawBody: era, headers: { "content-type": "application/edi-x12" } });
    expect(upload.status).toBe(202);
    const posted = await until(async () => {
      const e = (await get(`/insurance/eras/${upload.body.id}`)).body;
      return e.status === "posted" ? e : null;
    }, "the ERA posted");
    expect(posted.counts).toMatchObject({ claims: 1, posted: 1 });
    const answered = await ok(get(`/insurance/claims/${first.id}`), 200);
    expect([
      answered.status,
      answered.insurance_paid,
      answered.write_off,
      answered.deductible_applied,
      answered.patient_portion,
      answered.secondary_ready,
    ]).toEqual(["received", "425.00", "400.00", "50.00", "475.00", true]);

    // 3. the secondary claim to Cigna: the 825.00 Delta settled is not Sofia's to owe, and goes on the 837D (AMT*D: what Delta paid)
    const second = await ok(
      post("/insurance/claims", { patient_uuid: sofia, patient_plan_uuid: secondary, claim_type: "secondary", procedure_uuids: [crown.id] }),
    );
    expect([second.primary_claim.uuid, second.procedures[0].prior_paid, second.fee_billed]).toEqual([first.id, "825.00", "1300.00"]);
    const file2 = await send(second.id);
    expect(check837D(file2).claims[0]).toMatchObject({ claim_number: second.claim_number, member_id: "CIG300400", payer_id: "62308" });
    expect(file2).toContain("AMT*D*425~");
    // the other payer's subscriber is Robert (Sofia his child), and Delta's answer per line: paid, CO-45, PR-1 and PR-2, the day it paid
    expect(file2).toContain("SBR*P*19*");
    expect(file2).toContain("NM1*IL*1*REYES*ROBERT****MI*DLT100200~");
    expect(file2).toContain("SVD*CDCA1*425*AD:D2740**1~CAS*CO*45*400~CAS*PR*1*50**2*425~DTP*573*D8*20250412~");

    // 4. Cigna's paper EOB: 350.00 paid on an 850.00 allowed; nothing written off
    await ok(
      post("/insurance/claim-payments", {
        carrier_uuid: office.carriers.cigna,
        payment_date: "2025-05-02",
        amount: 350,
        check_number: "CIG-77120",
        splits: [{ claim_uuid: second.id, procedure_uuid: crown.id, paid: 350, allowed: 850, write_off: 0 }],
      }),
    );
    const done = await ok(get(`/insurance/claims/${second.id}`), 200);
    expect([done.status, done.insurance_paid, done.write_off, done.patient_portion, done.secondary_ready]).toEqual([
      "received",
      "350.00",
      "0.00",
      "125.00",
      false,
    ]);

    // the ledger: the charge, Delta's payment and write-off, Cigna's payment; Sofia owes 125.00
    const ledger = (await ok(get(`/patients/${sofia}/ledger-entries`), 200)).items.map((e: any) => [
      e.entry_date,
      e.entry_type,
      e.source,
      e.amount,
      e.claim_uuid,
    ]);
    expect(ledger).toEqual([
      ["2025-03-05", "charge", "procedure", "1300.00", null],
      ["2025-04-12", "payment", "insurance", "425.00", first.id],
      ["2025-04-12", "adjustment", "insurance", "-400.00", first.id],
      ["2025-05-02", "payment", "insurance", "350.00", second.id],
    ]);
    const account = (await ok(get(`/patients/${robert}/account`), 200)).members.find((m: any) => m.patient.uuid === sofia);
    expect(account).toMatchObject({ balance_total: "125.00", insurance_pending: "0.00", patient_portion: "125.00" });
    // benefits used this year: what each carrier paid, and Delta's deductible
    const used = async (pp: string) => (await ok(get(`/insurance/patient-plans/${pp}/benefits?as_of=2025-03-05`), 200)).from_procedures;
    expect(await used(primary)).toEqual({ annual_max_used: "425.00", deductible_met: "50.00" });
    expect(await used(secondary)).toEqual({ annual_max_used: "350.00", deductible_met: "0.00" });
  }, 60_000);
});
