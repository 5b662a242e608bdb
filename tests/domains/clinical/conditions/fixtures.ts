import { eq } from "drizzle-orm";
import { patientConditions } from "@db/tenant/conditions";
import { get } from "@/platform/db/work";
import { busDrained, twoOrgApp, type MemberSpec } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export { insertProvider, orgDb } from "@tests/domains/patients/record/fixtures";

export const READ = "clinical.read";
export const WRITE = "clinical.write";

/** An app with an org (and a second org), patients, conditions and the org's seeded diagnosis definitions; `members` as twoOrgApp makes them (their `tokens`). */
export async function conditionsApp<const M extends Record<string, MemberSpec> = {}>(members: M = {} as M) {
  const { t, admin: token, orgA: orgId, orgB: otherOrg, events, tokens } = await twoOrgApp(members, { events: true });

  const P = (org = orgId) => `/api/v1/${org}`;
  const createPatient = async (body: Record<string, unknown> = {}, org = orgId) => {
    const r = await t.request("POST", `${P(org)}/patients`, { token, body: { first_name: "Pat", last_name: "Ient", ...body } });
    if (r.status !== 201) throw new Error(`patient create failed: ${r.status} ${r.text}`);
    return r.body as { id: string; version: number };
  };
  const listPath = (patientId: string, org = orgId) => `${P(org)}/clinical/patients/${patientId}/conditions`;
  const itemPath = (id: string, org = orgId) => `${P(org)}/clinical/conditions/${id}`;
  const createCondition = async (patientId: string, body: Record<string, unknown> = {}, org = orgId) => {
    const r = await t.request("POST", listPath(patientId, org), { token, body: { condition_type: "caries", ...body } });
    if (r.status !== 201) throw new Error(`condition create failed: ${r.status} ${r.text}`);
    return r.body;
  };
  /** The stored row (also when deleted), straight from the org's database. */
  const rowOf = async (id: string, org = orgId) =>
    (await orgDb(t, org)).read((d) => get(d.select().from(patientConditions).where(eq(patientConditions.id, id))));
  const diagnoses = async (org = orgId) => {
    const r = await t.request("GET", `${P(org)}/definitions?category=diagnosis_codes`, { token });
    return r.body.items as { id: string; item_name: string; item_value: string }[];
  };
  /** The resource's events so far: after the bus fence, every event of each finished write is in. */
  const eventsOf = async (id: string) => {
    await busDrained(t.rt.bus);
    return events.filter((e) => e.resource_id === id);
  };
  return { t, token, orgId, otherOrg, tokens, P, createPatient, listPath, itemPath, createCondition, rowOf, diagnoses, eventsOf };
}

/** YYYY-MM-DD `days` from today (UTC). */
export const dayFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
