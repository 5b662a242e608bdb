import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { claimPayments, claims, eraClaims } from "@db/tenant/claims";
import { insuranceCarriers } from "@db/tenant/insurance";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { claimPaymentRecords, followUps, postSplits, queueFollowUps, type ClaimPaymentRow } from "@/domains/insurance/claims/posting";
import { claimRecords } from "@/domains/insurance/claims/records";
import { Era835Error, parse835 } from "@/domains/insurance/claims/x12/835";
import type { Era835, EraClaim835 } from "@/domains/insurance/claims/x12/types";
import { findClaim, splitsForClp } from "./match";
import { eraRecords, type EraClaimRow, type EraRow } from "./records";

// What the job claims.era-import does with one ERA (docs/insurance/claims.md,
// "ERAs"), each step idempotent:
//   1. received: parse the file (a parser error fails the ERA with its
//      message, nothing posted), keep every CLP with its match and problems
//      in writes of 50 (a retry adds only the missing ones), then the
//      file's header (status processing);
//   2. decide by the carrier's automation (era_automation_override, else its
//      trust_level) whether to post now or leave it for review;
//   3. make the ERA's claim payment (one per ERA: a unique index on era_id);
//   4. post the matched CLPs without problems in chunks (ERA_CHUNK), one write each, the
//      CLP marked posted in the write that posts it (a retry skips it);
//   5. posted when every CLP is, else needs_review (the rest listed).

/**
 * Claims posted per write: each write holds SQLite's one writer and, on a
 * local file, the process's event loop (bun:sqlite is synchronous), so a chunk
 * is kept to tens of milliseconds and other requests go between chunks.
 */
export const ERA_CHUNK = 10;

/** For tests: a hook that throws stands for a worker killed inside a chunk's write (it rolls back). */
export const eraHooks: { beforeChunkCommit?: (info: { eraId: string; chunk: number }) => void } = {};

type Automation = "auto_receive" | "manual_review" | "do_not_process";
type Carrier = { id: string; era_automation_override: string | null; trust_level: string };

const REVIEW_FUZZY = "Matched by patient, service date and billed amount, not by claim number: confirm the match or post after review";

function* carrierOf(db: TenantDb, id: string | null): Work<Carrier | undefined> {
  if (!id) return undefined;
  return yield* get<Carrier>(
    db
      .select({ id: insuranceCarriers.id, era_automation_override: insuranceCarriers.era_automation_override, trust_level: insuranceCarriers.trust_level })
      .from(insuranceCarriers)
      .where(eq(insuranceCarriers.id, id)),
  );
}

/** The carrier whose electronic id is the payer's (case and spaces ignored). */
function* carrierByPayerId(db: TenantDb, payerId: string | null): Work<string | null> {
  if (!payerId) return null;
  const row = yield* get<{ id: string }>(
    db
      .select({ id: insuranceCarriers.id })
      .from(insuranceCarriers)
      .where(and(sql`upper(trim(${insuranceCarriers.electronic_id})) = upper(trim(${payerId}))`, isNull(insuranceCarriers.deleted_at))),
  );
  return row?.id ?? null;
}

const automationOf = (c: Carrier | undefined): Automation =>
  (c?.era_automation_override as Automation | null) ?? (c?.trust_level === "untrusted" ? "manual_review" : "auto_receive");

/** The ERA's carrier: the one whose electronic id is the payer's, else the one its claims (by number) bill, when they agree. */
function* carrierOfEra(db: TenantDb, parsed: Era835): Work<string | null> {
  const byId = yield* carrierByPayerId(db, parsed.payer.id);
  if (byId) return byId;
  const numbers = [...new Set(parsed.claims.map((c) => c.claim_number.trim().toUpperCase()))];
  const billed = new Set<string>();
  for (let i = 0; i < numbers.length; i += 500)
    for (const c of yield* all<{ carrier: string }>(
      db
        .select({ carrier: claims.carrier_id })
        .from(claims)
        .where(inArray(claims.claim_number, numbers.slice(i, i + 500))),
    ))
      billed.add(c.carrier);
  return billed.size === 1 ? [...billed][0]! : null;
}

