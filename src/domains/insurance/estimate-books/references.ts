import { and, eq, isNull } from "drizzle-orm";
import { procedureCodes } from "@db/tenant/codes";
import { estimateBookRuns, estimateBooks, insurancePlans } from "@db/tenant/insurance";
import { get, type Work } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { TenantDb } from "@/platform/records/context";
import { nameSource } from "@/platform/records/refs";
import { procedureCodeRecords, type ProcedureCodeRow } from "@/domains/codes/procedure-codes/service";
import { carrierRecords } from "@/domains/insurance/carriers/service";

// What books, fees, logs and evidence point at, and how references to them are
// named (carriers: carriers/service.ts). Plans are read from their table here,
// so that the plans feature can use these verbs without an import cycle; the
// 404 is the one the plans feature answers.

export const BOOK_NAMES = nameSource(estimateBooks.id, { name: estimateBooks.name }, (r) => r.name);
/** A plan is named by its plan name, else its group name, else its group number. */
export const PLAN_NAMES = nameSource(
  insurancePlans.id,
  { plan_name: insurancePlans.plan_name, group_name: insurancePlans.group_name, group_number: insurancePlans.group_number },
  (r) => r.plan_name ?? r.group_name ?? r.group_number ?? null,
);
/** A procedure code is named by its code (D2391). */
export const CODE_NAMES = nameSource(procedureCodes.id, { code: procedureCodes.code }, (r) => r.code);
/** A run has no name: its start time stands for it. */
export const RUN_NAMES = nameSource(estimateBookRuns.id, { started_at: estimateBookRuns.started_at }, (r) => r.started_at);

export type PlanRow = typeof insurancePlans.$inferSelect;

/** A live (not archived) carrier, else 404 "Insurance carrier not found". */
export function* requireCarrier(db: TenantDb, id: string): Work<{ id: string }> {
  return yield* carrierRecords.require(db, id);
}

/** A live (not archived) insurance plan, else 404; `includeArchived` for a plan a record already names. */
export function* requirePlan(db: TenantDb, id: string, includeArchived = false): Work<Pick<PlanRow, "id" | "carrier_id">> {
  const row = yield* get(
    db
      .select({ id: insurancePlans.id, carrier_id: insurancePlans.carrier_id })
      .from(insurancePlans)
      .where(and(eq(insurancePlans.id, id), includeArchived ? undefined : isNull(insurancePlans.deleted_at))),
  );
  if (!row) throw new NotFound("Insurance plan");
  return row;
}

/** A live procedure code, else 404. */
export function* requireProcedureCode(db: TenantDb, id: string): Work<ProcedureCodeRow> {
  return yield* procedureCodeRecords.require(db, id);
}

/** A run of this book, else 404 (also when it is another book's). */
export function* requireRunOf(db: TenantDb, bookId: string, runId: string): Work<{ id: string }> {
  const row = yield* get(
    db
      .select({ id: estimateBookRuns.id })
      .from(estimateBookRuns)
      .where(and(eq(estimateBookRuns.id, runId), eq(estimateBookRuns.estimate_book_id, bookId))),
  );
  if (!row) throw new NotFound("Estimate book run");
  return row;
}
