import { beforeAll, describe, expect, test } from "bun:test";
import { busDrained } from "@tests/helpers";
import { claimsWorld, MISSING, type ClaimsWorld } from "./fixtures";

// Claims over HTTP (docs/insurance/claims.md, "Claims"): create, read, list,
// change, move; the procedures' has_active_claim and code_sent; the lock on a
// claimed procedure's fee and deletion; every refusal leaves the data as it was.

let w: ClaimsWorld;
beforeAll(async () => {
  w = await claimsWorld();
}, 60_000);

describe("POST /insurance/claims", () => {
  test("a primary claim of two completed procedures: numbered, unsent, each procedure at its fee with its current estimate", async () => {
    const p = await w.patientWith([
      ["D2740", 1300, "3"],
      ["D2150", 200, "30/MO"],
    ]);
    const claim = await w.claimFor(p, { note: "Crown and filling" });
    expect(claim).toMatchObject({
      claim_number: expect.stringMatching(/^C\d{6}$/),
      claim_type: "primary",
      status: "unsent",
      patient: { uuid: p.patient, name: "Maria Lopez" },
      patient_plan: { uuid: p.primary, name: "Delta Dental PPO" },
      carrier: { uuid: w.office.carriers.delta, name: "Delta Dental" },
      plan: { uuid: w.office.planA, name: "Delta Dental PPO" },
      ordinal: 1,
      treating_provider: { uuid: w.dentist.id, name: "Ann Apex" },
      billing_provider: { uuid: w.dentist.id, name: "Ann Apex" },
      place_of_service: "11",
      date_service: "2025-03-05",
      date_sent: null,
      date_received: null,
      fee_billed: "1500.00",
      insurance_paid: "0.00",
      write_off: "0.00",
      note: "Crown and filling",
      secondary_ready: false,
    });
    // the estimates it copies (plan A, its 50.00 deductible not yet met): 50 % of the crown's 900.00 allowed less the
    // deductible, 80 % of the filling's 110.00;
    // the rest of the fee over the allowed is the PPO write-off, what is left the patient's
    expect(
      claim.procedures.map((x: any) => [x.procedure_code, x.tooth_number, x.surfaces, x.fee_billed, x.insurance_estimate, x.patient_portion, x.status]),
    ).toEqual([
      ["D2740", "3", null, "1300.00", "425.00", "475.00", "estimate"],
      ["D2150", "30", "MO", "200.00", "88.00", "22.00", "estimate"],
    ]);
    expect([claim.insurance_estimate, claim.deductible_applied, claim.patient_portion]).toEqual(["513.00", "50.00", "497.00"]);
    for (const id of p.procedures) {
      const proc = await w.ok(w.get(`/clinical/procedures/${id}`), 200);
      expect([proc.has_active_claim, proc.code_sent]).toEqual([true, id === p.procedures[0] ? "D2740" : "D2150"]);
    }
    const listed = await w.ok(w.get(`/clinical/patients/${p.patient}/procedures?has_active_claim=true`), 200);
    expect(listed.items.map((x: any) => x.id).sort()).toEqual([...p.procedures].sort());
    expect(await w.ok(w.get(`/insurance/claims/${claim.id}`), 200)).toEqual(claim);
  });

  test("claim numbers count up per org", async () => {
    const a = await w.claimFor(await w.patientWith([["D1110", 120]]));
    const b = await w.claimFor(await w.patientWith([["D1110", 120]]));
    expect(Number(b.claim_number.slice(1)) - Number(a.claim_number.slice(1))).toBe(1);
  });

  test("a pre-authorization takes treatment-planned procedures; a claim of them is refused with each named", async () => {
    const p = await w.patientWith([
      ["D2740", 1300, "14", "treatment_planned"],
      ["D7140", 250, "1", "treatment_planned"],
    ]);
    const before = await w.snapshot();
    const r = await w.post("/insurance/claims", {
      patient_uuid: p.patient,
      patient_plan_uuid: p.primary,
      claim_type: "primary",
      procedure_uuids: p.procedures,
    });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: any) => [d.loc.join("."), d.msg])).toEqual([
      ["body.procedure_uuids.0", "Procedure D2740 is treatment_planned: a claim takes completed procedures"],
      ["body.procedure_uuids.1", "Procedure D7140 is treatment_planned: a claim takes completed procedures"],
    ]);
    expect(await w.snapshot()).toEqual(before);
    const pre = await w.claimFor(p, { claim_type: "preauth" });
    expect([pre.claim_type, pre.status, pre.procedures.length]).toEqual(["preauth", "unsent", 2]);
  });

  test("a procedure on a live claim of the plan is 409 already_claimed naming it; another plan or a preauth is not the same claim", async () => {
    const p = await w.patientWith([["D2150", 200, "19/O"]]);
    const first = await w.claimFor(p);
    const before = await w.snapshot();
    const again = await w.post("/insurance/claims", {
      patient_uuid: p.patient,
      patient_plan_uuid: p.primary,
      claim_type: "primary",
      procedure_uuids: p.procedures,
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("already_claimed");
    expect(again.body.detail).toContain(`D2150 (${p.procedures[0]}) is on claim ${first.claim_number}`);
    expect(await w.snapshot()).toEqual(before);
  });

  test("404 for a missing patient, patient plan, procedure, provider or document; another org's records are missing", async () => {
    const p = await w.patientWith([["D1110", 120]]);
    const base = { patient_uuid: p.patient, patient_plan_uuid: p.primary, claim_type: "primary", procedure_uuids: p.procedures };
    const before = await w.snapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ patient_uuid: MISSING }, "Patient not found"],
      [{ patient_plan_uuid: MISSING }, "Patient plan not found"],
      [{ procedure_uuids: [MISSING] }, "Charted procedure not found"],
      [{ treating_provider_uuid: MISSING }, "Provider not found"],
      [{ attachment_document_uuids: [MISSING] }, "Document not found"],
    ];
    for (const [change, message] of cases) {
      const r = await w.post("/insurance/claims", { ...base, ...change });
      expect([r.status, r.body.detail]).toEqual([404, message]);
    }
    const other = await w.t.request("POST", `${w.pathB}/insurance/claims`, { token: w.tokens.memberOfB, body: base });
    expect([other.status, other.body.detail]).toEqual([404, "Patient not found"]);
    expect(await w.snapshot()).toEqual(before);
  });

  test("422 for bad input of every kind, nothing stored", async () => {
    const p = await w.patientWith([["D1110", 120]]);
    const q = await w.patientWith([["D1110", 120]], { first: "Other" });
    const base = { patient_uuid: p.patient, patient_plan_uuid: p.primary, claim_type: "primary", procedure_uuids: p.procedures };
    const before = await w.snapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ claim_type: "tertiary" }, "body.claim_type"],
      [{ procedure_uuids: [] }, "body.procedure_uuids"],
      [{ procedure_uuids: Array.from({ length: 51 }, () => p.procedures[0]) }, "body.procedure_uuids"],
      [{ place_of_service: "office" }, "body.place_of_service"],
      [{ unknown_field: 1 }, "body.unknown_field"],
      [{ patient_plan_uuid: q.primary }, "body.patient_plan_uuid"],
      [{ procedure_uuids: q.procedures }, "body.procedure_uuids.0"],
      [{ procedure_uuids: [p.procedures[0], p.procedures[0]] }, "body.procedure_uuids.1"],
      [{ claim_type: "secondary" }, "body.claim_type"],
      [{ patient_plan_uuid: p.secondary, claim_type: "primary" }, "body.claim_type"],
      [{ patient_plan_uuid: p.secondary, claim_type: "secondary" }, "body.procedure_uuids.0"],
    ];
    for (const [change, loc] of cases) {
      const r = await w.post("/insurance/claims", { ...base, ...change });
      expect([r.status, r.body.detail?.map((d: any) => d.loc.join(".")).includes(loc) ? loc : r.text]).toEqual([422, loc]);
    }
    const secondary = await w.post("/insurance/claims", { ...base, patient_plan_uuid: p.secondary, claim_type: "secondary" });
    expect(secondary.body.detail[0].msg).toBe("Procedure D1110 has no primary claim");
    expect(await w.snapshot()).toEqual(before);
  });

  test("403 without insurance.claims.write; 401 without a token", async () => {
    const p = await w.patientWith([["D1110", 120]]);
    const body = { patient_uuid: p.patient, patient_plan_uuid: p.primary, claim_type: "primary", procedure_uuids: p.procedures };
    expect((await w.post("/insurance/claims", body, w.tokens.reader)).status).toBe(403);
    expect((await w.t.request("POST", `${w.A}/insurance/claims`, { body })).status).toBe(401);
  });
});

