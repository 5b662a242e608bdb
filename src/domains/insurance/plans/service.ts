import { and, count, eq, inArray, isNull, type SQL } from "drizzle-orm";
import {
  coverageCategories,
  insurancePlans,
  insuranceSubscriptions,
  type AgeLimitRule,
  type CopayRule,
  type CoverageRule,
  type DowngradeRule,
  type FrequencyRule,
  type WaitingPeriodRule,
} from "@db/tenant/insurance";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { CARRIER_NAMES, requireCarrier } from "@/domains/insurance/carriers/service";
import { COVERAGE_CATEGORY_NAMES } from "@/domains/insurance/coverage-categories/service";
import { requireBook } from "@/domains/insurance/estimate-books/books";
import { BOOK_NAMES } from "@/domains/insurance/estimate-books/references";
import { FEE_SCHEDULE_NAMES } from "@/platform/records/names";
import { requireFeeSchedule } from "@/domains/codes/fee-schedules/records";
import { markEstimateInputsChanged } from "./changes";
import type { ArchiveQuery, Plan, PlanCreate, PlanListQuery, PlanPatch } from "./schemas";

export type PlanRow = typeof insurancePlans.$inferSelect;

// The audit trail keeps the stored columns (rules as stored); answers are built by present().
export const planRecords = defineResource<PlanRow, PlanRow>({
  table: insurancePlans,
  name: "insurance_plan",
  label: "Insurance plan",
  serialize: (r) => r,
  eventFields: {
    rename: {
      annual_max_cents: "annual_max",
      deductible_individual_cents: "deductible_individual",
      deductible_family_cents: "deductible_family",
      deductible_category_ids: "deductible_categories",
    },
    stripIdSuffix: true,
  },
});

// ---- references ----------------------------------------------------------------------

type RefNames = Record<"carriers" | "books" | "schedules" | "categories", Names>;

/** Every category a plan's rules name. */
const categoryIdsOf = (r: Pick<PlanRow, "coverage" | "waiting_periods" | "deductible_category_ids">) => [
  ...r.deductible_category_ids,
  ...r.coverage.map((c) => c.category_id),
  ...r.waiting_periods.map((w) => w.category_id),
];

function refNames(db: TenantDb, rows: PlanRow[]): Work<RefNames> {
  return namesOfEach(db, {
    carriers: [CARRIER_NAMES, idsOf(rows, (r) => r.carrier_id)],
    books: [BOOK_NAMES, idsOf(rows, (r) => r.estimate_book_id)],
    schedules: [FEE_SCHEDULE_NAMES, idsOf(rows, (r) => r.fee_schedule_id)],
    categories: [COVERAGE_CATEGORY_NAMES, rows.flatMap(categoryIdsOf)],
  });
}

