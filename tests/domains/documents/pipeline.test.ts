import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { systemActor } from "@/platform/auth/actor";
import { all, run } from "@/platform/db/work";
import { documentSteps } from "@db/tenant/documents";
import type { EventEnvelope } from "@/platform/events/envelope";
import { documentsOcr, documentsResume, documentsScan, STEP_RETRY_LIMIT } from "@/domains/documents/pipeline/jobs";
import { stepHooks } from "@/domains/documents/pipeline/run-step";
import { JOBS } from "@workers/registry";
import { enqueue } from "@/platform/queue/enqueue";
import { startWorkers } from "@/platform/queue/workers";
import { busDrained, startTestApp, waitFor, type TestApp } from "@tests/helpers";
import {
  CARD_FRONT_MEMBER_ID,
  cardFrontJpeg,
  dicomPanoramic,
  eobPdf,
  pdfWithEicar,
  scannedReferralPdf,
  REFERRAL_PATIENT,
} from "@tests/support/documents/fixtures";
import { postForm, runPipeline, runStepJob } from "@tests/support/documents/upload";
import { postgresUnavailable } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";
import { CLAMD_TEST_URL, clamdUnavailable } from "@tests/support/clamd";

// The processing pipeline (docs/documents/documents.md, "Processing"): each step's job
// run by hand (outcomes, idempotence, a worker killed mid-step, retries spent,
// quarantine, documents changed under the pipeline), then end to end through
// pg-boss on the embedded queue, on PostgreSQL with a worker process killed
// mid-pipeline, and with a real clamd.

type World = { t: TestApp; token: string; orgId: string; P: string; events: EventEnvelope[] };

async function world(t: TestApp): Promise<World> {
  const token = await t.adminToken();
  const orgId = (await t.createOrg()).id;
  const events: EventEnvelope[] = [];
  t.rt.events.subscribe(orgId, (e) => events.push(e));
  return { t, token, orgId, P: `/api/v1/${orgId}/documents`, events };
}

async function upload(w: World, bytes: Uint8Array, name: string, fields: Record<string, string> = {}) {
  const r = await postForm(w.t, w.token, w.P, { bytes, name }, fields);
  expect(r.status).toBe(201);
  return r.body as { id: string; version: number };
}

const get = async (w: World, path: string) => (await w.t.request("GET", `${w.P}${path}`, { token: w.token })).body;
const status = async (w: World, path: string) => (await w.t.request("GET", `${w.P}${path}`, { token: w.token })).status;
const stepStates = async (w: World, id: string) => ((await get(w, `/${id}/processing-status`)).steps as any[]).map((s) => [s.step, s.status, s.attempts]);
const eventsOf = async (w: World, id: string, type: string) => {
  await busDrained(w.t.rt.bus);
  return w.events.filter((e) => e.resource_id === id && e.type === type);
};

/** The org's database, as a job opens it. */
const orgDb = async (w: World) => (await w.t.rt.orgs.openOrgForJob(w.orgId, { actor: systemActor("test"), requestId: null }))!.db;

/** The document's audit actions, oldest first. */
async function auditActions(w: World, id: string): Promise<string[]> {
  const db = await orgDb(w);
  const rows = await db.read((d) =>
    all<{ action: string }>(
      d
        .select({ action: auditEntries.action })
        .from(auditEntries)
        .where(and(eq(auditEntries.resource_type, "document"), eq(auditEntries.resource_id, id)))
        .orderBy(auditEntries.created_at, auditEntries.id),
    ),
  );
  return rows.map((r) => r.action);
}

