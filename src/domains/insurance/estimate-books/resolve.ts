import { and, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import { inJsonList } from "@/platform/db/in-list";
import { allowedFees, estimateBooks, insurancePlans } from "@db/tenant/insurance";
import { allPrepared, getPrepared, prepared, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import { procedureCodesByCode } from "@/domains/codes/procedure-codes/service";
import { allowedAmountSchedule, scheduleFeesForLines } from "@/domains/codes/fee-schedules/resolve";
import { RESOLUTION_SCOPES } from "./schemas";
import type { BookRow } from "./books";
import type { AllowedFeeRow } from "./allowed-fees";

// The estimate engine's question to the estimate books: what does this plan
// allow for this procedure? (docs/insurance/estimate-books.md, "How an estimate finds its
// allowed fee".) Reads only; runs inside the caller's read or write.

/** Whose allowed fee: the plan (and its carrier and group number, when the caller already has them). */
export type FeeContext = {
  planId: string | null;
  /** Defaults to the plan's carrier. */
  carrierId?: string | null;
  /** Defaults to the plan's group number. */
  groupNumber?: string | null;
  /** The day the estimate is for (YYYY-MM-DD, or an ISO date-time): fees expired by then do not apply. */
  onDate: string;
};

/** One procedure: its code (by id, or by the code itself), the office's UCR fee for it, and where it is done (a fee schedule's own fee for that location first). */
export type FeeLine = { procedureCodeId?: string | null; code?: string | null; feeCents: number; locationId?: string | null };

export type AllowedFeeAnswer = {
  /** The allowed amount in cents; null when no book applies or the book has nothing for the code. */
  allowedFeeCents: number | null;
  /** The book that applies (null: none). */
  bookId: string | null;
  /** The allowed fee record used (null: none, or the book's UCR fallback). */
  allowedFeeId: string | null;
  /** True when exclude_over_ucr brought the allowed fee down to the UCR fee. */
  capped: boolean;
  /** The fee schedule that gave the allowed fee (the plan's, or the book's allowed_fee_schedule); absent otherwise. */
  feeScheduleId?: string;
};

const NONE: AllowedFeeAnswer = { allowedFeeCents: null, bookId: null, allowedFeeId: null, capped: false };
const SCOPE_RANK = new Map<string, number>(RESOLUTION_SCOPES.map((s, i) => [s, i]));
const BOOK_RANK: Record<string, number> = { plan: 0, carrier: 1, tenant: 2 };

/** A date is read as the start of that day (UTC); a date-time as that instant. */
function instantOf(onDate: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(onDate) ? `${onDate}T00:00:00.000Z` : new Date(onDate).toISOString();
}

const sameGroup = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.trim().toLowerCase() === b.trim().toLowerCase();

type Resolved = { book: BookRow | null; carrierId: string | null; groupNumber: string | null; feeScheduleId: string | null };

// Read for every plan on every estimate: prepared once per connection.
const B = estimateBooks;
const F = allowedFees;
const liveBook = and(isNull(B.deleted_at), eq(B.status, "active"));
const planBookFacts = prepared<{ estimate_book_id: string | null; carrier_id: string; group_number: string | null; fee_schedule_id: string | null }>((db) =>
  db
    .select({
      estimate_book_id: insurancePlans.estimate_book_id,
      carrier_id: insurancePlans.carrier_id,
      group_number: insurancePlans.group_number,
      fee_schedule_id: insurancePlans.fee_schedule_id,
    })
    .from(insurancePlans)
    .where(eq(insurancePlans.id, sql.placeholder("plan")))
    .prepare(),
);
const liveBookById = prepared<BookRow>((db) =>
  db
    .select()
    .from(B)
    .where(and(eq(B.id, sql.placeholder("id")), liveBook))
    .prepare(),
);
/** A null plan or carrier matches no book of that scope (`= NULL` is never true). */
const candidateBooks = prepared<BookRow>((db) =>
  db
    .select()
    .from(B)
    .where(
      and(
        liveBook,
        or(
          and(eq(B.scope_type, "plan"), eq(B.insurance_plan_id, sql.placeholder("plan"))),
          and(eq(B.scope_type, "carrier"), eq(B.carrier_id, sql.placeholder("carrier"))),
          eq(B.scope_type, "tenant"),
        ),
      ),
    )
    .prepare(),
);
/** A book's fees for some procedure codes (a JSON array of ids) not expired at `on`; group_number fees only when `grouped` is 1. */
const bookFees = prepared<AllowedFeeRow>((db) =>
  db
    .select()
    .from(F)
    .where(
      and(
        eq(F.estimate_book_id, sql.placeholder("book")),
        inJsonList(F.procedure_code_id, "codes"),
        or(isNull(F.expires_at), gt(F.expires_at, sql.placeholder("on"))),
        or(eq(sql.placeholder("grouped"), 1), ne(F.resolution_scope_type, "group_number")),
      ),
    )
    .prepare(),
);

/**
 * The live, active book that applies to a plan: the plan's own estimate_book_id
 * when it names one that is live and active; otherwise a plan-scoped book of
 * the plan, then a carrier-scoped book of its carrier, then a tenant book (the
 * newest where several tie).
 */
export function* resolveEstimateBook(db: TenantDb, c: Omit<FeeContext, "onDate">): Work<Resolved> {
  const plan = c.planId ? yield* getPrepared(db, planBookFacts, { plan: c.planId }) : undefined;
  const carrierId = c.carrierId ?? plan?.carrier_id ?? null;
  const groupNumber = c.groupNumber ?? plan?.group_number ?? null;
  const feeScheduleId = plan?.fee_schedule_id ?? null;
  if (plan?.estimate_book_id) {
    const chosen = yield* getPrepared(db, liveBookById, { id: plan.estimate_book_id });
    if (chosen) return { book: chosen, carrierId, groupNumber, feeScheduleId };
  }
  const candidates = yield* allPrepared(db, candidateBooks, { plan: c.planId, carrier: carrierId });
  candidates.sort((a, b) => BOOK_RANK[a.scope_type]! - BOOK_RANK[b.scope_type]! || (a.id < b.id ? 1 : -1));
  return { book: candidates[0] ?? null, carrierId, groupNumber, feeScheduleId };
}

/** Most specific scope first (insurance_plan, group_number, insurance_carrier), then the latest computed_at, then the newest record. */
function better(a: AllowedFeeRow, b: AllowedFeeRow): boolean {
  const ra = SCOPE_RANK.get(a.resolution_scope_type)!;
  const rb = SCOPE_RANK.get(b.resolution_scope_type)!;
  if (ra !== rb) return ra < rb;
  if (a.computed_at !== b.computed_at) return a.computed_at > b.computed_at;
  return a.id > b.id;
}

/** Each line's fee on a ppo or allowed schedule (live), else undefined; nothing without one. */
function* scheduleFees(db: TenantDb, scheduleId: string | null, lines: readonly FeeLine[], codeIds: (string | null)[]) {
  const schedule = yield* allowedAmountSchedule(db, scheduleId);
  if (!schedule) return { schedule: null, fees: lines.map(() => undefined) };
  return {
    schedule,
    fees: yield* scheduleFeesForLines(
      db,
      schedule.id,
      lines.map((l, i) => ({ procedureCodeId: codeIds[i]!, locationId: l.locationId })),
    ),
  };
}

/**
 * Allowed fees for several procedures under one plan (a treatment plan's
 * lines): the plan's own fee schedule first, when it is a ppo or allowed
 * schedule and has a fee for the code; else the book, resolved once, its
 * fees read in one query (then its allowed_fee_schedule, then its UCR
 * fallback). Answers in the order of `lines`.
 */
export function* allowedFeesFor(db: TenantDb, c: FeeContext, lines: readonly FeeLine[]): Work<AllowedFeeAnswer[]> {
  const { book, groupNumber, feeScheduleId } = yield* resolveEstimateBook(db, c);
  const byCode = yield* procedureCodesByCode(
    db,
    lines.filter((l) => !l.procedureCodeId && l.code).map((l) => l.code!),
  );
  const codeIds = lines.map((l) => l.procedureCodeId ?? (l.code ? (byCode.get(l.code)?.id ?? null) : null));
  const own = yield* scheduleFees(db, feeScheduleId, lines, codeIds);
  const fromPlan = (i: number): AllowedFeeAnswer | null => {
    const cents = own.fees[i];
    return cents === undefined ? null : { allowedFeeCents: cents, bookId: null, allowedFeeId: null, capped: false, feeScheduleId: own.schedule!.id };
  };
  if (!book) return lines.map((_, i) => fromPlan(i) ?? NONE);

  const wanted = [...new Set(codeIds.filter((id): id is string => !!id))];

  const rows = wanted.length
    ? yield* allPrepared(db, bookFees, { book: book.id, codes: JSON.stringify(wanted), on: instantOf(c.onDate), grouped: groupNumber ? 1 : 0 })
    : [];
  const best = new Map<string, AllowedFeeRow>();
  for (const r of rows) {
    if (r.resolution_scope_type === "group_number" && !sameGroup(r.group_number, groupNumber)) continue;
    const held = best.get(r.procedure_code_id);
    if (!held || better(r, held)) best.set(r.procedure_code_id, r);
  }

  // where the book has no fee for a code, its allowed_fee_schedule (a ppo or allowed one) may
  const bookSchedule = book.allowed_fee_schedule_id ? yield* scheduleFees(db, book.allowed_fee_schedule_id, lines, codeIds) : null;
  return lines.map((line, i) => {
    const planAnswer = fromPlan(i);
    if (planAnswer) return planAnswer;
    const codeId = codeIds[i];
    const fee = codeId ? best.get(codeId) : undefined;
    const scheduled = bookSchedule?.fees[i];
    const cents = fee?.allowed_fee_cents ?? scheduled;
    if (cents === undefined) {
      // a UCR-fallback book allows the office's own fee where it has nothing for the code
      if (book.rule_type === "ucr_fallback") return { allowedFeeCents: line.feeCents, bookId: book.id, allowedFeeId: null, capped: false };
      return { allowedFeeCents: null, bookId: book.id, allowedFeeId: null, capped: false };
    }
    const capped = book.exclude_over_ucr && cents > line.feeCents;
    const source = fee ? { allowedFeeId: fee.id } : { allowedFeeId: null, feeScheduleId: bookSchedule!.schedule!.id };
    return { allowedFeeCents: capped ? line.feeCents : cents, bookId: book.id, capped, ...source };
  });
}

/**
 * The allowed fee for one procedure under a plan (inside a read or a write:
 * `ctx.db.read((db) => allowedFeeFor(db, {...}))`, or `yield*` in a unit of work).
 */
export function* allowedFeeFor(db: TenantDb, q: FeeContext & FeeLine): Work<AllowedFeeAnswer> {
  const { procedureCodeId, code, feeCents, ...context } = q;
  return (yield* allowedFeesFor(db, context, [{ procedureCodeId, code, feeCents }]))[0]!;
}
