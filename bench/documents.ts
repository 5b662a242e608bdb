// The documents rows (g1)-(g3), all through the API (bench/README.md).
//
// An upload (`POST {P}/documents`, multipart, the file in part `file`) answers
// 201 with status processing; the background jobs documents.scan -> ocr ->
// classify -> thumbnail then run in the server process (PGlite queue, workers
// in-process) and the document becomes active. The files are the test
// fixtures (tests/support/documents/fixtures.ts, generated in code):
//
// (g1) a one-page scanned referral PDF (no text layer: the OCR step renders
//      the page and OCRs it), uploaded N times one after another; each timed
//      from sending the upload to the first poll (every 25 ms) that sees it active.
// (g2) the same with a phone photo of an insurance card (JPEG stored rotated).
// (g3) 10 of each sent at once: time until all are active (default worker
//      concurrency), seen by polling the owner's document list every 100 ms.

import { cardFrontJpeg, scannedReferralPdf } from "@tests/support/documents/fixtures";

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

export type DocKind = "pdf" | "card";
export type UploadFile = { kind: DocKind; name: string; type: string; bytes: Uint8Array };
export type DocTarget = { base: string; token: string; org: string };

/** Poll interval of (g1)/(g2) (one document) and of (g3) (the list of 20). */
export const SEQUENTIAL_POLL_MS = 25;
export const BURST_POLL_MS = 100;

export async function documentFiles(): Promise<Record<DocKind, UploadFile>> {
  const [pdf, card] = await Promise.all([scannedReferralPdf(), cardFrontJpeg()]);
  return {
    pdf: { kind: "pdf", name: "referral-scan.pdf", type: "application/pdf", bytes: pdf },
    card: { kind: "card", name: "insurance-card-front.jpg", type: "image/jpeg", bytes: card },
  };
}

/** A patient each run owns its documents through (a patient's documents are listed without include_org_scoped). */
export async function documentOwner(api: Api, org: string, label: string): Promise<string> {
  const p = await api("POST", `/api/v1/${org}/patients`, { first_name: "Doc", last_name: `Owner ${label}`, date_of_birth: "1981-07-22" });
  return p.id as string;
}

/** One document's fate: `ms` from sending its upload to the poll that saw it leave processing. */
export type DocOutcome = {
  kind: DocKind;
  id: string | null;
  status: string;
  ms: number;
  /** Upload request to its 201. */
  upload_ms: number;
  polls: number;
  detail?: string;
};

const DONE = new Set(["active", "error", "quarantined", "archived"]);

async function upload(t: DocTarget, file: UploadFile, owner: string): Promise<{ ok: true; id: string } | { ok: false; detail: string }> {
  const form = new FormData();
  form.append("owner_type", "patient");
  form.append("owner_uuid", owner);
  form.append("file", new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type }), file.name);
  const r = await fetch(`${t.base}/api/v1/${t.org}/documents`, { method: "POST", headers: { authorization: `Bearer ${t.token}` }, body: form });
  const text = await r.text();
  if (r.status !== 201) return { ok: false, detail: `upload answered ${r.status}: ${text.slice(0, 200)}` };
  const doc = JSON.parse(text) as { id: string; status: string };
  if (doc.status !== "processing") return { ok: false, detail: `upload answered status ${doc.status}` };
  return { ok: true, id: doc.id };
}

/** Uploads one file and polls `GET {P}/documents/{id}` every SEQUENTIAL_POLL_MS until it is no longer processing. */
export async function uploadUntilDone(t: DocTarget, file: UploadFile, owner: string, timeoutMs = 120_000): Promise<DocOutcome> {
  const t0 = performance.now();
  const up = await upload(t, file, owner);
  const uploadMs = performance.now() - t0;
  if (!up.ok) return { kind: file.kind, id: null, status: "upload_failed", ms: uploadMs, upload_ms: uploadMs, polls: 0, detail: up.detail };
  let polls = 0;
  for (;;) {
    polls++;
    const r = await fetch(`${t.base}/api/v1/${t.org}/documents/${up.id}`, { headers: { authorization: `Bearer ${t.token}` } });
    const elapsed = performance.now() - t0;
    if (!r.ok)
      return { kind: file.kind, id: up.id, status: `get_${r.status}`, ms: elapsed, upload_ms: uploadMs, polls, detail: (await r.text()).slice(0, 200) };
    const doc = (await r.json()) as { status: string };
    if (DONE.has(doc.status)) return { kind: file.kind, id: up.id, status: doc.status, ms: elapsed, upload_ms: uploadMs, polls };
    if (elapsed > timeoutMs) return { kind: file.kind, id: up.id, status: "timeout", ms: elapsed, upload_ms: uploadMs, polls };
    await Bun.sleep(SEQUENTIAL_POLL_MS);
  }
}

