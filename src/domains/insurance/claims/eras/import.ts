import { and, eq, isNull, sql } from "drizzle-orm";
import { claimPayments, eraClaims } from "@db/tenant/claims";
import { insuranceCarriers } from "@db/tenant/insurance";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { claimPaymentRecords, postSplits, type ClaimPaymentRow } from "@/domains/insurance/claims/posting";
import { claimRecords, type ClaimRow } from "@/domains/insurance/claims/records";
import { Era835Error, parse835 } from "@/domains/insurance/claims/x12/835";
import type { Era835, EraClaim835 } from "@/domains/insurance/claims/x12/types";
import { findClaim, splitsForClp } from "./match";
import { eraRecords, type EraClaimRow, type EraRow } from "./records";

// What the job claims.era-import does with one ERA (docs/insurance/claims.md,
// "ERAs"), each step idempotent:
//   1. received: parse the file (a parser error fails the ERA with its
//      message, nothing posted) and, in one write, keep every CLP with its
//      match and problems and the file's header (status processing);
//   2. decide by the carrier's automation (era_automation_override, else its
//      trust_level) whether to post now or leave it for review;
//   3. make the ERA's claim payment (one per ERA: a unique index on era_id);
//   4. post the matched CLPs without problems in chunks, one write each, the
//      CLP marked posted in the write that posts it (a retry skips it);
//   5. posted when every CLP is, else needs_review (the rest listed).

/** Claims posted per write: keeps each write (and SQLite's one writer) short. */
export const ERA_CHUNK = 50;

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

/** Step 1's write: the CLPs kept with their matches, the header filled in. */
function* keepParse(s: TxScope, era: EraRow, parsed: Era835): Work<void> {
  let carrierId = yield* carrierByPayerId(s.tx, parsed.payer.id);
  const rows: (typeof eraClaims.$inferInsert)[] = [];
  const byNumber: ClaimRow[] = [];
  for (const clp of parsed.claims) {
    const found = yield* findClaim(s.tx, clp);
    if (found?.method === "claim_number") byNumber.push(found.claim);
    rows.push({
      id: newId(),
      era_id: era.id,
      clp_index: clp.index,
      claim_number: clp.claim_number,
      claim_id: found?.claim.id ?? null,
      match_method: found?.method ?? null,
      status: found ? "matched" : "unmatched",
      status_code: clp.status_code,
      billed_cents: clp.billed_cents,
      paid_cents: clp.paid_cents,
      patient_responsibility_cents: clp.patient_responsibility_cents,
      patient_name: [clp.patient.first_name, clp.patient.last_name].filter(Boolean).join(" ") || null,
      date_service: clp.date_service,
      problems: found ? [] : ["No claim has this claim number, and no one sent claim has this patient, service date and billed amount: match it by hand"],
      clp,
      posted_at: null,
      created_at: s.now,
      updated_at: s.now,
    });
  }
  // a payer without our electronic id: the carrier its claims (matched by number) bill, when they agree
  const billed = new Set(byNumber.map((c) => c.carrier_id));
  if (!carrierId && billed.size === 1) carrierId = [...billed][0]!;
  for (const r of rows) {
    if (!r.claim_id) continue;
    const claim = yield* claimRecords.require(s.tx, r.claim_id);
    const { problems } = yield* splitsForClp(s.tx, { carrier_id: carrierId }, r.clp as EraClaim835, claim);
    if (problems.length) Object.assign(r, { status: "needs_review", problems });
  }
  for (let i = 0; i < rows.length; i += 200) yield* run(s.tx.insert(eraClaims).values(rows.slice(i, i + 200)));
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
  for (const id of ids) {
    const row = yield* get<EraClaimRow>(s.tx.select().from(eraClaims).where(eq(eraClaims.id, id)));
    if (!row || row.status !== "matched" || !row.claim_id) continue;
    const claim = yield* claimRecords.require(s.tx, row.claim_id);
    const { splits, problems } = yield* splitsForClp(s.tx, era, row.clp as EraClaim835, claim);
    if (problems.length) {
      yield* run(s.tx.update(eraClaims).set({ status: "needs_review", problems, updated_at: s.now }).where(eq(eraClaims.id, id)));
      continue;
    }
    yield* postSplits(s, payment, splits);
    yield* run(s.tx.update(eraClaims).set({ status: "posted", problems: [], posted_at: s.now, updated_at: s.now }).where(eq(eraClaims.id, id)));
    posted++;
  }
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

  // 1. parse, once
  const kept = await ctx.db.read((db) => get<{ n: number }>(db.select({ n: sql<number>`count(*)` }).from(eraClaims).where(eq(eraClaims.era_id, eraId))));
  if (era.status === "received" && !kept?.n) {
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
    const result = await withTransaction(ctx, function* (s) {
      const now = yield* eraRecords.require(s.tx, eraId);
      if (now.status !== "received") return now.status;
      if (error) {
        yield* eraRecords.update(s, now.id, now.version, { status: "failed", error }, { action: "failed", changedFields: false });
        return "failed";
      }
      yield* keepParse(s, now, parsed!);
      return "processing";
    });
    if (result === "failed") return { outcome: "failed" };
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
    }
  // 5.
  return { outcome: await withTransaction(ctx, (s) => finish(s, eraId, noCarrier)), posted };
}
