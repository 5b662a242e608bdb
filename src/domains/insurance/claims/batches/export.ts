import { newId } from "@/platform/ids";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { claimRecords, type ClaimRow } from "@/domains/insurance/claims/records";
import { moveClaim } from "@/domains/insurance/claims/service";
import { build837D, check837D } from "@/domains/insurance/claims/x12/837d";
import type { Batch837, Built837, Claim837 } from "@/domains/insurance/claims/x12/types";
import { claimRowsOf, claims837, type Mapped } from "./claim837";
import { claimBatchRecords, type BatchError, type ClaimBatchRow } from "./records";
import { X12_CONTENT_TYPE } from "./schemas";

// What the claims.export-837d job does with one batch (docs/insurance/claims.md,
// "Batches"), idempotent at every step:
//   1. a batch no longer building is left as it is (a retry after the commit
//      writes nothing more);
//   2. its claims still queued are read and mapped (x12/types.ts), the others
//      reported as no longer queued; build837D writes those it can and names
//      the problems of the rest; check837D reads the text back, and a file that
//      does not say what was built is never stored (the attempt fails);
//   3. the text is stored under a key of this attempt, then one write re-reads
//      the batch (stopping, and deleting the object, when another attempt
//      finished it), checks that no written claim changed meanwhile (else the
//      file is built again), moves each written claim to sent, notes the
//      problems on the claims left out (they stay queued) and makes the batch
//      ready, or failed when nothing could be written. A failed write deletes
//      the object. A worker killed between the store and the commit leaves an
//      object no batch names; the retry stores and names its own.
// The last attempt that fails marks the batch failed with the reason.

/** For tests: a hook that throws stands for a worker killed at that point. */
export const batchHooks: {
  /**
   * After the file is stored, before the write that makes the batch ready: a throw leaves the object, as a
   * killed worker would; a promise holds the attempt there until it settles.
   */
  beforeCommit?: (info: { batchId: string; attempt: number; storageKey: string }) => void | Promise<void>;
} = {};

type Attempt = { number: number; last: boolean };
export type ExportResult = { batch_id: string; outcome: string; written?: number; left_out?: number; file_size?: number | null };

/** How often the file is built again when a claim changed between the build and the commit, before the attempt fails. */
const REBUILDS = 3;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

/** ISA06/GS02: CLAIMS_SUBMITTER_ID, else the org slug's first 15 letters and digits, upper-cased. */
export function senderIdOf(rt: PlatformRuntime, ctx: OrgContext): string {
  return (
    rt.config.claims.submitterId ??
    ctx.org.slug
      .replace(/[^A-Za-z0-9]/g, "")
      .slice(0, 15)
      .toUpperCase()
  );
}

/** The envelope, submitter and receiver of a batch's file. */
function batchOf(rt: PlatformRuntime, ctx: OrgContext, batch: ClaimBatchRow, claims: Claim837[]): Batch837 {
  const c = rt.config.claims;
  const sender = senderIdOf(rt, ctx);
  return {
    envelope: { sender_id: sender, receiver_id: c.receiverId, control_number: batch.control_number, created_at: new Date(), usage: c.usage },
    submitter: { name: ctx.org.name, id: sender, contact_name: ctx.org.name, contact_phone: null, contact_email: null },
    receiver: { name: c.receiverName, id: c.receiverId },
    claims,
  };
}

/**
 * The written text read back with node-x12 must say what was built: the claim
 * numbers in order, each claim's total, lines, codes, fees, teeth and
 * surfaces. Anything else is a bug, and a wrong file must not be sent.
 */
