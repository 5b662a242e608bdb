// (k1) ERA posting and (k2) 837D export, issue 33's claims
// (docs/insurance/claims.md, "ERAs (835)" and "Batches (837D)"), in a fresh
// org built through the API: a location with an address, a dentist with an
// NPI, a carrier with an electronic (payer) id, a plan covering D1110, and
// per claim a patient with a subscription (member id) and a primary patient
// plan, one completed D1110 at 120.00 and a primary claim of it. (k1)'s
// claims are moved to sent, (k2)'s to queued.
//
// (k1) an 835 answering the K1_CLAIMS sent claims (each by its claim number,
//      one line whose REF*6R is the procedure id, billed 120, allowed 100,
//      paid 80; the payer id is the carrier's electronic id, so the carrier
//      matches and its default automation posts at once) uploaded as
//      text/plain; the in-process workers on the PGlite queue run
//      claims.era-import (parse, match, post 10 claims per write). Claims
//      posted per second from the upload to the poll of the ERA that sees it
//      posted.
// (k2) `POST {P}/insurance/claim-batches` with `{}` (every queued claim, up
//      to 500; the route refuses a POST without a body) and the poll of the
//      batch until it is ready: the job claims.export-837d maps the claims,
//      writes the 837D, reads it back, stores it and moves each written claim
//      to sent. Claims written per second from the POST to the poll that
//      sees it ready.

import { api, createOrg } from "@bench/runner/api";
import { waitForQuiet, withCores } from "@bench/runner/cpu";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { inParallel } from "@bench/runner/parallel";
import { assertAlive } from "@bench/runner/servers";
import { balancedClaim, balancedEra, build835, type Era835InputClaim } from "@tests/support/era835";

/** Claims the ERA of (k1) answers. */
const K1_CLAIMS = 1_000;
/** Queued claims the batch of (k2) takes (the most one batch takes: MAX_BATCH_CLAIMS). */
const K2_CLAIMS = 500;
/** Fixture calls in flight at once (building the claims is not measured). */
const FIXTURE_CONCURRENCY = 16;
/** The runner's poll of the ERA or the batch. */
const POLL_MS = 50;
/** An ERA or a batch not finished by then is reported with what it got to as errors. */
const TIMEOUT_MS = 300_000;
/** The carrier's electronic id, and the 835's payer id (REF*2U). */
const PAYER_ID = "BENCH1";
const NPI = "1234567893";
/** The fee of each claim's one procedure, and the carrier's answer to it, in cents. */
const FEE_CENTS = 12_000;
const ALLOWED_CENTS = 10_000;
const PAID_CENTS = 8_000;

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);

type Call = (method: string, path: string, body?: unknown) => Promise<any>;
/** A POST of a text/plain body (api() sends JSON); throws on anything but 2xx. */
type PostText = (path: string, text: string) => Promise<any>;

/** A built claim: what the 835 answers it with. */
type BuiltClaim = { id: string; claim_number: string; procedure: string; first_name: string; last_name: string; member_id: string };

type Office = { location: string; provider: string; code: string; plan: string; dateService: string };

type EraRun = {
  claims: number;
  file_bytes: number;
  status: string;
  counts: Record<string, number> | null;
  problems: string[];
  /** Up to five distinct problems of CLPs that were not posted. */
  claim_problems: string[];
  error: string | null;
  upload_ms: number;
  /** The first poll that saw the ERA past received (parsed and matched, posting or done); null: not seen. */
  processing_ms: number | null;
  total_ms: number;
  polls: number;
  /** The mean time the ERA's GET (every CLP with its lines) took to answer while the job ran. */
  poll_mean_ms: number;
  id: string;
  /** The same GET once the ERA is finished, the server otherwise idle: the median of three (after the row's window). */
  get_idle_ms: number;
  timed_out: boolean;
};

