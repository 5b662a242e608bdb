import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { systemActor } from "@/platform/auth/actor";
import { waitFor } from "@tests/helpers";
import { balancedClaim, balancedEra, build835, type Era835InputClaim } from "@tests/support/era835";
import { ERA_CHUNK, eraHooks, importEra } from "@/domains/insurance/claims/eras/import";
import { claimsWorldWithWorkers, MISSING, type ClaimsWorkersWorld } from "./fixtures";

// ERAs end to end on the embedded queue (docs/insurance/claims.md, "ERAs"):
// an 835 uploaded, parsed by claims.era-import, matched and posted as the
// carrier's automation says; duplicates, malformed files and files that do not
// add up never post; review, matching by hand and posting after review; a
// posting cut off mid-way and run again posts every claim once.

let w: ClaimsWorkersWorld;
beforeAll(async () => {
  w = await claimsWorldWithWorkers();
}, 60_000);
afterAll(() => w.close());
afterEach(() => {
  eraHooks.beforeChunkCommit = undefined;
});

type Sent = Awaited<ReturnType<typeof sentClaim>>;

/** A patient's sent primary claim of one procedure (code, fee in dollars, tooth). */
async function sentClaim(code = "D2740", fee = 1300, tooth = "3", first = "Maria") {
  const p = await w.patientWith([[code, fee, tooth]], { first });
  const claim = await w.claimFor(p);
  await w.move(claim, "sent", { date: "2025-03-10" });
  return { p, claim, procedure: p.procedures[0]! };
}

/** The carrier's answer for a sent claim: allowed and paid in cents, the rest CO (over the allowed) and PR (the patient's). */
const answer = (c: Sent, allowed: number, paid: number, opts: { deductible?: number; number?: string; billed?: number } = {}): Era835InputClaim =>
  balancedClaim(
    opts.number ?? c.claim.claim_number,
    [
      {
        code: c.claim.procedures[0].procedure_code,
        billed: opts.billed ?? Math.round(Number(c.claim.fee_billed) * 100),
        allowed,
        paid,
        deductible: opts.deductible,
        line_control: c.procedure,
        date: "2025-03-05",
      },
    ],
    { patient: { first_name: "MARIA", last_name: "LOPEZ", member_id: "W1" }, date_service: "2025-03-05" },
  );

let trace = 0;
const era835 = (claims: Era835InputClaim[], overrides: Record<string, unknown> = {}) =>
  build835(balancedEra(claims, { payer: { name: "DELTA DENTAL", id: "CDCA1" }, trace_number: `EFT${++trace}`, payment_date: "2025-04-01", ...overrides }));

const upload = (text: string, as = w.token, type = "text/plain") =>
  w.t.request("POST", `${w.A}/insurance/eras`, { token: as, rawBody: text, headers: { "content-type": type } });

async function settled(id: string) {
  return waitFor(
    async () => {
      const era = (await w.get(`/insurance/eras/${id}`)).body;
      return ["posted", "needs_review", "failed"].includes(era.status) ? era : null;
    },
    { timeoutMs: 20_000, intervalMs: 50, what: "the ERA processed" },
  );
}

