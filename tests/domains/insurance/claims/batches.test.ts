import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { claimBatches } from "@db/tenant/claims";
import { systemActor } from "@/platform/auth/actor";
import { all, run } from "@/platform/db/work";
import type { QueueSettings } from "@/platform/queue/types";
import { startWorkers } from "@/platform/queue/workers";
import { todayUtc } from "@/platform/time/dates";
import { batchHooks } from "@/domains/insurance/claims/batches/export";
import { claimsExport837d } from "@/domains/insurance/claims/batches/export.job";
import { check837D } from "@/domains/insurance/claims/x12/837d";
import { JOBS } from "@workers/registry";
import { auditOf, busDrained, waitFor } from "@tests/helpers";
import { bitewingPng, eobPdf } from "@tests/support/documents/fixtures";
import { postForm } from "@tests/support/documents/upload";
import { handlerOf } from "@tests/support/jobs";
import { claimsWorld, MISSING, type ClaimsWorld } from "./fixtures";

// 837D claim batches over HTTP (docs/insurance/claims.md, "Batches"): POST
// takes queued claims and answers 202; the claims.export-837d job (run by hand
// as a worker runs it, and at the end through the embedded queue's workers;
// batches-postgres.test.ts runs it on PostgreSQL) writes the file, which reads back (check837D) as what was sent; the claims
// are sent once. Claims that cannot be sent stay queued with their problems;
// refusals store nothing; the file is audited on download; the job is
// idempotent, and one killed between the store and the commit, or finding
// the batch or a claim changed at the commit, ends with one batch, each claim
// sent once, and one file named.

let w: ClaimsWorld;
beforeAll(async () => {
  w = await claimsWorld();
}, 60_000);
afterAll(async () => {
  batchHooks.beforeCommit = undefined;
  await w.t.close();
});

type Claim = { id: string; claim_number: string; version: number; status: string };

/** A claim of a new patient's completed procedures on plan A, moved to queued. */
async function queued(procedures: [string, number, string?][] = [["D1110", 120]], body: Record<string, unknown> = {}): Promise<Claim> {
  const p = await w.patientWith(procedures, { secondary: false });
  return w.move(await w.claimFor(p, body), "queued");
}

const getBatch = async (id: string) => w.ok(w.get(`/insurance/claim-batches/${id}`), 200);
const getClaim = async (id: string): Promise<Claim & Record<string, any>> => w.ok(w.get(`/insurance/claims/${id}`), 200);
const batchFile = (id: string) => w.t.request("GET", `${w.A}/insurance/claim-batches/${id}/file`, { token: w.token });

/** POST, then the job as a worker would run it: the batch as it answers then. */
async function sendBatch(body: Record<string, unknown>) {
  const r = await w.post("/insurance/claim-batches", body);
  if (r.status !== 202) throw new Error(`expected 202, got ${r.status} ${r.text}`);
  await runJob(r.body.id);
  return { posted: r.body, batch: await getBatch(r.body.id) };
}

/** The batches table of org A, and every claim-related row: what a refusal must leave as it was. */
async function state() {
  const db = await w.db();
  return { ...(await w.snapshot()), batches: await db.read((d) => all(d.select().from(claimBatches).orderBy(claimBatches.id))) };
}

/** The objects stored for a batch (local disk: DATA_DIR/documents/<org>/claim-batches/<batch>.<attempt>.x12). */
function storedFiles(batchId: string): string[] {
  const dir = join(w.t.dir, "documents", w.orgA, "claim-batches");
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith(`${batchId}.`)) : [];
}

/** The handler run by hand, as a worker would (attempt = retryCount + 1). */
async function runJob(batchId: string, retryCount = 0) {
  const handler = (await handlerOf(claimsExport837d)).default;
  return handler({
    rt: w.t.rt,
    payload: { batch_id: batchId },
    logger: w.t.rt.logger,
    actor: systemActor(claimsExport837d.id),
    causedBy: systemActor(claimsExport837d.id),
    orgId: w.orgA,
    requestId: null,
    job: { id: `job-${batchId}-${retryCount}`, name: claimsExport837d.id, retryCount },
  }) as Promise<any>;
}

