import { asc, desc, eq, max } from "drizzle-orm";
import { claimBatches, claims } from "@db/tenant/claims";
import { audit } from "@/platform/audit/audit";
import { all, get, type Work } from "@/platform/db/work";
import { NotFound, ValidationFailed, invalid, type ValidationIssue } from "@/platform/errors";
import { queueJob } from "@/platform/queue/enqueue";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import type { Page } from "@/platform/records/paging";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import type { ClaimRow } from "@/domains/insurance/claims/records";
import { claimRowsOf } from "./claim837";
import { claimsExport837d } from "./export.job";
import { batchOut, claimBatchRecords } from "./records";
import { MAX_BATCH_CLAIMS, type ClaimBatch, type ClaimBatchCreate, type ClaimBatchListQuery } from "./schemas";

// Claim batches (docs/insurance/claims.md, "Batches"): a POST takes queued
// claims into a batch and queues claims.export-837d in the same write; the job
// writes the 837D file (./export.ts). Reads answer the batch and, once ready,
// its file, whose every download is audited (it holds patients' data).

/** Claims in a batch still being built, by claim id: the batch's control number. */
function* claimsBeingBuilt(db: TenantDb): Work<Map<string, number>> {
  const rows = yield* all<{ control_number: number; claim_ids: string[] }>(
    db.select({ control_number: claimBatches.control_number, claim_ids: claimBatches.claim_ids }).from(claimBatches).where(eq(claimBatches.status, "building")),
  );
  return new Map(rows.flatMap((b) => b.claim_ids.map((id) => [id, b.control_number] as const)));
}

/** The claims asked for: 404 for one missing (or another org's), one 422 naming each that is not queued or already in a batch being built. */
function* requireSendable(db: TenantDb, asked: string[], building: Map<string, number>): Work<ClaimRow[]> {
  const ids = [...new Set(asked)];
  const rows = yield* claimRowsOf(db, ids);
  if (rows.length !== ids.length) throw new NotFound("Claim");
  const byId = new Map(rows.map((r) => [r.id, r]));
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  asked.forEach((id, i) => {
    if (seen.has(id)) return;
    seen.add(id);
    const c = byId.get(id)!;
    const loc = ["body", "claim_uuids", i];
    if (c.status !== "queued") issues.push({ loc, msg: `Claim ${c.claim_number} is ${c.status}, not queued`, type: "value_error" });
    else if (building.has(id))
      issues.push({ loc, msg: `Claim ${c.claim_number} is already in batch ${building.get(id)}, which is being built`, type: "value_error" });
  });
  if (issues.length) throw new ValidationFailed(issues, "claim_not_queued");
  return rows;
}

/** Every queued claim not in a batch being built, oldest first, up to the batch's limit. */
function* queuedClaims(db: TenantDb, building: Map<string, number>): Work<ClaimRow[]> {
  const rows = yield* all<ClaimRow>(
    db
      .select()
      .from(claims)
      .where(eq(claims.status, "queued"))
      .orderBy(asc(claims.claim_seq))
      .limit(MAX_BATCH_CLAIMS + building.size),
  );
  return rows.filter((r) => !building.has(r.id)).slice(0, MAX_BATCH_CLAIMS);
}

/** POST {P}/insurance/claim-batches: a batch building, its claims.export-837d job queued in the same write. */
export async function createClaimBatch(ctx: OrgContext, input: ClaimBatchCreate): Promise<ClaimBatch> {
  return withTransaction(ctx, function* (s) {
    const building = yield* claimsBeingBuilt(s.tx);
    const rows = input.claim_uuids ? yield* requireSendable(s.tx, input.claim_uuids, building) : yield* queuedClaims(s.tx, building);
    if (!rows.length) throw invalid(["body"], "No queued claim to send", "value_error", "nothing_to_send");
    const last = yield* get<{ n: number | null }>(s.tx.select({ n: max(claimBatches.control_number) }).from(claimBatches));
    const control = (last?.n ?? 0) + 1;
    const row = yield* claimBatchRecords.create(
      s,
      {
        control_number: control,
        status: "building",
        claim_ids: rows.map((r) => r.id),
        written_claim_ids: [],
        errors: [],
        storage_key: null,
        file_size: null,
        error: null,
      },
      { control_number: control, claim_count: rows.length },
    );
    queueJob(s, claimsExport837d, { batch_id: row.id }, { singletonKey: row.id });
    return batchOut(row);
  });
}

/** GET {P}/insurance/claim-batches: newest first. */
export async function listClaimBatches(ctx: OrgContext, q: ClaimBatchListQuery): Promise<Page<ClaimBatch>> {
  return ctx.db.read(function* (db) {
    const page = yield* claimBatchRecords.list(db, q, {
      where: [q.status ? eq(claimBatches.status, q.status) : undefined],
      orderBy: [desc(claimBatches.control_number)],
    });
    return { ...page, items: page.items.map(batchOut) };
  });
}

export async function getClaimBatch(ctx: OrgContext, id: string): Promise<ClaimBatch> {
  return ctx.db.read(function* (db) {
    return batchOut(yield* claimBatchRecords.require(db, id));
  });
}

/**
 * GET {P}/insurance/claim-batches/{id}/file: the ready batch's X12 text (404
 * before it is ready, or when the object is gone). The file holds patients'
 * names, birthdates, member ids and procedures: each download is written to
 * the org's audit trail (`claim_batch.downloaded`, naming the claims in it)
 * before the bytes are answered.
 */
export async function claimBatchFile(rt: PlatformRuntime, ctx: OrgContext, id: string): Promise<{ text: string; fileName: string }> {
  const batch = await ctx.db.read((db) => claimBatchRecords.require(db, id));
  if (batch.status !== "ready" || !batch.storage_key) throw new NotFound("Batch file");
  const bytes = await rt.storage.get(batch.storage_key);
  if (!bytes) throw new NotFound("Batch file");
  await withTransaction(ctx, function* (s) {
    yield* audit(s, {
      action: "claim_batch.downloaded",
      resource_type: "claim_batch",
      resource_id: batch.id,
      before: null,
      after: { control_number: batch.control_number, file_size: bytes.length, written_claim_ids: batch.written_claim_ids },
    });
  });
  return { text: new TextDecoder().decode(bytes), fileName: `${batch.control_number}.x12` };
}
