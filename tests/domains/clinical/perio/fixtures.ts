import type { TestApp } from "@tests/helpers";
import { newLocation } from "@tests/domains/patients/relationships/fixtures";
import { newPatient, newProvider, ofPatient, toothChartApp } from "@tests/domains/clinical/tooth-chart/fixtures";

// The perio exam tests' world: the tooth-chart app, a location and a provider,
// a patient there, another of the same org, and one of the other org.

export const exams = (orgId: string, pid: string, rest = "") => ofPatient(orgId, pid, `/perio-exams${rest}`);
export const DEPTHS = { mb: 3, b: 2, db: 3, ml: 3, l: 2, dl: 4 };
export const BODY = { exam_date: "2025-03-01", teeth: [{ tooth_number: "3", pocket_depths: DEPTHS }] };

export async function perioWorld() {
  const w = await toothChartApp();
  const { t, orgA, orgB } = w;
  const locationId = await newLocation(t, orgA);
  const provider = (await newProvider(t, orgA, "Perry", "Odont")).id;
  return {
    ...w,
    locationId,
    provider,
    pat: await newPatient(t, orgA, { first_name: "Gina", last_name: "Gum", location_uuid: locationId }),
    other: await newPatient(t, orgA, { first_name: "Otto", last_name: "Other" }),
    theirs: await newPatient(t, orgB, { first_name: "Theo", last_name: "Theirs" }),
  };
}

/** An exam of `pid` (BODY, overridden by `body`), created by the admin; throws unless 201. */
export async function createExam(t: TestApp, admin: string, orgId: string, pid: string, body: Record<string, unknown> = {}) {
  const r = await t.request("POST", exams(orgId, pid), { token: admin, body: { ...BODY, ...body } });
  if (r.status !== 201) throw new Error(`create exam failed: ${r.status} ${r.text}`);
  return r.body;
}