type BatchRun = {
  claims: number;
  status: string;
  taken: number;
  written: number;
  /** The batch's `errors`: claims left out and why (the first five). */
  left_out: number;
  left_out_sample: { claim_number: string; problems: string[] }[];
  error: string | null;
  file_size: number | null;
  post_ms: number;
  total_ms: number;
  polls: number;
  timed_out: boolean;
};

export const claims: RowFamily = {
  ids: ["k1", "k2"],
  stage: "cusp",
  sections: ["claims"],
  async run(ctx) {
    const { server: srv, token } = ctx;
    const org = await createOrg(srv.base, token, "claims");
    const call: Call = (method, path, body) => api(srv.base, method, `/api/v1/${org}${path}`, body, token);
    const postText: PostText = async (path, text) => {
      const r = await fetch(`${srv.base}/api/v1/${org}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
        body: text,
      });
      const answer = await r.text();
      if (!r.ok) throw new Error(`POST ${path} -> ${r.status}: ${answer}`);
      return JSON.parse(answer);
    };
    const office = await buildOffice(call);
    const k1 = ctx.selected("k1");
    const k2 = ctx.selected("k2");
    const want = (k1 ? K1_CLAIMS : 0) + (k2 ? K2_CLAIMS : 0);
    console.log(
      `(k) claims: ${fmtInt(want)} claims through the API (${k1 ? `${fmtInt(K1_CLAIMS)} sent for (k1)` : ""}${k1 && k2 ? ", " : ""}${k2 ? `${fmtInt(K2_CLAIMS)} queued for (k2)` : ""}; not measured)`,
    );
    const built = performance.now();
    const sent = k1 ? await buildClaims(call, office, K1_CLAIMS, "sent", "Era") : [];
    const queued = k2 ? await buildClaims(call, office, K2_CLAIMS, "queued", "Batch") : [];
    console.log(`    built in ${((performance.now() - built) / 1000).toFixed(1)} s (${FIXTURE_CONCURRENCY} claims in flight, 7 calls each)`);

    let era: EraRun | undefined;
    if (k1) {
      const text = build835(
        balancedEra(sent.map(answerOf(office)), {
          payer: { name: "BENCH MUTUAL DENTAL", id: PAYER_ID },
          payee: { name: "BENCH CLAIMS DENTAL", npi: NPI, tax_id: "941234567" },
          trace_number: `BENCH${Date.now()}`,
          payment_date: daysAgo(0),
        }),
      );
      await waitForQuiet([srv.proc.pid]);
      const m = await withCores(
        srv.proc.pid,
        () => runEra(call, postText, text, sent.length),
        (r) => r.total_ms / 1000,
      );
      assertAlive(srv, "k1");
      era = m.value;
      era.get_idle_ms = await medianGet(call, `/insurance/eras/${era.id}`);
      const posted = era.counts?.posted ?? 0;
      ctx.record({
        id: "k1",
        scenario: `(k1) ERA posting: an 835 of ${fmtInt(K1_CLAIMS)} claims (\`POST {P}/insurance/eras\`, text/plain), upload to the ERA posted: parse, match by claim number, post 10 claims per write (claim payment, splits, ledger)`,
        unit: "claims/s",
        hasRatio: false,
        rate: posted / (era.total_ms / 1000),
        p50_us: 0,
        p99_us: 0,
        errors: era.claims - posted,
        errorDetail: eraDetail(era),
        count: posted,
        cores: m.cores,
      });
      console.log(
        `    ${fmtInt(era.file_bytes)} bytes uploaded in ${era.upload_ms.toFixed(0)} ms; ${era.processing_ms === null ? "processing not seen" : `processing after ${(era.processing_ms / 1000).toFixed(2)} s`}, ${era.status} after ${(era.total_ms / 1000).toFixed(2)} s (${era.polls} polls, ${era.poll_mean_ms.toFixed(0)} ms each; ${era.get_idle_ms.toFixed(0)} ms idle): ${eraDetail(era)}`,
      );
    }

    let batch: BatchRun | undefined;
    if (k2) {
      await waitForQuiet([srv.proc.pid]);
      const m = await withCores(
        srv.proc.pid,
        () => runBatch(call, queued.length),
        (r) => r.total_ms / 1000,
      );
      assertAlive(srv, "k2");
      batch = m.value;
      ctx.record({
        id: "k2",
        scenario: `(k2) 837D export: ${fmtInt(K2_CLAIMS)} queued claims (\`POST {P}/insurance/claim-batches\` with \`{}\`: every queued claim), POST to the batch ready: claims mapped, the 837D written and read back, stored, each claim sent`,
        unit: "claims/s",
        hasRatio: false,
        rate: batch.written / (batch.total_ms / 1000),
        p50_us: 0,
        p99_us: 0,
        errors: batch.claims - batch.written,
        errorDetail: batchDetail(batch),
        count: batch.written,
        cores: m.cores,
      });
      console.log(`    ${batch.status} after ${(batch.total_ms / 1000).toFixed(2)} s (${batch.polls} polls): ${batchDetail(batch)}`);
    }

    return {
      notes: () => [
        ...(era
          ? [
              `(k1) ${fmtInt(era.counts?.posted ?? 0)} of ${fmtInt(era.claims)} claims of one 835 (${fmtInt(era.file_bytes)} bytes) posted ${(era.total_ms / 1000).toFixed(2)} s after the upload's request (${era.processing_ms === null ? "processing was not seen by a poll" : `parsed and matched, processing, after ${(era.processing_ms / 1000).toFixed(2)} s`}); the end is seen by polling \`GET {P}/insurance/eras/{id}\` (every CLP with its lines: ${era.poll_mean_ms.toFixed(0)} ms an answer during the job, ${era.get_idle_ms.toFixed(0)} ms on the idle server) every ${POLL_MS} ms.`,
            ]
          : []),
        ...(batch
          ? [
              `(k2) a batch of ${fmtInt(batch.taken)} queued claims ${batch.status} ${(batch.total_ms / 1000).toFixed(2)} s after its POST: ${fmtInt(batch.written)} written (${fmtInt(batch.file_size ?? 0)} bytes of 837D), ${fmtInt(batch.left_out)} left out; the end is seen by polling \`GET {P}/insurance/claim-batches/{id}\` every ${POLL_MS} ms.`,
            ]
          : []),
      ],
      sections: {
        claims: {
          era: era
            ? {
                ...era,
                upload_ms: Math.round(era.upload_ms),
                processing_ms: era.processing_ms === null ? null : Math.round(era.processing_ms),
                total_ms: Math.round(era.total_ms),
                poll_mean_ms: Math.round(era.poll_mean_ms),
                get_idle_ms: Math.round(era.get_idle_ms),
              }
            : null,
          batch: batch ? { ...batch, post_ms: Math.round(batch.post_ms), total_ms: Math.round(batch.total_ms) } : null,
          fixture_concurrency: FIXTURE_CONCURRENCY,
          poll_ms: POLL_MS,
        },
      },
    };
  },
};

