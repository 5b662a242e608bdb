import { eq } from "drizzle-orm";
import { estimateBooks } from "@db/tenant/insurance";
import type { Work } from "@/platform/db/work";
import { ValidationFailed, type ValidationIssue } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { containsText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { queueRecompute } from "@/domains/insurance/estimates/recompute.job";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import { FEE_SCHEDULE_NAMES } from "@/platform/records/names";
import { requireFeeSchedule } from "@/domains/codes/fee-schedules/records";
import { PLAN_NAMES, requireCarrier, requirePlan } from "./references";
import type { ArchiveQuery, EstimateBook, EstimateBookCreate, EstimateBookListQuery, EstimateBookPatch } from "./schemas";

export type BookRow = typeof estimateBooks.$inferSelect;
const B = estimateBooks;

// The audit trail keeps the stored columns (the org's own database; never published).
export const bookRecords = defineResource<BookRow, BookRow>({
  table: B,
  name: "estimate_book",
  label: "Estimate book",
  serialize: (r) => r,
  // carrier_id -> carrier, insurance_plan_id -> insurance_plan, allowed_fee_schedule_id -> allowed_fee_schedule
  eventFields: { stripIdSuffix: true },
});

type BookNames = Record<"carriers" | "plans" | "schedules", Names>;

function bookNames(db: TenantDb, rows: BookRow[]): Work<BookNames> {
  return namesOfEach(db, {
    carriers: [CARRIER_NAMES, idsOf(rows, (r) => r.carrier_id)],
    plans: [PLAN_NAMES, idsOf(rows, (r) => r.insurance_plan_id)],
    schedules: [FEE_SCHEDULE_NAMES, idsOf(rows, (r) => r.allowed_fee_schedule_id)],
  });
}

function serialize(r: BookRow, n: BookNames): EstimateBook {
  return {
    id: r.id,
    name: r.name,
    rule_type: r.rule_type as EstimateBook["rule_type"],
    scope_type: r.scope_type as EstimateBook["scope_type"],
    status: r.status as EstimateBook["status"],
    allowed_fee_schedule: ref(r.allowed_fee_schedule_id, n.schedules),
    carrier: ref(r.carrier_id, n.carriers),
    insurance_plan: ref(r.insurance_plan_id, n.plans),
    claim_match_method: r.claim_match_method,
    exclude_over_ucr: r.exclude_over_ucr,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

function* present(db: TenantDb, row: BookRow): Work<EstimateBook> {
  return serialize(row, yield* bookNames(db, [row]));
}

/** The book in a path: live (not archived by the archive operation), else 404. A book with status archived is still found. */
export function* requireBook(db: TenantDb, id: string): Work<BookRow> {
  return yield* bookRecords.require(db, id);
}

type Scoped = Pick<BookRow, "scope_type" | "carrier_id" | "insurance_plan_id">;

/**
 * The scope rule, judged on the book as it will be stored: a tenant book names
 * no carrier or plan, a carrier book names its carrier and no plan, a plan book
 * names its plan (and may name the plan's carrier). 422 invalid_scope.
 */
function checkScope(b: Scoped): void {
  const issues: ValidationIssue[] = [];
  const need = (field: string) => issues.push({ loc: ["body", field], msg: `Required when scope_type is ${b.scope_type}`, type: "missing" });
  const refuse = (field: string) => issues.push({ loc: ["body", field], msg: `Must be null when scope_type is ${b.scope_type}`, type: "value_error" });
  if (b.scope_type === "tenant") {
    if (b.carrier_id) refuse("carrier_uuid");
    if (b.insurance_plan_id) refuse("insurance_plan_uuid");
  } else if (b.scope_type === "carrier") {
    if (!b.carrier_id) need("carrier_uuid");
    if (b.insurance_plan_id) refuse("insurance_plan_uuid");
  } else if (!b.insurance_plan_id) need("insurance_plan_uuid");
  if (issues.length) throw new ValidationFailed(issues, "invalid_scope");
}

/** The carrier and plan must exist (404); a plan book's carrier, when named, must be the plan's (422 invalid_scope). */
function* checkReferences(db: TenantDb, b: Scoped, changed: { carrier: boolean; plan: boolean }): Work<void> {
  if (b.carrier_id && changed.carrier) yield* requireCarrier(db, b.carrier_id);
  if (b.insurance_plan_id && (changed.plan || changed.carrier)) {
    const plan = yield* requirePlan(db, b.insurance_plan_id, !changed.plan);
    if (b.carrier_id && b.carrier_id !== plan.carrier_id) {
      throw new ValidationFailed([{ loc: ["body", "carrier_uuid"], msg: "Must be the plan's carrier", type: "value_error" }], "invalid_scope");
    }
  }
}

/** API fields -> columns; only the fields present in the request. */
function toColumns(input: Omit<EstimateBookPatch, "base_version">): Partial<BookRow> {
  const { allowed_fee_schedule_uuid, carrier_uuid, insurance_plan_uuid, ...rest } = input;
  const out: Partial<BookRow> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (allowed_fee_schedule_uuid !== undefined) out.allowed_fee_schedule_id = allowed_fee_schedule_uuid;
  if (carrier_uuid !== undefined) out.carrier_id = carrier_uuid;
  if (insurance_plan_uuid !== undefined) out.insurance_plan_id = insurance_plan_uuid;
  return out;
}

const eventData = (r: Pick<BookRow, "scope_type" | "rule_type" | "status" | "carrier_id" | "insurance_plan_id">) => ({
  scope_type: r.scope_type,
  rule_type: r.rule_type,
  status: r.status,
  carrier_id: r.carrier_id,
  insurance_plan_id: r.insurance_plan_id,
});

// ---- verbs -------------------------------------------------------------------------

export async function listBooks(ctx: OrgContext, q: EstimateBookListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* bookRecords.list(db, q, {
      where: [
        q.search ? containsText(B.name, q.search) : undefined,
        q.scope_type ? eq(B.scope_type, q.scope_type) : undefined,
        q.status ? eq(B.status, q.status) : undefined,
      ],
      orderBy: [B.name, B.id],
    });
    const names = yield* bookNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function getBook(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* requireBook(db, id));
  });
}

export async function createBook(ctx: OrgContext, input: EstimateBookCreate) {
  const { name, rule_type } = input;
  const values = {
    scope_type: "tenant",
    status: "active",
    exclude_over_ucr: false,
    carrier_id: null,
    insurance_plan_id: null,
    allowed_fee_schedule_id: null,
    claim_match_method: null,
    ...toColumns(input),
    name,
    rule_type,
  } satisfies Partial<BookRow>;
  checkScope(values);
  return withTransaction(ctx, function* (s) {
    yield* checkReferences(s.tx, values, { carrier: true, plan: true });
    if (values.allowed_fee_schedule_id) yield* requireFeeSchedule(s.tx, values.allowed_fee_schedule_id);
    const row = yield* bookRecords.create(s, values, eventData(values));
    queueRecompute(s, { all: true });
    return yield* present(s.tx, row);
  });
}

export async function updateBook(ctx: OrgContext, id: string, input: EstimateBookPatch) {
  const { base_version, ...rest } = input;
  const patch = toColumns(rest);
  return withTransaction(ctx, function* (s) {
    // stale first: a rule is never judged against a record the client has not seen
    const current = yield* bookRecords.requireCurrent(s.tx, id, base_version);
    const next = { ...current, ...patch };
    checkScope(next);
    yield* checkReferences(s.tx, next, {
      carrier: patch.carrier_id !== undefined && patch.carrier_id !== current.carrier_id,
      plan: patch.insurance_plan_id !== undefined && patch.insurance_plan_id !== current.insurance_plan_id,
    });
    if (patch.allowed_fee_schedule_id && patch.allowed_fee_schedule_id !== current.allowed_fee_schedule_id) {
      yield* requireFeeSchedule(s.tx, patch.allowed_fee_schedule_id);
    }
    const row = yield* bookRecords.update(s, id, base_version, patch);
    queueRecompute(s, { all: true });
    return yield* present(s.tx, row);
  });
}

/** Soft delete: deleted_at and status archived; the book leaves lists and estimates, its fees and logs stay in the database. */
export async function archiveBook(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const row = yield* bookRecords.update(s, id, q.base_version, { deleted_at: s.now, status: "archived" }, { action: "archived" });
    queueRecompute(s, { all: true });
    return yield* present(s.tx, row);
  });
}
