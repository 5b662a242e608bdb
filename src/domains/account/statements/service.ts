import { and, desc, eq, sql } from "drizzle-orm";
import { statementBatches, statements } from "@db/tenant/account";
import { get, run, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { formatCents, centsFromNumber } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { DEFINITION_NAMES, PATIENT_NAMES } from "@/platform/records/names";
import { idsOf, namesOf, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { queueJob } from "@/platform/queue/enqueue";
import { addDays, epochDay, todayUtc } from "@/platform/time/dates";
import { inPractice, patientForRead } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { requireDefinitionOf } from "@/domains/codes/definitions/service";
import { statementsBatch } from "./batch.job";
import { statementsRender } from "./render.job";
import {
  DEFAULT_PERIOD_DAYS,
  MAX_PERIOD_DAYS,
  type Statement,
  type StatementBatch,
  type StatementBatchCreate,
  type StatementCreate,
  type StatementListQuery,
  type StatementMode,
  type StatementStatus,
} from "./schemas";

// Statements (docs/account/statements.md): the record of one guarantor's
// statement and of a batch of them. The figures are the ledger's, read when
// the statements.render job renders the PDF; the row keeps what was printed
// (amount due, due date) and where the PDF is (a document of the guarantor).

export type StatementRow = typeof statements.$inferSelect;
export type BatchRow = typeof statementBatches.$inferSelect;

export const statementRecords = defineResource<StatementRow, StatementRow>({
  table: statements,
  name: "statement",
  label: "Statement",
  serialize: (r) => r,
  // events name fields as the API does and carry no amounts (only that amount_due changed)
  eventFields: {
    rename: { guarantor_id: "guarantor", batch_id: "batch_uuid", document_id: "document_uuid", amount_due_cents: "amount_due", error: "status_reason" },
  },
});

export const batchRecords = defineResource<BatchRow, BatchRow>({
  table: statementBatches,
  name: "statement_batch",
  label: "Statement batch",
  serialize: (r) => r,
  eventFields: { rename: { min_balance_cents: "min_balance", billing_type_ids: "billing_types" } },
});

// ---- reads ---------------------------------------------------------------------------------

function* statementsOut(db: TenantDb, rows: StatementRow[]): Work<Statement[]> {
  const names = yield* namesOf(
    db,
    PATIENT_NAMES,
    idsOf(rows, (r) => r.guarantor_id),
  );
  return rows.map((r) => ({
    id: r.id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    guarantor: ref(r.guarantor_id, names),
    date_from: r.date_from,
    date_to: r.date_to,
    mode: r.mode as StatementMode,
    note: r.note,
    status: r.status as StatementStatus,
    status_reason: r.error,
    batch_uuid: r.batch_id,
    document_uuid: r.document_id,
    amount_due: formatCents(r.amount_due_cents),
    due_date: r.due_date,
    sent_at: r.sent_at,
  }));
}

export function* statementOut(db: TenantDb, row: StatementRow): Work<Statement> {
  return (yield* statementsOut(db, [row]))[0]!;
}

export function* batchOut(db: TenantDb, r: BatchRow): Work<StatementBatch> {
  const names = yield* namesOf(db, DEFINITION_NAMES, r.billing_type_ids ?? []);
  return {
    id: r.id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    min_balance: formatCents(r.min_balance_cents)!,
    billing_types: (r.billing_type_ids ?? []).map((id) => ref(id, names)),
    skip_if_sent_within_days: r.skip_if_sent_within_days,
    mode: r.mode as StatementMode,
    status: r.status as StatementBatch["status"],
    total: r.total,
    done: r.done,
    failed: r.failed,
  };
}

export async function getStatement(ctx: OrgContext, id: string): Promise<Statement> {
  return ctx.db.read(function* (db) {
    return yield* statementOut(db, yield* statementRecords.require(db, id));
  });
}

export async function listStatements(ctx: OrgContext, q: StatementListQuery) {
  return ctx.db.read(function* (db) {
    const S = statements;
    const page = yield* statementRecords.list(db, q, {
      where: [
        q.guarantor_uuid ? eq(S.guarantor_id, q.guarantor_uuid) : undefined,
        q.batch_uuid ? eq(S.batch_id, q.batch_uuid) : undefined,
        q.status ? eq(S.status, q.status) : undefined,
        q.mode ? eq(S.mode, q.mode) : undefined,
      ],
      orderBy: [desc(S.created_at), desc(S.id)],
    });
    return { ...page, items: yield* statementsOut(db, page.items) };
  });
}

export async function getBatch(ctx: OrgContext, id: string): Promise<StatementBatch> {
  return ctx.db.read(function* (db) {
    return yield* batchOut(db, yield* batchRecords.require(db, id));
  });
}

// ---- writes --------------------------------------------------------------------------------

/** A guarantor statements can be made for: 404 when missing; 422 when archived or when the patient has a guarantor of their own. */
function* requireGuarantor(db: TenantDb, id: string): Work<PatientRow> {
  const g = yield* patientForRead(db, id);
  if (g.deleted_at) throw invalid(["body", "guarantor_uuid"], "The patient is archived; restore them first", "value_error", "patient_archived");
  if (g.responsible_party_id && g.responsible_party_id !== g.id)
    throw invalid(
      ["body", "guarantor_uuid"],
      "The patient has a responsible party: statements go to that guarantor, for the whole family",
      "value_error",
      "not_a_guarantor",
    );
  return g;
}

/** The period asked for, its defaults filled in (422 at the field that is wrong). */
function periodOf(input: Pick<StatementCreate, "date_from" | "date_to">, today: string): { date_from: string; date_to: string } {
  if (input.date_to && input.date_to > addDays(todayUtc(), 1)) throw invalid(["body", "date_to"], "Cannot be more than one day in the future", "value_error");
  const date_to = input.date_to ?? today;
  const date_from = input.date_from ?? addDays(date_to, -DEFAULT_PERIOD_DAYS);
  if (date_from > date_to) throw invalid(["body", "date_from"], "Must not be after date_to", "value_error", "invalid_date_range");
  if (epochDay(date_to) - epochDay(date_from) > MAX_PERIOD_DAYS)
    throw invalid(["body", "date_from"], `A statement covers at most ${MAX_PERIOD_DAYS} days`, "value_error", "invalid_date_range");
  return { date_from, date_to };
}

const pendingOf = (tx: TenantDb, guarantorId: string) =>
  get<{ id: string }>(
    tx
      .select({ id: statements.id })
      .from(statements)
      .where(and(eq(statements.guarantor_id, guarantorId), eq(statements.status, "pending")))
      .limit(1),
  );

/** A new statement (pending) in the caller's write, its render queued after commit. */
export function* addStatement(
  s: TxScope,
  guarantor: Pick<PatientRow, "id" | "location_id">,
  values: { date_from: string; date_to: string; mode: StatementMode; note: string | null; batch_id: string | null },
): Work<StatementRow> {
  const row = yield* inPractice(
    s,
    guarantor.location_id,
    statementRecords.create(
      s,
      { ...values, guarantor_id: guarantor.id, status: "pending" },
      { guarantor_uuid: guarantor.id, mode: values.mode, batch_uuid: values.batch_id },
    ),
  );
  queueJob(s, statementsRender, { statement_id: row.id }, { singletonKey: row.id });
  return row;
}

/** POST {P}/statements: a pending statement, rendered (and sent) by the statements.render job. */
export async function createStatement(ctx: OrgContext, input: StatementCreate): Promise<Statement> {
  return withTransaction(ctx, function* (s) {
    const g = yield* requireGuarantor(s.tx, input.guarantor_uuid);
    const period = periodOf(input, yield* todayAt(s.tx, g.location_id));
    if (yield* pendingOf(s.tx, g.id)) throw new Conflict("A statement for this guarantor is still being rendered; wait for it", "statement_pending");
    const row = yield* addStatement(s, g, { ...period, mode: input.mode, note: input.note || null, batch_id: null });
    return yield* statementOut(s.tx, row);
  });
}

/** POST {P}/statements/batch: a running batch; the statements.batch job selects its guarantors. */
export async function createBatch(ctx: OrgContext, input: StatementBatchCreate): Promise<StatementBatch> {
  return withTransaction(ctx, function* (s) {
    const types = [...new Set(input.billing_type_uuids ?? [])];
    for (const id of types) yield* requireDefinitionOf(s.tx, id, "billing_types", "Billing type");
    const row = yield* batchRecords.create(
      s,
      {
        min_balance_cents: centsFromNumber(input.min_balance),
        billing_type_ids: types.length ? types : null,
        skip_if_sent_within_days: input.skip_if_sent_within_days,
        mode: input.mode,
        status: "running",
        total: 0,
        done: 0,
        failed: 0,
      },
      { mode: input.mode },
    );
    queueJob(s, statementsBatch, { batch_id: row.id }, { singletonKey: row.id });
    return yield* batchOut(s.tx, row);
  });
}

// ---- batch progress ------------------------------------------------------------------------

/**
 * A batch's statement has finished (ready, sent or failed): counted once, in
 * the write that finishes it, and the batch completed when it was the last.
 * The counters are derived (like a patient's balance buckets): they move
 * without a version or an audit row of their own; the statement's write is
 * audited.
 */
export function* countInBatch(s: TxScope, statement: Pick<StatementRow, "batch_id">, outcome: "done" | "failed"): Work<void> {
  if (!statement.batch_id) return;
  const B = statementBatches;
  const column = outcome === "done" ? B.done : B.failed;
  yield* run(
    s.tx
      .update(B)
      .set({ [outcome]: sql`${column} + 1` })
      .where(eq(B.id, statement.batch_id)),
  );
  yield* completeIfFinished(s, statement.batch_id);
}

/** A running batch whose selected statements have all finished becomes done (once). */
export function* completeIfFinished(s: TxScope, batchId: string): Work<void> {
  const b = yield* batchRecords.find(s.tx, batchId);
  if (!b || b.status !== "running" || b.done + b.failed < b.total) return;
  yield* batchRecords.update(s, batchId, undefined, { status: "done" }, { action: "completed", eventData: { total: b.total, done: b.done, failed: b.failed } });
}

export function* requireBatch(db: TenantDb, id: string): Work<BatchRow> {
  const b = yield* batchRecords.find(db, id);
  if (!b) throw new NotFound("Statement batch");
  return b;
}