/** The practice the claims bill from and the plan they bill. */
async function buildOffice(call: Call): Promise<Office> {
  const location = await call("POST", "/locations", {
    name: "Bench Claims Dental",
    timezone: "America/New_York",
    address_line1: "200 Main Street",
    city: "Hartford",
    state: "CT",
    postal_code: "06103",
    phone: "860-555-0101",
  });
  const provider = await call("POST", "/providers", { abbreviation: "DRK", first_name: "Kim", last_name: "Claims", national_provider_id: NPI });
  const carrier = await call("POST", "/insurance/carriers", { carrier_name: "Bench Mutual Dental" });
  await call("PATCH", `/insurance/carriers/${carrier.id}`, {
    base_version: carrier.version,
    electronic_id: PAYER_ID,
    address_line1: "PO Box 100",
    city: "Hartford",
    state: "CT",
    zip_code: "06101",
  });
  const found = (await call("GET", "/codes/procedure-codes?search=D1110&page_size=50")).items as { id: string; code: string }[];
  const code = found.find((c) => c.code === "D1110")?.id;
  if (!code) throw new Error("procedure code D1110 is not in the seeded catalogue");
  const categories = (await call("GET", "/insurance/coverage-categories?page_size=200")).items as { id: string; category_name: string }[];
  const preventive = categories.find((c) => c.category_name === "Preventive")?.id;
  if (!preventive) throw new Error(`no Preventive coverage category (have ${categories.map((c) => c.category_name).join(", ")})`);
  const plan = await call("POST", "/insurance/plans", {
    carrier_uuid: carrier.id,
    plan_name: "Bench Claims PPO",
    group_name: "Bench Employer",
    group_number: "BENCH-K",
    plan_type: "ppo",
    coverage: [{ category_uuid: preventive, percent: 100 }],
  });
  return { location: location.id, provider: provider.id, code, plan: plan.id, dateService: daysAgo(14) };
}