describe("the steps run by hand", () => {
  let w: World;
  beforeAll(async () => {
    w = await world(await startTestApp());
  });
  afterAll(() => w.t.close());
  afterEach(() => {
    stepHooks.beforeWork = undefined;
  });

  test("the four jobs are registered, one-off, with a strict payload", () => {
    for (const id of ["documents.scan", "documents.ocr", "documents.classify", "documents.thumbnail"]) expect(JOBS.map((j) => j.definition.id)).toContain(id);
    expect(documentsScan.payload.safeParse({ document_id: w.orgId, version_number: 1 }).success).toBe(true);
    expect(documentsScan.payload.safeParse({ document_id: w.orgId, version_number: 0 }).success).toBe(false);
    expect(documentsScan.payload.safeParse({ document_id: w.orgId, version_number: 1, text: "x" }).success).toBe(false);
  });

  test("a phone photo of an insurance card: scanned, read, classified, thumbnailed; active; found by a word printed on it", async () => {
    const doc = await upload(w, await cardFrontJpeg(), "card.jpg", { title: "Front desk scan" });
    expect(await stepStates(w, doc.id)).toEqual([
      ["scan", "pending", 0],
      ["ocr", "pending", 0],
      ["classify", "pending", 0],
      ["thumbnail", "pending", 0],
    ]);
    expect(await status(w, `/${doc.id}/download`)).toBe(404); // not scanned yet
    const out = await runPipeline(w.t, w.orgId, doc.id);
    expect(out).toEqual({
      scan: { outcome: "completed" },
      ocr: { outcome: "completed" },
      classify: { outcome: "completed" },
      thumbnail: { outcome: "completed" },
    });
    const after = await get(w, `/${doc.id}`);
    expect(after).toMatchObject({
      status: "active",
      processing_status: "completed",
      ocr_status: "completed",
      page_count: 1,
      has_thumbnail: true,
      document_type: "other", // the uploader's choice stays; the classifier only suggests
      ai_classification: "insurance_card_front",
    });
    expect(after.ai_confidence).toBeGreaterThanOrEqual(0.5);
    expect(after).not.toHaveProperty("ocr_text");
    expect(await stepStates(w, doc.id)).toEqual([
      ["scan", "completed", 1],
      ["ocr", "completed", 1],
      ["classify", "completed", 1],
      ["thumbnail", "completed", 1],
    ]);
    expect((await get(w, `/${doc.id}/processing-status`)).overall_progress).toBe("4 of 4 steps done");
    const found = await get(w, `?search=${CARD_FRONT_MEMBER_ID}&include_org_scoped=true`);
    expect(found.items.map((d: any) => d.id)).toEqual([doc.id]);
    expect((await get(w, `?search=xyz1234&include_org_scoped=true`)).total).toBe(1); // a word prefix
    expect((await get(w, `?search=${CARD_FRONT_MEMBER_ID}`)).total).toBe(0); // org-scoped documents only when asked
    expect(await auditActions(w, doc.id)).toEqual([
      "document.created",
      "document.scanned",
      "document.ocr_started",
      "document.ocr_done",
      "document.classify_done",
      "document.thumbnail_done",
      "document.processed",
    ]);
    const processed = await eventsOf(w, doc.id, "document.processed");
    expect(processed).toHaveLength(1);
    expect(processed[0]!.data).toMatchObject({ id: doc.id, status: "active", version_number: 1 });
    expect(JSON.stringify(w.events)).not.toContain(CARD_FRONT_MEMBER_ID); // events never carry the text
  }, 30_000);

  test("a step run again after it finished changes nothing (a duplicate or retried job)", async () => {
    const doc = await upload(w, await eobPdf(), "eob.pdf");
    await runPipeline(w.t, w.orgId, doc.id);
    const before = await get(w, `/${doc.id}`);
    const audit = await auditActions(w, doc.id);
    for (const step of ["scan", "ocr", "classify", "thumbnail"] as const) {
      expect(await runStepJob(w.t, w.orgId, step, { document_id: doc.id, version_number: 1 })).toEqual({ outcome: "stopped", reason: "already done" });
    }
    expect(await get(w, `/${doc.id}`)).toEqual(before);
    expect(await auditActions(w, doc.id)).toEqual(audit);
    expect(await eventsOf(w, doc.id, "document.processed")).toHaveLength(1);
    expect(before).toMatchObject({ ai_classification: "eob", page_count: 1, ocr_status: "completed" });
  }, 30_000);

  test("a worker killed mid-step: the step stays running; the retry does it and applies it once", async () => {
    const doc = await upload(w, await scannedReferralPdf(), "referral.pdf");
    const p = { document_id: doc.id, version_number: 1 };
    await runStepJob(w.t, w.orgId, "scan", p);
    stepHooks.beforeWork = ({ step }) => {
      if (step === "ocr") throw new Error("worker killed");
    };
    await expect(runStepJob(w.t, w.orgId, "ocr", p)).rejects.toThrow("worker killed");
    expect((await stepStates(w, doc.id))[1]).toEqual(["ocr", "running", 1]);
    expect((await get(w, `/${doc.id}`)).ocr_status).toBe("processing");
    stepHooks.beforeWork = undefined;
    expect(await runStepJob(w.t, w.orgId, "ocr", p, 1)).toEqual({ outcome: "completed" });
    await runStepJob(w.t, w.orgId, "classify", p);
    await runStepJob(w.t, w.orgId, "thumbnail", p);
    expect(await stepStates(w, doc.id)).toEqual([
      ["scan", "completed", 1],
      ["ocr", "completed", 2],
      ["classify", "completed", 1],
      ["thumbnail", "completed", 1],
    ]);
    const actions = await auditActions(w, doc.id);
    expect(actions.filter((a) => a === "document.ocr_done")).toHaveLength(1);
    expect(actions.filter((a) => a === "document.processed")).toHaveLength(1);
    const found = await get(w, `?search=${encodeURIComponent(REFERRAL_PATIENT)}&include_org_scoped=true`);
    expect(found.items.map((d: any) => d.id)).toEqual([doc.id]); // the scanned page was OCR'd
  }, 30_000);

  test("archived under the pipeline: the next step stops and the rest are skipped", async () => {
    const doc = await upload(w, await eobPdf(), "eob.pdf");
    const p = { document_id: doc.id, version_number: 1 };
    await runStepJob(w.t, w.orgId, "scan", p);
    const current = await get(w, `/${doc.id}`);
    expect((await w.t.request("POST", `${w.P}/${doc.id}/archive?base_version=${current.version}`, { token: w.token })).status).toBe(200);
    expect(await runStepJob(w.t, w.orgId, "ocr", p)).toEqual({ outcome: "stopped", reason: "the document was archived" });
    const db = await orgDb(w);
    const { stepsOf } = await import("@/domains/documents/pipeline/steps");
    const steps = await db.read((d) => stepsOf(d, doc.id, 1));
    expect(steps.map((s) => [s.step, s.status, s.message])).toEqual([
      ["scan", "completed", null],
      ["ocr", "skipped", "the document was archived"],
      ["classify", "pending", null],
      ["thumbnail", "pending", null],
    ]);
  });

  test("a newer version supersedes the one in the pipeline: the old version's steps stop; the new one finishes", async () => {
    const doc = await upload(w, await eobPdf(), "eob.pdf");
    const v2 = await postForm(w.t, w.token, `${w.P}/${doc.id}/versions`, { bytes: await cardFrontJpeg(), name: "card.jpg" });
    expect(v2.status).toBe(201);
    expect(await runStepJob(w.t, w.orgId, "scan", { document_id: doc.id, version_number: 1 })).toEqual({
      outcome: "stopped",
      reason: "version 2 superseded this one",
    });
    await runPipeline(w.t, w.orgId, doc.id, 2);
    expect(await get(w, `/${doc.id}`)).toMatchObject({
      status: "active",
      current_version: 2,
      mime_type: "image/jpeg",
      ai_classification: "insurance_card_front",
    });
    expect((await get(w, `/${doc.id}/versions`)).items.map((v: any) => [v.version_number, v.status])).toEqual([
      [2, "confirmed"],
      [1, "processing"],
    ]);
  }, 30_000);

  test("a DICOM panoramic: no text and no thumbnail (skipped, with the reason); classified from its tags", async () => {
    const doc = await upload(w, await dicomPanoramic(), "pano.dcm");
    await runPipeline(w.t, w.orgId, doc.id);
    expect(await get(w, `/${doc.id}`)).toMatchObject({
      status: "active",
      mime_type: "application/dicom",
      ocr_status: "skipped",
      has_thumbnail: false,
      ai_classification: "panoramic",
    });
    expect(await stepStates(w, doc.id)).toEqual([
      ["scan", "completed", 1],
      ["ocr", "completed", 1],
      ["classify", "completed", 1],
      ["thumbnail", "skipped", 1],
    ]);
    expect(await status(w, `/${doc.id}/thumbnail`)).toBe(404);
    expect(await status(w, `/${doc.id}/download`)).toBe(200);
  });

  test("EICAR in an upload: quarantined, never downloadable, document.quarantined sent, the other steps skipped", async () => {
    const doc = await upload(w, await pdfWithEicar(), "statement.pdf");
    expect(await runStepJob(w.t, w.orgId, "scan", { document_id: doc.id, version_number: 1 })).toEqual({ outcome: "quarantined" });
    expect(await get(w, `/${doc.id}`)).toMatchObject({ status: "quarantined", processing_status: "quarantined", has_thumbnail: false });
    expect(await stepStates(w, doc.id)).toEqual([
      ["scan", "completed", 1],
      ["ocr", "skipped", 0],
      ["classify", "skipped", 0],
      ["thumbnail", "skipped", 0],
    ]);
    for (const path of ["download", "preview", "thumbnail", "versions/1/download"]) expect(await status(w, `/${doc.id}/${path}`)).toBe(404);
    expect((await get(w, `/${doc.id}/versions`)).items[0].status).toBe("quarantined");
    const quarantined = await eventsOf(w, doc.id, "document.quarantined");
    expect(quarantined).toHaveLength(1);
    expect(quarantined[0]!.data).toEqual({ id: doc.id, changed_fields: ["status"], version_number: 1 });
    // a later job for the version (a duplicate) stops
    expect(await runStepJob(w.t, w.orgId, "ocr", { document_id: doc.id, version_number: 1 })).toEqual({
      outcome: "stopped",
      reason: "the version is quarantined",
    });
  });
});