/** How often each claim was moved to sent (its audit trail). */
async function sentMoves(claimIds: string[]) {
  const db = await w.db();
  const rows = await db.read((d) =>
    all<{ resource_id: string; after: any }>(
      d.select({ resource_id: auditEntries.resource_id, after: auditEntries.after }).from(auditEntries).where(eq(auditEntries.action, "claim.status_changed")),
    ),
  );
  return claimIds.map((id) => rows.filter((r) => r.resource_id === id && r.after?.status === "sent").length);
}

/** Leaves nothing queued for the next test's "every queued claim". */
async function voidAll(claims: { id: string }[]) {
  for (const c of claims) {
    const now = await getClaim(c.id);
    if (now.status !== "void") await w.move(c, "void");
  }
}

describe("POST /insurance/claim-batches: refusals", () => {
  test("nothing queued: 422 nothing_to_send, nothing stored", async () => {
    const unsent = await w.claimFor(await w.patientWith([["D1110", 120]], { secondary: false }));
    const before = await state();
    const r = await w.post("/insurance/claim-batches", {});
    expect([r.status, r.body.code, r.body.detail[0].msg]).toEqual([422, "nothing_to_send", "No queued claim to send"]);
    expect(await state()).toEqual(before);
    await voidAll([unsent]);
  });

  test("a claim not queued (422 naming each), missing or another org's (404), a reader (403), bad bodies (422): nothing stored", async () => {
    const q = await queued();
    const unsent = await w.claimFor(await w.patientWith([["D1110", 120]], { secondary: false }));
    const sent = await w.move(await w.claimFor(await w.patientWith([["D1110", 120]], { secondary: false })), "sent");
    const before = await state();

    const notQueued = await w.post("/insurance/claim-batches", { claim_uuids: [q.id, unsent.id, sent.id] });
    expect([notQueued.status, notQueued.body.code]).toEqual([422, "claim_not_queued"]);
    expect(notQueued.body.detail).toEqual([
      { loc: ["body", "claim_uuids", 1], msg: `Claim ${unsent.claim_number} is unsent, not queued`, type: "value_error" },
      { loc: ["body", "claim_uuids", 2], msg: `Claim ${sent.claim_number} is sent, not queued`, type: "value_error" },
    ]);
    const missing = await w.post("/insurance/claim-batches", { claim_uuids: [q.id, MISSING] });
    expect([missing.status, missing.body.detail]).toEqual([404, "Claim not found"]);
    // org A's claim asked for in org B by B's biller: not there
    const foreign = await w.t.request("POST", `${w.pathB}/insurance/claim-batches`, { token: w.tokens.memberOfB, body: { claim_uuids: [q.id] } });
    expect([foreign.status, foreign.body.detail]).toEqual([404, "Claim not found"]);
    expect((await w.post("/insurance/claim-batches", { claim_uuids: [q.id] }, w.tokens.reader)).status).toBe(403);
    expect((await w.t.request("POST", `${w.A}/insurance/claim-batches`, { body: {} })).status).toBe(401);

    const bad: [unknown, (string | number)[]][] = [
      [{ claim_uuids: [q.id], send: true }, ["body", "send"]],
      [{ claim_uuids: Array.from({ length: 501 }, () => q.id) }, ["body", "claim_uuids"]],
      [{ claim_uuids: [] }, ["body", "claim_uuids"]],
      [{ claim_uuids: ["C000001"] }, ["body", "claim_uuids", 0]],
      [{ claim_uuids: q.id }, ["body", "claim_uuids"]],
    ];
    for (const [body, loc] of bad) {
      const r = await w.post("/insurance/claim-batches", body);
      expect({ body, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ body, status: 422, loc });
    }
    expect(await state()).toEqual(before);
    await voidAll([q, unsent, sent]);
  });
});

