import { and, asc, desc, eq, gte, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { payments, statements } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { claimProcedures, claims } from "@db/tenant/claims";
import { BALANCE_EFFECT, balanceEffectOf } from "@/domains/account/ledger/entries";
import { all, get, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { personRef } from "@/platform/records/refs";
import { pageFrom, pageOf } from "@/platform/records/paging";
import { checkDateRange } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { addDays, todayUtc } from "@/platform/time/dates";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { familyRows, guarantorOf } from "@/domains/patients/record/family";
import { requireProvider } from "@/domains/providers/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { requirePatientProcedure } from "@/domains/clinical/charted-procedures/service";
import { requireDefinitionOf } from "@/domains/codes/definitions/service";
import { postEntries, serializeEntries } from "@/domains/account/ledger/service";
import type { LedgerEntry } from "@/domains/account/ledger/schemas";
import type { Account, AccountEntriesQuery, AdjustmentCreate } from "./schemas";

// The family account (docs/account/account.md, "The family account"): the
// guarantor's family, each member's aged balance (the buckets the ledger keeps
// on the patient row), what insurance is expected to pay (claims not answered),
// prepayments not split to a provider, and the family's entries merged with a
// running balance. Read from the ledger, never a second copy.

const L = ledgerEntries;
type PatientRow = Awaited<ReturnType<typeof familyRows> extends Work<infer R> ? R : never>[number];

/** The signed effect of an entry on what is owed (SQL): payments are credits, the rest as stored. */

/** Prepayments not split to a provider, per patient, net of what reversed them. */
function* unallocatedCredit(db: TenantDb, patientIds: string[]): Work<Map<string, number>> {
  const rows = yield* all<{ patient_id: string; cents: number }>(
    db
      .select({ patient_id: L.patient_id, cents: sql<number>`sum(${L.amount_cents})` })
      .from(L)
      .where(and(inArray(L.patient_id, patientIds), eq(L.entry_type, "payment"), sql`${L.payment_id} IS NOT NULL`, isNull(L.provider_id)))
      .groupBy(L.patient_id),
  );
  return new Map(rows.map((r) => [r.patient_id, r.cents]));
}

/**
 * What insurance is expected to pay, per patient: the estimates of their
 * claims not yet answered (live claims, pre-authorizations aside, of every
 * status before received, docs/insurance/claims.md). Read from the claims'
 * table as the ledger is read: the account imports nothing of insurance.
 */
function* insurancePending(db: TenantDb, patientIds: string[]): Work<Map<string, number>> {
  const rows = yield* all<{ patient_id: string; cents: number }>(
    db
      .select({
        patient_id: claims.patient_id,
        cents: sql<number>`sum(coalesce(${claimProcedures.preauth_estimate_cents}, ${claimProcedures.insurance_estimate_cents}))`,
      })
      .from(claimProcedures)
      .innerJoin(claims, eq(claims.id, claimProcedures.claim_id))
      .where(
        and(
          inArray(claims.patient_id, patientIds),
          eq(claimProcedures.live, true),
          eq(claimProcedures.kind, "claim"),
          eq(claimProcedures.answered, false),
          inArray(claims.status, ["unsent", "hold", "queued", "sent", "rejected"]),
        ),
      )
      .groupBy(claims.patient_id),
  );
  return new Map(rows.map((r) => [r.patient_id, r.cents]));
}

export async function getAccount(ctx: OrgContext, patientId: string): Promise<Account> {
  return ctx.db.read((db) => readAccount(db, patientId));
}

/** The family account of a patient (for statements too): see getAccount. */
export function* readAccount(db: TenantDb, patientId: string): Work<Account> {
  const patient = yield* patientForRead(db, patientId);
  const guarantorId = guarantorOf(patient);
  const members = yield* familyRows(db, guarantorId);
  // an archived patient reads their own account; their family is the live one
  if (!members.some((m) => m.id === patient.id)) members.push(patient as PatientRow);
  const ids = members.map((m) => m.id);
  const credit = yield* unallocatedCredit(db, ids);
  const pending = yield* insurancePending(db, ids);
  const money = (c: number) => formatCents(c)!;
  const lines = members.map((m) => {
    const total = m.balance_0_30_cents + m.balance_31_60_cents + m.balance_61_90_cents + m.balance_over_90_cents;
    return {
      patient: personRef(m),
      cents: {
        balance_0_30: m.balance_0_30_cents,
        balance_31_60: m.balance_31_60_cents,
        balance_61_90: m.balance_61_90_cents,
        balance_over_90: m.balance_over_90_cents,
        balance_total: total,
        insurance_pending: pending.get(m.id) ?? 0,
        patient_portion: total - (pending.get(m.id) ?? 0),
        unallocated_credit: credit.get(m.id) ?? 0,
      },
    };
  });
  const asMoney = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, money(v)])) as Account["totals"];
  const sum: Record<string, number> = {};
  for (const l of lines) for (const [k, v] of Object.entries(l.cents)) sum[k] = (sum[k] ?? 0) + v;
  const last = yield* get<{ id: string; patient_id: string; payment_date: string; amount_cents: number }>(
    db
      .select({ id: payments.id, patient_id: payments.patient_id, payment_date: payments.payment_date, amount_cents: payments.amount_cents })
      .from(payments)
      .where(and(inArray(payments.patient_id, ids), ne(payments.status, "voided")))
      .orderBy(desc(payments.payment_date), desc(payments.id))
      .limit(1),
  );
  const statement = yield* get<{ id: string; created_at: string; amount_due_cents: number | null; status: string }>(
    db
      .select({ id: statements.id, created_at: statements.created_at, amount_due_cents: statements.amount_due_cents, status: statements.status })
      .from(statements)
      .where(eq(statements.guarantor_id, guarantorId))
      .orderBy(desc(statements.created_at), desc(statements.id))
      .limit(1),
  );
  const guarantor = members.find((m) => m.id === guarantorId) ?? (yield* patientForRead(db, guarantorId));
  return {
    guarantor: personRef(guarantor),
    members: lines.map((l) => ({ patient: l.patient, ...asMoney(l.cents) })),
    totals: asMoney(sum),
    last_payment: last
      ? {
          payment_uuid: last.id,
          patient: personRef(members.find((m) => m.id === last.patient_id)!),
          payment_date: last.payment_date,
          amount: money(last.amount_cents),
        }
      : null,
    last_statement: statement
      ? { statement_uuid: statement.id, created_at: statement.created_at, amount_due: formatCents(statement.amount_due_cents), status: statement.status }
      : null,
  };
}

