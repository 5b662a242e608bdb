// (g1)-(g3) the documents pipeline (bench/documents.ts): uploads through the
// API to a patient of a fresh org, each timed until the document is active
// (scan, OCR, classify, thumbnail jobs); the runner uploads and polls (its CPU
// is the "load gen." column). One upload of each file first, waited for and
// not counted: it starts the OCR worker (the model load) and the pipeline's
// code paths, a cost paid once per server process.

import {
  BURST_POLL_MS,
  type BurstRun,
  type DocOutcome,
  SEQUENTIAL_POLL_MS,
  type SequentialRun,
  documentFiles,
  documentOwner,
  failures,
  percentile,
  runBurst,
  runSequential,
  uploadUntilDone,
} from "@bench/documents";
import { api, createOrg } from "@bench/runner/api";
import { type Cores, waitForQuiet, withCores } from "@bench/runner/cpu";
import type { CuspContext, RowFamily } from "@bench/runner/family";
import { fmtDur, fmtInt, round } from "@bench/runner/format";
import type { Row } from "@bench/runner/row";
import { assertAlive } from "@bench/runner/servers";
import { DOC_SAMPLES } from "@bench/runner/settings";

/** (g3) sends DOC_BURST_EACH uploads of each kind at once. */
const DOC_BURST_EACH = 10;

type DocumentsRun = {
  warmup_ms: Record<string, number>;
  warmup_status: Record<string, string>;
  sequential: Partial<Record<"g1" | "g2", SequentialRun>>;
  burst?: BurstRun;
};

export const documents: RowFamily = {
  ids: ["g1", "g2", "g3"],
  stage: "cusp",
  sections: ["documents"],
  async run(ctx) {
    const run = await documentRows(ctx);
    return { notes: () => notes(run), sections: { documents: section(run) } };
  },
};

async function documentRows(ctx: CuspContext): Promise<DocumentsRun> {
  const { server: srv, token } = ctx;
  const files = await documentFiles();
  const org = await createOrg(srv.base, token, "documents");
  const docApi = (method: string, path: string, body?: unknown) => api(srv.base, method, path, body, token);
  const target = { base: srv.base, token, org };
  const owner = await documentOwner(docApi, org, "sequential");
  const pid = srv.proc.pid;
  const run: DocumentsRun = { warmup_ms: {}, warmup_status: {}, sequential: {} };
  console.log(
    `(g) documents: warm-up, one upload of each (${fmtInt(files.pdf.bytes.length)} B scanned PDF, ${fmtInt(files.card.bytes.length)} B card photo), not counted`,
  );
  for (const f of [files.pdf, files.card]) {
    const w = await uploadUntilDone(target, f, owner);
    run.warmup_ms[f.kind] = Math.round(w.ms);
    run.warmup_status[f.kind] = w.status;
    console.log(`  ${f.name}: ${w.status} after ${fmtDur(w.ms * 1000)}${w.detail ? ` (${w.detail})` : ""}`);
  }
  assertAlive(srv, "the documents warm-up");
  const sequential = [
    ["g1", files.pdf, "one-page scanned PDF (no text layer: rendered and OCR'd)"],
    ["g2", files.card, "insurance card photo (JPEG 1600×1009, stored rotated)"],
  ] as const;
  for (const [id, file, what] of sequential) {
    if (!ctx.selected(id)) continue;
    console.log(`(${id}) ${DOC_SAMPLES} uploads of the ${what}, one after another, each polled every ${SEQUENTIAL_POLL_MS} ms until active`);
    await waitForQuiet([pid]);
    const m = await withCores(pid, () => runSequential(target, file, owner, DOC_SAMPLES));
    assertAlive(srv, id);
    run.sequential[id] = m.value;
    ctx.record(
      docsRow(
        id,
        `(${id}) \`POST {P}/documents\` ${what}: upload to active (scan → OCR → classify → thumbnail), ${DOC_SAMPLES} one after another`,
        m.value.outcomes,
        m.wallMs,
        m.cores,
      ),
    );
    console.log(`    each (ms): ${m.value.outcomes.map((o) => Math.round(o.ms)).join(", ")}`);
  }
  if (ctx.selected("g3")) {
    const burstOwner = await documentOwner(docApi, org, "burst");
    const burstFiles = Array.from({ length: 2 * DOC_BURST_EACH }, (_, i) => (i % 2 ? files.card : files.pdf));
    console.log(`(g3) ${burstFiles.length} uploads at once (${DOC_BURST_EACH} of each), default worker concurrency, list polled every ${BURST_POLL_MS} ms`);
    await waitForQuiet([pid]);
    const m = await withCores(pid, () => runBurst(target, burstFiles, burstOwner));
    assertAlive(srv, "g3");
    run.burst = m.value;
    ctx.record(
      docsRow(
        "g3",
        `(g3) documents pipeline throughput: ${burstFiles.length} uploads sent at once (${DOC_BURST_EACH} scanned PDFs, ${DOC_BURST_EACH} card photos) until all are active; latency: each document's upload to active`,
        m.value.outcomes,
        m.value.total_ms,
        m.cores,
      ),
    );
    console.log(
      `    all ${burstFiles.length} uploads answered after ${fmtDur(m.value.uploads_ms * 1000)}; all past processing after ${fmtDur(m.value.total_ms * 1000)} (${m.value.polls} polls)`,
    );
  }
  return run;
}

