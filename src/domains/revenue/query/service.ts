import { count, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { patients } from "@db/tenant/patients";
import { patientFilterFacts } from "@db/tenant/revenue";
import { all, get } from "@/platform/db/work";
import { limitToPage } from "@/platform/records/paging";
import { Conflict, invalid } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext } from "@/platform/records/context";
import {
  CATEGORIES,
  FIELD_BY_KEY,
  FIELDS,
  SCOPES,
  FACTS_ALIAS,
  SNAPSHOT_HASH,
  SOURCE_VERSION,
  publicField,
  type ValueField,
} from "@/domains/revenue/fields/registry";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { compileFilter } from "@/domains/revenue/filters/compile";
import type { FilterDefinition } from "@/domains/revenue/filters/schemas";
import type { CountRequest, ExecuteRequest } from "./schemas";
import { todayUtc } from "@/platform/time/dates";

// Counting and running a filter over the org's live patients (archived ones
// are never in a list). Nothing is saved.

const LABELS: Record<(typeof CATEGORIES)[number], string> = {
  demographics: "Demographics",
  visits: "Visits",
  treatment: "Treatment",
  recall: "Recall",
  balances: "Balances",
  insurance: "Insurance",
  tags: "Tags",
  referrals: "Referrals",
};

export function fieldRegistry() {
  return {
    categories: CATEGORIES.map((key) => ({ key, label: LABELS[key], fields: FIELDS.filter((f) => f.category === key).map(publicField) })),
    scopes: [...SCOPES],
    snapshot_hash: SNAPSHOT_HASH,
    source_version: SOURCE_VERSION,
  };
}

/** A stale registry version is refused before anything runs (409: the client's saved filter may mean something else now). */
export function checkSnapshot(expected: number | undefined): void {
  if (expected !== undefined && expected !== SOURCE_VERSION) {
    throw new Conflict(
      `The field registry is at source_version ${SOURCE_VERSION}, not ${expected}: reload GET /fields and check the filter`,
      "snapshot_mismatch",
    );
  }
}

/** The live patients' filtered columns under the alias the registry's expressions read (`pf`). */
export const facts = alias(patientFilterFacts, FACTS_ALIAS);
const ms = (t0: number) => Math.round((performance.now() - t0) * 100) / 100;

/** How many live patients the filter matches: one scan of the facts' short rows. */
export async function countMatches(ctx: OrgContext, filter: FilterDefinition, today = todayUtc()): Promise<number> {
  const { where } = compileFilter(filter, today);
  const row = await ctx.db.read((db) => get<{ n: number }>(db.select({ n: count() }).from(facts).where(where)));
  return row?.n ?? 0;
}

export async function countFilter(ctx: OrgContext, input: CountRequest) {
  checkSnapshot(input.expected_source_snapshot_version);
  const t0 = performance.now();
  const n = await countMatches(ctx, input.filter_definition);
  return { count: n, execution_time_ms: ms(t0), source_snapshot_version: SOURCE_VERSION };
}

/** The field sort_by names: a sortable value field (422 otherwise). */
function sortFieldOf(sortBy: string): ValueField {
  const f = FIELD_BY_KEY.get(sortBy);
  if (!f || !f.sortable || f.kind !== "value") {
    const sortable = FIELDS.filter((x) => x.sortable).map((x) => x.key);
    throw invalid(["body", "sort_by"], `sort_by takes ${sortable.join(", ")}`, "value_error");
  }
  return f;
}

const shownValue = (f: ValueField, v: unknown) =>
  f.type === "money" ? formatCents(v as number | null) : f.type === "boolean" ? (v === null ? null : !!v) : (v ?? null);

type PageInput = { page: number; page_size: number; sort_by: string; sort_dir: "asc" | "desc" };

/**
 * A page of live patients in the shape of POST /execute: what a caller needs
 * to act on each (names, contact, next appointment) and, in `values`, the
 * `fields` named plus the sort field. `where` narrows the patients; `within`
 * joins them to a set (a static list's members).
 */
