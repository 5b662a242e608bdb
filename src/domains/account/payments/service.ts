import { and, asc, desc, eq, gte, inArray, lte, ne, sql, type SQL } from "drizzle-orm";
import { payments } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { BALANCE_EFFECT } from "@/domains/account/ledger/entries";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { DEFINITION_NAMES, LOCATION_NAMES, PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref } from "@/platform/records/refs";
import { pageFrom } from "@/platform/records/paging";
import { defineResource } from "@/platform/records/resource";
import { checkDateRange } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { addDays, todayUtc } from "@/platform/time/dates";
import { patientForWrite } from "@/domains/patients/record/scope";
import { requireProvider } from "@/domains/providers/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { requirePatientProcedure } from "@/domains/clinical/charted-procedures/service";
import { requireDefinitionOf } from "@/domains/codes/definitions/service";
import { postEntries, type EntryRow, type NewEntry } from "@/domains/account/ledger/service";
import type { Payment, PaymentCreate, PaymentListQuery, PaymentRefund, PaymentVoid } from "./schemas";

// Payments (docs/account/account.md, "Payments"): a payment row says who paid
// what, how and when; every amount of it is in the ledger: one `payment` entry
// per split (a provider's share, maybe of one procedure; provider null: an
// unallocated prepayment), and `refund` / `void` entries that give credit back,
// each naming the split it reverses. A split's "left" is its amount plus what
// reverses it; a void reverses every split's left, so a voided payment's
// entries add up to nothing.

type PaymentRow = typeof payments.$inferSelect;
const L = ledgerEntries;

const auditForm = (r: PaymentRow) => ({
  id: r.id,
  patient_id: r.patient_id,
  amount_cents: r.amount_cents,
  payment_type_id: r.payment_type_id,
  payment_date: r.payment_date,
  check_number: r.check_number,
  note: r.note,
  location_id: r.location_id,
  status: r.status,
  refunded_cents: r.refunded_cents,
  voided_at: r.voided_at,
  void_reason: r.void_reason,
  version: r.version,
});

const paymentRecords = defineResource<PaymentRow, ReturnType<typeof auditForm>>({
  table: payments,
  name: "payment",
  label: "Payment",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
  eventFields: { stripIdSuffix: true },
});

/** A split and what is left of it after the refunds and voids that reverse it. */
type Split = { entry: EntryRow; left: number };

function* splitsOf(db: TenantDb, paymentIds: string[]): Work<Map<string, Split[]>> {
  const out = new Map<string, Split[]>();
  if (!paymentIds.length) return out;
  const rows = yield* all<EntryRow>(db.select().from(L).where(inArray(L.payment_id, paymentIds)).orderBy(asc(L.entry_date), asc(L.id)));
  const reversed = new Map<string, number>();
  for (const r of rows) if (r.reverses_id) reversed.set(r.reverses_id, (reversed.get(r.reverses_id) ?? 0) + r.amount_cents);
  for (const r of rows) {
    if (r.source !== "payment") continue;
    const list = out.get(r.payment_id!) ?? [];
    list.push({ entry: r, left: r.amount_cents + (reversed.get(r.id) ?? 0) });
    out.set(r.payment_id!, list);
  }
  return out;
}

function* serializePayments(db: TenantDb, rows: PaymentRow[]): Work<Payment[]> {
  const splits = yield* splitsOf(
    db,
    rows.map((r) => r.id),
  );
  const all = rows.flatMap((r) => splits.get(r.id) ?? []);
  const n = yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, idsOf(rows, (r) => r.patient_id)],
    types: [DEFINITION_NAMES, idsOf(rows, (r) => r.payment_type_id)],
    locations: [LOCATION_NAMES, idsOf(rows, (r) => r.location_id)],
    providers: [PROVIDER_NAMES, idsOf(all, (s) => s.entry.provider_id)],
  });
  return rows.map((r) => {
    const list = splits.get(r.id) ?? [];
    return {
      id: r.id,
      version: r.version,
      created_at: r.created_at,
      updated_at: r.updated_at,
      patient: ref(r.patient_id, n.patients),
      amount: formatCents(r.amount_cents)!,
      payment_type: ref(r.payment_type_id, n.types),
      payment_date: r.payment_date,
      check_number: r.check_number,
      note: r.note,
      location: ref(r.location_id, n.locations),
      status: r.status as Payment["status"],
      refunded: formatCents(r.refunded_cents)!,
      unallocated: formatCents(list.filter((s) => !s.entry.provider_id).reduce((sum, s) => sum + s.left, 0))!,
      splits: list.map((s) => ({
        entry_uuid: s.entry.id,
        provider: ref(s.entry.provider_id, n.providers),
        procedure_uuid: s.entry.procedure_id,
        amount: formatCents(s.entry.amount_cents)!,
        left: formatCents(s.left)!,
      })),
      voided_at: r.voided_at,
      void_reason: r.void_reason,
    };
  });
}