describe("a batch of three claims", () => {
  let batch: any;
  let c1: Claim, c2: Claim, c3: Claim;
  let docs: { bitewing: string; perio: string };

  test("202 building; the job writes the file; every claim, line, fee and tooth reads back; the claims are sent; events", async () => {
    // 1: a crown and a filling of a subscriber, with a bitewing and a perio chart attached
    const p1 = await w.patientWith(
      [
        ["D2740", 1300, "3"],
        ["D2150", 200, "30/MO"],
      ],
      { secondary: false },
    );
    const upload = async (file: { bytes: Uint8Array; name: string; type: string }, document_type: string) => {
      const r = await postForm(w.t, w.token, `${w.A}/documents`, file, { document_type, owner_type: "patient", owner_uuid: p1.patient });
      if (r.status !== 201) throw new Error(`upload: ${r.status} ${r.text}`);
      return r.body.id as string;
    };
    docs = {
      bitewing: await upload({ bytes: await bitewingPng(), name: "bw.png", type: "image/png" }, "bitewing"),
      perio: await upload({ bytes: await eobPdf(), name: "perio.pdf", type: "application/pdf" }, "periodontal_chart"),
    };
    c1 = await w.move(await w.claimFor(p1, { attachment_document_uuids: [docs.bitewing, docs.perio] }), "queued");

    // 2: a child on a parent's plan (PAT*19, the parent the subscriber)
    const parent = await w.ok(
      w.post("/patients", {
        first_name: "Pedro",
        last_name: "Ruiz",
        date_of_birth: "1980-02-03",
        gender: "male",
        location_uuid: w.location.id,
        address_line1: "5 Elm Street",
        city: "Portland",
        state: "OR",
        postal_code: "97202",
      }),
    );
    const child = await w.ok(
      w.post("/patients", { first_name: "Lucía", last_name: "Ruiz", date_of_birth: "2015-06-01", gender: "female", location_uuid: w.location.id }),
    );
    const sub = await w.ok(
      w.post("/insurance/subscriptions", {
        plan_uuid: w.office.planA,
        subscriber_patient_uuid: parent.id,
        subscriber_id: "RUIZ7788",
        effective_date: "2025-01-01",
      }),
    );
    const childPlan = await w.ok(w.post("/insurance/patient-plans", { patient_uuid: child.id, subscription_uuid: sub.id, ordinal: 1, relationship: "child" }));
    const cleaning = await w.ok(
      w.post(`/clinical/patients/${child.id}/procedures`, {
        procedure_code_uuid: w.office.codes.D1110,
        fee_override: 95.5,
        provider_uuid: w.dentist.id,
        location_uuid: w.location.id,
        status: "complete",
        date_service: "2025-03-06",
      }),
    );
    c2 = await w.move(await w.claimFor({ patient: child.id, primary: childPlan.id, procedures: [cleaning.id] }), "queued");

    // 3: a secondary claim once its primary claim is received
    const p3 = await w.patientWith([["D2150", 200, "19/DO"]], { first: "Sofia" });
    const primary = await w.claimFor(p3);
    await w.move(primary, "sent");
    await w.move(primary, "received");
    c3 = await w.move(
      await w.ok(
        w.post("/insurance/claims", { patient_uuid: p3.patient, patient_plan_uuid: p3.secondary, claim_type: "secondary", procedure_uuids: p3.procedures }),
      ),
      "queued",
    );

    const from = w.events.length;
    const r = await w.post("/insurance/claim-batches", { claim_uuids: [c1.id, c2.id, c3.id] });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      status: "building",
      version: 1,
      claim_uuids: [c1.id, c2.id, c3.id],
      written_claim_uuids: [],
      errors: [],
      file_size: null,
      error: null,
    });
    const control = r.body.control_number;
    expect(control).toBeGreaterThanOrEqual(1);

    // the file is not there while the batch is building
    const early = await batchFile(r.body.id);
    expect([early.status, early.body.detail]).toEqual([404, "Batch file not found"]);
    expect(await runJob(r.body.id)).toMatchObject({ batch_id: r.body.id, outcome: "ready", written: 3, left_out: 0 });
    batch = await getBatch(r.body.id);
    expect(batch).toMatchObject({ status: "ready", version: 2, control_number: control, written_claim_uuids: [c1.id, c2.id, c3.id], errors: [], error: null });

    const file = await batchFile(batch.id);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/edi-x12");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="${control}.x12"`);
    expect(batch.file_size).toBe(new TextEncoder().encode(file.text).length);

    const read = check837D(file.text);
    expect(read).toMatchObject({ control_number: control, transaction_count: 1, segment_count_ok: true });
    expect(read.claims.map((c) => [c.claim_number, c.total_cents, c.line_total_ok, c.payer_id, c.billing_npi])).toEqual([
      [c1.claim_number, 150000, true, "CDCA1", "1234567893"],
      [c2.claim_number, 9550, true, "CDCA1", "1234567893"],
      [c3.claim_number, 20000, true, "62308", "1234567893"],
    ]);
    expect(read.claims.map((c) => c.lines)).toEqual([
      [
        { procedure_code: "D2740", fee_cents: 130000, tooth_number: "3", surfaces: null },
        { procedure_code: "D2150", fee_cents: 20000, tooth_number: "30", surfaces: "MO" },
      ],
      [{ procedure_code: "D1110", fee_cents: 9550, tooth_number: null, surfaces: null }],
      // stored in canonical order, as charted
      [{ procedure_code: "D2150", fee_cents: 20000, tooth_number: "19", surfaces: "OD" }],
    ]);
    expect(read.claims[0]!.member_id).toMatch(/^W1/);
    expect(read.claims[1]!.member_id).toBe("RUIZ7788");
    expect(read.claims[2]!.member_id).toMatch(/^C2/);
    // radiographs RB, a periodontal chart P6; the control number is the document's id
    expect(read.claims[0]!.attachments).toEqual([
      { report_type: "RB", control_number: docs.bitewing },
      { report_type: "P6", control_number: docs.perio },
    ]);

    const segments = file.text.split("~");
    const slug = (await w.t.rt.access.org(w.orgA))!.slug;
    const sender = slug
      .replace(/[^A-Za-z0-9]/g, "")
      .slice(0, 15)
      .toUpperCase();
    expect(segments[0]).toContain(`*ZZ*${sender.padEnd(15)}*ZZ*${"CLEARINGHOUSE".padEnd(15)}*`);
    expect(segments[0]).toMatch(/\*P\*:$/);
    expect(segments).toContain(`CLM*${c1.claim_number}*1500***11:B:1*Y*A*Y*Y`);
    expect(segments).toContain(`CLM*${c2.claim_number}*95.5***11:B:1*Y*A*Y*Y`);
    expect(segments).toContain("NM1*PR*2*DELTA DENTAL*****PI*CDCA1");
    expect(segments).toContain("NM1*85*2*ANN APEX*****XX*1234567893");
    expect(segments).toContain("N3*1 HARBOR WAY");
    // the child: the parent is the subscriber (no SBR02: a patient loop follows), the child the patient
    expect(segments).toContain("NM1*IL*1*RUIZ*PEDRO****MI*RUIZ7788");
    expect(segments).toContain("PAT*19");
    expect(segments).toContain("NM1*QC*1*RUIZ*LUCIA");
    expect(segments).toContain("DMG*D8*20150601*F");
    // the secondary: SBR*S, and Delta Dental as the other payer, having paid 0 (received without payments)
    expect(segments.filter((s) => s.startsWith("SBR*S*18*"))).toHaveLength(1);
    expect(segments).toContain("AMT*D*0");
    expect(segments).toContain(`SVD*CDCA1*0*AD:D2150**1`);
    expect(segments.filter((s) => s.startsWith("PWK*"))).toEqual([`PWK*RB*BM***AC*${docs.bitewing}`, `PWK*P6*BM***AC*${docs.perio}`]);

    for (const c of [c1, c2, c3]) {
      expect(await getClaim(c.id)).toMatchObject({ status: "sent", date_sent: todayUtc(), batch_uuid: batch.id, status_note: null });
    }
    expect(await sentMoves([c1.id, c2.id, c3.id])).toEqual([1, 1, 1]);

    await busDrained(w.t.rt.bus);
    const events = w.events.slice(from);
    expect(events.filter((e) => e.resource_id === batch.id).map((e) => [e.type, e.data])).toEqual([
      ["claim_batch.created", { id: batch.id, control_number: control, claim_count: 3 }],
      ["claim_batch.ready", { id: batch.id, changed_fields: ["status", "written_claim_uuids", "file_size"], written: 3, left_out: 0 }],
    ]);
    const moved = events.filter((e) => e.type === "claim.status_changed" && e.data.status === "sent");
    expect(moved.map((e) => [e.resource_id, e.data.from_status]).sort()).toEqual(
      [
        [c1.id, "queued"],
        [c2.id, "queued"],
        [c3.id, "queued"],
      ].sort(),
    );
    for (const e of events.filter((e) => e.resource_id === batch.id)) expect(JSON.stringify(e.data)).not.toContain("storage_key");
  }, 30_000);

  test("the download is audited, as the user who downloaded it; the batch's trail: created, ready", async () => {
    const trail = await auditOf(w.t, w.orgA, batch.id);
    const reader = await w.t.request("GET", `${w.A}/insurance/claim-batches/${batch.id}/file`, { token: w.tokens.reader });
    expect(reader.status).toBe(200);
    const after = await auditOf(w.t, w.orgA, batch.id);
    expect(after.map((a) => [a.action, a.actor_id])).toEqual([
      ...trail.map((a) => [a.action, a.actor_id]),
      ["claim_batch.downloaded", w.members.reader.userId],
    ]);
    expect(after.slice(0, 2).map((a) => [a.action, a.actor_id])).toEqual([
      ["claim_batch.created", expect.any(String)],
      ["claim_batch.ready", "system:claims.export-837d"],
    ]);
    expect(after.at(-1)!.after).toEqual({ control_number: batch.control_number, file_size: batch.file_size, written_claim_ids: [c1.id, c2.id, c3.id] });
    // without a token, or in another org, nothing and no audit
    expect((await w.t.request("GET", `${w.A}/insurance/claim-batches/${batch.id}/file`)).status).toBe(401);
    expect((await w.t.request("GET", `${w.pathB}/insurance/claim-batches/${batch.id}/file`, { token: w.tokens.memberOfB })).status).toBe(404);
    expect((await auditOf(w.t, w.orgA, batch.id)).length).toBe(after.length);
  });

  test("the handler run again for the ready batch writes nothing more", async () => {
    const db = await w.db();
    const audits = () => db.read((d) => all(d.select().from(auditEntries).orderBy(auditEntries.id)));
    const before = { state: await state(), audit: (await audits()).length, files: storedFiles(batch.id) };
    expect(await runJob(batch.id)).toEqual({ batch_id: batch.id, outcome: "already_ready" });
    expect(await runJob(batch.id, 3)).toEqual({ batch_id: batch.id, outcome: "already_ready" });
    expect({ state: await state(), audit: (await audits()).length, files: storedFiles(batch.id) }).toEqual(before);
    expect(before.files).toHaveLength(1);
  });

  test("GET: the list newest first with its status filter; one batch; 404 missing or another org's", async () => {
    const list = await w.ok(w.get("/insurance/claim-batches?status=ready"), 200);
    expect(list.items[0]).toEqual(batch);
    expect(list.items.every((b: any) => b.status === "ready")).toBe(true);
    expect((await w.ok(w.get("/insurance/claim-batches?status=building"), 200)).items.map((b: any) => b.id)).not.toContain(batch.id);
    expect((await w.get("/insurance/claim-batches?status=sent")).status).toBe(422);
    expect(await w.ok(w.get(`/insurance/claim-batches/${batch.id}`, w.tokens.reader), 200)).toEqual(batch);
    expect((await w.get(`/insurance/claim-batches/${MISSING}`)).status).toBe(404);
    expect((await w.t.request("GET", `${w.pathB}/insurance/claim-batches/${batch.id}`, { token: w.tokens.memberOfB })).status).toBe(404);
    expect((await batchFile(MISSING)).body).toEqual({ detail: "Claim batch not found", code: "not_found" });
  });
});

