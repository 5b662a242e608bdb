import { and, eq, isNull, max } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { toothStatuses } from "@db/tenant/tooth-statuses";
import { get, run } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// Chart rows written straight to the org's database, so a history can be
// scripted with the times it was entered (created_at), which the API can't do.

const T = toothStatuses;

/**
 * A tooth-status record entered at `at` (ISO instant), superseding the tooth's
 * current record like the tooth chart does; its version is the tooth's highest + 1.
 */
export async function chartTooth(t: TestApp, orgId: string, patientId: string, tooth: string, status: string, effective_date: string, at: string) {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  await db.write(function* (tx) {
    const current = and(eq(T.patient_id, patientId), eq(T.tooth_number, tooth), isNull(T.superseded_at), isNull(T.deleted_at));
    yield* run(tx.update(T).set({ superseded_at: at, updated_at: at }).where(current));
    const top = yield* get(
      tx
        .select({ v: max(T.version) })
        .from(T)
        .where(and(eq(T.patient_id, patientId), eq(T.tooth_number, tooth))),
    );
    yield* run(
      tx.insert(T).values({
        id,
        patient_id: patientId,
        tooth_number: tooth,
        status,
        effective_date,
        source: "manual",
        version: (top?.v ?? 0) + 1,
        created_at: at,
        updated_at: at,
      }),
    );
  });
  return id;
}

/** The tooth chart's delete: superseded and soft-deleted at `at`. */
export async function unchartTooth(t: TestApp, orgId: string, id: string, at: string) {
  const db = await orgDb(t, orgId);
  const row = await db.read((d) => get(d.select().from(T).where(eq(T.id, id))));
  await db.write((tx) =>
    run(
      tx
        .update(T)
        .set({ superseded_at: row!.superseded_at ?? at, deleted_at: at, updated_at: at })
        .where(eq(T.id, id)),
    ),
  );
}

/** A charted procedure of a seeded code, entered at `at`. */
export async function chartProcedure(
  t: TestApp,
  orgId: string,
  patientId: string,
  f: { code: string; tooth?: string; status: string; date_service: string; at: string; deleted?: boolean },
) {
  const db = await orgDb(t, orgId);
  const code = (await db.read((d) => get(d.select().from(procedureCodes).where(eq(procedureCodes.code, f.code)))))!;
  const id = Bun.randomUUIDv7();
  await db.write((tx) =>
    run(
      tx.insert(chartedProcedures).values({
        id,
        patient_id: patientId,
        procedure_code_id: code.id,
        procedure_code: code.code,
        treatment_area: code.treatment_area,
        tooth_number: f.tooth ?? null,
        status: f.status,
        date_service: f.date_service,
        office_fee_cents: code.default_fee_cents,
        billing_order_code: code.default_billing_order,
        date_completed: f.status === "complete" ? f.at : null,
        created_at: f.at,
        updated_at: f.at,
        version: 1,
        deleted_at: f.deleted ? f.at : null,
      }),
    ),
  );
  return id;
}
