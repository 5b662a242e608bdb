import { and, asc, eq, gte, inArray, isNull, ne, notExists, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { patients } from "@db/tenant/patients";
import { locations } from "@db/tenant/practice";
import { statements } from "@db/tenant/account";
import { all, type Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { addDays, todayIn } from "@/platform/time/dates";
import { addStatement, batchRecords, completeIfFinished, type BatchRow } from "./service";
import { DEFAULT_PERIOD_DAYS, type StatementMode } from "./schemas";

// A statement batch's selection (docs/account/statements.md, "Batches"): every
// guarantor (a live patient, not deceased, without a responsible party or
// their own) whose family balance is at least the batch's minimum, of the
// billing types asked for, without a statement still pending and without one
// (not failed) made in the last N days, and not already in this batch. Their
// statements are made in chunks, one write each, each queueing its render; the
// batch's total is what was made plus what is left, so it is never complete
// before the last chunk.

/** Statements made per write: keeps each write (and SQLite's one writer) short. */
export const BATCH_CHUNK = 100;

const P = patients;
const G = alias(patients, "guarantor");
const S = statements;

const balanceOf = sql<number>`${P.balance_0_30_cents} + ${P.balance_31_60_cents} + ${P.balance_61_90_cents} + ${P.balance_over_90_cents}`;
const familyOf = sql<string>`coalesce(${P.responsible_party_id}, ${P.id})`;

type Selected = { id: string; location_id: string | null };

/** The guarantors a batch selects now (those already in it excluded), by id. */
export function* selectGuarantors(db: TenantDb, batch: BatchRow, now: Date): Work<Selected[]> {
  const families = db
    .select({ gid: familyOf.as("gid"), cents: sql<number>`sum(${balanceOf})`.as("cents") })
    .from(P)
    // members without a balance change no family's sum: skipped unless a zero balance qualifies
    .where(and(isNull(P.deleted_at), batch.min_balance_cents > 0 ? sql`${balanceOf} <> 0` : undefined))
    .groupBy(familyOf)
    .as("families");
  const cutoff = new Date(now.getTime() - batch.skip_if_sent_within_days * 86_400_000).toISOString();
  const recent = db
    .select({ one: sql`1` })
    .from(S)
    .where(
      and(
        eq(S.guarantor_id, G.id),
        or(
          eq(S.batch_id, batch.id),
          eq(S.status, "pending"),
          batch.skip_if_sent_within_days > 0 ? and(ne(S.status, "failed"), gte(S.created_at, cutoff)) : undefined,
        ),
      ),
    );
  return yield* all<Selected>(
    db
      .select({ id: G.id, location_id: G.location_id })
      .from(families)
      .innerJoin(G, eq(G.id, families.gid))
      .where(
        and(
          or(isNull(G.responsible_party_id), eq(G.responsible_party_id, G.id)),
          isNull(G.deleted_at),
          ne(G.status, "deceased"),
          gte(families.cents, batch.min_balance_cents),
          batch.billing_type_ids?.length ? inArray(G.billing_type_id, batch.billing_type_ids) : undefined,
          notExists(recent),
        ),
      )
      .orderBy(asc(G.id)),
  );
}

/** For tests: called after each chunk's write; a hook that throws stands for a worker killed mid-batch. */
export const batchHooks: { afterChunk?: (info: { batchId: string; made: number }) => void } = {};

/**
 * The statements.batch job's work: selects the batch's guarantors and makes
 * their statements, BATCH_CHUNK per write. Run again (a retry, a duplicate),
 * it makes only those not yet in the batch.
 */
export async function runBatch(ctx: OrgContext, batchId: string): Promise<{ selected: number; made: number; total: number } | { missing: true }> {
  const start = await ctx.db.read(function* (db) {
    const batch = yield* batchRecords.find(db, batchId);
    if (!batch) return null;
    const [selected, zones, existing] = [
      yield* selectGuarantors(db, batch, new Date()),
      yield* all<{ id: string; timezone: string }>(db.select({ id: locations.id, timezone: locations.timezone }).from(locations)),
      yield* all<{ n: number }>(db.select({ n: sql<number>`count(*)` }).from(S).where(eq(S.batch_id, batchId))),
    ];
    return { batch, selected, zones: new Map(zones.map((z) => [z.id, z.timezone])), existing: existing[0]?.n ?? 0 };
  });
  if (!start) return { missing: true };
  const { batch, selected, zones, existing } = start;
  // a job sent again after the batch finished adds nothing to it
  if (batch.status === "done") return { selected: 0, made: 0, total: batch.total };
  const total = existing + selected.length;
  let made = 0;
  for (let i = 0; i === 0 || i < selected.length; i += BATCH_CHUNK) {
    const chunk = selected.slice(i, i + BATCH_CHUNK);
    made += await withTransaction(ctx, function* (s) {
      const current = yield* batchRecords.require(s.tx, batchId);
      if (current.total !== total) yield* batchRecords.update(s, batchId, undefined, { total }, { action: "selected", eventData: { total } });
      if (!chunk.length) return 0;
      // a statement made meanwhile (by a POST, or another run of this job) keeps its guarantor out
      const taken = new Set(
        (yield* all<{ id: string }>(
          s.tx
            .select({ id: S.guarantor_id })
            .from(S)
            .where(
              and(
                inArray(
                  S.guarantor_id,
                  chunk.map((g) => g.id),
                ),
                or(eq(S.batch_id, batchId), eq(S.status, "pending")),
              ),
            ),
        )).map((r) => r.id),
      );
      let n = 0;
      for (const g of chunk) {
        if (taken.has(g.id)) continue;
        const date_to = todayIn(g.location_id ? zones.get(g.location_id) : null);
        yield* addStatement(s, g, {
          date_from: addDays(date_to, -DEFAULT_PERIOD_DAYS),
          date_to,
          mode: batch.mode as StatementMode,
          note: null,
          batch_id: batchId,
        });
        n++;
      }
      return n;
    });
    batchHooks.afterChunk?.({ batchId, made });
    if (i + BATCH_CHUNK < selected.length) await new Promise<void>((resolve) => setImmediate(resolve)); // let requests in between writes
  }
  // statements skipped as taken, or none selected: the batch may be complete already
  const shortfall = selected.length - made;
  if (shortfall > 0 || !selected.length)
    await withTransaction(ctx, function* (s) {
      if (shortfall > 0)
        yield* batchRecords.update(s, batchId, undefined, { total: total - shortfall }, { action: "selected", eventData: { total: total - shortfall } });
      yield* completeIfFinished(s, batchId);
    });
  return { selected: selected.length, made, total: total - shortfall };
}