/** A date a payment may carry: at most one day ahead of UTC today (as ledger entries). */
function checkNotFuture(date: string, loc: (string | number)[]) {
  if (date > addDays(todayUtc(), 1)) throw invalid(loc, "Cannot be more than one day in the future", "value_error");
}

type Part = { cents: number; provider_id: string | null; procedure_id: string | null };

/**
 * Without splits: the patient's open procedure charges, oldest first, each
 * paid (up to what is open) and credited to its charge's provider; what is
 * left is an unallocated prepayment (provider null). A procedure's open amount
 * is its charge, its adjustments and the payments split to it.
 */
function* autoSplits(db: TenantDb, patientId: string, cents: number): Work<Part[]> {
  const open = yield* all<{ procedure_id: string; provider_id: string | null; open: number }>(
    db
      .select({
        procedure_id: sql<string>`${L.procedure_id}`,
        provider_id: sql<string | null>`max(CASE WHEN ${L.entry_type} = 'charge' THEN ${L.provider_id} END)`,
        open: sql<number>`sum(${BALANCE_EFFECT})`,
      })
      .from(L)
      .where(and(eq(L.patient_id, patientId), sql`${L.procedure_id} IS NOT NULL`))
      .groupBy(L.procedure_id)
      .having(sql`sum(${BALANCE_EFFECT}) > 0`)
      .orderBy(sql`min(${L.entry_date})`, sql`min(${L.id})`),
  );
  const parts: Part[] = [];
  let left = cents;
  for (const o of open) {
    if (!left) break;
    const take = Math.min(left, o.open);
    parts.push({ cents: take, provider_id: o.provider_id, procedure_id: o.procedure_id });
    left -= take;
  }
  if (left) parts.push({ cents: left, provider_id: null, procedure_id: null });
  return parts;
}

/** POST {P}/patients/{patient_uuid}/payments */
export async function createPayment(ctx: OrgContext, patientId: string, input: PaymentCreate): Promise<Payment> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    yield* requireDefinitionOf(s.tx, input.payment_type_uuid, "payment_types", "Payment type");
    if (input.payment_date) checkNotFuture(input.payment_date, ["body", "payment_date"]);
    const parts: Part[] = [];
    for (const split of input.splits ?? []) {
      const provider = yield* requireProvider(s.tx, split.provider_uuid);
      const procedure = split.procedure_uuid ? yield* requirePatientProcedure(s.tx, patient.id, split.procedure_uuid) : null;
      parts.push({ cents: centsFromNumber(split.amount), provider_id: provider.id, procedure_id: procedure?.id ?? null });
    }
    const cents = centsFromNumber(input.amount);
    const paymentDate = input.payment_date ?? (yield* todayAt(s.tx, patient.location_id));
    const row = yield* paymentRecords.create(
      s,
      {
        patient_id: patient.id,
        amount_cents: cents,
        payment_type_id: input.payment_type_uuid,
        payment_date: paymentDate,
        check_number: input.check_number || null,
        note: input.note || null,
        location_id: patient.location_id,
        status: "active",
        refunded_cents: 0,
      },
      { patient_id: patient.id },
    );
    const splits = input.splits ? parts : yield* autoSplits(s.tx, patient.id, cents);
    yield* postEntries(
      s,
      patient,
      splits.map((p) => ({ ...entryOf(row, p.cents, "payment"), provider_id: p.provider_id, procedure_id: p.procedure_id, entry_date: paymentDate })),
    );
    return (yield* serializePayments(s.tx, [row]))[0]!;
  });
}

/** An entry of a payment: its split, or a refund or void giving part of one back. */
const entryOf = (p: PaymentRow, cents: number, source: "payment" | "refund" | "void"): NewEntry => ({
  entry_type: "payment",
  amount_cents: cents,
  entry_date: p.payment_date,
  source,
  payment_id: p.id,
  location_id: p.location_id,
});

/** The entries that give `cents` back from the splits, unallocated ones first, then the latest splits. */
function giveBack(p: PaymentRow, splits: Split[], cents: number, source: "refund" | "void", date: string): NewEntry[] {
  const order = [...splits.filter((s) => !s.entry.provider_id), ...splits.filter((s) => s.entry.provider_id).reverse()];
  const out: NewEntry[] = [];
  let left = cents;
  for (const s of order) {
    if (!left) break;
    const take = Math.min(left, s.left);
    if (take <= 0) continue;
    out.push({
      ...entryOf(p, -take, source),
      entry_date: date,
      provider_id: s.entry.provider_id,
      procedure_id: s.entry.procedure_id,
      reverses_id: s.entry.id,
    });
    left -= take;
  }
  return out;
}

function* requireActive(s: TxScope, id: string, baseVersion: number): Work<{ row: PaymentRow; splits: Split[] }> {
  const row = yield* paymentRecords.require(s.tx, id);
  checkVersion(row, baseVersion);
  if (row.status === "voided") throw invalid(["path", "payment_uuid"], "The payment is voided", "value_error", "payment_voided");
  return { row, splits: (yield* splitsOf(s.tx, [row.id])).get(row.id) ?? [] };
}

