import { beforeAll, describe, expect, test } from "bun:test";
import { busDrained } from "@tests/helpers";
import { claimsWorld, MISSING, type ClaimsWorld } from "./fixtures";

// Claim payments by hand (paper EOBs) over HTTP (docs/insurance/claims.md,
// "Claim payments" and "Posting"): a posting's figures on the claim, its
// entries on the patient's ledger, the claim received and ready for the
// secondary; every refusal leaves stored data unchanged; a void reverses.

let w: ClaimsWorld;
beforeAll(async () => {
  w = await claimsWorld();
}, 60_000);

/** A patient with a crown (1300.00) on a primary claim that was sent. */
async function sentCrown() {
  const p = await w.patientWith([["D2740", 1300, "3"]]);
  const claim = await w.claimFor(p);
  await w.move(claim, "sent", { date: "2025-03-10" });
  return { p, claim };
}

const eob = (claimId: string, extra: Record<string, unknown> = {}, split: Record<string, unknown> = {}) => ({
  carrier_uuid: w.office.carriers.delta,
  payment_date: "2025-04-01",
  amount: 425,
  check_number: "889120",
  splits: [{ claim_uuid: claimId, paid: 425, allowed: 900, write_off: 400, deductible: 50, remark_codes: ["CO-45", "PR-1"], ...split }],
  ...extra,
});