describe("POST /insurance/eras, auto_receive", () => {
  test("a payment and a denial posted at once: claims received, the claim payment made, the ledger written", async () => {
    const a = await sentClaim("D2740", 1300, "3");
    const b = await sentClaim("D1110", 120, "", "Ana");
    const text = era835([
      answer(a, 90000, 42500, { deductible: 5000 }),
      balancedClaim(b.claim.claim_number, [
        { code: "D1110", billed: 12000, allowed: 0, paid: 0, co_reason: "50", remarks: ["N130"], line_control: b.procedure, date: "2025-03-05" },
      ]),
    ]);
    const r = await upload(text);
    // the payer's id is TRN03 (1 and its tax id): with the trace number, what makes a duplicate
    expect([r.status, r.body.status, r.body.trace_number, r.body.payer_id, r.body.payer_name]).toEqual([
      202,
      "received",
      `EFT${trace}`,
      "1940000000",
      "DELTA DENTAL",
    ]);
    const era = await settled(r.body.id);
    expect(era).toMatchObject({
      status: "posted",
      carrier: { uuid: w.office.carriers.delta, name: "Delta Dental" },
      payment_date: "2025-04-01",
      payment_type: "eft",
      total_paid: "425.00",
      problems: [],
      counts: { claims: 2, matched: 2, posted: 2, unmatched: 0, needs_review: 0, denied: 1 },
    });
    expect(era.claims.map((c: any) => [c.claim.uuid, c.match_method, c.status, c.denied, c.paid])).toEqual([
      [a.claim.id, "claim_number", "posted", false, "425.00"],
      [b.claim.id, "claim_number", "posted", true, "0.00"],
    ]);
    const crown = await w.ok(w.get(`/insurance/claims/${a.claim.id}`), 200);
    expect([crown.status, crown.insurance_paid, crown.write_off, crown.deductible_applied, crown.patient_portion, crown.procedures[0].allowed_amount]).toEqual([
      "received",
      "425.00",
      "400.00",
      "50.00",
      "475.00",
      "900.00",
    ]);
    expect(crown.procedures[0].remark_codes).toEqual(["CO-45", "PR-1", "PR-2"]);
    const denial = await w.ok(w.get(`/insurance/claims/${b.claim.id}`), 200);
    expect([denial.procedures[0].status, denial.write_off, denial.patient_portion, denial.procedures[0].remark_codes]).toEqual([
      "denied",
      "120.00",
      "0.00",
      ["CO-50", "N130"],
    ]);
    const payment = await w.ok(w.get(`/insurance/claim-payments/${era.claim_payment_uuid}`), 200);
    expect([payment.era_uuid, payment.amount, payment.check_number, payment.payment_type, payment.splits.length]).toEqual([
      era.id,
      "425.00",
      `EFT${trace}`,
      "eft",
      2,
    ]);
    expect((await w.ledgerOf(a.p.patient)).map((e) => [e.entry_type, e.amount_cents, e.source])).toEqual([
      ["charge", 130000, "procedure"],
      ["payment", 42500, "insurance"],
      ["adjustment", -40000, "insurance"],
    ]);
  });

  test("the same payer's trace number again is 409 duplicate_era, and nothing is kept", async () => {
    const a = await sentClaim();
    const text = era835([answer(a, 90000, 45000)]);
    const first = await upload(text);
    await settled(first.body.id);
    const before = await w.snapshot();
    const again = await upload(text);
    expect([again.status, again.body.code]).toEqual([409, "duplicate_era"]);
    expect(await w.snapshot()).toEqual(before);
    expect((await w.ok(w.get("/insurance/eras?page_size=200"), 200)).items.filter((e: any) => e.trace_number === `EFT${trace}`).length).toBe(1);
  });

  test("a malformed file, or an 835 of another version, is failed with the parser's message and posts nothing", async () => {
    const a = await sentClaim();
    const before = await w.snapshot();
    const garbage = await settled((await upload("this is not an ERA")).body.id);
    expect([garbage.status, garbage.error]).toEqual(["failed", expect.stringContaining("Not a readable X12 file")]);
    const old = await settled((await upload(era835([answer(a, 90000, 45000)], { version: "004010X091A1" }))).body.id);
    expect([old.status, old.error]).toEqual(["failed", "ERA of another version: 004010X091A1 (GS08/ST03), expected 005010X221A1"]);
    const after = await w.snapshot();
    expect([after.splits, after.ledger, after.claims]).toEqual([before.splits, before.ledger, before.claims]);
  });

  test("amounts that do not add up (lines against the claim) are needs_review, never posted", async () => {
    const a = await sentClaim();
    const claim = answer(a, 90000, 42500);
    const text = build835(
      balancedEra([{ ...claim, paid_cents: 50000 }], {
        payer: { name: "DELTA DENTAL", id: "CDCA1" },
        trace_number: `EFT${++trace}`,
        payment_date: "2025-04-01",
      }),
    );
    const era = await settled((await upload(text)).body.id);
    expect(era.status).toBe("needs_review");
    expect(era.claims[0].status).toBe("needs_review");
    expect(era.claims[0].problems).toContain("Service lines paid 425.00, the claim says 500.00");
    expect((await w.ok(w.get(`/insurance/claims/${a.claim.id}`), 200)).status).toBe("sent");
    expect(await w.ledgerOf(a.p.patient)).toHaveLength(1);
  });
});

