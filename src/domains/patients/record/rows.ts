import type { TenantDb } from "@/platform/records/context";
import { eq, getTableColumns, is, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { PreparedQuery as BunSqlitePrepared } from "drizzle-orm/bun-sqlite";
import { patients } from "@db/tenant/patients";
import { getPrepared, prepared, type PreparedDef, type Work } from "@/platform/db/work";

// Patient rows read through prepared statements, decoded without drizzle's
// generic row mapper. A patient row has 70 columns, and drizzle's mapper
// checks the kind of every selected field of every row (several µs a row);
// here the columns and their decoders are listed once. Only on local files
// (bun:sqlite answers arrays synchronously); a remote libSQL statement keeps
// drizzle's own mapping (it also normalises libSQL's values).

type PatientRow = typeof patients.$inferSelect;

const COLUMNS = Object.entries(getTableColumns(patients));

/** The patient columns of `values` from index `at` on, decoded as drizzle does (null stays null). */
export function patientFrom(values: unknown[], at: number): PatientRow {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < COLUMNS.length; i++) {
    const [key, column] = COLUMNS[i]!;
    const v = values[at + i];
    row[key] = v === null ? null : column.mapFromDriverValue(v);
  }
  return row as PatientRow;
}

type Statement = {
  all(args?: Record<string, unknown>): unknown;
  get(args?: Record<string, unknown>): unknown;
  values(args?: Record<string, unknown>): unknown;
};

/**
 * A prepared statement whose rows are arrays of `lead` leading values then the
 * patient columns in table order (a select of `{ ...lead, row: patients }`);
 * `map` builds the row drizzle would have built from that array.
 */
export function preparedRows<R>(build: (db: any) => Statement, map: (values: unknown[]) => R): PreparedDef<R> {
  return prepared<R>((db) => {
    const stmt = build(db);
    if (!is(stmt, BunSqlitePrepared)) return stmt;
    return {
      all: (args?: Record<string, unknown>) => (stmt.values(args) as unknown[][]).map(map),
      get: (args?: Record<string, unknown>) => {
        const first = (stmt.values(args) as unknown[][])[0];
        return first ? map(first) : undefined;
      },
    };
  });
}

/** One patient by id, archived ones included (the same statement as defineResource's byIdAny). */
const byId = preparedRows<PatientRow>(
  (db) =>
    db
      .select()
      .from(patients)
      .where(eq(patients.id, sql.placeholder("id")))
      .prepare(),
  (values) => patientFrom(values, 0),
);

export function* findPatientRow(db: TenantDb, id: string): Work<PatientRow | undefined> {
  return yield* getPrepared(db, byId, { id });
}

/** The names a patient's references show, read with its row (GET by id). */
export type PatientRefColumns = {
  location_name: string | null;
  primary_first: string | null;
  primary_last: string | null;
  secondary_first: string | null;
  secondary_last: string | null;
  party_first: string | null;
  party_last: string | null;
  fee_schedule_name: string | null;
  /** 1 when the patient has a potential-duplicate pair (whose other side may be archived) */
  paired: number;
};
type WithRefs = PatientRefColumns & { row: PatientRow };

/**
 * A column of the record a patient column names (by id), or null: one scalar
 * subquery answered by the primary key. The patient column is written with its
 * table (drizzle leaves it bare in a one-table select, where it would name the
 * subquery's own column).
 */
function nameOf(table: string, column: string, id: SQLiteColumn) {
  return sql<
    string | null
  >`(SELECT "r".${sql.identifier(column)} FROM ${sql.identifier(table)} AS "r" WHERE "r"."id" = ${patients}.${sql.identifier(id.name)})`;
}

const REF_LEAD = 9;
/**
 * One patient by id with the names of its location, providers, guarantor and fee schedule
 * and whether it has potential duplicates, in one statement: a patient GET is
 * a hot path, and each statement costs more under load than the subqueries.
 */
const byIdWithRefs = preparedRows<WithRefs>(
  (db) =>
    db
      .select({
        location_name: nameOf("locations", "name", patients.location_id),
        primary_first: nameOf("providers", "first_name", patients.primary_provider_id),
        primary_last: nameOf("providers", "last_name", patients.primary_provider_id),
        secondary_first: nameOf("providers", "first_name", patients.secondary_provider_id),
        secondary_last: nameOf("providers", "last_name", patients.secondary_provider_id),
        party_first: nameOf("patients", "first_name", patients.responsible_party_id),
        party_last: nameOf("patients", "last_name", patients.responsible_party_id),
        fee_schedule_name: nameOf("fee_schedules", "name", patients.fee_schedule_id),
        paired: sql<number>`EXISTS (SELECT 1 FROM "patient_duplicates" WHERE "patient_id" = ${patients}."id")`,
        row: patients,
      })
      .from(patients)
      .where(eq(patients.id, sql.placeholder("id")))
      .prepare(),
  (v) => ({
    location_name: v[0] as string | null,
    primary_first: v[1] as string | null,
    primary_last: v[2] as string | null,
    secondary_first: v[3] as string | null,
    secondary_last: v[4] as string | null,
    party_first: v[5] as string | null,
    party_last: v[6] as string | null,
    fee_schedule_name: v[7] as string | null,
    paired: v[8] as number,
    row: patientFrom(v, REF_LEAD),
  }),
);

export function* findPatientWithRefs(db: TenantDb, id: string): Work<WithRefs | undefined> {
  return yield* getPrepared(db, byIdWithRefs, { id });
}