describe("claim states", () => {
  test("unsent → hold → unsent → queued → sent → received, each dated; events claim.created and claim.status_changed", async () => {
    const from = w.events.length;
    const claim = await w.claimFor(await w.patientWith([["D1110", 120]]));
    expect((await w.move(claim, "hold", { note: "Waiting for the x-ray" })).status_note).toBe("Waiting for the x-ray");
    await w.move(claim, "unsent");
    await w.move(claim, "queued");
    const sent = await w.move(claim, "sent", { date: "2025-03-10" });
    expect([sent.status, sent.date_sent]).toEqual(["sent", "2025-03-10"]);
    const received = await w.move(claim, "received", { date: "2025-04-01" });
    expect([received.status, received.date_received, received.version]).toEqual(["received", "2025-04-01", 6]);
    await busDrained(w.t.rt.bus);
    const mine = w.events.slice(from).filter((e) => e.resource_id === claim.id);
    expect(mine.map((e) => [e.type, (e.data as any).status ?? null])).toEqual([
      ["claim.created", "unsent"],
      ["claim.status_changed", "hold"],
      ["claim.status_changed", "unsent"],
      ["claim.status_changed", "queued"],
      ["claim.status_changed", "sent"],
      ["claim.status_changed", "received"],
    ]);
    expect(JSON.stringify(mine)).not.toContain("Lopez");
  });

  test("a wrong move is 422 invalid_transition, a stale base_version 409; nothing changes", async () => {
    const claim = await w.claimFor(await w.patientWith([["D1110", 120]]));
    const before = await w.snapshot();
    const wrong = await w.post(`/insurance/claims/${claim.id}/status`, { base_version: 1, status: "received" });
    expect([wrong.status, wrong.body.code, wrong.body.detail[0].msg]).toEqual([422, "invalid_transition", "Cannot change status from unsent to received"]);
    const stale = await w.post(`/insurance/claims/${claim.id}/status`, { base_version: 7, status: "hold" });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await w.post(`/insurance/claims/${MISSING}/status`, { base_version: 1, status: "hold" })).status).toBe(404);
    expect(await w.snapshot()).toEqual(before);
  });

  test("rejected goes back to unsent; void lets the procedures go and is final; a received claim cannot be voided", async () => {
    const p = await w.patientWith([["D1110", 120]]);
    const claim = await w.claimFor(p);
    await w.move(claim, "queued");
    await w.move(claim, "sent");
    const rejected = await w.move(claim, "rejected", { note: "Subscriber id not found" });
    expect([rejected.status, rejected.status_note]).toEqual(["rejected", "Subscriber id not found"]);
    expect((await w.move(claim, "unsent")).date_sent).toBeNull();
    const voided = await w.move(claim, "void", { note: "Billed in error" });
    expect([voided.status, voided.procedures[0].status]).toEqual(["void", "void"]);
    const proc = await w.ok(w.get(`/clinical/procedures/${p.procedures[0]}`), 200);
    expect([proc.has_active_claim, proc.code_sent]).toEqual([false, null]);
    expect((await w.post(`/insurance/claims/${claim.id}/status`, { base_version: voided.version, status: "unsent" })).status).toBe(422);
    // the procedure is free again: a new claim takes it
    expect((await w.claimFor(p)).status).toBe("unsent");
    const done = await w.claimFor(await w.patientWith([["D1110", 120]]));
    await w.move(done, "sent");
    const received = await w.move(done, "received");
    const r = await w.post(`/insurance/claims/${done.id}/status`, { base_version: received.version, status: "void" });
    expect([r.status, r.body.code]).toEqual([422, "invalid_transition"]);
  });
});