describe("claims that cannot be sent", () => {
  test("a billing provider without an NPI: left out, still queued with the problem noted; a batch of only such claims fails", async () => {
    const noNpi = await w.ok(w.post("/providers", { abbreviation: "DRN", first_name: "Nora", last_name: "Nopi" }));
    const good = await queued([["D0150", 80]]);
    const bad = await queued([["D1110", 120]], { billing_provider_uuid: noNpi.id });
    const from = w.events.length;
    // a uuid given twice counts once
    const { posted, batch: b } = await sendBatch({ claim_uuids: [bad.id, good.id, bad.id] });
    expect(posted.claim_uuids).toEqual([bad.id, good.id]);
    expect(b).toMatchObject({
      status: "ready",
      written_claim_uuids: [good.id],
      errors: [{ claim_uuid: bad.id, claim_number: bad.claim_number, problems: ["The billing provider has no NPI"] }],
      error: null,
    });
    const file = check837D((await batchFile(b.id)).text);
    expect(file.claims.map((c) => c.claim_number)).toEqual([good.claim_number]);
    expect(await getClaim(good.id)).toMatchObject({ status: "sent", batch_uuid: b.id });
    const left = await getClaim(bad.id);
    expect(left).toMatchObject({
      status: "queued",
      status_note: "The billing provider has no NPI",
      batch_uuid: null,
      date_sent: null,
      version: bad.version + 1,
    });
    await busDrained(w.t.rt.bus);
    expect(
      w.events
        .slice(from)
        .filter((e) => e.resource_id === bad.id)
        .map((e) => [e.type, e.data.changed_fields]),
    ).toEqual([["claim.updated", ["status_note"]]]);

    // only such claims: failed, no file
    const { posted: only, batch: failed } = await sendBatch({ claim_uuids: [bad.id] });
    expect(failed).toMatchObject({
      status: "failed",
      written_claim_uuids: [],
      errors: [{ claim_uuid: bad.id, problems: ["The billing provider has no NPI"] }],
      file_size: null,
      error: "No claim could be written",
    });
    expect(storedFiles(only.id)).toEqual([]);
    const none = await batchFile(only.id);
    expect([none.status, none.body.detail]).toEqual([404, "Batch file not found"]);
    // the note is written once: the second batch found it already so
    expect((await getClaim(bad.id)).version).toBe(left.version);
    await busDrained(w.t.rt.bus);
    expect(
      w.events
        .slice(from)
        .filter((e) => e.resource_id === only.id)
        .map((e) => e.type),
    ).toEqual(["claim_batch.created", "claim_batch.failed"]);
    await voidAll([bad]);
  });

  test("a claim no longer queued when the job reads it is reported, not written", async () => {
    const a = await queued();
    const b = await queued();
    // the batch made, one of its claims voided before the job runs
    const id = (await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [a.id, b.id] }), 202)).id;
    await w.move(a, "void");
    expect(await runJob(id)).toMatchObject({ batch_id: id, outcome: "ready", written: 1, left_out: 1 });
    expect(await getBatch(id)).toMatchObject({
      status: "ready",
      written_claim_uuids: [b.id],
      errors: [{ claim_uuid: a.id, claim_number: a.claim_number, problems: ["No longer queued (status void)"] }],
    });
    expect((await getClaim(a.id)).status_note).toBeNull();
    expect((await getClaim(b.id)).status).toBe("sent");
  });
});

