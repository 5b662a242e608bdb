import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemActor } from "@/platform/auth/actor";
import { learnAllowedFees, medianCents } from "@/domains/insurance/estimate-books/learn";
import { waitFor } from "@tests/helpers";
import { claimsWorldWithWorkers, type ClaimsWorkersWorld } from "./fixtures";

// Allowed fees learned from what carriers paid (docs/insurance/claims.md,
// "Learning allowed fees"): a posted payment is evidence for the active
// allowed_from_claims books whose scope holds its claim; the book's run takes
// the median allowed amount per code, writes a new fee with its sample count
// and confidence and an adjustment log, and the estimates are queued; a void
// takes the evidence back and the next run corrects the fee.

let w: ClaimsWorkersWorld;
/** The jobs sent to the queue, by name and payload. */
const sent: { name: string; payload: any }[] = [];
beforeAll(async () => {
  w = await claimsWorldWithWorkers();
  const queue = w.t.rt.queue!;
  const send = queue.send.bind(queue);
  queue.send = async (name, envelope, options) => {
    sent.push({ name, payload: (envelope as { payload: unknown }).payload });
    return send(name, envelope, options);
  };
}, 60_000);
afterAll(() => w.close());

const queued = (name: string) => sent.filter((j) => j.name === name).map((j) => j.payload);
const feesOf = async (bookId: string) => (await w.ok(w.get(`/insurance/estimate-books/${bookId}/allowed-fees`), 200)).items;

async function paidCrown(allowed: number) {
  const p = await w.patientWith([["D2740", 1300, "3"]], { secondary: false });
  const claim = await w.claimFor(p);
  await w.move(claim, "sent");
  const paid = Math.round(allowed * 0.5 * 100) / 100;
  return w.ok(
    w.post("/insurance/claim-payments", {
      carrier_uuid: w.office.carriers.delta,
      payment_date: "2025-04-01",
      amount: paid,
      splits: [{ claim_uuid: claim.id, paid, allowed, write_off: 1300 - allowed }],
    }),
  );
}

describe("learning allowed fees from claims", () => {
  test("medianCents: the middle one, or the two middle ones' mean rounded half up", () => {
    expect([medianCents([5]), medianCents([1, 9, 10]), medianCents([100, 101]), medianCents([100, 103])]).toEqual([5, 9, 101, 102]);
  });

  test("postings are evidence for the carrier's book; its run writes the median with its samples; a void takes one back and the next run corrects it", async () => {
    const book = await w.ok(
      w.post("/insurance/estimate-books", {
        name: "Delta from claims",
        rule_type: "allowed_from_claims",
        scope_type: "carrier",
        carrier_uuid: w.office.carriers.delta,
      }),
    );
    const otherCarrier = await w.ok(
      w.post("/insurance/estimate-books", {
        name: "Cigna from claims",
        rule_type: "allowed_from_claims",
        scope_type: "carrier",
        carrier_uuid: w.office.carriers.cigna,
      }),
    );
    await paidCrown(900);
    await paidCrown(950);
    const highest = await paidCrown(1100);
    const evidence = await w.ok(w.get(`/insurance/estimate-books/${book.id}/evidence`), 200);
    expect(evidence.items.map((e: any) => [e.procedure_code.name, e.allowed_fee, e.fee_billed, e.carrier.uuid]).sort()).toEqual([
      ["D2740", "1100.00", "1300.00", w.office.carriers.delta],
      ["D2740", "900.00", "1300.00", w.office.carriers.delta],
      ["D2740", "950.00", "1300.00", w.office.carriers.delta],
    ]);
    expect((await w.ok(w.get(`/insurance/estimate-books/${otherCarrier.id}/evidence`), 200)).items).toEqual([]);
    // each posting queued the book's run and the workers ran it: a fee per run, the latest first
    await waitFor(async () => queued("estimate-books.learn").filter((p) => p.book_ids.includes(book.id)).length === 3, { what: "three runs queued" });
    const fees = await waitFor(
      async () => {
        const items = await feesOf(book.id);
        return items.length && items[0].sample_count === 3 ? items : null;
      },
      { timeoutMs: 20_000, what: "the learned fee" },
    );
    expect(fees.map((f: any) => [f.procedure_code.name, f.allowed_fee, f.sample_count, f.confidence, f.resolution_scope_type, !!f.estimate_book_run])).toEqual([
      ["D2740", "950.00", 3, 0.3, "insurance_carrier", true],
      ["D2740", "925.00", 2, 0.2, "insurance_carrier", true],
      ["D2740", "900.00", 1, 0.1, "insurance_carrier", true],
    ]);
    const logs = await w.ok(w.get(`/insurance/estimate-books/${book.id}/adjustment-logs`), 200);
    expect(logs.items[0]).toMatchObject({
      change_reason: "recompute",
      new_allowed_fee: "950.00",
      description: "Learned from 3 claim payments: the median allowed amount is 950.00",
    });
    // a new fee makes the estimates stale: their job is queued
    await waitFor(async () => queued("estimates.recompute").some((p) => p.all === true), { what: "the estimates queued" });
    expect((await feesOf(otherCarrier.id)).length).toBe(0);
    const ctx = (await w.t.rt.orgs.openOrgForJob(w.orgA, { actor: systemActor("estimate-books.learn"), requestId: null }))!;
    // nothing new: the run writes nothing
    expect(await learnAllowedFees(ctx, [book.id])).toBe(0);

    await w.ok(w.post(`/insurance/claim-payments/${highest.id}/void`, { base_version: highest.version }), 200);
    expect((await w.ok(w.get(`/insurance/estimate-books/${book.id}/evidence`), 200)).items.length).toBe(2);
    const after = await waitFor(
      async () => {
        const items = await feesOf(book.id);
        return items[0]?.sample_count === 2 ? items : null;
      },
      { timeoutMs: 20_000, what: "the corrected fee" },
    );
    expect(after.map((f: any) => [f.allowed_fee, f.sample_count])).toEqual([
      ["925.00", 2],
      ["950.00", 3],
      ["925.00", 2],
      ["900.00", 1],
    ]);
    const corrected = (await w.ok(w.get(`/insurance/estimate-books/${book.id}/adjustment-logs`), 200)).items[0];
    expect([corrected.new_allowed_fee, corrected.previous_allowed_fee, corrected.delta_allowed_fee]).toEqual(["925.00", "950.00", "-25.00"]);
  });
});