describe("a pre-authorization's answer", () => {
  test("received with the carrier's estimate per procedure: the claim shows it and so does the procedure's estimate", async () => {
    const p = await w.patientWith([
      ["D2740", 1300, "14", "treatment_planned"],
      ["D7140", 250, "1", "treatment_planned"],
    ]);
    const pre = await w.claimFor(p, { claim_type: "preauth", prior_authorization_number: "PA-77" });
    await w.move(pre, "sent", { date: "2025-03-01" });
    const current = await w.ok(w.get(`/insurance/claims/${pre.id}`), 200);
    const bad = await w.post(`/insurance/claims/${pre.id}/status`, {
      base_version: current.version,
      status: "received",
      preauth_estimates: [{ procedure_uuid: p.procedures[0], insurance_estimate: 2000 }],
    });
    expect([bad.status, bad.body.detail[0].loc]).toEqual([422, ["body", "preauth_estimates", 0, "insurance_estimate"]]);
    const received = await w.ok(
      w.post(`/insurance/claims/${pre.id}/status`, {
        base_version: current.version,
        status: "received",
        date: "2025-03-20",
        preauth_estimates: [{ procedure_uuid: p.procedures[0], insurance_estimate: 480 }],
      }),
      200,
    );
    expect(received.procedures.map((x: any) => [x.procedure_code, x.status, x.insurance_estimate])).toEqual([
      ["D2740", "received", "480.00"],
      ["D7140", "received", pre.procedures[1].insurance_estimate],
    ]);
    const estimates = await w.ok(w.get(`/clinical/patients/${p.patient}/treatment-plans/${p.treatmentPlan}/estimates`), 200);
    const crown = JSON.stringify(estimates).match(/"preauth_amount":"480.00"/g) ?? [];
    expect(crown.length).toBe(1);
    expect(JSON.stringify(estimates)).toContain('"preauth_number":"PA-77"');
    // a claim that is not a pre-authorization takes no estimates
    const claim = await w.claimFor(await w.patientWith([["D1110", 120]]));
    await w.move(claim, "sent");
    const wrong = await w.post(`/insurance/claims/${claim.id}/status`, {
      base_version: 2,
      status: "received",
      preauth_estimates: [{ procedure_uuid: claim.procedures[0].procedure.uuid, insurance_estimate: 1 }],
    });
    expect([wrong.status, wrong.body.detail[0].loc]).toEqual([422, ["body", "preauth_estimates"]]);
  });
});

