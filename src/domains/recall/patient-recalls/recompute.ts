import { and, asc, inArray, isNull } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { patientRecalls } from "@db/tenant/recall";
import { all, type Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { DONE_STATUSES } from "./compute";
import type { RecallsRecomputePayload } from "./recompute.job";
import { recallSetting, recomputePatient } from "./service";

/** Patients worked out in one transaction. */
export const RECOMPUTE_CHUNK = 100;

/** Every patient with a live recall, or a completed procedure of a code that starts a recall by itself, ordered by id. */
function* everyone(db: TenantDb, startingCodes: string[]): Work<string[]> {
  const withRecall = yield* all<{ id: string }>(
    db.selectDistinct({ id: patientRecalls.patient_id }).from(patientRecalls).where(isNull(patientRecalls.deleted_at)),
  );
  const starting = startingCodes.length
    ? yield* all<{ id: string }>(
        db
          .selectDistinct({ id: chartedProcedures.patient_id })
          .from(chartedProcedures)
          .where(
            and(
              inArray(chartedProcedures.procedure_code_id, startingCodes),
              inArray(chartedProcedures.status, [...DONE_STATUSES]),
              isNull(chartedProcedures.deleted_at),
            ),
          )
          .orderBy(asc(chartedProcedures.patient_id)),
      )
    : [];
  return [...new Set([...withRecall, ...starting].map((r) => r.id))].sort();
}

export type RecomputeOutcome = { patients: number; created: number; updated: number };

/**
 * Works out the recalls of the payload's patients (or every patient) again,
 * RECOMPUTE_CHUNK patients per transaction. Idempotent: each chunk re-reads
 * what it works from and writes only what changed, so a run cut off part-way
 * and run again finds only what is left. `afterChunk` (tests) runs after each
 * committed chunk.
 */
export async function recomputeRecalls(
  ctx: OrgContext,
  payload: RecallsRecomputePayload,
  afterChunk?: (patientIds: string[]) => void,
): Promise<RecomputeOutcome> {
  const setting = await ctx.db.read((db) => recallSetting(db));
  const startingCodes = [...new Set([...setting.starting.values()].flatMap((s) => [...s]))];
  const ids = payload.all ? await ctx.db.read((db) => everyone(db, startingCodes)) : [...new Set(payload.patient_ids ?? [])].sort();
  const out: RecomputeOutcome = { patients: ids.length, created: 0, updated: 0 };
  for (let i = 0; i < ids.length; i += RECOMPUTE_CHUNK) {
    const chunk = ids.slice(i, i + RECOMPUTE_CHUNK);
    const r = await withTransaction(ctx, function* (s) {
      let created = 0;
      let updated = 0;
      for (const id of chunk) {
        const one = yield* recomputePatient(s, id, setting.types, setting.starting);
        created += one.created;
        updated += one.updated;
      }
      return { created, updated };
    });
    out.created += r.created;
    out.updated += r.updated;
    afterChunk?.(chunk);
    await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
  }
  return out;
}
