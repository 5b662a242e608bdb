import { eq } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { get } from "@/platform/db/work";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export const MISSING = "01970000-0000-7000-8000-000000000000";
export const JSON_HEADERS = { "content-type": "application/json" };

/** One app per test file: an admin, two orgs (A and B), members holding some keys, and A's events. */
export async function referralWorld(readKey: string, writeKey: string) {
  const { t, admin, orgA, orgB, events, tokens } = await twoOrgApp(
    { reader: [readKey], outsider: ["locations.read", readKey === "patients.read" ? "referrals.write" : "patients.write"] },
    { events: true },
  );
  return { t, admin, orgA, orgB, events, ...tokens, writeKey };
}

/** The stored row, read straight from the org's database (to prove a refused write changed nothing). */
export async function storedRow(t: TestApp, orgId: string, table: SQLiteTable & { id: any }, id: string) {
  return (await orgDb(t, orgId)).read((d) => get<any>(d.select().from(table).where(eq(table.id, id))));
}

/** POST that must succeed with 201; answers the body. */
export async function created(t: TestApp, token: string, path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", path, { token, body });
  if (r.status !== 201) throw new Error(`POST ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}