describe("PATCH /insurance/claims/{id}", () => {
  test("procedures change while unsent; once queued only the note changes (422 claim_locked)", async () => {
    const p = await w.patientWith([
      ["D1110", 120],
      ["D0150", 90],
    ]);
    const claim = await w.claimFor({ ...p, procedures: [p.procedures[0]!] });
    const changed = await w.ok(w.patch(`/insurance/claims/${claim.id}`, { base_version: 1, procedure_uuids: p.procedures, place_of_service: "22" }), 200);
    expect([changed.fee_billed, changed.place_of_service, changed.procedures.length, changed.version]).toEqual(["210.00", "22", 2, 2]);
    expect((await w.ok(w.get(`/clinical/procedures/${p.procedures[1]}`), 200)).has_active_claim).toBe(true);
    const queued = await w.move(claim, "queued");
    const before = await w.snapshot();
    const locked = await w.patch(`/insurance/claims/${claim.id}`, { base_version: queued.version, procedure_uuids: [p.procedures[0]] });
    expect([locked.status, locked.body.code]).toEqual([422, "claim_locked"]);
    expect((await w.patch(`/insurance/claims/${claim.id}`, { base_version: 1, note: "x" })).status).toBe(409);
    expect(await w.snapshot()).toEqual(before);
    expect((await w.ok(w.patch(`/insurance/claims/${claim.id}`, { base_version: queued.version, note: "Sent with x-rays" }), 200)).note).toBe(
      "Sent with x-rays",
    );
  });

  test("dropping a procedure lets it go", async () => {
    const p = await w.patientWith([
      ["D1110", 120],
      ["D0150", 90],
    ]);
    const claim = await w.claimFor(p);
    await w.ok(w.patch(`/insurance/claims/${claim.id}`, { base_version: 1, procedure_uuids: [p.procedures[0]] }), 200);
    expect((await w.ok(w.get(`/clinical/procedures/${p.procedures[1]}`), 200)).has_active_claim).toBe(false);
  });
});