describe("POST /insurance/claim-payments", () => {
  test("a paper EOB: the claim received with the carrier's answer, ready for the secondary; the ledger has the payment and the write-off", async () => {
    const { p, claim } = await sentCrown();
    const from = w.events.length;
    const payment = await w.ok(w.post("/insurance/claim-payments", eob(claim.id), w.tokens.biller));
    expect(payment).toMatchObject({
      carrier: { uuid: w.office.carriers.delta, name: "Delta Dental" },
      payment_date: "2025-04-01",
      amount: "425.00",
      check_number: "889120",
      payment_type: "check",
      era_uuid: null,
      status: "active",
    });
    expect(payment.splits).toEqual([
      {
        id: expect.any(String),
        claim: { uuid: claim.id, name: claim.claim_number },
        procedure: { uuid: p.procedures[0], name: "D2740" },
        patient: { uuid: p.patient, name: "Maria Lopez" },
        paid: "425.00",
        allowed: "900.00",
        write_off: "400.00",
        deductible: "50.00",
        patient_responsibility: "475.00",
        remark_codes: ["CO-45", "PR-1"],
        reverses_uuid: null,
      },
    ]);
    const received = await w.ok(w.get(`/insurance/claims/${claim.id}`), 200);
    expect([received.status, received.date_received, received.secondary_ready]).toEqual(["received", "2025-04-01", true]);
    expect([received.insurance_paid, received.write_off, received.deductible_applied, received.patient_portion]).toEqual([
      "425.00",
      "400.00",
      "50.00",
      "475.00",
    ]);
    expect(received.procedures[0]).toMatchObject({ status: "received", allowed_amount: "900.00", remark_codes: ["CO-45", "PR-1"] });
    const ledger = (await w.ledgerOf(p.patient)).map((e) => [e.entry_type, e.amount_cents, e.source, e.payer, e.claim_id, e.procedure_id, e.entry_date]);
    expect(ledger).toEqual([
      ["charge", 130000, "procedure", "patient", null, p.procedures[0], "2025-03-05"],
      ["payment", 42500, "insurance", "insurance", claim.id, p.procedures[0], "2025-04-01"],
      ["adjustment", -40000, "insurance", "insurance", claim.id, p.procedures[0], "2025-04-01"],
    ]);
    const account = await w.ok(w.get(`/patients/${p.patient}`), 200);
    expect(account.balance_total ?? account.balance?.total).toBe("475.00");
    await busDrained(w.t.rt.bus);
    const types = w.events.slice(from).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["claim_payment.created", "claim_payment.posted", "claim.status_changed", "ledger_entry.created"]));
    // client-safe: ids and kinds, never a name or an amount
    const sent = JSON.stringify(w.events.slice(from).map((e) => e.data));
    expect(sent).not.toMatch(/Lopez|"(amount|amount_cents|paid|paid_cents|write_off)"/);
    expect(await w.ok(w.get(`/insurance/claim-payments/${payment.id}`, w.tokens.reader), 200)).toEqual(payment);
  });

  test("the family account: insurance pending is the claim's estimate until the carrier answers, then the patient portion is what is left", async () => {
    const { p, claim } = await sentCrown();
    const member = async () => (await w.ok(w.get(`/patients/${p.patient}/account`), 200)).members[0];
    expect(await member()).toMatchObject({ balance_total: "1300.00", insurance_pending: "425.00", patient_portion: "875.00" });
    await w.ok(w.post("/insurance/claim-payments", eob(claim.id)));
    expect(await member()).toMatchObject({ balance_total: "475.00", insurance_pending: "0.00", patient_portion: "475.00" });
    const entries = (await w.ok(w.get(`/patients/${p.patient}/ledger-entries`), 200)).items;
    expect(entries.filter((e: any) => e.source === "insurance").map((e: any) => [e.entry_type, e.amount, e.payer, e.claim_uuid])).toEqual([
      ["payment", "425.00", "insurance", claim.id],
      ["adjustment", "-400.00", "insurance", claim.id],
    ]);
  });

  test("benefits used follow the carrier's answer once it gave one (the estimate until then)", async () => {
    const { p, claim } = await sentCrown();
    const used = async () => (await w.ok(w.get(`/insurance/patient-plans/${p.primary}/benefits?as_of=2025-03-05`), 200)).from_procedures;
    expect(await used()).toEqual({ annual_max_used: "425.00", deductible_met: "50.00" });
    await w.ok(w.post("/insurance/claim-payments", eob(claim.id, { amount: 380 }, { paid: 380, deductible: 0 })));
    expect(await used()).toEqual({ annual_max_used: "380.00", deductible_met: "0.00" });
  });

  test("a denial: paid 0 with the carrier's reasons, the whole fee written off", async () => {
    const { claim } = await sentCrown();
    await w.ok(
      w.post(
        "/insurance/claim-payments",
        eob(claim.id, { amount: 0 }, { paid: 0, allowed: null, write_off: 1300, deductible: 0, remark_codes: ["CO-50", "N130"] }),
      ),
    );
    const denied = await w.ok(w.get(`/insurance/claims/${claim.id}`), 200);
    expect([denied.status, denied.procedures[0].status, denied.insurance_paid, denied.write_off, denied.patient_portion]).toEqual([
      "received",
      "denied",
      "0.00",
      "1300.00",
      "0.00",
    ]);
  });

  test("refusals: 422 for splits that do not add up, another carrier's claim, an unsent claim, more than is open; 404 for a missing carrier or claim; nothing changes", async () => {
    const { claim } = await sentCrown();
    const unsent = await w.claimFor(await w.patientWith([["D1110", 120]]));
    const before = await w.snapshot();
    const cases: [Record<string, unknown>, number, string][] = [
      [eob(claim.id, { amount: 400 }), 422, "body.splits"],
      [eob(claim.id, { carrier_uuid: w.office.carriers.cigna }), 422, "body.splits.0.claim_uuid"],
      [eob(unsent.id, {}, { paid: 425 }), 422, "body.splits.0.claim_uuid"],
      [eob(claim.id, {}, { write_off: 900 }), 422, "body.splits.0.paid"],
      [eob(claim.id, {}, { procedure_uuid: MISSING }), 422, "body.splits.0.procedure_uuid"],
      [eob(claim.id, { splits: [eob(claim.id).splits[0], eob(claim.id).splits[0]], amount: 850 }), 422, "body.splits.1.procedure_uuid"],
      [eob(claim.id, {}, { paid: -1 }), 422, "body.splits.0.paid"],
      [eob(claim.id, {}, { paid: 425.001 }), 422, "body.splits.0.paid"],
      [eob(claim.id, { payment_date: "2999-01-01" }), 422, "body.payment_date"],
      [eob(claim.id, { extra: true }), 422, "body.extra"],
      [eob(claim.id, {}, { remark_codes: ["co 45;"] }), 422, "body.splits.0.remark_codes.0"],
      [eob(claim.id, { carrier_uuid: MISSING }), 404, "Insurance carrier not found"],
      [eob(MISSING), 404, "Claim not found"],
    ];
    for (const [body, status, where] of cases) {
      const r = await w.post("/insurance/claim-payments", body);
      const said = status === 404 ? r.body.detail : r.body.detail?.map((d: any) => d.loc.join(".")).find((l: string) => l === where);
      expect([r.status, said ?? r.text]).toEqual([status, where]);
    }
    expect((await w.post("/insurance/claim-payments", eob(claim.id), w.tokens.reader)).status).toBe(403);
    const other = await w.t.request("POST", `${w.pathB}/insurance/claim-payments`, { token: w.tokens.memberOfB, body: eob(claim.id) });
    expect(other.status).toBe(404);
    expect(await w.snapshot()).toEqual(before);
  });
});