/** Step 1, one chunk's write: its CLPs kept with their matches and problems (a CLP kept already is left as it is). */
function* keepClaims(s: TxScope, eraId: string, carrierId: string | null, chunk: EraClaim835[]): Work<void> {
  const rows: (typeof eraClaims.$inferInsert)[] = [];
  for (const clp of chunk) {
    const found = yield* findClaim(s.tx, clp);
    const judged = found ? yield* splitsForClp(s.tx, { carrier_id: carrierId }, clp, found.claim) : null;
    rows.push({
      id: newId(),
      era_id: eraId,
      clp_index: clp.index,
      claim_number: clp.claim_number,
      claim_id: found?.claim.id ?? null,
      match_method: found?.method ?? null,
      status: !found ? "unmatched" : judged!.problems.length ? "needs_review" : "matched",
      status_code: clp.status_code,
      billed_cents: clp.billed_cents,
      paid_cents: clp.paid_cents,
      patient_responsibility_cents: clp.patient_responsibility_cents,
      patient_name: [clp.patient.first_name, clp.patient.last_name].filter(Boolean).join(" ") || null,
      date_service: clp.date_service,
      problems: !found
        ? ["No claim has this claim number, and no one sent claim has this patient, service date and billed amount: match it by hand"]
        : judged!.problems,
      clp,
      posted_at: null,
      created_at: s.now,
      updated_at: s.now,
    });
  }
  if (rows.length) yield* run(s.tx.insert(eraClaims).values(rows).onConflictDoNothing());
}

/** Step 1's last write: the header filled in; the ERA is processing. */
function* keepHeader(s: TxScope, era: EraRow, parsed: Era835, carrierId: string | null): Work<void> {
  yield* eraRecords.update(
    s,
    era.id,
    era.version,
    {
      status: "processing",
      payer_name: parsed.payer.name,
      carrier_id: carrierId,
      payment_date: parsed.payment_date,
      payment_type: parsed.payment_type,
      total_paid_cents: parsed.total_paid_cents,
      trace_number: parsed.trace_number,
      provider_adjustments: parsed.provider_adjustments,
      problems: [...parsed.problems, ...(carrierId ? [] : ["The payer matches no carrier (electronic id) and its claims name none: match its claims by hand"])],
    },
    { action: "processing", event: false },
  );
}

/** Ends the ERA: posted when every CLP is, else needs_review (event era.posted / era.needs_review). */
function* finish(s: TxScope, eraId: string, extraProblems: string[] = []): Work<string> {
  const era = yield* eraRecords.require(s.tx, eraId);
  const rows = yield* all<{ status: string }>(s.tx.select({ status: eraClaims.status }).from(eraClaims).where(eq(eraClaims.era_id, eraId)));
  const status = rows.length && rows.every((r) => r.status === "posted") && !extraProblems.length ? "posted" : "needs_review";
  const anyPosted = rows.some((r) => r.status === "posted");
  yield* eraRecords.update(
    s,
    era.id,
    era.version,
    { status, problems: [...new Set([...era.problems, ...extraProblems])], posted_at: anyPosted ? (era.posted_at ?? s.now) : null },
    { action: status, eventData: { claims: rows.length, posted: rows.filter((r) => r.status === "posted").length }, changedFields: false },
  );
  return status;
}

/** The ERA's one claim payment (its check), made once. */
function* paymentFor(s: TxScope, eraId: string): Work<ClaimPaymentRow | null> {
  const era = yield* eraRecords.require(s.tx, eraId);
  const existing = yield* get<ClaimPaymentRow>(s.tx.select().from(claimPayments).where(eq(claimPayments.era_id, era.id)));
  if (existing) return existing;
  if (!era.carrier_id) return null;
  const row = yield* claimPaymentRecords.create(
    s,
    {
      carrier_id: era.carrier_id,
      payment_date: era.payment_date!,
      amount_cents: era.total_paid_cents ?? 0,
      check_number: era.trace_number,
      payment_type: era.payment_type ?? "other",
      era_id: era.id,
      note: null,
      status: "active",
      voided_at: null,
      void_reason: null,
    },
    { carrier_id: era.carrier_id, era_id: era.id },
  );
  yield* eraRecords.update(s, era.id, era.version, { claim_payment_id: row.id }, { action: "payment_made", event: false });
  return row;
}

/** One chunk's write: each CLP still matched is judged again on today's claim and posted, or set aside with its problems. */
function* postChunk(s: TxScope, eraId: string, ids: string[], chunk: number): Work<number> {
  const payment = yield* paymentFor(s, eraId);
  if (!payment) return 0;
  const era = yield* eraRecords.require(s.tx, eraId);
  let posted = 0;
  const after = followUps();
  for (const id of ids) {
    const row = yield* get<EraClaimRow>(s.tx.select().from(eraClaims).where(eq(eraClaims.id, id)));
    if (!row || row.status !== "matched" || !row.claim_id) continue;
    const claim = yield* claimRecords.require(s.tx, row.claim_id);
    const { splits, problems } = yield* splitsForClp(s.tx, era, row.clp as EraClaim835, claim);
    if (problems.length) {
      yield* run(s.tx.update(eraClaims).set({ status: "needs_review", problems, updated_at: s.now }).where(eq(eraClaims.id, id)));
      continue;
    }
    yield* postSplits(s, payment, splits, after);
    yield* run(s.tx.update(eraClaims).set({ status: "posted", problems: [], posted_at: s.now, updated_at: s.now }).where(eq(eraClaims.id, id)));
    posted++;
  }
  queueFollowUps(s, after);
  eraHooks.beforeChunkCommit?.({ eraId, chunk });
  return posted;
}