describe("review: matching by hand and posting after review", () => {
  test("an unmatched claim is listed; matched by hand and posted after review", async () => {
    const a = await sentClaim("D2740", 1300, "3", "Zed");
    const stray = answer(a, 90000, 42500, { number: "X999" });
    const era = await settled((await upload(era835([{ ...stray, patient: { first_name: "NOBODY", last_name: "KNOWN", member_id: null } }]))).body.id);
    expect([era.status, era.counts.unmatched, era.claims[0].status, era.claims[0].claim]).toEqual(["needs_review", 1, "unmatched", null]);
    const wrong = await w.post(`/insurance/eras/${era.id}/claims/0/match`, { base_version: era.version, claim_uuid: MISSING });
    expect(wrong.status).toBe(404);
    expect((await w.post(`/insurance/eras/${era.id}/claims/7/match`, { base_version: era.version, claim_uuid: a.claim.id })).status).toBe(404);
    expect((await w.post(`/insurance/eras/${era.id}/claims/x/match`, { base_version: era.version, claim_uuid: a.claim.id })).status).toBe(422);
    const matched = await w.ok(w.post(`/insurance/eras/${era.id}/claims/0/match`, { base_version: era.version, claim_uuid: a.claim.id }), 200);
    expect([matched.claims[0].status, matched.claims[0].match_method, matched.claims[0].claim.uuid]).toEqual(["matched", "manual", a.claim.id]);
    const stale = await w.post(`/insurance/eras/${era.id}/post`, { base_version: era.version });
    expect(stale.status).toBe(409);
    const posting = await w.post(`/insurance/eras/${era.id}/post`, { base_version: matched.version });
    expect([posting.status, posting.body.status]).toEqual([202, "processing"]);
    const done = await settled(era.id);
    expect([done.status, done.claims[0].status]).toEqual(["posted", "posted"]);
    expect((await w.ok(w.get(`/insurance/claims/${a.claim.id}`), 200)).insurance_paid).toBe("425.00");
    const again = await w.post(`/insurance/eras/${era.id}/post`, { base_version: done.version });
    expect([again.status, again.body.code]).toEqual([422, "era_not_in_review"]);
  });

  test("a carrier on manual_review waits for review; do_not_process only records; a standard carrier's patient-date-amount match waits", async () => {
    const carrier = await w.ok(w.get(`/insurance/carriers/${w.office.carriers.delta}`), 200);
    await w.ok(w.patch(`/insurance/carriers/${carrier.id}`, { base_version: carrier.version, era_automation_override: "manual_review" }), 200);
    try {
      const a = await sentClaim();
      const era = await settled((await upload(era835([answer(a, 90000, 42500)]))).body.id);
      expect([era.status, era.claims[0].status, era.problems]).toEqual(["needs_review", "matched", [expect.stringContaining("manual_review")]]);
      expect((await w.ok(w.get(`/insurance/claims/${a.claim.id}`), 200)).status).toBe("sent");
      await w.ok(w.post(`/insurance/eras/${era.id}/post`, { base_version: era.version }), 202);
      expect((await settled(era.id)).status).toBe("posted");
      const now = await w.ok(w.get(`/insurance/carriers/${carrier.id}`), 200);
      await w.ok(w.patch(`/insurance/carriers/${carrier.id}`, { base_version: now.version, era_automation_override: "do_not_process" }), 200);
      const b = await sentClaim();
      const recorded = await settled((await upload(era835([answer(b, 90000, 42500)]))).body.id);
      expect([recorded.status, recorded.problems]).toEqual(["needs_review", [expect.stringContaining("do_not_process")]]);
      expect(recorded.claim_payment_uuid).toBeNull();
    } finally {
      const now = await w.ok(w.get(`/insurance/carriers/${carrier.id}`), 200);
      await w.ok(w.patch(`/insurance/carriers/${carrier.id}`, { base_version: now.version, era_automation_override: null }), 200);
    }
    const c = await sentClaim("D2740", 1300, "3", "Fuzzy");
    const fuzzy = answer(c, 90000, 42500, { number: "THEIRS-1" });
    const era = await settled((await upload(era835([{ ...fuzzy, patient: { first_name: "FUZZY", last_name: "LOPEZ", member_id: null } }]))).body.id);
    expect([era.status, era.claims[0].match_method, era.claims[0].status, era.claims[0].claim.uuid]).toEqual([
      "needs_review",
      "patient_date_amount",
      "needs_review",
      c.claim.id,
    ]);
  });
});