describe("POST /insurance/claim-payments/{id}/void", () => {
  test("reverses every split and ledger entry (nothing deleted); the claim goes back to sent; a second void is 422, a stale one 409", async () => {
    const { p, claim } = await sentCrown();
    const payment = await w.ok(w.post("/insurance/claim-payments", eob(claim.id)));
    const stale = await w.post(`/insurance/claim-payments/${payment.id}/void`, { base_version: 9 });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const voided = await w.ok(w.post(`/insurance/claim-payments/${payment.id}/void`, { base_version: 1, reason: "Posted to the wrong patient" }), 200);
    expect([voided.status, voided.void_reason, voided.splits.length]).toEqual(["voided", "Posted to the wrong patient", 2]);
    expect(voided.splits[1]).toMatchObject({ paid: "-425.00", write_off: "-400.00", reverses_uuid: voided.splits[0].id });
    const ledger = await w.ledgerOf(p.patient);
    expect(ledger.map((e) => [e.entry_type, e.amount_cents, e.reverses_id !== null])).toEqual([
      ["charge", 130000, false],
      ["payment", 42500, false],
      ["adjustment", -40000, false],
      ["payment", -42500, true],
      ["adjustment", 40000, true],
    ]);
    expect(ledger.reduce((n, e) => n + (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents), 0)).toBe(130000);
    const back = await w.ok(w.get(`/insurance/claims/${claim.id}`), 200);
    expect([back.status, back.date_received, back.insurance_paid, back.procedures[0].status]).toEqual(["sent", null, "0.00", "estimate"]);
    const again = await w.post(`/insurance/claim-payments/${payment.id}/void`, { base_version: voided.version });
    expect([again.status, again.body.code]).toEqual([422, "payment_voided"]);
    expect((await w.post(`/insurance/claim-payments/${MISSING}/void`, { base_version: 1 })).status).toBe(404);
    // the claim takes a payment again
    await w.ok(w.post("/insurance/claim-payments", eob(claim.id)));
    expect((await w.ok(w.get(`/insurance/claims/${claim.id}`), 200)).status).toBe("received");
  });
});

describe("GET /insurance/claim-payments", () => {
  test("filters by carrier, claim, date and status; 404 for a missing one and another org's", async () => {
    const { claim } = await sentCrown();
    const payment = await w.ok(w.post("/insurance/claim-payments", eob(claim.id, { payment_date: "2025-02-02" })));
    const ids = async (q: string) => (await w.ok(w.get(`/insurance/claim-payments?${q}&page_size=200`), 200)).items.map((x: any) => x.id);
    expect(await ids(`claim_uuid=${claim.id}`)).toEqual([payment.id]);
    expect(await ids(`claim_uuid=${claim.id}&status=voided`)).toEqual([]);
    expect(await ids("date_from=2025-02-02&date_to=2025-02-02")).toEqual([payment.id]);
    expect(await ids(`carrier_uuid=${w.office.carriers.cigna}&claim_uuid=${claim.id}`)).toEqual([]);
    expect((await w.get("/insurance/claim-payments?date_from=2025-03-01&date_to=2025-01-01")).status).toBe(422);
    expect((await w.get(`/insurance/claim-payments/${MISSING}`)).status).toBe(404);
    expect((await w.t.request("GET", `${w.pathB}/insurance/claim-payments/${payment.id}`, { token: w.tokens.memberOfB })).status).toBe(404);
    expect((await w.get("/insurance/claim-payments", w.tokens.clinician)).status).toBe(403);
  });
});