describe("documents.resume: stalled pipelines are picked up again", () => {
  let w: World;
  beforeAll(async () => {
    w = await world(await startTestApp()); // no queue: the upload's scan job is never sent, as if the process died after its commit
  });
  afterAll(() => w.t.close());

  test("the first unfinished step of a version untouched for 30 minutes is sent again, with the upload's request id; a finished pipeline is left alone", async () => {
    const r = await postForm(w.t, w.token, w.P, { bytes: await eobPdf(), name: "eob.pdf" }, {}, { headers: { "x-request-id": "req-stalled" } });
    const fresh = await postForm(w.t, w.token, w.P, { bytes: await eobPdf(), name: "fresh.pdf" });
    const db = await orgDb(w);
    const { stalledSteps } = await import("@/domains/documents/pipeline/steps");
    expect(await db.read((d) => stalledSteps(d, new Date()))).toEqual([]); // nothing is stalled yet
    // half an hour on, for the first document only
    await db.write((tx) =>
      run(
        tx
          .update(documentSteps)
          .set({ updated_at: new Date(Date.now() - 31 * 60_000).toISOString() })
          .where(eq(documentSteps.document_id, r.body.id)),
      ),
    );
    await runStepJob(w.t, w.orgId, "scan", { document_id: r.body.id, version_number: 1 }); // the scan is activity: not stalled now
    expect(await db.read((d) => stalledSteps(d, new Date()))).toEqual([]);
    await db.write((tx) =>
      run(
        tx
          .update(documentSteps)
          .set({ updated_at: new Date(Date.now() - 31 * 60_000).toISOString() })
          .where(eq(documentSteps.document_id, r.body.id)),
      ),
    );
    expect(await db.read((d) => stalledSteps(d, new Date()))).toEqual([{ document_id: r.body.id, version_number: 1, step: "ocr", request_id: "req-stalled" }]);

    const sent: { name: string; envelope: any; options: any }[] = [];
    const queue = { send: async (name: string, envelope: unknown, options: unknown) => (sent.push({ name, envelope, options }), "job-1") };
    const { default: resume } = await import("@/domains/documents/pipeline/resume.handler");
    const out = await resume({
      rt: { ...w.t.rt, queue } as never,
      payload: {},
      logger: w.t.rt.logger,
      actor: systemActor(documentsResume.id),
      causedBy: systemActor(documentsResume.id),
      orgId: null,
      requestId: null,
      job: { id: "resume-1", name: documentsResume.id, retryCount: 0 },
    });
    expect(out).toMatchObject({ steps_resumed: 1, orgs_failed: 0 });
    expect(sent).toEqual([
      {
        name: "documents.ocr",
        envelope: { payload: { document_id: r.body.id, version_number: 1 }, actor: systemActor("documents.ocr"), request_id: "req-stalled", org_id: w.orgId },
        options: { singletonKey: `${r.body.id}:1:ocr`, startAfterSeconds: undefined },
      },
    ]);
    for (const step of ["ocr", "classify", "thumbnail"] as const) await runStepJob(w.t, w.orgId, step, { document_id: r.body.id, version_number: 1 });
    expect((await get(w, `/${r.body.id}`)).status).toBe("active");
    expect((await get(w, `/${fresh.body.id}`)).status).toBe("processing"); // not stalled: left alone
    await db.write((tx) => run(tx.update(documentSteps).set({ updated_at: new Date(Date.now() - 31 * 60_000).toISOString() })));
    expect((await db.read((d) => stalledSteps(d, new Date()))).map((s) => [s.document_id, s.step])).toEqual([[fresh.body.id, "scan"]]);
  }, 30_000);
});

