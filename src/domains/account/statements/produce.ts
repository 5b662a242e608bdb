import { and, asc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { payments } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { BALANCE_EFFECT, balanceEffectOf } from "@/domains/account/ledger/entries";
import { locations } from "@db/tenant/practice";
import { all, get, type Work } from "@/platform/db/work";
import { mailerOf } from "@/platform/mail/factory";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { DEFINITION_NAMES } from "@/platform/records/names";
import { namesOfEach } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { addDays } from "@/platform/time/dates";
import { inPractice, patientForRead } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { readAccount } from "@/domains/account/family/service";
import type { EntryRow } from "@/domains/account/ledger/service";
import { documentBytes, storeGeneratedDocument } from "@/domains/documents/generated";
import { renderStatementPdf, type StatementData, type StatementEntryLine } from "./render";
import { emailableGuarantor, notEmailedReason, sendStatementMail, statementFileName } from "./send";
import { countInBatch, statementRecords, type StatementRow } from "./service";
import { DUE_AFTER_DAYS } from "./schemas";

// What the statements.render job does with one statement
// (docs/account/statements.md, "Rendering"), each step idempotent:
//   1. pending: read the family's figures, render the PDF (outside any
//      transaction), then one write stores it as the guarantor's document
//      (its id is the statement's) and marks the statement ready: a retry finds
//      the document and makes no second one;
//   2. ready, mode email, not yet sent: mail the stored PDF, then mark it sent.
//      A worker killed between the mail and that write sends it again on retry
//      (SMTP has no idempotency): at least once, never lost.
// The last attempt that fails marks the statement failed with the reason.

/** For tests: a hook that throws stands for a worker killed at that point. */
export const statementHooks: {
  /** After the PDF is rendered, before it is stored. */
  beforeStore?: (info: { statementId: string; attempt: number }) => void;
  /** Inside the write that stores the document, before the statement is marked ready: a throw rolls both back. */
  beforeReady?: (info: { statementId: string; attempt: number }) => void;
  /** After the statement is ready, before the mail is sent. */
  beforeMail?: (info: { statementId: string; attempt: number }) => void;
} = {};

/** A failure retrying cannot fix: the statement fails at once. */
export class PermanentStatementError extends Error {}

type Attempt = { number: number; last: boolean };
export type ProduceResult = { statement_id: string; outcome: string; document_id?: string | null };

const L = ledgerEntries;
const cents = (money: string) => Math.round(Number(money) * 100);

/** A location's lines as printed: street, city, state and postal code, country when not the US. */
function addressLines(a: {
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
}) {
  const cityLine = [a.city, [a.state, a.postal_code].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  const country = a.country && !["US", "USA", "United States"].includes(a.country) ? a.country : null;
  return [a.address_line1, a.address_line2, cityLine, country].filter((l): l is string => !!l?.trim());
}

/** How an entry reads on the statement. */
function describe(e: EntryRow, n: { types: ReadonlyMap<string, string>; paymentTypes: ReadonlyMap<string, string> }): string {
  const paidBy = e.payment_id ? n.paymentTypes.get(e.payment_id) : undefined;
  switch (e.source) {
    case "procedure":
      return e.entry_type === "charge" ? `Procedure ${e.description ?? ""}`.trim() : (e.description ?? "Procedure fee correction");
    case "payment":
      return [e.payer === "insurance" ? "Insurance payment" : "Payment", paidBy ? `(${paidBy})` : null, e.description].filter(Boolean).join(" ");
    case "refund":
      return "Refund of a payment";
    case "void":
      return "Payment voided";
    case "payment_plan":
      return e.description ?? "Payment plan installment";
    case "adjustment":
      return [e.adjustment_type_id ? n.types.get(e.adjustment_type_id) : null, e.description].filter(Boolean).join(": ") || "Adjustment";
    default:
      return e.description ?? (e.entry_type === "charge" ? "Charge" : e.entry_type === "payment" ? "Payment" : "Adjustment");
  }
}

/** Everything printed on the statement, read in one transaction. */
function* statementData(db: TenantDb, orgName: string, st: StatementRow, statementDate: string): Work<{ data: StatementData; guarantor: PatientRow }> {
  const guarantor = yield* patientForRead(db, st.guarantor_id);
  if (guarantor.deleted_at) throw new PermanentStatementError("The guarantor was archived");
  const account = yield* readAccount(db, guarantor.id);
  const ids = account.members.map((m) => m.patient.uuid);
  const period = yield* all<EntryRow>(
    db
      .select()
      .from(L)
      .where(and(inArray(L.patient_id, ids), gte(L.entry_date, st.date_from), lte(L.entry_date, st.date_to)))
      .orderBy(asc(L.entry_date), asc(L.id)),
  );
  const sums = yield* get<{ before: number | null; through: number | null }>(
    db
      .select({
        before: sql<number | null>`sum(CASE WHEN ${L.entry_date} < ${st.date_from} THEN ${BALANCE_EFFECT} END)`,
        through: sql<number | null>`sum(${BALANCE_EFFECT})`,
      })
      .from(L)
      .where(and(inArray(L.patient_id, ids), lte(L.entry_date, st.date_to))),
  );
  const paymentIds = [...new Set(period.flatMap((e) => (e.payment_id ? [e.payment_id] : [])))];
  const paymentRows = paymentIds.length
    ? yield* all<{ id: string; type: string }>(
        db.select({ id: payments.id, type: payments.payment_type_id }).from(payments).where(inArray(payments.id, paymentIds)),
      )
    : [];
  const names = yield* namesOfEach(db, {
    types: [DEFINITION_NAMES, [...period.map((e) => e.adjustment_type_id), ...paymentRows.map((p) => p.type)]],
  });
  const paymentTypes = new Map(paymentRows.flatMap((p) => (names.types.has(p.type) ? [[p.id, names.types.get(p.type)!] as const] : [])));
  const location = guarantor.location_id
    ? yield* get<typeof locations.$inferSelect>(db.select().from(locations).where(eq(locations.id, guarantor.location_id)))
    : undefined;
  const line = (e: EntryRow): StatementEntryLine => {
    const effect = balanceEffectOf(e);
    return {
      date: e.entry_date,
      description: describe(e, { types: names.types, paymentTypes }),
      charge_cents: effect > 0 ? effect : null,
      credit_cents: effect <= 0 ? -effect : null,
    };
  };
  const t = account.totals;
  const total = cents(t.balance_total);
  const data: StatementData = {
    statement_number: st.id.replace(/-/g, "").slice(-10).toUpperCase(),
    statement_date: statementDate,
    date_from: st.date_from,
    date_to: st.date_to,
    due_date: addDays(statementDate, DUE_AFTER_DAYS),
    note: st.note,
    practice: {
      name: location?.name ?? orgName,
      address: location ? addressLines(location) : [],
      contact: [location?.phone ? `Phone ${location.phone}` : null, location?.email].filter((l): l is string => !!l),
    },
    guarantor: { name: [guarantor.first_name, guarantor.middle_name, guarantor.last_name].filter(Boolean).join(" "), address: addressLines(guarantor) },
    members: account.members.map((m) => ({ name: m.patient.name ?? "", entries: period.filter((e) => e.patient_id === m.patient.uuid).map(line) })),
    balance_forward_cents: sums?.before ?? 0,
    balance_at_end_cents: sums?.through ?? 0,
    aging: {
      b0_30: cents(t.balance_0_30),
      b31_60: cents(t.balance_31_60),
      b61_90: cents(t.balance_61_90),
      over_90: cents(t.balance_over_90),
      total,
    },
    amount_due_cents: Math.max(0, cents(t.patient_portion)),
  };
  return { data, guarantor };
}

/** The statement's write when it finishes one way or another, with its event in the guarantor's practice. */
function* finish(s: TxScope, st: StatementRow, patch: Partial<StatementRow>, action: string, outcome: "done" | "failed" | null): Work<StatementRow> {
  const g = yield* patientForRead(s.tx, st.guarantor_id);
  const row = yield* inPractice(s, g.location_id, statementRecords.update(s, st.id, undefined, patch, { action }));
  if (outcome) yield* countInBatch(s, row, outcome);
  return row;
}

/** Step 1: the PDF, stored as the guarantor's document in the write that makes the statement ready. */
async function renderAndStore(rt: PlatformRuntime, ctx: OrgContext, st: StatementRow, attempt: Attempt): Promise<StatementRow> {
  const { data } = await ctx.db.read(function* (db) {
    const g = yield* patientForRead(db, st.guarantor_id);
    return yield* statementData(db, ctx.org.name, st, yield* todayAt(db, g.location_id));
  });
  const pdf = await renderStatementPdf(data);
  statementHooks.beforeStore?.({ statementId: st.id, attempt: attempt.number });
  return storeGeneratedDocument(
    rt,
    ctx,
    {
      id: st.id,
      owner: { type: "patient", id: st.guarantor_id },
      document_type: "statement",
      title: `Statement ${data.statement_date} (${data.statement_number})`,
      file_name: statementFileName(data.statement_date),
      mime_type: "application/pdf",
      bytes: pdf.bytes,
      document_date: data.statement_date,
      text: pdf.text,
      page_count: pdf.pages,
    },
    function* (s, doc) {
      const current = yield* statementRecords.require(s.tx, st.id);
      // another attempt finished it (with this same document)
      if (current.status !== "pending") return current;
      statementHooks.beforeReady?.({ statementId: st.id, attempt: attempt.number });
      const g = yield* patientForRead(s.tx, st.guarantor_id);
      const reason = current.mode === "email" && !emailableGuarantor(g) ? notEmailedReason(g) : null;
      const mailNext = current.mode === "email" && !reason;
      return yield* finish(
        s,
        current,
        { status: "ready", document_id: doc.id, amount_due_cents: data.amount_due_cents, due_date: data.due_date, error: reason },
        "ready",
        mailNext ? null : "done",
      );
    },
  );
}

/** Step 2: the stored PDF by email, then the statement sent. */
async function mail(rt: PlatformRuntime, ctx: OrgContext, st: StatementRow, attempt: Attempt): Promise<StatementRow> {
  const { g, practice } = await ctx.db.read(function* (db) {
    const g = yield* patientForRead(db, st.guarantor_id);
    const practice = g.location_id
      ? yield* get<{ name: string; email: string | null }>(
          db.select({ name: locations.name, email: locations.email }).from(locations).where(eq(locations.id, g.location_id)),
        )
      : undefined;
    return { g, practice };
  });
  if (!emailableGuarantor(g))
    return withTransaction(ctx, function* (s) {
      const current = yield* statementRecords.require(s.tx, st.id);
      if (current.status !== "ready" || current.sent_at || current.error) return current;
      return yield* finish(s, current, { error: notEmailedReason(g) }, "not_emailed", "done");
    });
  const pdf = await documentBytes(rt, ctx, st.document_id!);
  if (!pdf) throw new PermanentStatementError("The statement's PDF is missing from storage");
  statementHooks.beforeMail?.({ statementId: st.id, attempt: attempt.number });
  const statementDate = addDays(st.due_date!, -DUE_AFTER_DAYS);
  await sendStatementMail(mailerOf(rt), {
    to: g.email!,
    guarantorName: [g.first_name, g.last_name].join(" "),
    practiceName: practice?.name ?? ctx.org.name,
    practiceEmail: practice?.email ?? null,
    statementDate,
    amountDueCents: st.amount_due_cents ?? 0,
    dueDate: st.due_date!,
    pdf,
  });
  return withTransaction(ctx, function* (s) {
    const current = yield* statementRecords.require(s.tx, st.id);
    if (current.status !== "ready" || current.sent_at) return current;
    return yield* finish(s, current, { status: "sent", sent_at: s.now }, "sent", "done");
  });
}

/** A statement to email, ready, neither sent nor found not emailable. */
const mailDue = (st: StatementRow) => st.status === "ready" && st.mode === "email" && !st.sent_at && !st.error;

/** The error's message, short (never a stack), for status_reason. */
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);

/** The statements.render job's work on one statement (see the top of this file). */
export async function produceStatement(rt: PlatformRuntime, ctx: OrgContext, statementId: string, attempt: Attempt): Promise<ProduceResult> {
  let st = await ctx.db.read((db) => statementRecords.find(db, statementId));
  if (!st) return { statement_id: statementId, outcome: "missing" };
  if (st.status === "sent" || st.status === "failed") return { statement_id: statementId, outcome: `already_${st.status}`, document_id: st.document_id };
  try {
    if (st.status === "pending") st = await renderAndStore(rt, ctx, st, attempt);
    if (mailDue(st)) st = await mail(rt, ctx, st, attempt);
    return { statement_id: statementId, outcome: st.status, document_id: st.document_id };
  } catch (err) {
    if (!attempt.last && !(err instanceof PermanentStatementError)) throw err;
    const message = messageOf(err);
    const failed = await withTransaction(ctx, function* (s) {
      const current = yield* statementRecords.require(s.tx, statementId);
      if (current.status === "sent" || current.status === "failed") return current;
      if (current.status === "ready" && !mailDue(current)) return current;
      const why = current.status === "ready" ? `Not emailed: ${message}` : `Not produced: ${message}`;
      return yield* finish(s, current, { status: "failed", error: why }, "failed", "failed");
    });
    return { statement_id: statementId, outcome: failed.status, document_id: failed.document_id };
  }
}
