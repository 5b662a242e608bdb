import { asc, eq } from "drizzle-orm";
import { toothStatuses } from "@db/tenant/tooth-statuses";
import { perioExams } from "@db/tenant/perio";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { all, get, run } from "@/platform/db/work";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// Shared by the tooth-chart and perio tests.

export const MISSING = "01970000-0000-7000-8000-000000000000";
export const JSON_HEADERS = { "content-type": "application/json" };
export const clinical = (orgId: string, rest = "") => `/api/v1/${orgId}/clinical${rest}`;
export const ofPatient = (orgId: string, patientId: string, rest = "") => clinical(orgId, `/patients/${patientId}${rest}`);

/**
 * An app with two orgs, the org's events, and its members: `writer` (clinical.read + write),
 * `reader` (clinical.read only), `patientsOnly` (patients keys, no clinical key); `memberOfB`
 * holds both clinical keys in the other org.
 */
export const toothChartApp = () =>
  twoOrgApp(
    {
      writer: ["clinical.read", "clinical.write"],
      reader: ["clinical.read"],
      patientsOnly: ["patients.read", "patients.write"],
      memberOfB: { org: "B", keys: ["clinical.read", "clinical.write"] },
    },
    { events: true },
  );

/** The date `years` (and `months`) before today (UTC), same day of month. */
export function bornAgo(years: number, months = 0): string {
  const d = new Date();
  d.setUTCDate(1); // avoid month-end overflow, then restore the day
  const day = new Date().getUTCDate();
  d.setUTCMonth(d.getUTCMonth() - years * 12 - months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.toISOString().slice(0, 10);
}

export async function newPatient(t: TestApp, orgId: string, body: Record<string, unknown> = {}) {
  const r = await t.request("POST", `/api/v1/${orgId}/patients`, { token: await t.adminToken(), body: { first_name: "Tess", last_name: "Tooth", ...body } });
  if (r.status !== 201) throw new Error(`create patient failed: ${r.status} ${r.text}`);
  return r.body as { id: string; first_name: string; last_name: string; version: number };
}

export async function archivePatient(t: TestApp, orgId: string, id: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/patients/${id}/archive`, { token: await t.adminToken() });
  if (r.status !== 200) throw new Error(`archive patient failed: ${r.status} ${r.text}`);
}

export async function newProvider(t: TestApp, orgId: string, first = "Perry", last = "Odont") {
  const r = await t.request("POST", `/api/v1/${orgId}/providers`, {
    token: await t.adminToken(),
    body: { first_name: first, last_name: last, abbreviation: last.slice(0, 4).toUpperCase() },
  });
  if (r.status !== 201) throw new Error(`create provider failed: ${r.status} ${r.text}`);
  return r.body as { id: string; version: number };
}

/** A charted procedure row written straight to the table (that domain's routes are tested elsewhere). */
export async function insertChartedProcedure(t: TestApp, orgId: string, patientId: string, opts: { code?: string; deleted?: boolean } = {}) {
  const db = await orgDb(t, orgId);
  const code = opts.code ?? "D7140";
  const id = Bun.randomUUIDv7();
  const now = new Date().toISOString();
  await db.write(function* (tx) {
    const pc = (yield* get(tx.select({ id: procedureCodes.id }).from(procedureCodes).where(eq(procedureCodes.code, code))))!;
    yield* run(
      tx.insert(chartedProcedures).values({
        id,
        patient_id: patientId,
        procedure_code_id: pc.id,
        procedure_code: code,
        treatment_area: "tooth",
        tooth_number: "3",
        status: "complete",
        date_service: now.slice(0, 10),
        office_fee_cents: 0,
        billing_order_code: "N",
        created_at: now,
        updated_at: now,
        version: 1,
        deleted_at: opts.deleted ? now : null,
      }),
    );
  });
  return id;
}

/** Every tooth status row of the org (to prove a refused write left nothing). */
export async function toothRows(t: TestApp, orgId: string) {
  return (await orgDb(t, orgId)).read((d) => all(d.select().from(toothStatuses).orderBy(asc(toothStatuses.id))));
}

export async function examRows(t: TestApp, orgId: string) {
  return (await orgDb(t, orgId)).read((d) => all(d.select().from(perioExams).orderBy(asc(perioExams.id))));
}