describe("retries", () => {
  let w: World;
  beforeAll(async () => {
    // a clamd that is never there: every scan attempt fails (and is retryable)
    w = await world(await startTestApp({ CLAMD_URL: "tcp://127.0.0.1:9", SCAN_TIMEOUT_MS: "2000" }));
  });
  afterAll(() => w.t.close());

  test("a failed attempt is retried (the job throws); the last one marks the step failed and the document error", async () => {
    const doc = await upload(w, await eobPdf(), "eob.pdf");
    const p = { document_id: doc.id, version_number: 1 };
    for (let attempt = 0; attempt < STEP_RETRY_LIMIT; attempt++) {
      await expect(runStepJob(w.t, w.orgId, "scan", p, attempt)).rejects.toThrow();
      const [scan] = (await get(w, `/${doc.id}/processing-status`)).steps;
      expect([scan.status, scan.attempts]).toEqual(["running", attempt + 1]);
      expect(scan.message).toStartWith("attempt failed, will retry:");
    }
    const last = await runStepJob(w.t, w.orgId, "scan", p, STEP_RETRY_LIMIT);
    expect(last.outcome).toBe("failed");
    expect(await get(w, `/${doc.id}`)).toMatchObject({ status: "error", processing_status: "failed" });
    const ps = await get(w, `/${doc.id}/processing-status`);
    expect(ps.steps.map((s: any) => s.status)).toEqual(["failed", "pending", "pending", "pending"]);
    expect(ps.overall_progress).toBe("0 of 4 steps done; Virus scan failed");
    expect(await status(w, `/${doc.id}/download`)).toBe(404); // never released on an error
    const processed = await eventsOf(w, doc.id, "document.processed");
    expect(processed.map((e) => e.data.status)).toEqual(["error"]);
  });
});

