import { and, asc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import type { TenantDb } from "@/platform/records/context";
import { all, type Work } from "@/platform/db/work";

// A patient's family (spec.md: patients sharing the same guarantor): the
// guarantor is the patient's responsible party, else the patient itself; the
// family is the guarantor and every patient whose responsible party it is. One
// level: the guarantor's own responsible party is not followed. Archived
// patients are not members.

/** The id of the guarantor of a patient. */
export const guarantorOf = (p: { id: string; responsible_party_id: string | null }) => p.responsible_party_id ?? p.id;

/** Live patients of the guarantor's family. */
export const familyWhere = (guarantorId: string): SQL =>
  and(or(eq(patients.id, guarantorId), eq(patients.responsible_party_id, guarantorId)), isNull(patients.deleted_at))!;

/** The family's patient rows, the guarantor first, then by name. */
export function* familyRows(db: TenantDb, guarantorId: string): Work<(typeof patients.$inferSelect)[]> {
  return yield* all(
    db
      .select()
      .from(patients)
      .where(familyWhere(guarantorId))
      .orderBy(sql`${patients.id} = ${guarantorId} DESC`, asc(patients.last_name), asc(patients.first_name), asc(patients.id)),
  );
}