/**
 * The family's entries in ledger order (entry_date, then posting order) with
 * the family's balance after each; a date range pages within that order and
 * the running balance still counts every earlier entry.
 */
export async function listAccountEntries(ctx: OrgContext, patientId: string, q: AccountEntriesQuery) {
  checkDateRange(q);
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const members = yield* familyRows(db, guarantorOf(patient));
    if (!members.some((m) => m.id === patient.id)) members.push(patient as PatientRow);
    const ids = members.map((m) => m.id);
    const inRange = and(
      inArray(L.patient_id, ids),
      q.date_from ? gte(L.entry_date, q.date_from) : undefined,
      q.date_to ? lte(L.entry_date, q.date_to) : undefined,
    );
    const { items: ordered, total } = yield* pageFrom(
      q,
      db.select({ n: sql<number>`count(*)` }).from(L).where(inRange),
      db.select().from(L).where(inRange).orderBy(asc(L.entry_date), asc(L.id)),
    );
    // the balance before the page is one sum over the earlier entries (no window sort of the whole ledger); the page runs on from it
    const first = ordered[0];
    const before = first
      ? ((yield* get<{ n: number | null }>(
          db
            .select({ n: sql<number | null>`sum(${BALANCE_EFFECT})` })
            .from(L)
            .where(and(inArray(L.patient_id, ids), or(lt(L.entry_date, first.entry_date), and(eq(L.entry_date, first.entry_date), lt(L.id, first.id))))),
        ))?.n ?? 0)
      : 0;
    let running = before;
    const balances = ordered.map((e) => (running += balanceEffectOf(e)));
    const entries = yield* serializeEntries(db, ordered, new Map(members.map((m) => [m.id, m])));
    const items = entries.map((e: LedgerEntry, i) => ({ ...e, running_balance: formatCents(balances[i]!)! }));
    return pageOf(items, total, q);
  });
}

/** POST {P}/patients/{patient_uuid}/adjustments: one signed ledger entry of an adjustment type. */
export async function createAdjustment(ctx: OrgContext, patientId: string, input: AdjustmentCreate): Promise<LedgerEntry> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    yield* requireDefinitionOf(s.tx, input.adjustment_type_uuid, "adjustment_types", "Adjustment type");
    const procedure = input.procedure_uuid ? yield* requirePatientProcedure(s.tx, patient.id, input.procedure_uuid) : null;
    const provider = input.provider_uuid ? yield* requireProvider(s.tx, input.provider_uuid) : null;
    if (input.entry_date && input.entry_date > addDays(todayUtc(), 1))
      throw invalid(["body", "entry_date"], "Cannot be more than one day in the future", "value_error");
    const rows = yield* postEntries(s, patient, [
      {
        entry_type: "adjustment",
        amount_cents: centsFromNumber(input.amount),
        entry_date: input.entry_date ?? (yield* todayAt(s.tx, patient.location_id)),
        description: input.reason || null,
        source: "adjustment",
        adjustment_type_id: input.adjustment_type_uuid,
        procedure_id: procedure?.id ?? null,
        provider_id: provider?.id ?? procedure?.provider_id ?? null,
        location_id: procedure?.location_id ?? patient.location_id,
      },
    ]);
    return (yield* serializeEntries(s.tx, rows, new Map([[patient.id, patient]])))[0]!;
  });
}