describe("through pg-boss on the embedded queue (PGlite), workers in-process", () => {
  let w: World;
  let stop: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    w = await world(await startTestApp({}, { withQueue: true }));
    stop = await startWorkers(w.t.rt, JOBS);
  }, 30_000);
  afterAll(async () => {
    await stop?.();
    await w.t.close();
  });

  test("an uploaded card becomes active by itself and is found by the member id printed on it; the jobs carry the upload's request id", async () => {
    const r = await postForm(w.t, w.token, w.P, { bytes: await cardFrontJpeg(), name: "card.jpg" }, {}, { headers: { "x-request-id": "req-card-upload" } });
    expect(r.status).toBe(201);
    const doc = await waitFor(
      async () => {
        const d = await get(w, `/${r.body.id}`);
        return d.status === "active" ? d : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: "the card to become active" },
    );
    expect(doc).toMatchObject({ ocr_status: "completed", has_thumbnail: true, ai_classification: "insurance_card_front" });
    expect((await get(w, `?search=${CARD_FRONT_MEMBER_ID}&include_org_scoped=true`)).items.map((d: any) => d.id)).toEqual([r.body.id]);
    const audit = (await get(w, `/${r.body.id}/audit?page_size=50`)).items as any[];
    const byJobs = audit.filter((e) => e.actor_type === "system");
    expect(byJobs.map((e) => e.action).sort()).toEqual(
      ["document.classify_done", "document.ocr_done", "document.ocr_started", "document.processed", "document.scanned", "document.thumbnail_done"].sort(),
    );
    expect(new Set(byJobs.map((e) => e.request_id))).toEqual(new Set(["req-card-upload"]));
    expect(new Set(byJobs.map((e) => e.actor_id))).toEqual(
      new Set(["system:documents.scan", "system:documents.ocr", "system:documents.classify", "system:documents.thumbnail"]),
    );
  }, 40_000);
});

// --- PostgreSQL (QUEUE_DATABASE_URL), a separate worker process ---------------------------------

const pgUnavailable = await postgresUnavailable("documents pipeline.test", "the PostgreSQL worker-process test");
const pgTest = test.skipIf(!!pgUnavailable);

