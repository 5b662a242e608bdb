import type { TenantDb } from "@/platform/records/context";
import { eq, getTableColumns, is, sql } from "drizzle-orm";
import { PreparedQuery as BunSqlitePrepared } from "drizzle-orm/bun-sqlite";
import { patients } from "@db/tenant/schema";
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
