import { and, asc, count, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { patients } from "@db/tenant/schema";
import { smartListMembers, smartLists } from "@db/tenant/revenue";
import { get, run } from "@/platform/db/work";
import { Conflict, invalid, ValidationFailed } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { withTransaction } from "@/platform/records/transaction";
import { FIELD_BY_KEY, FIELDS, SOURCE_VERSION } from "@/domains/revenue/fields/registry";
import { compileFilter } from "@/domains/revenue/filters/compile";
import type { FilterDefinition } from "@/domains/revenue/filters/schemas";
import { countMatches, executeFilter, todayUtc } from "@/domains/revenue/query/service";
import type { RunListRequest } from "./schemas";
import { visibleList, type ListRow } from "./service";

// Running a saved list: dynamic and preset lists through the filter query
// (query/service.ts), static lists over their members. A run records when it
// happened and how many patients it found; it is not a change of the list
// (no version, no audit entry).

const ms = (t0: number) => Math.round((performance.now() - t0) * 100) / 100;

/** The saved filter, if it still compiles; 409 list_needs_review otherwise (the drift check will flag it). */
function runnableFilter(row: ListRow): FilterDefinition {
  const filter = row.filter_definition as FilterDefinition;
  try {
    compileFilter(filter, todayUtc(), ["filter_definition"]);
  } catch (err) {
    if (!(err instanceof ValidationFailed)) throw err;
    throw new Conflict(`The list's filter no longer fits the field registry (${err.message}); edit its filter_definition`, "list_needs_review");
  }
  return filter;
}

/** Record the run on the list (if it is still live); answers when. */
async function recordRun(ctx: OrgContext, id: string, n: number): Promise<string> {
  return withTransaction(ctx, function* (s) {
    yield* run(
      s.tx
        .update(smartLists)
        .set({ last_executed_at: s.now, last_result_count: n })
        .where(and(eq(smartLists.id, id), isNull(smartLists.deleted_at))),
    );
    return s.now;
  });
}

const memberOf = (listId: string) => and(eq(smartListMembers.patient_id, patients.id), eq(smartListMembers.list_id, listId));

/** A page of a static list's live patients, in the shape of POST /execute (values: the sort field's). */
async function runStatic(ctx: OrgContext, listId: string, input: RunListRequest) {
  const sortField = FIELD_BY_KEY.get(input.sort_by);
  if (!sortField || !sortField.sortable || sortField.kind !== "value") {
    const sortable = FIELDS.filter((f) => f.sortable).map((f) => f.key);
    throw invalid(["body", "sort_by"], `sort_by takes ${sortable.join(", ")}`, "value_error");
  }
  const t0 = performance.now();
  const today = sql`${todayUtc()}`;
  const next = FIELD_BY_KEY.get("next_appointment_date")!;
  const sortExpr: SQL = sortField.expr(today);
  const dir = input.sort_dir === "desc" ? sql`DESC` : sql`ASC`;
  const { items, total } = await ctx.db.read((db) =>
    pageFrom<Record<string, unknown>>(
      input,
      db.select({ n: count() }).from(patients).innerJoin(smartListMembers, memberOf(listId)).where(isNull(patients.deleted_at)),
      db
        .select({
          id: patients.id,
          first_name: patients.first_name,
          last_name: patients.last_name,
          preferred_name: patients.preferred_name,
          email: patients.email,
          mobile_phone: patients.mobile_phone,
          home_phone: patients.home_phone,
          next_appointment_date: next.kind === "value" ? next.expr(today) : sql`NULL`,
          sort_value: sortExpr,
        })
        .from(patients)
        .innerJoin(smartListMembers, memberOf(listId))
        .where(isNull(patients.deleted_at))
        .orderBy(sql`${sortExpr} ${dir} NULLS LAST`, input.sort_dir === "desc" ? desc(patients.id) : asc(patients.id)),
    ),
  );
  const shown = (v: unknown) =>
    sortField.type === "money" ? formatCents(v as number | null) : sortField.type === "boolean" ? (v === null ? null : !!v) : (v ?? null);
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
      values: { [sortField.key]: shown(r.sort_value) },
    })),
    source_snapshot_version: SOURCE_VERSION,
    total_count: total,
  };
}

/** POST /lists/{id}/execute: a page of the list's patients; records last_executed_at and last_result_count. */
export async function executeList(ctx: OrgContext, id: string, input: RunListRequest) {
  const row = await visibleList(ctx, id);
  const result =
    row.list_type === "static" ? await runStatic(ctx, row.id, input) : await executeFilter(ctx, { ...input, filter_definition: runnableFilter(row) });
  const at = await recordRun(ctx, row.id, result.total_count);
  return { ...result, list_uuid: row.id, last_executed_at: at };
}

/** POST /lists/{id}/count: how many patients the list holds now; recorded like a run. */
export async function countList(ctx: OrgContext, id: string) {
  const row = await visibleList(ctx, id);
  const t0 = performance.now();
  let n: number;
  if (row.list_type === "static") {
    const counted = await ctx.db.read((db) =>
      get<{ n: number }>(db.select({ n: count() }).from(patients).innerJoin(smartListMembers, memberOf(row.id)).where(isNull(patients.deleted_at))),
    );
    n = counted?.n ?? 0;
  } else n = await countMatches(ctx, runnableFilter(row));
  const execution_time_ms = ms(t0);
  const at = await recordRun(ctx, row.id, n);
  return { list_uuid: row.id, count: n, execution_time_ms, source_snapshot_version: SOURCE_VERSION, last_executed_at: at };
}