describe("through pg-boss on PostgreSQL, a worker process (workers/main.ts) killed mid-pipeline", () => {
  const queue = pgWorkerProcesses("cusp_docs");
  let w: World | null = null;
  const spawnWorker = () => queue.spawn(w!.t.dir);

  beforeAll(async () => {
    if (!pgUnavailable) w = await world(await startTestApp({ QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" }, { withQueue: true }));
  }, 30_000);
  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    "killed while OCR runs: the OCR job sent again is done once; the pipeline finishes with every step applied once",
    async () => {
      const wd = w!;
      const doc = await upload(wd, await scannedReferralPdf(), "referral.pdf"); // the scan job waits in PostgreSQL
      const first = spawnWorker();
      await waitFor(async () => (await stepStates(wd, doc.id))[1]![1] === "running", { timeoutMs: 30_000, intervalMs: 5, what: "OCR running in the worker" });
      first.kill("SIGKILL");
      await first.exited;
      expect((await stepStates(wd, doc.id)).slice(0, 2)).toEqual([
        ["scan", "completed", 1],
        ["ocr", "running", 1],
      ]);
      // pg-boss retries a killed attempt once it expires (15 min for OCR): the retry is the same job sent again
      await enqueue(wd.t.rt, documentsOcr, { document_id: doc.id, version_number: 1 }, { orgId: wd.orgId, requestId: "req-retry" });
      spawnWorker();
      await waitFor(async () => (await get(wd, `/${doc.id}`)).status === "active", {
        timeoutMs: 40_000,
        intervalMs: 50,
        what: "the document to become active",
      });
      expect(await stepStates(wd, doc.id)).toEqual([
        ["scan", "completed", 1],
        ["ocr", "completed", 2],
        ["classify", "completed", 1],
        ["thumbnail", "completed", 1],
      ]);
      const actions = await auditActions(wd, doc.id);
      for (const once of ["document.scanned", "document.ocr_done", "document.classify_done", "document.thumbnail_done", "document.processed"]) {
        expect(actions.filter((a) => a === once)).toEqual([once]);
      }
    },
    90_000,
  );
});

// --- a real clamd --------------------------------------------------------------------------------

const clamdDown = await clamdUnavailable("documents pipeline.test", "the clamd pipeline cases");
const clamdTest = test.skipIf(!!clamdDown);

describe("with a real clamd (CLAMD_URL)", () => {
  let w: World | null = null;
  beforeAll(async () => {
    if (!clamdDown) w = await world(await startTestApp({ CLAMD_URL: CLAMD_TEST_URL! }));
  });
  afterAll(() => w?.t.close());

  clamdTest("a clean upload is confirmed by clamd; a PDF carrying EICAR is quarantined", async () => {
    const clean = await upload(w!, await eobPdf(), "eob.pdf");
    expect(await runStepJob(w!.t, w!.orgId, "scan", { document_id: clean.id, version_number: 1 })).toEqual({ outcome: "completed" });
    expect((await get(w!, `/${clean.id}/versions`)).items[0].status).toBe("confirmed");
    const bad = await upload(w!, await pdfWithEicar(), "statement.pdf");
    expect(await runStepJob(w!.t, w!.orgId, "scan", { document_id: bad.id, version_number: 1 })).toEqual({ outcome: "quarantined" });
    expect((await get(w!, `/${bad.id}`)).status).toBe("quarantined");
    expect(await status(w!, `/${bad.id}/download`)).toBe(404);
  });
});

// a signatures file for the builtin scanner (SCAN_SIGNATURES_FILE): a hash listed there is malware too
describe("the builtin scanner's signature list", () => {
  let w: World;
  beforeAll(async () => {
    const pdf = await eobPdf();
    const sha = new Bun.CryptoHasher("sha256").update(pdf).digest("hex");
    const file = join(mkdtempSync(join(tmpdir(), "cusp-sigs-")), "signatures.txt");
    writeFileSync(file, `Test-Listed-Eob:${sha}\n`);
    w = await world(await startTestApp({ SCAN_SIGNATURES_FILE: file }));
  });
  afterAll(() => w.t.close());

  test("an upload whose SHA-256 is listed is quarantined", async () => {
    const doc = await upload(w, await eobPdf(), "eob.pdf");
    expect(await runStepJob(w.t, w.orgId, "scan", { document_id: doc.id, version_number: 1 })).toEqual({ outcome: "quarantined" });
    const db = await orgDb(w);
    const { findVersion } = await import("@/domains/documents/records");
    const v = await db.read((d) => findVersion(d, doc.id, 1));
    expect([v!.status, v!.scan_signature, v!.scan_engine]).toEqual(["quarantined", "Test-Listed-Eob", "builtin"]);
  });
});