export type SequentialRun = { kind: DocKind; file_bytes: number; outcomes: DocOutcome[]; total_ms: number };

/** (g1)/(g2): `n` uploads of one file, one after another, each waited for. */
export async function runSequential(t: DocTarget, file: UploadFile, owner: string, n: number): Promise<SequentialRun> {
  const outcomes: DocOutcome[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) outcomes.push(await uploadUntilDone(t, file, owner));
  return { kind: file.kind, file_bytes: file.bytes.length, outcomes, total_ms: performance.now() - t0 };
}

export type BurstRun = { outcomes: DocOutcome[]; uploads_ms: number; total_ms: number; polls: number; timed_out: boolean };

/**
 * (g3): every file uploaded at once; then `GET {P}/documents?owner_type=patient&owner_uuid=..`
 * every BURST_POLL_MS until none is processing. Each document's time runs from
 * the start of the burst to the poll that saw it leave processing.
 */
export async function runBurst(t: DocTarget, files: UploadFile[], owner: string, timeoutMs = 300_000): Promise<BurstRun> {
  const t0 = performance.now();
  const ups = await Promise.all(
    files.map(async (f) => {
      const u = await upload(t, f, owner);
      return { file: f, up: u, upload_ms: performance.now() - t0 };
    }),
  );
  const uploadsMs = performance.now() - t0;
  const outcomes = new Map<string, DocOutcome>();
  const failed: DocOutcome[] = [];
  const waiting = new Map<string, { kind: DocKind; upload_ms: number }>();
  for (const u of ups) {
    if (u.up.ok) waiting.set(u.up.id, { kind: u.file.kind, upload_ms: u.upload_ms });
    else failed.push({ kind: u.file.kind, id: null, status: "upload_failed", ms: u.upload_ms, upload_ms: u.upload_ms, polls: 0, detail: u.up.detail });
  }
  const listUrl = `${t.base}/api/v1/${t.org}/documents?owner_type=patient&owner_uuid=${owner}&page_size=200`;
  let polls = 0;
  let timedOut = false;
  while (waiting.size) {
    polls++;
    const r = await fetch(listUrl, { headers: { authorization: `Bearer ${t.token}` } });
    const elapsed = performance.now() - t0;
    if (!r.ok) throw new Error(`GET ${listUrl} -> ${r.status}: ${(await r.text()).slice(0, 300)}`);
    const page = (await r.json()) as { items: { id: string; status: string }[] };
    for (const d of page.items) {
      const w = waiting.get(d.id);
      if (!w || !DONE.has(d.status)) continue;
      outcomes.set(d.id, { kind: w.kind, id: d.id, status: d.status, ms: elapsed, upload_ms: w.upload_ms, polls });
      waiting.delete(d.id);
    }
    if (!waiting.size) break;
    if (elapsed > timeoutMs) {
      timedOut = true;
      for (const [id, w] of waiting) outcomes.set(id, { kind: w.kind, id, status: "timeout", ms: elapsed, upload_ms: w.upload_ms, polls });
      break;
    }
    await Bun.sleep(BURST_POLL_MS);
  }
  return { outcomes: [...outcomes.values(), ...failed], uploads_ms: uploadsMs, total_ms: performance.now() - t0, polls, timed_out: timedOut };
}

/** Nearest-rank percentile of `values` (ms); 0 for none. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Documents that did not end active, as "status × n" (the row's errors). */
export function failures(outcomes: DocOutcome[]): { count: number; detail: string } {
  const bad = outcomes.filter((o) => o.status !== "active");
  const by = new Map<string, number>();
  for (const o of bad) by.set(o.status, (by.get(o.status) ?? 0) + 1);
  const sample = bad.find((o) => o.detail)?.detail;
  return {
    count: bad.length,
    detail: bad.length ? `${[...by].map(([s, n]) => `${n} ${s}`).join(", ")}${sample ? `; e.g. ${sample}` : ""}` : "0 errors",
  };
}