describe("while a batch is being built", () => {
  test("its claims cannot go in another batch; POST {} takes every other queued claim, oldest first", async () => {
    const q1 = await queued();
    const q2 = await queued([["D0150", 80]]);
    const q3 = await queued();
    const first = await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [q1.id] }), 202);
    expect((await w.ok(w.get("/insurance/claim-batches?status=building"), 200)).items.map((b: any) => b.id)).toEqual([first.id]);

    const before = await state();
    const again = await w.post("/insurance/claim-batches", { claim_uuids: [q2.id, q1.id, q2.id] });
    expect([again.status, again.body.code, again.body.detail]).toEqual([
      422,
      "claim_not_queued",
      [
        {
          loc: ["body", "claim_uuids", 1],
          msg: `Claim ${q1.claim_number} is already in batch ${first.control_number}, which is being built`,
          type: "value_error",
        },
      ],
    ]);
    expect(await state()).toEqual(before);

    const rest = await w.ok(w.post("/insurance/claim-batches", {}), 202);
    expect(rest).toMatchObject({ claim_uuids: [q2.id, q3.id], control_number: first.control_number + 1 });

    for (const id of [first.id, rest.id]) expect((await runJob(id)).outcome).toBe("ready");
    expect((await getBatch(first.id)).written_claim_uuids).toEqual([q1.id]);
    expect((await getBatch(rest.id)).written_claim_uuids).toEqual([q2.id, q3.id]);
    expect(await sentMoves([q1.id, q2.id, q3.id])).toEqual([1, 1, 1]);
  });
});