/** A documents row: active documents per second over `wallMs`, p50 / p95 of each one's upload to active. */
function docsRow(id: string, scenario: string, outcomes: DocOutcome[], wallMs: number, cores: Cores): Row {
  const ms = outcomes.filter((o) => o.status === "active").map((o) => o.ms);
  const bad = failures(outcomes);
  return {
    id,
    scenario,
    unit: "docs/s",
    hasRatio: false,
    latency: { p50_us: percentile(ms, 50) * 1000, p95_us: percentile(ms, 95) * 1000 },
    rate: ms.length / (wallMs / 1000),
    p50_us: 0,
    p99_us: 0,
    errors: bad.count,
    errorDetail: bad.detail,
    count: ms.length,
    cores,
  };
}

/** Under the table: how the latencies run, the cold start, each sample. */
function notes(docs: DocumentsRun): string[] {
  const seq = (["g1", "g2"] as const)
    .filter((id) => docs.sequential[id])
    .map((id) => {
      const sr = docs.sequential[id]!;
      return `(${id}) ${fmtInt(sr.file_bytes)} B file, ${sr.outcomes.length} uploads in ${fmtDur(sr.total_ms * 1000)}, each (s): ${sr.outcomes.map((o) => (o.ms / 1000).toFixed(2)).join(", ")}.`;
    });
  const burst = docs.burst
    ? `(g3) ${docs.burst.outcomes.length} uploads answered 201 after ${fmtDur(docs.burst.uploads_ms * 1000)}, all past processing after ${fmtDur(docs.burst.total_ms * 1000)} (wall time; the list polled every ${BURST_POLL_MS} ms, ${docs.burst.polls} polls).`
    : "";
  return [
    [
      `Documents: latencies run from sending the upload to the first poll (every ${SEQUENTIAL_POLL_MS} ms for g1/g2) that sees the document active; p95 of 10 samples is their maximum. One upload of each file ran first, not counted (cold start: scanned PDF ${fmtDur((docs.warmup_ms.pdf ?? 0) * 1000)} ${docs.warmup_status.pdf}, card photo ${fmtDur((docs.warmup_ms.card ?? 0) * 1000)} ${docs.warmup_status.card}).`,
      ...seq,
      burst,
    ]
      .filter(Boolean)
      .join(" "),
  ];
}

function docSummary(o: DocOutcome[]) {
  const ms = o.filter((x) => x.status === "active").map((x) => x.ms);
  return {
    count: ms.length,
    errors: o.length - ms.length,
    p50_ms: round(percentile(ms, 50), 1),
    p95_ms: round(percentile(ms, 95), 1),
    max_ms: round(Math.max(0, ...ms), 1),
    statuses: Object.fromEntries([...new Set(o.map((x) => x.status))].map((s) => [s, o.filter((x) => x.status === s).length])),
  };
}

/** latest.json's `documents`: the cold start, each sample's time, the upload answer times, p50 / p95 / max per row, (g3)'s wall time and split by kind. */
function section(docs: DocumentsRun) {
  return {
    poll_ms: { sequential: SEQUENTIAL_POLL_MS, burst: BURST_POLL_MS },
    ocr_workers: process.env.DOCUMENT_OCR_WORKERS ?? "default",
    warmup: { ms: docs.warmup_ms, status: docs.warmup_status },
    ...Object.fromEntries(
      Object.entries(docs.sequential).map(([id, sr]) => [
        id,
        {
          kind: sr.kind,
          file_bytes: sr.file_bytes,
          uploads: sr.outcomes.length,
          total_ms: Math.round(sr.total_ms),
          ...docSummary(sr.outcomes),
          samples_ms: sr.outcomes.map((o) => Math.round(o.ms)),
          upload_ms: sr.outcomes.map((o) => Math.round(o.upload_ms)),
          problems: sr.outcomes.filter((o) => o.status !== "active"),
        },
      ]),
    ),
    ...(docs.burst
      ? {
          g3: {
            uploads: docs.burst.outcomes.length,
            uploads_answered_ms: Math.round(docs.burst.uploads_ms),
            wall_ms: Math.round(docs.burst.total_ms),
            docs_per_s: round(docs.burst.outcomes.filter((o) => o.status === "active").length / (docs.burst.total_ms / 1000), 3),
            polls: docs.burst.polls,
            timed_out: docs.burst.timed_out,
            ...docSummary(docs.burst.outcomes),
            by_kind: Object.fromEntries((["pdf", "card"] as const).map((k) => [k, docSummary(docs.burst!.outcomes.filter((o) => o.kind === k))])),
            // when each document was seen done, from the start of the burst, in order
            done_ms: [...docs.burst.outcomes].sort((a, b) => a.ms - b.ms).map((o) => `${o.kind} ${Math.round(o.ms)}`),
            problems: docs.burst.outcomes.filter((o) => o.status !== "active"),
          },
        }
      : {}),
  };
}