export function verifyBuilt(built: Built837 & { text: string }, claims: Claim837[], controlNumber: number): void {
  const checked = check837D(built.text);
  const wrong: string[] = [];
  if (checked.control_number !== controlNumber) wrong.push(`control number ${checked.control_number}, built ${controlNumber}`);
  if (!checked.segment_count_ok) wrong.push("a segment count (SE01) is wrong");
  const numbers = checked.claims.map((c) => c.claim_number);
  if (numbers.join(",") !== built.written.join(",")) wrong.push(`claims ${numbers.join(",")}, built ${built.written.join(",")}`);
  const byNumber = new Map(claims.map((c) => [c.claim_number, c]));
  for (const read of checked.claims) {
    const meant = byNumber.get(read.claim_number);
    if (!meant) continue;
    const total = meant.lines.reduce((sum, l) => sum + l.fee_cents, 0);
    if (read.total_cents !== total || !read.line_total_ok) wrong.push(`${read.claim_number}: total ${read.total_cents}, built ${total}`);
    if (read.line_count !== meant.lines.length) wrong.push(`${read.claim_number}: ${read.line_count} lines, built ${meant.lines.length}`);
    read.lines.forEach((line, i) => {
      const l = meant.lines[i];
      if (!l) return;
      const surfaces = l.tooth_number ? l.surfaces?.toUpperCase() || null : null;
      if (
        line.procedure_code !== l.procedure_code ||
        line.fee_cents !== l.fee_cents ||
        line.tooth_number !== (l.tooth_number || null) ||
        line.surfaces !== surfaces
      )
        wrong.push(`${read.claim_number} line ${i + 1}: ${line.procedure_code} ${line.fee_cents} ${line.tooth_number} ${line.surfaces}`);
    });
  }
  if (wrong.length) throw new Error(`The 837D file does not read back as built: ${wrong.slice(0, 5).join("; ")}`);
}

/** The outcome of one build: what goes in the file and what is left out, by claim id. */
type Build = {
  text: string | null;
  written: { id: string; version: number }[];
  errors: BatchError[];
  /** The claims left out that are still queued: their problems go to status_note. */
  noted: Map<string, string>;
};

function buildFile(rt: PlatformRuntime, ctx: OrgContext, batch: ClaimBatchRow, gone: ClaimRow[], missing: string[], mapped: Mapped[]): Build {
  const good = mapped.flatMap((m) => (m.x12 ? [m.x12] : []));
  const built = build837D(batchOf(rt, ctx, batch, good));
  if (built.text) verifyBuilt(built as Built837 & { text: string }, good, batch.control_number);
  const claimOf = new Map(mapped.map((m) => [m.claim.claim_number, m.claim]));
  const problems = new Map<string, string[]>();
  for (const m of mapped) if (m.problems) problems.set(m.claim.id, m.problems);
  for (const p of built.problems) problems.set(claimOf.get(p.claim_number)!.id, p.problems);
  const errors: BatchError[] = [];
  const noted = new Map<string, string>();
  const goneById = new Map(gone.map((c) => [c.id, c]));
  // in the batch's own order
  for (const id of batch.claim_ids) {
    const g = goneById.get(id);
    if (g) errors.push({ claim_id: id, claim_number: g.claim_number, problems: [`No longer queued (status ${g.status})`] });
    else if (missing.includes(id)) errors.push({ claim_id: id, claim_number: "", problems: ["The claim no longer exists"] });
    else if (problems.has(id)) {
      const claim = mapped.find((m) => m.claim.id === id)!.claim;
      errors.push({ claim_id: id, claim_number: claim.claim_number, problems: problems.get(id)! });
      noted.set(id, problems.get(id)!.join("; "));
    }
  }
  return {
    text: built.text,
    written: built.written.map((n) => ({ id: claimOf.get(n)!.id, version: claimOf.get(n)!.version })),
    errors,
    noted,
  };
}

/** An object no batch will name: removed, and only logged when that fails (it is never served). */
async function deleteQuietly(rt: PlatformRuntime, ctx: OrgContext, key: string): Promise<void> {
  await rt.storage
    .delete(key)
    .catch((err) => rt.logger.warn({ org_id: ctx.org.id, key, err: (err as Error).message }, "claim batch: a stored file could not be deleted"));
}

type Commit = { kind: "done"; batch: ClaimBatchRow } | { kind: "stale"; batch: ClaimBatchRow } | { kind: "changed" };

