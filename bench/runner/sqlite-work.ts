import type { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { driveSync, type PreparedDef, type Step, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";

// A unit of database work of the service's (platform/db/work.ts) run on a bare
// bun:sqlite connection, outside the service: its built queries run as they
// are, its prepared definitions are compiled once on this connection. Used by
// the floor server and the profiles to run the service's own name index.

export function sqliteWork(sqlite: Database): { db: TenantDb; run<T>(work: (db: TenantDb) => Work<T>): T } {
  const db = drizzle(sqlite) as unknown as TenantDb;
  const statements = new Map<PreparedDef<unknown>, any>();
  const exec = (step: Step) => {
    if (!step.prepared) return (step.q as any)[step.m]();
    let stmt = statements.get(step.prepared);
    if (!stmt) statements.set(step.prepared, (stmt = step.prepared.build(db)));
    return stmt[step.m](step.args);
  };
  return { db, run: (work) => driveSync(work(db), exec, db) };
}
