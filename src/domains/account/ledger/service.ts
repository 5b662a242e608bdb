import { asc, eq, lte } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { ledgerAging, ledgerEntries } from "@db/tenant/ledger";
import { all, run, type Work } from "@/platform/db/work";
import { checkDateRange, withinDates } from "@/platform/records/search";
import { invalid } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { inPractice, patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { ageBalances, type EntryType } from "./aging";
import { addDays, todayUtc } from "@/platform/time/dates";
import { todayAt } from "@/domains/providers/locations/service";
import type { LedgerEntry, LedgerEntryCreate, LedgerListQuery } from "./schemas";
import { namesOfEach, personRef, ref } from "@/platform/records/refs";
import { DEFINITION_NAMES, LOCATION_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { planDueOf } from "@/domains/account/payment-plans/due";
import { ledgerInOrder } from "./entries";

export type EntryRow = typeof ledgerEntries.$inferSelect;

const ledgerRecords = defineResource<EntryRow, EntryRow>({ table: ledgerEntries, name: "ledger_entry", label: "Ledger entry", serialize: (r) => r });

/** An entry to post: every amount of the account goes through postEntries. */
export type NewEntry = Pick<EntryRow, "entry_type" | "amount_cents" | "entry_date"> &
  Partial<
    Pick<
      EntryRow,
      | "id"
      | "description"
      | "source"
      | "payer"
      | "provider_id"
      | "location_id"
      | "procedure_id"
      | "payment_id"
      | "adjustment_type_id"
      | "payment_plan_id"
      | "claim_id"
      | "reverses_id"
    >
  >;

/**
 * Post entries to a patient's ledger and re-age the patient, in the caller's
 * write: the one way an amount enters the account (manual entries, charges of
 * completed work, payments' splits, voids and refunds, adjustments, payment
 * plans). Each entry is audited and announced (ledger_entry.created, with the
 * patient's practice; no amount in the event).
 */
export function* postEntries(s: TxScope, patient: Pick<PatientRow, "id" | "location_id">, entries: NewEntry[]): Work<EntryRow[]> {
  const rows: EntryRow[] = [];
  for (const e of entries) {
    const row = yield* inPractice(
      s,
      patient.location_id,
      ledgerRecords.create(
        s,
        { description: null, source: "manual", payer: "patient", ...e, patient_id: patient.id },
        { patient_id: patient.id, entry_type: e.entry_type },
      ),
    );
    rows.push(row);
  }
  yield* reagePatient(s.tx, patient.id, todayUtc());
  return rows;
}

/** Entries as the API answers them, with the names of what they refer to. */
export function* serializeEntries(
  db: TenantDb,
  rows: EntryRow[],
  patients: Map<string, Pick<PatientRow, "id" | "first_name" | "last_name">>,
): Work<LedgerEntry[]> {
  const n = yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, rows.map((r) => r.provider_id)],
    locations: [LOCATION_NAMES, rows.map((r) => r.location_id)],
    definitions: [DEFINITION_NAMES, rows.map((r) => r.adjustment_type_id)],
  });
  return rows.map((r) => ({
    id: r.id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    patient: personRef(patients.get(r.patient_id)!),
    entry_type: r.entry_type as EntryType,
    amount: formatCents(r.amount_cents)!,
    entry_date: r.entry_date,
    description: r.description,
    source: r.source as LedgerEntry["source"],
    payer: r.payer as LedgerEntry["payer"],
    provider: ref(r.provider_id, n.providers),
    location: ref(r.location_id, n.locations),
    procedure_uuid: r.procedure_id,
    payment_uuid: r.payment_id,
    adjustment_type: ref(r.adjustment_type_id, n.definitions),
    payment_plan_uuid: r.payment_plan_id,
    claim_uuid: r.claim_id,
    reverses_uuid: r.reverses_id,
  }));
}

/**
 * Recompute a patient's aging buckets and what they owe on payment plans
 * (installments a credit just paid: docs/account/payment-plans.md) from one
 * read of the ledger as of `today`, and store them on the patient row (derived
 * values: no version bump, no audit of their own), with the date the buckets
 * will next move for the aging job.
 */
export function* reagePatient(tx: TenantDb, patientId: string, today: string): Work<void> {
  const entries = yield* ledgerInOrder(tx, [patientId]);
  const { buckets, next_change_on } = ageBalances(entries, today);
  const payment_plan_due_cents = yield* planDueOf(tx, entries);
  yield* run(
    tx
      .update(patients)
      .set({ ...buckets, payment_plan_due_cents })
      .where(eq(patients.id, patientId)),
  );
  if (next_change_on) {
    yield* run(
      tx.insert(ledgerAging).values({ patient_id: patientId, next_change_on }).onConflictDoUpdate({ target: ledgerAging.patient_id, set: { next_change_on } }),
    );
  } else {
    yield* run(tx.delete(ledgerAging).where(eq(ledgerAging.patient_id, patientId)));
  }
}

export async function postLedgerEntry(ctx: OrgContext, patientId: string, input: LedgerEntryCreate): Promise<LedgerEntry> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    if (input.entry_date && input.entry_date > addDays(todayUtc(), 1))
      throw invalid(["body", "entry_date"], "Cannot be more than one day in the future", "value_error");
    const entry_date = input.entry_date ?? (yield* todayAt(s.tx, patient.location_id));
    const rows = yield* postEntries(s, patient, [
      { entry_type: input.entry_type, amount_cents: centsFromNumber(input.amount), entry_date, description: input.description || null, source: "manual" },
    ]);
    return (yield* serializeEntries(s.tx, rows, new Map([[patient.id, patient]])))[0]!;
  });
}

export async function listLedgerEntries(ctx: OrgContext, patientId: string, q: LedgerListQuery) {
  checkDateRange(q);
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* ledgerRecords.list(db, q, {
      where: [
        eq(ledgerEntries.patient_id, patient.id),
        q.entry_type ? eq(ledgerEntries.entry_type, q.entry_type) : undefined,
        ...withinDates(ledgerEntries.entry_date, q),
      ],
      orderBy: [asc(ledgerEntries.entry_date), asc(ledgerEntries.id)],
    });
    return { ...page, items: yield* serializeEntries(db, page.items, new Map([[patient.id, patient]])) };
  });
}

/** Patients re-aged per write transaction: keeps each one (and SQLite's writer lock) short. */
const AGING_BATCH = 200;

/**
 * Re-age every patient whose buckets move on or before `today` (the
 * `ledger.age-balances` job, per org). Idempotent: it only reads the ledger
 * and the clock. Returns how many patients were re-aged.
 */
export async function ageDueBalances(db: OrgContext["db"], today: string): Promise<number> {
  let done = 0;
  for (;;) {
    const n = await db.write(function* (tx) {
      const due = yield* all(
        tx
          .select({ id: ledgerAging.patient_id })
          .from(ledgerAging)
          .where(lte(ledgerAging.next_change_on, today))
          .orderBy(asc(ledgerAging.next_change_on))
          .limit(AGING_BATCH),
      );
      for (const d of due) yield* reagePatient(tx, d.id, today);
      return due.length;
    });
    done += n;
    if (n < AGING_BATCH) return done;
    await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
  }
}
