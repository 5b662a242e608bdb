import { eq } from "drizzle-orm";
import { smartLists } from "@db/tenant/revenue";
import { get } from "@/platform/db/work";
import { twoOrgApp, unique, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export const MISSING = "01970000-0000-7000-8000-000000000000";

/** One app per test file: two orgs, and in A an author, a second author, a reader and a member without revenue keys. */
export async function revenueWorld() {
  const w = await twoOrgApp({
    writer: { keys: ["revenue.read", "revenue.write", "patients.read"], displayName: "Wendy Writer" },
    writer2: { keys: ["revenue.read", "revenue.write"], displayName: "Walt Writer" },
    reader: ["revenue.read"],
    outsider: ["patients.read"],
    writerB: { org: "B", keys: ["revenue.read", "revenue.write"] },
  });
  const { t, admin, orgA, orgB } = w;
  return { t, admin, orgA, orgB, ...w.members, A: `${w.pathA}/revenue-module`, B: `${w.pathB}/revenue-module` };
}

export async function createLocation(t: TestApp, token: string, orgId: string, name = unique("Loc")) {
  const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name, timezone: "America/New_York" } });
  if (r.status !== 201) throw new Error(`location: ${r.status} ${r.text}`);
  return r.body.id as string;
}

export async function createPatient(t: TestApp, token: string, orgId: string, first: string, last: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/patients`, { token, body: { first_name: first, last_name: last } });
  if (r.status !== 201) throw new Error(`patient: ${r.status} ${r.text}`);
  return r.body.id as string;
}

/** A filter matching patients by last name (exact, any case). */
export const byLastName = (last: string) => ({ groups: [{ conditions: [{ field: "last_name", operator: "eq", value: last }] }] });

/** The stored row, read straight from the org's database. */
export async function storedList(t: TestApp, orgId: string, id: string) {
  return (await orgDb(t, orgId)).read((d) => get<any>(d.select().from(smartLists).where(eq(smartLists.id, id))));
}