describe("the upload's bounds", () => {
  test("multipart works; 415 for another media type; 413 past 10 MB; 403 without the key; 404 for another org's ERA", async () => {
    const a = await sentClaim();
    const form = new FormData();
    form.append("file", new Blob([era835([answer(a, 90000, 42500)])]), "remit.835");
    const res = await w.t.handle(
      new Request(`http://localhost${w.A}/insurance/eras`, { method: "POST", headers: { authorization: `Bearer ${w.token}` }, body: form }),
    );
    const body = (await res.json()) as any;
    expect([res.status, body.file_name]).toEqual([202, "remit.835"]);
    expect((await settled(body.id)).status).toBe("posted");
    const json = await upload("{}", w.token, "application/json");
    expect([json.status, json.body.detail]).toEqual([415, "Content-Type must be multipart/form-data or text/plain or application/edi-x12"]);
    expect((await upload("ISA".padEnd(10 * 1024 * 1024 + 10, "x"))).status).toBe(413);
    expect((await upload("ISA", w.tokens.reader)).status).toBe(403);
    // a text body takes Idempotency-Key as a JSON one does: the same key and file answer the first answer again
    const again = era835([answer(await sentClaim(), 90000, 42500)]);
    const keyed = (key: string) =>
      w.t.request("POST", `${w.A}/insurance/eras`, {
        token: w.token,
        rawBody: again,
        headers: { "content-type": "application/edi-x12", "idempotency-key": key },
      });
    const first = await keyed("era-key-1");
    const replay = await keyed("era-key-1");
    expect([first.status, replay.status, replay.body.id]).toEqual([202, 202, first.body.id]);
    expect((await keyed("era-key-2")).status).toBe(409);
    expect((await w.t.request("GET", `${w.pathB}/insurance/eras/${body.id}`, { token: w.tokens.memberOfB })).status).toBe(404);
    expect((await w.get(`/insurance/eras/${MISSING}`)).status).toBe(404);
    expect((await w.get("/insurance/eras?status=posted", w.tokens.reader)).body.items.some((e: any) => e.id === body.id)).toBe(true);
  });
});

describe("a posting cut off and run again", () => {
  test("25 claims in chunks: the second chunk's write dies, the retry posts the rest; every claim, split and ledger entry once", async () => {
    const many: Sent[] = [];
    for (let i = 0; i < 25; i++) many.push(await sentClaim("D1110", 120, "", `P${i}`));
    const carrier = await w.ok(w.get(`/insurance/carriers/${w.office.carriers.delta}`), 200);
    await w.ok(w.patch(`/insurance/carriers/${carrier.id}`, { base_version: carrier.version, era_automation_override: "manual_review" }), 200);
    const era = await settled((await upload(era835(many.map((c) => answer(c, 10000, 8000))))).body.id);
    const now = await w.ok(w.get(`/insurance/carriers/${carrier.id}`), 200);
    await w.ok(w.patch(`/insurance/carriers/${carrier.id}`, { base_version: now.version, era_automation_override: null }), 200);
    expect(era.status).toBe("needs_review");
    const ctx = await w.t.rt.orgs.openOrgForJob(w.orgA, { actor: systemActor("test"), requestId: null });
    eraHooks.beforeChunkCommit = ({ chunk }) => {
      if (chunk === 1) throw new Error("worker killed");
    };
    await expect(importEra(w.t.rt, ctx!, era.id, { post: true })).rejects.toThrow("worker killed");
    const half = (await w.get(`/insurance/eras/${era.id}`)).body;
    // the first chunk stands, the second left nothing
    expect(half.counts.posted).toBe(ERA_CHUNK);
    eraHooks.beforeChunkCommit = undefined;
    expect(await importEra(w.t.rt, ctx!, era.id, { post: true })).toEqual({ outcome: "posted", posted: 25 - ERA_CHUNK });
    expect(await importEra(w.t.rt, ctx!, era.id, { post: true })).toEqual({ outcome: "posted" });
    const payments = (await w.ok(w.get(`/insurance/claim-payments?page_size=200`), 200)).items.filter((x: any) => x.era_uuid === era.id);
    expect(payments).toHaveLength(1);
    expect(payments[0].splits).toHaveLength(25);
    for (const c of many) {
      const ledger = await w.ledgerOf(c.p.patient);
      expect(ledger.map((e) => [e.entry_type, e.amount_cents])).toEqual([
        ["charge", 12000],
        ["payment", 8000],
        ["adjustment", -2000],
      ]);
    }
  }, 60_000);
});
