import { patientRelationships } from "@db/tenant/relationships";
import { communicationLogs } from "@db/tenant/communication-logs";
import { all } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// Shared by the relationships and communication-logs tests.

export const MISSING = "01970000-0000-7000-8000-000000000000";
export const JSON_HEADERS = { "content-type": "application/json" };

export async function newPatient(t: TestApp, orgId: string, body: Record<string, unknown>) {
  const r = await t.request("POST", `/api/v1/${orgId}/patients`, { token: await t.adminToken(), body });
  if (r.status !== 201) throw new Error(`create patient failed: ${r.status} ${r.text}`);
  return r.body as { id: string; first_name: string; last_name: string; version: number };
}

export async function archivePatient(t: TestApp, orgId: string, id: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/patients/${id}/archive`, { token: await t.adminToken() });
  if (r.status !== 200) throw new Error(`archive patient failed: ${r.status} ${r.text}`);
}

export async function newLocation(t: TestApp, orgId: string, name = "Downtown Dental") {
  const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token: await t.adminToken(), body: { name, timezone: "America/Chicago" } });
  if (r.status !== 201) throw new Error(`create location failed: ${r.status} ${r.text}`);
  return r.body.id as string;
}

/** Every stored relationship row of the org (to prove a refused write left nothing). */
export async function relationshipRows(t: TestApp, orgId: string) {
  return (await orgDb(t, orgId)).read((d) => all(d.select().from(patientRelationships).orderBy(patientRelationships.id)));
}

export async function logRows(t: TestApp, orgId: string) {
  return (await orgDb(t, orgId)).read((d) => all(d.select().from(communicationLogs).orderBy(communicationLogs.id)));
}
