import { and, count, desc, eq } from "drizzle-orm";
import { adjustmentLogs } from "@db/tenant/insurance";
import { audit } from "@/platform/audit/audit";
import { get, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { pageFrom } from "@/platform/records/paging";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import { requireBook } from "./books";
import { BOOK_NAMES, CODE_NAMES, RUN_NAMES, requireProcedureCode, requireRunOf } from "./references";
import type { AdjustmentLog, AdjustmentLogCreate, AdjustmentLogListQuery } from "./schemas";

type LogRow = typeof adjustmentLogs.$inferSelect;
const L = adjustmentLogs;

type LogNames = Record<"books" | "codes" | "runs", Names>;

function logNames(db: TenantDb, rows: LogRow[]): Work<LogNames> {
  return namesOfEach(db, {
    books: [BOOK_NAMES, idsOf(rows, (r) => r.estimate_book_id)],
    codes: [CODE_NAMES, idsOf(rows, (r) => r.procedure_code_id)],
    runs: [RUN_NAMES, idsOf(rows, (r) => r.estimate_book_run_id)],
  });
}

function serialize(r: LogRow, n: LogNames): AdjustmentLog {
  return {
    id: r.id,
    estimate_book: ref(r.estimate_book_id, n.books),
    estimate_book_run: ref(r.estimate_book_run_id, n.runs),
    procedure_code: ref(r.procedure_code_id, n.codes),
    change_reason: r.change_reason as AdjustmentLog["change_reason"],
    description: r.description,
    new_allowed_fee: formatCents(r.new_allowed_fee_cents)!,
    previous_allowed_fee: formatCents(r.previous_allowed_fee_cents),
    delta_allowed_fee: formatCents(r.delta_allowed_fee_cents),
    insurance_claim_procedure_identifier: r.insurance_claim_procedure_identifier,
    insurance_procedure_estimate_id: r.insurance_procedure_estimate_id,
    created_at: r.created_at,
  };
}

const centsOrNull = (dollars: number | null | undefined) => (dollars === null || dollars === undefined ? null : centsFromNumber(dollars));

/** The delta is new - previous: worked out when omitted, checked when both are given (422 delta_mismatch). */
function deltaOf(newCents: number, previousCents: number | null, givenDelta: number | null): number | null {
  if (previousCents === null) return givenDelta;
  const delta = newCents - previousCents;
  if (givenDelta !== null && givenDelta !== delta) {
    throw invalid(["body", "delta_allowed_fee"], "Must equal new_allowed_fee - previous_allowed_fee", "value_error", "delta_mismatch");
  }
  return delta;
}

export async function listAdjustmentLogs(ctx: OrgContext, bookId: string, q: AdjustmentLogListQuery) {
  return ctx.db.read(function* (db) {
    yield* requireBook(db, bookId);
    if (q.procedure_code_uuid) yield* requireProcedureCode(db, q.procedure_code_uuid);
    const where = and(eq(L.estimate_book_id, bookId), q.procedure_code_uuid ? eq(L.procedure_code_id, q.procedure_code_uuid) : undefined);
    // newest first: ids are UUIDv7, so the id breaks ties in creation order
    const page = yield* pageFrom(q, db.select({ n: count() }).from(L).where(where), db.select().from(L).where(where).orderBy(desc(L.created_at), desc(L.id)));
    const names = yield* logNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

/** 404 also when the log belongs to another book. */
export async function getAdjustmentLog(ctx: OrgContext, bookId: string, id: string) {
  return ctx.db.read(function* (db) {
    yield* requireBook(db, bookId);
    const row = yield* get(
      db
        .select()
        .from(L)
        .where(and(eq(L.id, id), eq(L.estimate_book_id, bookId))),
    );
    if (!row) throw new NotFound("Adjustment log");
    return serialize(row, yield* logNames(db, [row]));
  });
}

export async function createAdjustmentLog(ctx: OrgContext, bookId: string, input: AdjustmentLogCreate) {
  const newCents = centsFromNumber(input.new_allowed_fee);
  const previousCents = centsOrNull(input.previous_allowed_fee);
  return withTransaction(ctx, function* (s) {
    const book = yield* requireBook(s.tx, bookId);
    const delta = deltaOf(newCents, previousCents, centsOrNull(input.delta_allowed_fee));
    const code = yield* requireProcedureCode(s.tx, input.procedure_code_uuid);
    if (input.estimate_book_run_uuid) yield* requireRunOf(s.tx, book.id, input.estimate_book_run_uuid);
    const values: LogRow = {
      id: newId(),
      estimate_book_id: book.id,
      estimate_book_run_id: input.estimate_book_run_uuid ?? null,
      procedure_code_id: code.id,
      change_reason: input.change_reason,
      description: input.description,
      new_allowed_fee_cents: newCents,
      previous_allowed_fee_cents: previousCents,
      delta_allowed_fee_cents: delta,
      insurance_claim_procedure_identifier: input.insurance_claim_procedure_identifier ?? null,
      insurance_procedure_estimate_id: input.insurance_procedure_estimate_id ?? null,
      created_at: s.now,
    };
    const row = (yield* get(s.tx.insert(L).values(values).returning())) as LogRow;
    yield* audit(s, { action: "adjustment_log.created", resource_type: "adjustment_log", resource_id: row.id, before: null, after: row });
    emit(s, {
      type: "adjustment_log.created",
      resource_type: "adjustment_log",
      resource_id: row.id,
      data: { id: row.id, estimate_book_id: book.id, procedure_code_id: code.id, change_reason: row.change_reason },
    });
    return serialize(row, yield* logNames(s.tx, [row]));
  });
}