describe("a job that dies or finds things changed", () => {
  test("killed after storing the file, before the commit: the retry makes one ready batch, each claim sent once, one file named", async () => {
    const a = await queued();
    const b = await queued([["D2740", 1300, "14"]]);
    const r = await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [a.id, b.id] }), 202);
    const attempts: number[] = [];
    batchHooks.beforeCommit = ({ attempt }) => {
      attempts.push(attempt);
      if (attempt === 1) throw new Error("worker killed before the commit");
    };
    try {
      await expect(runJob(r.id, 0)).rejects.toThrow("worker killed before the commit");
      const between = await getBatch(r.id);
      expect(between).toMatchObject({ status: "building", version: 1 });
      expect(await getClaim(a.id)).toMatchObject({ status: "queued", batch_uuid: null });
      expect(await runJob(r.id, 1)).toMatchObject({ outcome: "ready", written: 2 });
      expect(attempts).toEqual([1, 2]);
    } finally {
      batchHooks.beforeCommit = undefined;
    }
    expect(await getBatch(r.id)).toMatchObject({ status: "ready", version: 2, written_claim_uuids: [a.id, b.id], errors: [] });
    expect(await sentMoves([a.id, b.id])).toEqual([1, 1]);
    const db = await w.db();
    const [row] = await db.read((d) => all<any>(d.select().from(claimBatches).where(eq(claimBatches.id, r.id))));
    // the killed attempt's object is left, named by no batch (as a killed upload's is); the retry's is the batch's
    const files = storedFiles(r.id);
    expect(files).toHaveLength(2);
    expect(files).toContain(row.storage_key.split("/").pop());
    const file = await batchFile(r.id);
    expect(check837D(file.text).claims.map((c) => c.claim_number)).toEqual([a.claim_number, b.claim_number]);
    expect(file.text).toBe(new TextDecoder().decode((await w.t.rt.storage.get(row.storage_key))!));
    expect((await auditOf(w.t, w.orgA, r.id)).map((x) => x.action)).toEqual(["claim_batch.created", "claim_batch.ready", "claim_batch.downloaded"]);
    // a third run (pg-boss sending the job again) finds it ready
    expect((await runJob(r.id, 2)).outcome).toBe("already_ready");
    expect(storedFiles(r.id)).toHaveLength(2);
  });

  test("the batch finished by another attempt meanwhile: nothing written, the stored object deleted", async () => {
    const a = await queued();
    const r = await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [a.id] }), 202);
    const db = await w.db();
    const seen: string[] = [];
    batchHooks.beforeCommit = async ({ batchId, storageKey }) => {
      seen.push(storageKey);
      // another attempt got there first (here: marked failed by hand)
      await db.write((tx) => run(tx.update(claimBatches).set({ status: "failed", error: "elsewhere", version: 2 }).where(eq(claimBatches.id, batchId))));
    };
    try {
      expect(await runJob(r.id)).toEqual({ batch_id: r.id, outcome: "already_failed" });
    } finally {
      batchHooks.beforeCommit = undefined;
    }
    expect(seen).toHaveLength(1);
    expect(storedFiles(r.id)).toEqual([]);
    expect(await getBatch(r.id)).toMatchObject({ status: "failed", error: "elsewhere", written_claim_uuids: [] });
    expect(await getClaim(a.id)).toMatchObject({ status: "queued", batch_uuid: null });
    await voidAll([a]);
  });

  test("a claim changed between the build and the commit: the file is built again, the first object deleted", async () => {
    const a = await queued();
    const r = await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [a.id] }), 202);
    const keys: string[] = [];
    batchHooks.beforeCommit = async ({ storageKey }) => {
      keys.push(storageKey);
      if (keys.length === 1) {
        const now = await getClaim(a.id);
        await w.ok(w.patch(`/insurance/claims/${a.id}`, { base_version: now.version, note: "Sent with x-rays" }), 200);
      }
    };
    try {
      expect(await runJob(r.id)).toMatchObject({ outcome: "ready", written: 1 });
    } finally {
      batchHooks.beforeCommit = undefined;
    }
    expect(keys).toHaveLength(2);
    expect(storedFiles(r.id)).toEqual([keys[1]!.split("/").pop()!]);
    expect(await getClaim(a.id)).toMatchObject({ status: "sent", note: "Sent with x-rays", batch_uuid: r.id });
    expect(await sentMoves([a.id])).toEqual([1]);
  });

  test("the last attempt that fails marks the batch failed with the reason; the claims stay queued", async () => {
    const a = await queued();
    const r = await w.ok(w.post("/insurance/claim-batches", { claim_uuids: [a.id] }), 202);
    batchHooks.beforeCommit = () => {
      throw new Error("storage is on fire");
    };
    try {
      await expect(runJob(r.id, 0)).rejects.toThrow("storage is on fire");
      expect((await getBatch(r.id)).status).toBe("building");
      expect(await runJob(r.id, 3)).toEqual({ batch_id: r.id, outcome: "failed" });
    } finally {
      batchHooks.beforeCommit = undefined;
    }
    expect(await getBatch(r.id)).toMatchObject({ status: "failed", error: "Not built: storage is on fire", written_claim_uuids: [] });
    expect(await getClaim(a.id)).toMatchObject({ status: "queued", batch_uuid: null });
    expect((await auditOf(w.t, w.orgA, r.id)).map((x) => [x.action, x.actor_id])).toEqual([
      ["claim_batch.created", expect.any(String)],
      ["claim_batch.failed", "system:claims.export-837d"],
    ]);
    await voidAll([a]);
  });
});

