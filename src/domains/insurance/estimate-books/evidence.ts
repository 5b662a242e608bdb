import { count, desc, eq } from "drizzle-orm";
import { claimPaymentEvidence } from "@db/tenant/insurance";
import type { Work } from "@/platform/db/work";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { requireBook } from "./books";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import { BOOK_NAMES, CODE_NAMES } from "./references";
import type { ClaimPaymentEvidence, EvidenceListQuery } from "./schemas";

// What carriers paid for a code: written by claim payment posting (claims/evidence.ts),
// read here. The API only lists it.

type EvidenceRow = typeof claimPaymentEvidence.$inferSelect;
const E = claimPaymentEvidence;

type EvidenceNames = Record<"books" | "codes" | "carriers", Names>;

function evidenceNames(db: TenantDb, rows: EvidenceRow[]): Work<EvidenceNames> {
  return namesOfEach(db, {
    books: [BOOK_NAMES, idsOf(rows, (r) => r.estimate_book_id)],
    codes: [CODE_NAMES, idsOf(rows, (r) => r.procedure_code_id)],
    carriers: [CARRIER_NAMES, idsOf(rows, (r) => r.carrier_id)],
  });
}

const serialize = (r: EvidenceRow, n: EvidenceNames): ClaimPaymentEvidence => ({
  id: r.id,
  estimate_book: ref(r.estimate_book_id, n.books),
  procedure_code: ref(r.procedure_code_id, n.codes),
  carrier: ref(r.carrier_id, n.carriers),
  group_number: r.group_number,
  fee_billed: formatCents(r.fee_billed_cents)!,
  allowed_fee: formatCents(r.allowed_cents),
  paid_amount: formatCents(r.paid_cents)!,
  date_paid: r.date_paid,
  source_ref: r.source_ref,
  created_at: r.created_at,
});

/** Newest payment first (date_paid, then id). */
export async function listEvidence(ctx: OrgContext, bookId: string, q: EvidenceListQuery) {
  return ctx.db.read(function* (db) {
    yield* requireBook(db, bookId);
    const where = eq(E.estimate_book_id, bookId);
    const page = yield* pageFrom(q, db.select({ n: count() }).from(E).where(where), db.select().from(E).where(where).orderBy(desc(E.date_paid), desc(E.id)));
    const names = yield* evidenceNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}
