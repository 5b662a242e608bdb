import { and, isNotNull, isNull } from "drizzle-orm";
import { smartLists } from "@db/tenant/revenue";
import { all } from "@/platform/db/work";
import { ValidationFailed } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { compileFilter } from "@/domains/revenue/filters/compile";
import type { FilterDefinition } from "@/domains/revenue/filters/schemas";
import { todayUtc } from "@/platform/time/dates";
import { listRecords } from "./service";

/** Why a saved filter no longer compiles against the registry (null: it compiles). */
export function driftOf(filter: unknown, today: string): string | null {
  try {
    compileFilter(filter as FilterDefinition, today, ["filter_definition"]);
    return null;
  } catch (err) {
    if (err instanceof ValidationFailed)
      return err.issues
        .map((i) => `${i.loc.join(".")}: ${i.msg}`)
        .join("; ")
        .slice(0, 2000);
    // a stored value that is not even a filter's shape
    return "filter_definition: not a filter definition";
  }
}

/**
 * Flag (needs_review, with the reason) the org's live saved lists whose filter
 * no longer compiles against the registry, and clear the flag of those that
 * compile again. The filter itself is never changed. Idempotent: a list whose
 * state is already right is not written.
 */
export async function checkListDrift(ctx: OrgContext, today = todayUtc()): Promise<{ flagged: number; cleared: number; checked: number }> {
  const rows = await ctx.db.read((db) =>
    all(
      db
        .select()
        .from(smartLists)
        .where(and(isNull(smartLists.deleted_at), isNotNull(smartLists.filter_definition))),
    ),
  );
  let flagged = 0;
  let cleared = 0;
  for (const row of rows) {
    const reason = driftOf(row.filter_definition, today);
    const needsReview = reason !== null;
    if (row.needs_review === needsReview && row.review_reason === reason) continue;
    await withTransaction(ctx, (s) =>
      listRecords.update(
        s,
        row.id,
        row.version,
        { needs_review: needsReview, review_reason: reason },
        { action: needsReview ? "flagged_for_review" : "review_cleared" },
      ),
    );
    if (needsReview) flagged++;
    else cleared++;
  }
  return { flagged, cleared, checked: rows.length };
}