/** POST {P}/payments/{payment_uuid}/void: every split's left is reversed, dated today; the payment is voided. */
export async function voidPayment(ctx: OrgContext, id: string, input: PaymentVoid): Promise<Payment> {
  return withTransaction(ctx, function* (s) {
    const { row, splits } = yield* requireActive(s, id, input.base_version);
    const patient = yield* patientForWrite(s.tx, row.patient_id);
    const today = yield* todayAt(s.tx, patient.location_id);
    const left = splits.reduce((n, sp) => n + sp.left, 0);
    yield* postEntries(s, patient, giveBack(row, splits, left, "void", today));
    const voided = yield* paymentRecords.update(
      s,
      row.id,
      row.version,
      { status: "voided", voided_at: s.now, void_reason: input.reason || null },
      { action: "voided" },
    );
    return (yield* serializePayments(s.tx, [voided]))[0]!;
  });
}

/** POST {P}/payments/{payment_uuid}/refund: up to what is left of the payment, taken back from its splits. */
export async function refundPayment(ctx: OrgContext, id: string, input: PaymentRefund): Promise<Payment> {
  return withTransaction(ctx, function* (s) {
    const { row, splits } = yield* requireActive(s, id, input.base_version);
    const patient = yield* patientForWrite(s.tx, row.patient_id);
    const cents = centsFromNumber(input.amount);
    const left = row.amount_cents - row.refunded_cents;
    if (cents > left) throw invalid(["body", "amount"], `At most ${formatCents(left)} is left to refund`, "value_error", "refund_exceeds_payment");
    const today = yield* todayAt(s.tx, patient.location_id);
    const entries = giveBack(row, splits, cents, "refund", today).map((e) => ({ ...e, description: input.reason }));
    yield* postEntries(s, patient, entries);
    const refunded = yield* paymentRecords.update(s, row.id, row.version, { refunded_cents: row.refunded_cents + cents }, { action: "refunded" });
    return (yield* serializePayments(s.tx, [refunded]))[0]!;
  });
}

export async function getPayment(ctx: OrgContext, id: string): Promise<Payment> {
  return ctx.db.read(function* (db) {
    return (yield* serializePayments(db, [yield* paymentRecords.require(db, id)]))[0]!;
  });
}

/** GET {P}/payments: the deposit list, with totals (not voided) over every match, and by payment type. */
export async function listPayments(ctx: OrgContext, q: PaymentListQuery) {
  checkDateRange(q);
  const P = payments;
  const where = and(
    q.date_from ? gte(P.payment_date, q.date_from) : undefined,
    q.date_to ? lte(P.payment_date, q.date_to) : undefined,
    q.payment_type_uuid ? eq(P.payment_type_id, q.payment_type_uuid) : undefined,
    q.location_uuid ? eq(P.location_id, q.location_uuid) : undefined,
    q.patient_uuid ? eq(P.patient_id, q.patient_uuid) : undefined,
    q.status ? eq(P.status, q.status) : undefined,
    q.provider_uuid ? providerSplit(q.provider_uuid) : undefined,
  );
  return ctx.db.read(function* (db) {
    const page = yield* pageFrom<PaymentRow>(
      q,
      db.select({ n: sql<number>`count(*)` }).from(P).where(where),
      db.select().from(P).where(where).orderBy(desc(P.payment_date), desc(P.id)),
    );
    const byType = yield* all<{ type: string; count: number; amount: number; refunded: number }>(
      db
        .select({
          type: P.payment_type_id,
          count: sql<number>`count(*)`,
          amount: sql<number>`sum(${P.amount_cents})`,
          refunded: sql<number>`sum(${P.refunded_cents})`,
        })
        .from(P)
        .where(and(where, ne(P.status, "voided")))
        .groupBy(P.payment_type_id)
        .orderBy(asc(P.payment_type_id)),
    );
    const names = (yield* namesOfEach(db, { types: [DEFINITION_NAMES, byType.map((t) => t.type)] })).types;
    const totals = (rows: typeof byType) => {
      const amount = rows.reduce((n, t) => n + t.amount, 0);
      const refunded = rows.reduce((n, t) => n + t.refunded, 0);
      const count = rows.reduce((n, t) => n + t.count, 0);
      return { count, amount: formatCents(amount)!, refunded: formatCents(refunded)!, net: formatCents(amount - refunded)! };
    };
    return {
      ...page,
      items: yield* serializePayments(db, page.items),
      totals: { ...totals(byType), by_type: byType.map((t) => ({ payment_type: ref(t.type, names), ...totals([t]) })) },
    };
  });
}

/** Payments with a split credited to the provider (names written out: the outer table must not be taken for the inner one). */
const providerSplit = (providerId: string): SQL =>
  sql`EXISTS (SELECT 1 FROM ledger_entries le WHERE le.payment_id = "payments"."id" AND le.source = 'payment' AND le.provider_id = ${providerId})`;