function serialize(r: PlanRow, n: RefNames): Plan {
  return {
    id: r.id,
    carrier: ref(r.carrier_id, n.carriers),
    plan_name: r.plan_name,
    group_name: r.group_name,
    group_number: r.group_number,
    plan_type: r.plan_type as Plan["plan_type"],
    estimate_book: ref(r.estimate_book_id, n.books),
    fee_schedule: ref(r.fee_schedule_id, n.schedules),
    cob_method: r.cob_method as Plan["cob_method"],
    benefit_year_start_month: r.benefit_year_start_month,
    annual_max: formatCents(r.annual_max_cents),
    deductible_individual: formatCents(r.deductible_individual_cents)!,
    deductible_family: formatCents(r.deductible_family_cents),
    deductible_categories: r.deductible_category_ids.map((id) => ref(id, n.categories)),
    coverage: r.coverage.map((c) => ({ category: ref(c.category_id, n.categories), percent: c.percent })),
    frequency_limits: r.frequency_limits.map((f) => ({
      codes: f.codes,
      count: f.count,
      period: typeof f.period === "object" ? ("months" as const) : f.period,
      months: typeof f.period === "object" ? f.period.months : null,
    })),
    waiting_periods: r.waiting_periods.map((w) => ({ category: ref(w.category_id, n.categories), months: w.months })),
    age_limits: r.age_limits.map((a) => ({ codes: a.codes, min_age: a.min_age ?? null, max_age: a.max_age ?? null })),
    downgrades: r.downgrades.map((d) => ({ codes: d.codes, to_code: d.to_code })),
    copays: r.copays.map((c) => ({ code: c.code, copay: formatCents(c.copay_cents)! })),
    is_hidden: r.is_hidden,
    notes: r.notes,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

function* present(db: TenantDb, row: PlanRow): Work<Plan> {
  return serialize(row, yield* refNames(db, [row]));
}

// ---- requests to columns ----------------------------------------------------------------

type Fields = Omit<PlanCreate, "carrier_uuid">;

/** Request fields to columns: money to cents, uuids to ids, rules to their stored shapes (db/tenant/insurance.ts). */
function toColumns(input: Fields & { carrier_uuid?: string }): Partial<PlanRow> {
  const out: Partial<PlanRow> = {};
  const { carrier_uuid, estimate_book_uuid, fee_schedule_uuid, annual_max, deductible_individual, deductible_family, deductible_category_uuids, ...rest } =
    input;
  const { coverage, frequency_limits, waiting_periods, age_limits, downgrades, copays, ...plain } = rest;
  Object.assign(out, plain);
  if (carrier_uuid !== undefined) out.carrier_id = carrier_uuid;
  if (estimate_book_uuid !== undefined) out.estimate_book_id = estimate_book_uuid;
  if (fee_schedule_uuid !== undefined) out.fee_schedule_id = fee_schedule_uuid;
  if (annual_max !== undefined) out.annual_max_cents = annual_max === null ? null : centsFromNumber(annual_max);
  if (deductible_individual !== undefined) out.deductible_individual_cents = centsFromNumber(deductible_individual);
  if (deductible_family !== undefined) out.deductible_family_cents = deductible_family === null ? null : centsFromNumber(deductible_family);
  if (deductible_category_uuids !== undefined) out.deductible_category_ids = [...new Set(deductible_category_uuids)];
  if (coverage !== undefined) out.coverage = coverage.map((c): CoverageRule => ({ category_id: c.category_uuid, percent: c.percent }));
  if (frequency_limits !== undefined)
    out.frequency_limits = frequency_limits.map(
      (f): FrequencyRule => ({ codes: f.codes, count: f.count, period: f.period === "months" ? { months: f.months! } : f.period }),
    );
  if (waiting_periods !== undefined) out.waiting_periods = waiting_periods.map((w): WaitingPeriodRule => ({ category_id: w.category_uuid, months: w.months }));
  if (age_limits !== undefined)
    out.age_limits = age_limits.map((a): AgeLimitRule => ({ codes: a.codes, min_age: a.min_age ?? null, max_age: a.max_age ?? null }));
  if (downgrades !== undefined) out.downgrades = downgrades.map((d): DowngradeRule => ({ codes: d.codes, to_code: d.to_code }));
  if (copays !== undefined) out.copays = copays.map((c): CopayRule => ({ code: c.code, copay_cents: centsFromNumber(c.copay) }));
  return out;
}

// Written explicitly so a plan without rules reads as "covers nothing, no limits" (docs/insurance/insurance.md).
const DEFAULTS = {
  plan_type: "ppo",
  cob_method: "standard",
  benefit_year_start_month: 1,
  annual_max_cents: null,
  deductible_individual_cents: 0,
  deductible_family_cents: null,
  deductible_category_ids: [],
  coverage: [],
  frequency_limits: [],
  waiting_periods: [],
  age_limits: [],
  downgrades: [],
  copays: [],
  is_hidden: false,
} satisfies Partial<PlanRow>;

// ---- rules ------------------------------------------------------------------------------

/** Every category the changed rules name must exist and not be archived (hidden ones are fine): else 404. */
function* requireCategories(db: TenantDb, values: Partial<PlanRow>): Work<void> {
  const wanted = [
    ...new Set([
      ...(values.deductible_category_ids ?? []),
      ...(values.coverage ?? []).map((c) => c.category_id),
      ...(values.waiting_periods ?? []).map((w) => w.category_id),
    ]),
  ];
  if (!wanted.length) return;
  const t = coverageCategories;
  const found = yield* all<{ id: string }>(
    db
      .select({ id: t.id })
      .from(t)
      .where(and(inArray(t.id, wanted), isNull(t.deleted_at))),
  );
  if (found.length !== wanted.length) throw new NotFound("Coverage category");
}

/** References of the changed columns: carrier, then estimate book, then fee schedule, then categories (404s). */
function* requireReferences(db: TenantDb, values: Partial<PlanRow>): Work<void> {
  // hidden carriers and categories are fine; an estimate book whose status is archived too (the estimate decides)
  if (values.carrier_id !== undefined) yield* requireCarrier(db, values.carrier_id);
  if (values.estimate_book_id) yield* requireBook(db, values.estimate_book_id);
  if (values.fee_schedule_id) yield* requireFeeSchedule(db, values.fee_schedule_id);
  yield* requireCategories(db, values);
}

/** Cross-field rules, judged on the plan as it would be stored. */
function checkRules(r: Pick<PlanRow, "deductible_individual_cents" | "deductible_family_cents">): void {
  if (r.deductible_family_cents !== null && r.deductible_family_cents < r.deductible_individual_cents) {
    throw invalid(["body", "deductible_family"], "Must not be below deductible_individual", "value_error", "family_deductible_below_individual");
  }
}

function* liveSubscriptionCount(db: TenantDb, planId: string): Work<number> {
  const t = insuranceSubscriptions;
  const row = yield* get(
    db
      .select({ n: count() })
      .from(t)
      .where(and(eq(t.plan_id, planId), isNull(t.deleted_at))),
  );
  return row?.n ?? 0;
}

// ---- for subscriptions and the estimate service -------------------------------------------

/** A plan a subscription may name: 404 "Insurance plan" when missing or archived (hidden plans are fine). */
export function* requirePlan(db: TenantDb, id: string): Work<PlanRow> {
  return yield* planRecords.require(db, id);
}

// ---- verbs ------------------------------------------------------------------------------

export async function listPlans(ctx: OrgContext, q: PlanListQuery) {
  const t = insurancePlans;
  return ctx.db.read(function* (db) {
    const where: (SQL | undefined)[] = [
      q.carrier_uuid ? eq(t.carrier_id, q.carrier_uuid) : undefined,
      q.plan_type ? eq(t.plan_type, q.plan_type) : undefined,
      q.include_hidden ? undefined : eq(t.is_hidden, false),
      q.search ? anyContains([t.plan_name, t.group_name, t.group_number], q.search) : undefined,
    ];
    const page = yield* planRecords.list(db, q, { where, orderBy: [t.id] });
    const names = yield* refNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function getPlan(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* planRecords.require(db, id));
  });
}

export async function createPlan(ctx: OrgContext, input: PlanCreate) {
  const values = { ...DEFAULTS, ...toColumns(input) } as Partial<PlanRow> & typeof DEFAULTS;
  checkRules(values);
  return withTransaction(ctx, function* (s: TxScope) {
    yield* requireReferences(s.tx, values);
    const row = yield* planRecords.create(s, values, { carrier_id: values.carrier_id, plan_type: values.plan_type });
    // nothing can be estimated against a plan nobody holds yet: no coverage change to tell
    return yield* present(s.tx, row);
  });
}

export async function updatePlan(ctx: OrgContext, id: string, input: PlanPatch) {
  const { base_version, ...patch } = input;
  const values = toColumns(patch);
  return withTransaction(ctx, function* (s) {
    // stale first: a rule is never judged against a record the client has not seen
    const current = yield* planRecords.requireCurrent(s.tx, id, base_version);
    checkRules({ ...current, ...values });
    yield* requireReferences(s.tx, values);
    const row = yield* planRecords.update(s, id, base_version, values);
    markEstimateInputsChanged(s, { planIds: [id] });
    return yield* present(s.tx, row);
  });
}

/** Archive: refused (409 in_use) while a subscription that is not archived names the plan. */
export async function archivePlan(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    yield* planRecords.requireCurrent(s.tx, id, q.base_version);
    const n = yield* liveSubscriptionCount(s.tx, id);
    if (n) throw new Conflict(`${n} subscription${n === 1 ? "" : "s"} still name this plan; archive them or move them to another plan first`, "in_use");
    const row = yield* planRecords.archive(s, id, q.base_version);
    markEstimateInputsChanged(s, { planIds: [id] });
    return yield* present(s.tx, row);
  });
}