describe("a claimed procedure is held", () => {
  test("its fee cannot change and it cannot be deleted (422 naming the claim) until the claim is void", async () => {
    const p = await w.patientWith([["D2740", 1300, "14", "treatment_planned"]]);
    const pre = await w.claimFor(p, { claim_type: "preauth" });
    const proc = await w.ok(w.get(`/clinical/procedures/${p.procedures[0]}`), 200);
    const before = await w.snapshot();
    const fee = await w.patch(`/clinical/procedures/${proc.id}`, { base_version: proc.version, fee_override: 1400 });
    expect([fee.status, fee.body.code, fee.body.detail[0].msg]).toEqual([
      422,
      "procedure_on_claim",
      `The procedure is on claim ${pre.claim_number} (unsent): its fee cannot change until the claim is void`,
    ]);
    const del = await w.t.request("DELETE", `${w.A}/clinical/procedures/${proc.id}?base_version=${proc.version}`, { token: w.token });
    expect([del.status, del.body.code]).toEqual([422, "procedure_on_claim"]);
    expect(await w.snapshot()).toEqual(before);
    await w.move(pre, "void");
    expect((await w.patch(`/clinical/procedures/${proc.id}`, { base_version: proc.version, fee_override: 1400 })).status).toBe(200);
  });
});

describe("GET /insurance/claims", () => {
  test("filters by status (repeatable), type, patient, carrier, service and sent dates; the outstanding list", async () => {
    const p = await w.patientWith([["D1110", 120]]);
    const a = await w.claimFor(p);
    await w.move(a, "sent", { date: "2025-01-02" });
    const q = await w.patientWith([["D1110", 120]]);
    const b = await w.claimFor(q);
    const ids = async (query: string) => (await w.ok(w.get(`/insurance/claims?${query}&page_size=200`), 200)).items.map((c: any) => c.id);
    expect(await ids(`patient_uuid=${p.patient}`)).toEqual([a.id]);
    expect(await ids(`status=sent&sent_to=2025-01-31&patient_uuid=${p.patient}`)).toEqual([a.id]);
    expect(await ids(`status=sent&sent_to=2024-12-31&patient_uuid=${p.patient}`)).toEqual([]);
    expect((await ids(`status=sent&status=unsent&carrier_uuid=${w.office.carriers.delta}`)).filter((id: string) => [a.id, b.id].includes(id)).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect(await ids(`claim_type=preauth&patient_uuid=${p.patient}`)).toEqual([]);
    expect(await ids(`date_from=2025-03-05&date_to=2025-03-05&patient_uuid=${q.patient}`)).toEqual([b.id]);
    const bad = await w.get("/insurance/claims?sent_from=2025-02-01&sent_to=2025-01-01");
    expect([bad.status, bad.body.detail[0].loc]).toEqual([422, ["query", "sent_to"]]);
    expect((await w.get("/insurance/claims?status=lost")).status).toBe(422);
    expect((await w.get(`/insurance/claims/${a.id}`, w.tokens.reader)).status).toBe(200);
    expect((await w.get(`/insurance/claims/${MISSING}`)).status).toBe(404);
    expect((await w.t.request("GET", `${w.pathB}/insurance/claims/${a.id}`, { token: w.tokens.memberOfB })).status).toBe(404);
    expect((await w.get("/insurance/claims", w.tokens.clinician)).status).toBe(403);
  });
});
