import { eq } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { patientAlerts, patientAllergies, patientDiseases, patientMedications } from "@db/tenant/medical-history";
import { get } from "@/platform/db/work";
import { busDrained, twoOrgApp, type MemberSpec } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export { insertProvider, orgDb } from "@tests/domains/patients/record/fixtures";

export const READ = "patients.medical.read";
export const WRITE = "patients.medical.write";

/** The four record kinds under a patient, with a valid create body and a valid patch. */
export const KINDS = {
  alerts: { table: patientAlerts, create: { title: "Bleeds easily" }, patch: { severity: "high" }, event: "patient_alert" },
  allergies: { table: patientAllergies, create: { allergen: "Peanuts", allergen_category: "food" }, patch: { reaction: "Hives" }, event: "patient_allergy" },
  diseases: { table: patientDiseases, create: { disease_name: "Hypertension" }, patch: { problem_status: "resolved" }, event: "patient_disease" },
  medications: { table: patientMedications, create: { med_descript: "Metformin 500 mg tablet" }, patch: { dosage: "1 tablet" }, event: "patient_medication" },
} as const;
export type Kind = keyof typeof KINDS;

/** An app with an org (and a second org) and helpers for patients and their records; `members` as twoOrgApp makes them (their `tokens`). */
export async function medicalApp<const M extends Record<string, MemberSpec> = {}>(members: M = {} as M) {
  const { t, admin: token, orgA: orgId, orgB: otherOrg, events, tokens } = await twoOrgApp(members, { events: true });

  const base = (org = orgId) => `/api/v1/${org}/patients`;
  const createPatient = async (body: Record<string, unknown> = {}, org = orgId) => {
    const r = await t.request("POST", base(org), { token, body: { first_name: "Pat", last_name: "Ient", ...body } });
    if (r.status !== 201) throw new Error(`patient create failed: ${r.status} ${r.text}`);
    return r.body as { id: string; version: number; allergy_review_status: string; [k: string]: unknown };
  };
  const path = (patientId: string, kind: Kind, id?: string, org = orgId) => `${base(org)}/${patientId}/${kind}${id ? `/${id}` : ""}`;
  const createRecord = async (patientId: string, kind: Kind, body: Record<string, unknown> = {}, org = orgId) => {
    const r = await t.request("POST", path(patientId, kind, undefined, org), { token, body: { ...KINDS[kind].create, ...body } });
    if (r.status !== 201) throw new Error(`${kind} create failed: ${r.status} ${r.text}`);
    return r.body;
  };
  /** The stored row, read straight from the org's database (proves what a refused write did not change). */
  const rowOf = async (kind: Kind, id: string, org = orgId) => {
    const table = KINDS[kind].table as typeof patientAlerts;
    return (await orgDb(t, org)).read((d) => get(d.select().from(table).where(eq(table.id, id))));
  };
  const patientRow = async (id: string, org = orgId) => (await orgDb(t, org)).read((d) => get(d.select().from(patients).where(eq(patients.id, id))));
  /** The resource's events so far: after the bus fence, every event of each finished write is in. */
  const eventsOf = async (id: string) => {
    await busDrained(t.rt.bus);
    return events.filter((e) => e.resource_id === id);
  };
  return { t, token, orgId, otherOrg, tokens, base, path, createPatient, createRecord, rowOf, patientRow, eventsOf };
}