/** Steps 2 and 3 once: build, store, commit. "changed": a written claim changed meanwhile; build again. */
async function buildAndCommit(rt: PlatformRuntime, ctx: OrgContext, batchId: string, attempt: Attempt): Promise<Commit> {
  const read = await ctx.db.read(function* (db) {
    const batch = yield* claimBatchRecords.require(db, batchId);
    if (batch.status !== "building") return { batch, gone: [], missing: [], mapped: [] };
    const rows = yield* claimRowsOf(db, batch.claim_ids);
    const found = new Set(rows.map((r) => r.id));
    return {
      batch,
      gone: rows.filter((r) => r.status !== "queued"),
      missing: batch.claim_ids.filter((id) => !found.has(id)),
      mapped: yield* claims837(
        db,
        rows.filter((r) => r.status === "queued"),
      ),
    };
  });
  if (read.batch.status !== "building") return { kind: "stale", batch: read.batch };
  const build = buildFile(rt, ctx, read.batch, read.gone, read.missing, read.mapped);

  let key: string | null = null;
  let bytes: Uint8Array | null = null;
  if (build.text) {
    key = `${ctx.org.id}/claim-batches/${batchId}.${newId()}.x12`;
    bytes = new TextEncoder().encode(build.text);
    await rt.storage.put(key, bytes, X12_CONTENT_TYPE);
    await batchHooks.beforeCommit?.({ batchId, attempt: attempt.number, storageKey: key });
  }
  let outcome: Commit;
  try {
    outcome = await withTransaction(ctx, function* (s): Generator<any, Commit, any> {
      const current = yield* claimBatchRecords.require(s.tx, batchId);
      if (current.status !== "building") return { kind: "stale", batch: current };
      const ids = [...build.written.map((w) => w.id), ...build.noted.keys()];
      const now = new Map((yield* claimRowsOf(s.tx, ids)).map((r) => [r.id, r]));
      // the file says what the claims were when read: one changed since is built again
      if (build.written.some((w) => now.get(w.id)?.version !== w.version || now.get(w.id)?.status !== "queued")) return { kind: "changed" };
      for (const w of build.written) yield* moveClaim(s, now.get(w.id)!, "sent", { batchId });
      for (const [id, note] of build.noted) {
        const row = now.get(id);
        if (row?.status === "queued" && row.status_note !== note)
          yield* claimRecords.update(s, id, undefined, { status_note: note }, { eventData: { patient_id: row.patient_id } });
      }
      const written = build.written.length;
      const status = written ? "ready" : "failed";
      const batch = yield* claimBatchRecords.update(
        s,
        batchId,
        undefined,
        {
          status,
          storage_key: key,
          file_size: bytes?.length ?? null,
          written_claim_ids: build.written.map((w) => w.id),
          errors: build.errors,
          error: written ? null : "No claim could be written",
        },
        { action: status, eventData: { written, left_out: build.errors.length } },
      );
      return { kind: "done", batch };
    });
  } catch (err) {
    // the write failed: the object is no one's, unless the commit went through after all (a remote
    // database's connection lost at COMMIT); when that cannot be told, it is left rather than risked
    if (key) {
      let named = true;
      try {
        named = (await ctx.db.read((db) => claimBatchRecords.find(db, batchId)))?.storage_key === key;
      } catch {
        // cannot be told: left
      }
      if (!named) await deleteQuietly(rt, ctx, key);
    }
    throw err;
  }
  if (outcome.kind !== "done" && key) await deleteQuietly(rt, ctx, key);
  return outcome;
}

/** The claims.export-837d job's work on one batch (see the top of this file). */
export async function exportBatch(rt: PlatformRuntime, ctx: OrgContext, batchId: string, attempt: Attempt): Promise<ExportResult> {
  const batch = await ctx.db.read((db) => claimBatchRecords.find(db, batchId));
  if (!batch) return { batch_id: batchId, outcome: "missing" };
  if (batch.status !== "building") return { batch_id: batchId, outcome: `already_${batch.status}` };
  try {
    for (let round = 1; ; round++) {
      const out = await buildAndCommit(rt, ctx, batchId, attempt);
      if (out.kind === "stale") return { batch_id: batchId, outcome: `already_${out.batch.status}` };
      if (out.kind === "done")
        return {
          batch_id: batchId,
          outcome: out.batch.status,
          written: out.batch.written_claim_ids.length,
          left_out: out.batch.errors.length,
          file_size: out.batch.file_size,
        };
      if (round >= REBUILDS) throw new Error(`The batch's claims changed while its file was built, ${REBUILDS} times`);
    }
  } catch (err) {
    if (!attempt.last) throw err;
    const message = messageOf(err);
    const failed = await withTransaction(ctx, function* (s) {
      const current = yield* claimBatchRecords.require(s.tx, batchId);
      if (current.status !== "building") return current;
      return yield* claimBatchRecords.update(
        s,
        batchId,
        undefined,
        { status: "failed", error: `Not built: ${message}` },
        { action: "failed", eventData: { written: 0 } },
      );
    });
    return { batch_id: batchId, outcome: failed.status };
  }
}