describe("through the embedded queue (PGlite), workers in-process", () => {
  let q: ClaimsWorld;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    q = await claimsWorld({ withQueue: true });
    stop = await startWorkers(q.t.rt, JOBS);
    // a retry at once (the definition waits 15 s and backs off): picked up at the next 2 s poll
    await q.t.rt.queue!.ensureQueue(claimsExport837d.id, { ...claimsExport837d.queue, retryDelay: 0, retryBackoff: false } as QueueSettings);
  }, 60_000);
  afterAll(async () => {
    batchHooks.beforeCommit = undefined;
    await stop();
    await q.t.close();
  });

  test("POST queues the job in its write; a worker killed before the commit is retried by pg-boss; one ready batch, each claim sent once", async () => {
    const claims: Claim[] = [];
    for (const procs of [[["D1110", 120]], [["D2740", 1300, "3"]]] as [string, number, string?][][]) {
      claims.push(await q.move(await q.claimFor(await q.patientWith(procs, { secondary: false })), "queued"));
    }
    // armed before the POST: a worker may take the job before the answer is back
    const attempts: number[] = [];
    batchHooks.beforeCommit = ({ attempt }) => {
      attempts.push(attempt);
      if (attempt === 1) throw new Error("worker killed before the commit");
    };
    try {
      // no body at all: every queued claim
      const r = await q.t.request("POST", `${q.A}/insurance/claim-batches`, { token: q.token });
      expect([r.status, r.body.status, r.body.claim_uuids]).toEqual([202, "building", claims.map((c) => c.id)]);
      const ready = await waitFor(
        async () => {
          const b = await q.ok(q.get(`/insurance/claim-batches/${r.body.id}`), 200);
          return b.status !== "building" ? b : null;
        },
        { timeoutMs: 20_000, intervalMs: 50, what: "the retried job" },
      );
      expect(attempts).toEqual([1, 2]);
      expect(ready).toMatchObject({ status: "ready", version: 2, written_claim_uuids: claims.map((c) => c.id), errors: [] });
      for (const c of claims) expect(await q.ok(q.get(`/insurance/claims/${c.id}`), 200)).toMatchObject({ status: "sent", batch_uuid: r.body.id });
      const file = await q.t.request("GET", `${q.A}/insurance/claim-batches/${r.body.id}/file`, { token: q.token });
      expect(check837D(file.text).claims.map((c) => c.claim_number)).toEqual(claims.map((c) => c.claim_number));
      await busDrained(q.t.rt.bus);
      const sent = q.events.filter((e) => e.type === "claim.status_changed" && e.data.status === "sent");
      expect(sent.map((e) => e.resource_id).sort()).toEqual(claims.map((c) => c.id).sort());
    } finally {
      batchHooks.beforeCommit = undefined;
    }
  }, 40_000);
});