export type EraOutcome = { outcome: string; posted?: number };

/** The job's work for one ERA; `post`: a reviewed ERA, posted whatever the carrier's automation. */
export async function importEra(rt: PlatformRuntime, ctx: OrgContext, eraId: string, opts: { post: boolean }): Promise<EraOutcome> {
  const era = await ctx.db.read((db) => eraRecords.find(db, eraId));
  if (!era) return { outcome: "missing" };
  if (era.status === "posted" || era.status === "failed") return { outcome: era.status };
  if (era.status === "needs_review" && !opts.post) return { outcome: "needs_review" };

  // 1. parse, once: the CLPs kept in chunks (a retry adds only the missing ones), then the header
  if (era.status === "received") {
    const bytes = await rt.storage.get(era.storage_key);
    let parsed: Era835 | null = null;
    let error: string | null = null;
    if (!bytes) error = "The ERA's file is missing from storage";
    else {
      try {
        parsed = parse835(new TextDecoder().decode(bytes));
      } catch (e) {
        if (!(e instanceof Era835Error)) throw e;
        error = e.message;
      }
    }
    if (parsed) {
      const carrierId = await ctx.db.read((db) => carrierOfEra(db, parsed!));
      for (let i = 0; i < parsed.claims.length; i += ERA_CHUNK * 5) {
        const chunk = parsed.claims.slice(i, i + ERA_CHUNK * 5);
        await withTransaction(ctx, (s) => keepClaims(s, eraId, carrierId, chunk));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await withTransaction(ctx, function* (s) {
        const now = yield* eraRecords.require(s.tx, eraId);
        if (now.status === "received") yield* keepHeader(s, now, parsed!, carrierId);
      });
    } else {
      const failed = await withTransaction(ctx, function* (s) {
        const now = yield* eraRecords.require(s.tx, eraId);
        if (now.status !== "received") return false;
        yield* eraRecords.update(s, now.id, now.version, { status: "failed", error }, { action: "failed", changedFields: false });
        return true;
      });
      if (failed) return { outcome: "failed" };
    }
  }

  // 2. post now, or leave for review
  const current = (await ctx.db.read((db) => eraRecords.find(db, eraId)))!;
  const carrier = await ctx.db.read((db) => carrierOf(db, current.carrier_id));
  const automation = automationOf(carrier);
  if (!opts.post) {
    const reasons = [
      ...(automation === "do_not_process" ? ["The carrier's ERAs are recorded only (era_automation_override do_not_process): review and post by hand"] : []),
      ...(automation === "manual_review"
        ? ["The carrier's ERAs are posted after review (era_automation_override manual_review, or an untrusted carrier)"]
        : []),
      ...(current.problems.length ? ["The file's totals or payer need review before anything is posted"] : []),
    ];
    if (reasons.length) return { outcome: await withTransaction(ctx, (s) => finish(s, eraId, reasons)) };
  }
  const claims = await ctx.db.read((db) =>
    all<{ id: string; match_method: string | null }>(
      db
        .select({ id: eraClaims.id, match_method: eraClaims.match_method })
        .from(eraClaims)
        .where(and(eq(eraClaims.era_id, eraId), eq(eraClaims.status, "matched")))
        .orderBy(eraClaims.clp_index),
    ),
  );
  // a standard carrier's claims matched only by patient, date and amount wait for a person; a trusted one's post
  const fuzzyWaits = !opts.post && carrier?.trust_level !== "trusted";
  const waiting = claims.filter((c) => fuzzyWaits && c.match_method === "patient_date_amount").map((c) => c.id);
  if (waiting.length)
    await withTransaction(ctx, function* (s) {
      for (const id of waiting)
        yield* run(
          s.tx
            .update(eraClaims)
            .set({ status: "needs_review", problems: [REVIEW_FUZZY], updated_at: s.now })
            .where(eq(eraClaims.id, id)),
        );
    });
  const toPost = claims.filter((c) => !waiting.includes(c.id)).map((c) => c.id);

  // 3 and 4. the claim payment, then the claims in chunks
  let posted = 0;
  const noCarrier = !current.carrier_id ? ["The payer matches no carrier: nothing can be posted until its claims are matched by hand"] : [];
  if (!noCarrier.length)
    for (let i = 0; i < toPost.length; i += ERA_CHUNK) {
      const chunk = toPost.slice(i, i + ERA_CHUNK);
      posted += await withTransaction(ctx, (s) => postChunk(s, eraId, chunk, i / ERA_CHUNK));
      // let the requests that arrived meanwhile go before the next chunk
      await new Promise((resolve) => setImmediate(resolve));
    }
  // 5.
  return { outcome: await withTransaction(ctx, (s) => finish(s, eraId, noCarrier)), posted };
}
