import { and, asc, count, eq, gt, isNull, max } from "drizzle-orm";
import { fees } from "@db/tenant/fee-schedules";
import { all, get, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { queueJob } from "@/platform/queue/enqueue";
import { feeSchedulesCopy, type CopyPayload } from "./copy.job";
import { feeScheduleRecords, serializeFeeSchedule, type FeeRow, type FeeScheduleRow } from "./records";
import type { FeeSchedule, FeeScheduleCopy } from "./schemas";
import { announceAllowedFees, assertNameFree, assertNotCopying, upsertFees } from "./service";

// POST .../copy (docs/codes/fee-schedules.md, "Copy"): a source's fees into a
// target, each changed by a percent and rounded. Up to COPY_INLINE_LIMIT fees
// in the request's own write; more by the job fee-schedules.copy
// (copy.handler.ts), in batches that each upsert and record their progress.

/** A source with at most this many fees is copied in the request (answer 200/201); a larger one by the job (202). */
export const COPY_INLINE_LIMIT = 500;
/** Fees per write of the job: short enough for one writer on a local file. */
export const COPY_BATCH_SIZE = 500;
/** The most a fee may be (DollarsInput's limit), in cents. */
const MAX_FEE_CENTS = 100_000_000;

const F = fees;

/**
 * A copied fee: `cents × (100 + percent) / 100`, rounded half up to the
 * nearest `roundTo` dollars (0.01, 1 or 5). Exact in integers: the percent is
 * taken as basis points, so 10.25 % of any fee up to 1,000,000.00 never
 * meets a float.
 */
export function copiedAmount(cents: number, percentChange: number, roundTo: number): number {
  const basisPoints = Math.round(percentChange * 100);
  const unit = Math.round(roundTo * 100); // in cents: 1, 100 or 500
  const scaled = cents * (10_000 + basisPoints); // cents × 10,000
  const step = unit * 10_000;
  return Math.floor((2 * scaled + step) / (2 * step)) * unit;
}

type Rule = Pick<CopyPayload, "percent_change" | "round_to">;

/** The live fees of a schedule, in id order, after `afterId`. */
const sourceFees = (db: TenantDb, scheduleId: string, afterId: string, limit: number) =>
  all<FeeRow>(
    db
      .select()
      .from(F)
      .where(and(eq(F.fee_schedule_id, scheduleId), isNull(F.deleted_at), gt(F.id, afterId)))
      .orderBy(asc(F.id))
      .limit(limit),
  );

/** How many live fees the source has, and the largest. */
function* sourceSize(db: TenantDb, scheduleId: string): Work<{ total: number; largest: number }> {
  const row = yield* get<{ n: number; largest: number | null }>(
    db
      .select({ n: count(), largest: max(F.amount_cents) })
      .from(F)
      .where(and(eq(F.fee_schedule_id, scheduleId), isNull(F.deleted_at))),
  );
  return { total: row?.n ?? 0, largest: row?.largest ?? 0 };
}

/** Why a copy cannot be made at all (a copied fee would exceed 1,000,000.00), else null. */
function tooLarge(largest: number, rule: Rule): string | null {
  const top = copiedAmount(largest, rule.percent_change, rule.round_to);
  return top > MAX_FEE_CENTS ? `The largest fee would become ${formatCents(top)}, over 1000000.00` : null;
}

/** Copy these source fees into the target: one upsert. */
function copyRows(s: TxScope, targetId: string, rows: FeeRow[], rule: Rule) {
  return upsertFees(
    s,
    targetId,
    rows.map((r) => ({
      procedure_code_id: r.procedure_code_id,
      location_id: r.location_id,
      amount_cents: copiedAmount(r.amount_cents, rule.percent_change, rule.round_to),
    })),
  );
}

export type CopyAnswer = { status: 200 | 201 | 202; schedule: FeeSchedule };

/**
 * The request: the target (an existing schedule, or a new one named in the
 * body), then either the whole copy in this write or the target marked running
 * and the job queued in it (sent once the write commits).
 */
export async function copyFeeSchedule(ctx: OrgContext, sourceId: string, input: FeeScheduleCopy): Promise<CopyAnswer> {
  const rule: Rule = { percent_change: input.percent_change ?? 0, round_to: input.round_to ?? 0.01 };
  return withTransaction(ctx, function* (s) {
    const source = yield* feeScheduleRecords.require(s.tx, sourceId);
    assertNotCopying(source);
    let target: FeeScheduleRow | null = null;
    if (input.to_fee_schedule_uuid) {
      target = yield* feeScheduleRecords.require(s.tx, input.to_fee_schedule_uuid);
      if (target.id === source.id)
        throw invalid(["body", "to_fee_schedule_uuid"], "A fee schedule cannot be copied into itself", "value_error", "same_fee_schedule");
      assertNotCopying(target);
    } else yield* assertNameFree(s.tx, input.name!);

    const { total, largest } = yield* sourceSize(s.tx, source.id);
    const refusal = tooLarge(largest, rule);
    if (refusal) throw invalid(["body", "percent_change"], refusal, "value_error", "fee_out_of_range");
    const inline = total <= COPY_INLINE_LIMIT;
    const progress = inline
      ? { copy_status: "done", copy_total: total, copy_done: total, copy_error: null }
      : { copy_status: "running", copy_total: total, copy_done: 0, copy_error: null };
    const about = { source_fee_schedule_id: source.id };

    if (!target) {
      target = yield* feeScheduleRecords.create(
        s,
        { name: input.name!, schedule_type: input.schedule_type ?? source.schedule_type, is_hidden: false, is_default: false, ...progress },
        { schedule_type: input.schedule_type ?? source.schedule_type, is_default: false, ...about },
      );
    } else {
      target = yield* feeScheduleRecords.update(s, target.id, target.version, progress, { action: inline ? "copied" : "copy_started", eventData: about });
    }
    if (inline) {
      const outcome = yield* copyRows(s, target.id, yield* sourceFees(s.tx, source.id, "", COPY_INLINE_LIMIT), rule);
      if (outcome.created + outcome.updated) yield* announceAllowedFees(s, target);
    } else {
      queueJob(s, feeSchedulesCopy, { source_id: source.id, target_id: target.id, ...rule }, { singletonKey: target.id });
    }
    return { status: inline ? (input.to_fee_schedule_uuid ? 200 : 201) : 202, schedule: serializeFeeSchedule(target) };
  });
}

// ---- the job's work -------------------------------------------------------------------------

export type CopyResult = {
  /** running: work left (never returned); done; failed; skipped: the target is gone or no copy into it is running. */
  outcome: "done" | "failed" | "skipped";
  copied: number;
  created: number;
  updated: number;
  unchanged: number;
  batches: number;
  reason?: string;
};

/** Record the copy's end on the target (when it is still the running copy's). */
function* finish(s: TxScope, target: FeeScheduleRow, done: number, error: string | null): Work<void> {
  const values = error ? { copy_status: "failed", copy_error: error } : { copy_status: "done", copy_done: done, copy_total: done, copy_error: null };
  yield* feeScheduleRecords.update(s, target.id, target.version, values, { action: error ? "copy_failed" : "copied" });
}

/**
 * Copy what the payload asks, batch by batch (each batch: re-read the target,
 * which must still be live with a copy running, and the source, which must
 * still be live; upsert the next source fees by id; record the progress).
 * From the first fee each time it runs: a retry re-reads everything and finds
 * what an earlier attempt copied unchanged. `onBatch` runs after each batch
 * has committed (the job logs there; tests stop there).
 */
export async function runCopy(
  ctx: OrgContext,
  p: CopyPayload,
  options: { batchSize?: number; onBatch?: (b: { batch: number; copied: number }) => void | Promise<void> } = {},
): Promise<CopyResult> {
  const size = options.batchSize ?? COPY_BATCH_SIZE;
  const out: CopyResult = { outcome: "done", copied: 0, created: 0, updated: 0, unchanged: 0, batches: 0 };
  let after = "";
  for (;;) {
    const step = await withTransaction(ctx, function* (s): Work<"more" | "done" | "failed" | "skipped"> {
      const target = yield* feeScheduleRecords.find(s.tx, p.target_id);
      if (!target || target.copy_status !== "running") {
        out.reason = target ? "no copy into the target is running" : "the target is archived or gone";
        return "skipped";
      }
      const source = yield* feeScheduleRecords.find(s.tx, p.source_id);
      const refusal = !source
        ? "The source fee schedule was archived during the copy"
        : out.batches === 0
          ? tooLarge((yield* sourceSize(s.tx, source.id)).largest, p)
          : null;
      if (refusal) {
        out.reason = refusal;
        yield* finish(s, target, out.copied, refusal);
        return "failed";
      }
      const rows = yield* sourceFees(s.tx, p.source_id, after, size);
      const outcome = yield* copyRows(s, target.id, rows, p);
      out.batches++;
      out.copied += rows.length;
      out.created += outcome.created;
      out.updated += outcome.updated;
      out.unchanged += outcome.unchanged;
      if (rows.length) after = rows[rows.length - 1]!.id;
      const last = rows.length < size;
      // estimates hear once, when the copy is done (a retry that changed nothing tells them nothing)
      if (last) {
        yield* finish(s, target, out.copied, null);
        if (out.created + out.updated) yield* announceAllowedFees(s, target);
        return "done";
      }
      yield* feeScheduleRecords.update(s, target.id, target.version, { copy_done: out.copied }, { action: "copy_progress", event: false });
      return "more";
    });
    if (step !== "more") {
      out.outcome = step;
      return out;
    }
    await options.onBatch?.({ batch: out.batches, copied: out.copied });
    await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
  }
}

/** The last attempt failed: say so on the target, if its copy is still running. */
export async function markCopyFailed(ctx: OrgContext, p: CopyPayload, error: string): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const target = yield* feeScheduleRecords.find(s.tx, p.target_id);
    if (target?.copy_status === "running") yield* finish(s, target, target.copy_done ?? 0, error);
  });
}