export async function patientPage(
  ctx: OrgContext,
  input: PageInput,
  opts: { where?: SQL; fields?: readonly string[]; within?: { table: SQLiteTable; on: SQL }; today?: string },
) {
  const sortField = sortFieldOf(input.sort_by);
  const t0 = performance.now();
  const todaySql = sql`${opts.today ?? todayUtc()}`;
  const shown = [...new Set([...(opts.fields ?? []), sortField.key])].flatMap((k) => {
    const f = FIELD_BY_KEY.get(k)!;
    return f.kind === "value" ? [f] : [];
  });
  const columns: Record<string, SQL> = {};
  shown.forEach((f, i) => {
    columns[`v${i}`] = f.expr(todaySql);
  });
  const next = FIELD_BY_KEY.get("next_appointment_date") as ValueField;
  const dir = input.sort_dir === "desc" ? sql`DESC` : sql`ASC`;
  const collate = sortField.type === "string" ? sql` COLLATE NOCASE` : sql``;
  const where = opts.where ?? sql`1`;
  const from = <Q extends { from: (t: typeof facts) => any }>(q: Q) => {
    const base = q.from(facts);
    return opts.within ? base.innerJoin(opts.within.table, opts.within.on) : base;
  };
  // The page is chosen over the facts alone (ids and sort values), then only
  // its rows are joined to the patient record and their values computed.
  const { items, total } = await ctx.db.read(function* (db) {
    const counted = yield* get<{ n: number }>(from(db.select({ n: count() })).where(where));
    const page = limitToPage(
      from(db.select({ id: facts.id, sort_value: sql`${sortField.expr(todaySql)}`.as("sort_value") }))
        .where(where)
        .orderBy(sql`sort_value${collate} ${dir} NULLS LAST`, sql`${facts.id} ${dir}`),
      input,
    ).as("page");
    const rows = yield* all<Record<string, unknown>>(
      db
        .select({
          id: patients.id,
          first_name: patients.first_name,
          last_name: patients.last_name,
          preferred_name: patients.preferred_name,
          email: patients.email,
          mobile_phone: patients.mobile_phone,
          home_phone: patients.home_phone,
          next_appointment_date: next.expr(todaySql),
          ...columns,
        })
        .from(page)
        .innerJoin(facts, eq(facts.id, page.id))
        .innerJoin(patients, eq(patients.id, page.id))
        .orderBy(sql`${page.sort_value}${collate} ${dir} NULLS LAST`, sql`${page.id} ${dir}`),
    );
    return { items: rows, total: counted?.n ?? 0 };
  });
  return {
    execution_time_ms: ms(t0),
    page: input.page,
    page_size: input.page_size,
    patients: items.map((r) => ({
      id: r.id as string,
      first_name: r.first_name as string,
      last_name: r.last_name as string,
      preferred_name: (r.preferred_name as string | null) ?? null,
      email: (r.email as string | null) ?? null,
      mobile_phone: (r.mobile_phone as string | null) ?? null,
      home_phone: (r.home_phone as string | null) ?? null,
      next_appointment_date: (r.next_appointment_date as string | null) ?? null,
      values: Object.fromEntries(shown.map((f, i) => [f.key, shownValue(f, r[`v${i}`])])),
    })),
    source_snapshot_version: SOURCE_VERSION,
    total_count: total,
  };
}

/** A page of matching patients with what a caller needs to act on them, and the values of the filtered fields. */
export async function executeFilter(ctx: OrgContext, input: ExecuteRequest, today = todayUtc()) {
  checkSnapshot(input.expected_source_snapshot_version);
  sortFieldOf(input.sort_by); // a bad sort_by is reported before the filter's problems
  const { where, fields } = compileFilter(input.filter_definition, today);
  return patientPage(ctx, input, { where, fields, today });
}
