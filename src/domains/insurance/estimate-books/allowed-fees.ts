import { and, count, desc, eq } from "drizzle-orm";
import { allowedFees } from "@db/tenant/insurance";
import { audit } from "@/platform/audit/audit";
import { get, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { newId } from "@/platform/ids";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { pageFrom } from "@/platform/records/paging";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import { queueRecompute } from "@/domains/insurance/estimates/recompute.job";
import { requireBook } from "./books";
import { BOOK_NAMES, CODE_NAMES, RUN_NAMES, requireProcedureCode, requireRunOf } from "./references";
import type { AllowedFee, AllowedFeeCreate, AllowedFeeListQuery } from "./schemas";

export type AllowedFeeRow = typeof allowedFees.$inferSelect;
const F = allowedFees;

/** Clock skew allowed on a client-supplied computed_at. */
const FUTURE_SLACK_MS = 5 * 60_000;

type FeeNames = Record<"books" | "codes" | "runs", Names>;

function feeNames(db: TenantDb, rows: AllowedFeeRow[]): Work<FeeNames> {
  return namesOfEach(db, {
    books: [BOOK_NAMES, idsOf(rows, (r) => r.estimate_book_id)],
    codes: [CODE_NAMES, idsOf(rows, (r) => r.procedure_code_id)],
    runs: [RUN_NAMES, idsOf(rows, (r) => r.estimate_book_run_id)],
  });
}

function serialize(r: AllowedFeeRow, n: FeeNames): AllowedFee {
  return {
    id: r.id,
    estimate_book: ref(r.estimate_book_id, n.books),
    procedure_code: ref(r.procedure_code_id, n.codes),
    estimate_book_rule_step: ref(r.estimate_book_rule_step_id),
    estimate_book_run: ref(r.estimate_book_run_id, n.runs),
    allowed_fee: formatCents(r.allowed_fee_cents)!,
    computed_at: r.computed_at,
    confidence: r.confidence,
    expires_at: r.expires_at,
    group_number: r.group_number,
    resolution_scope_type: r.resolution_scope_type as AllowedFee["resolution_scope_type"],
    resolution_scope_identifier: r.resolution_scope_identifier,
    sample_count: r.sample_count,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const utc = (instant: string) => new Date(instant).toISOString();

/** The rules between fields: computed_at not in the future, expires_at after it, a group_number fee names its group. */
function checkFee(input: AllowedFeeCreate, computedAt: string, expiresAt: string | null): void {
  if (Date.parse(computedAt) > Date.now() + FUTURE_SLACK_MS) throw invalid(["body", "computed_at"], "Cannot be in the future");
  if (expiresAt !== null && expiresAt <= computedAt) {
    throw invalid(["body", "expires_at"], "Must be after computed_at", "value_error", "invalid_date_range");
  }
  if (input.resolution_scope_type === "group_number" && !input.group_number) {
    throw invalid(["body", "group_number"], "Required when resolution_scope_type is group_number", "missing", "group_number_required");
  }
}

export async function listAllowedFees(ctx: OrgContext, bookId: string, q: AllowedFeeListQuery) {
  return ctx.db.read(function* (db) {
    yield* requireBook(db, bookId);
    if (q.procedure_code_uuid) yield* requireProcedureCode(db, q.procedure_code_uuid);
    const where = and(eq(F.estimate_book_id, bookId), q.procedure_code_uuid ? eq(F.procedure_code_id, q.procedure_code_uuid) : undefined);
    const page = yield* pageFrom(q, db.select({ n: count() }).from(F).where(where), db.select().from(F).where(where).orderBy(desc(F.computed_at), desc(F.id)));
    const names = yield* feeNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function createAllowedFee(ctx: OrgContext, bookId: string, input: AllowedFeeCreate) {
  const computedAt = utc(input.computed_at);
  const expiresAt = input.expires_at ? utc(input.expires_at) : null;
  return withTransaction(ctx, function* (s) {
    const book = yield* requireBook(s.tx, bookId);
    checkFee(input, computedAt, expiresAt);
    const code = yield* requireProcedureCode(s.tx, input.procedure_code_uuid);
    if (input.estimate_book_run_uuid) yield* requireRunOf(s.tx, book.id, input.estimate_book_run_uuid);
    const values: AllowedFeeRow = {
      id: newId(),
      estimate_book_id: book.id,
      procedure_code_id: code.id,
      estimate_book_rule_step_id: input.estimate_book_rule_step_uuid ?? null,
      estimate_book_run_id: input.estimate_book_run_uuid ?? null,
      allowed_fee_cents: centsFromNumber(input.allowed_fee),
      computed_at: computedAt,
      confidence: input.confidence ?? null,
      expires_at: expiresAt,
      group_number: input.group_number ?? null,
      resolution_scope_type: input.resolution_scope_type,
      resolution_scope_identifier: input.resolution_scope_identifier ?? null,
      sample_count: input.sample_count ?? 0,
      created_at: s.now,
      updated_at: s.now,
    };
    const row = (yield* get(s.tx.insert(F).values(values).returning())) as AllowedFeeRow;
    yield* audit(s, { action: "allowed_fee.created", resource_type: "allowed_fee", resource_id: row.id, before: null, after: row });
    emit(s, {
      type: "allowed_fee.created",
      resource_type: "allowed_fee",
      resource_id: row.id,
      data: { id: row.id, estimate_book_id: book.id, procedure_code_id: code.id, resolution_scope_type: row.resolution_scope_type },
    });
    queueRecompute(s, { all: true });
    return serialize(row, yield* feeNames(s.tx, [row]));
  });
}