/** `n` patients each with a primary plan, a completed D1110 and its claim, moved to `status`. */
async function buildClaims(call: Call, office: Office, n: number, status: "sent" | "queued", last: string): Promise<BuiltClaim[]> {
  const out: BuiltClaim[] = new Array(n);
  await inParallel(
    Array.from({ length: n }, (_, i) => i),
    FIXTURE_CONCURRENCY,
    async (i) => {
      const first_name = `Pat${i}`;
      const last_name = `${last}Bench`;
      const member_id = `${status === "sent" ? "E" : "B"}${String(i).padStart(8, "0")}`;
      const patient = await call("POST", "/patients", {
        first_name,
        last_name,
        date_of_birth: "1980-04-12",
        location_uuid: office.location,
        address_line1: `${i + 1} Oak Street`,
        city: "Hartford",
        state: "CT",
        postal_code: "06105",
      });
      const sub = await call("POST", "/insurance/subscriptions", { plan_uuid: office.plan, subscriber_patient_uuid: patient.id, subscriber_id: member_id });
      const pp = await call("POST", "/insurance/patient-plans", { patient_uuid: patient.id, subscription_uuid: sub.id, ordinal: 1 });
      const proc = await call("POST", `/clinical/patients/${patient.id}/procedures`, {
        procedure_code_uuid: office.code,
        status: "complete",
        fee_override: FEE_CENTS / 100,
        provider_uuid: office.provider,
        location_uuid: office.location,
        date_service: office.dateService,
      });
      const claim = await call("POST", "/insurance/claims", {
        patient_uuid: patient.id,
        patient_plan_uuid: pp.id,
        claim_type: "primary",
        procedure_uuids: [proc.id],
      });
      await call("POST", `/insurance/claims/${claim.id}/status`, { base_version: claim.version, status });
      out[i] = { id: claim.id, claim_number: claim.claim_number, procedure: proc.id, first_name, last_name, member_id };
    },
  );
  return out;
}

/** The carrier's answer to one claim: its number, the one line by its procedure id, 120 billed, 100 allowed, 80 paid. */
const answerOf =
  (office: Office) =>
  (c: BuiltClaim): Era835InputClaim =>
    balancedClaim(
      c.claim_number,
      [{ code: "D1110", billed: FEE_CENTS, allowed: ALLOWED_CENTS, paid: PAID_CENTS, line_control: c.procedure, date: office.dateService }],
      { patient: { first_name: c.first_name.toUpperCase(), last_name: c.last_name.toUpperCase(), member_id: c.member_id }, date_service: office.dateService },
    );

const FINISHED_ERA = ["posted", "needs_review", "failed"];

