import { and, count, eq, isNull } from "drizzle-orm";
import { smartListMembers, smartLists } from "@db/tenant/revenue";
import { get, run } from "@/platform/db/work";
import { Conflict, ValidationFailed } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { SOURCE_VERSION } from "@/domains/revenue/fields/registry";
import { compileFilter } from "@/domains/revenue/filters/compile";
import type { FilterDefinition } from "@/domains/revenue/filters/schemas";
import { countMatches, executeFilter, facts, patientPage } from "@/domains/revenue/query/service";
import { todayUtc } from "@/platform/time/dates";
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

const memberOf = (listId: string) => and(eq(smartListMembers.patient_id, facts.id), eq(smartListMembers.list_id, listId));

/** A page of a static list's live patients, in the shape of POST /execute (values: the sort field's). */
const runStatic = (ctx: OrgContext, listId: string, input: RunListRequest) =>
  patientPage(ctx, input, { within: { table: smartListMembers, on: memberOf(listId)! } });

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
    const counted = await ctx.db.read((db) => get<{ n: number }>(db.select({ n: count() }).from(facts).innerJoin(smartListMembers, memberOf(row.id))));
    n = counted?.n ?? 0;
  } else n = await countMatches(ctx, runnableFilter(row));
  const execution_time_ms = ms(t0);
  const at = await recordRun(ctx, row.id, n);
  return { list_uuid: row.id, count: n, execution_time_ms, source_snapshot_version: SOURCE_VERSION, last_executed_at: at };
}