/** Uploads the 835 and polls the ERA until it is posted (or needs review, failed, timed out). */
async function runEra(call: Call, postText: PostText, text: string, claims: number): Promise<EraRun> {
  const t0 = performance.now();
  const received = await postText("/insurance/eras", text).catch((e) => {
    throw new Error(`(k1) the upload was refused: ${(e as Error).message.slice(0, 2000)}`);
  });
  const upload_ms = performance.now() - t0;
  let polls = 0;
  let pollMs = 0;
  let processing_ms: number | null = null;
  for (;;) {
    const p0 = performance.now();
    const e = await call("GET", `/insurance/eras/${received.id}`);
    pollMs += performance.now() - p0;
    polls++;
    const ms = performance.now() - t0;
    if (processing_ms === null && e.status !== "received") processing_ms = ms;
    if (FINISHED_ERA.includes(e.status) || ms > TIMEOUT_MS) {
      const notPosted = (e.claims as { status: string; problems: string[] }[]).filter((c) => c.status !== "posted");
      return {
        claims,
        file_bytes: Buffer.byteLength(text),
        status: e.status,
        counts: e.counts,
        problems: e.problems,
        claim_problems: [...new Set(notPosted.flatMap((c) => c.problems))].slice(0, 5),
        error: e.error,
        upload_ms,
        processing_ms,
        total_ms: ms,
        polls,
        poll_mean_ms: pollMs / polls,
        id: received.id,
        get_idle_ms: 0,
        timed_out: !FINISHED_ERA.includes(e.status),
      };
    }
    await Bun.sleep(POLL_MS);
  }
}

/** POSTs the batch (`{}`: every queued claim, up to 500) and polls it until ready (or failed, timed out). */
async function runBatch(call: Call, claims: number): Promise<BatchRun> {
  const t0 = performance.now();
  // `{}`, not no body: the route answers 422 "Request body is required" to a POST without one
  const created = await call("POST", "/insurance/claim-batches", {}).catch((e) => {
    throw new Error(`(k2) the batch was refused: ${(e as Error).message.slice(0, 2000)}`);
  });
  const post_ms = performance.now() - t0;
  let polls = 0;
  for (;;) {
    const b = await call("GET", `/insurance/claim-batches/${created.id}`);
    polls++;
    const ms = performance.now() - t0;
    if (b.status !== "building" || ms > TIMEOUT_MS) {
      const errors = b.errors as { claim_number: string; problems: string[] }[];
      return {
        claims,
        status: b.status,
        taken: b.claim_uuids.length,
        written: b.written_claim_uuids.length,
        left_out: errors.length,
        left_out_sample: errors.slice(0, 5).map((x) => ({ claim_number: x.claim_number, problems: x.problems })),
        error: b.error,
        file_size: b.file_size,
        post_ms,
        total_ms: ms,
        polls,
        timed_out: b.status === "building",
      };
    }
    await Bun.sleep(POLL_MS);
  }
}

/** The median time of three GETs of `path`. */
async function medianGet(call: Call, path: string): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    await call("GET", path);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[1]!;
}

function eraDetail(e: EraRun): string {
  const c = e.counts;
  const parts = [
    `status ${e.status}${e.timed_out ? " (timed out)" : ""}`,
    c ? `${c.posted} posted, ${c.matched} matched, ${c.unmatched} unmatched, ${c.needs_review} needs review of ${c.claims}` : "no counts",
  ];
  if (e.error) parts.push(`error: ${e.error}`);
  if (e.problems.length) parts.push(`problems: ${e.problems.join("; ")}`);
  if (e.claim_problems.length) parts.push(`claims' problems: ${e.claim_problems.join("; ")}`);
  return parts.join(", ");
}

function batchDetail(b: BatchRun): string {
  const parts = [`status ${b.status}${b.timed_out ? " (timed out)" : ""}`, `${b.written} written of ${b.taken} taken, ${b.left_out} left out`];
  if (b.error) parts.push(`error: ${b.error}`);
  if (b.left_out_sample.length) parts.push(`left out: ${b.left_out_sample.map((x) => `${x.claim_number}: ${x.problems.join("; ")}`).join(" | ")}`);
  return parts.join(", ");
}
