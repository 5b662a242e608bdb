// Booking fixtures written straight into the org's database, so these tests do
// not depend on the providers, operatories, patients or appointment-type routes.
// Locations go through their API (it exists and is the reference domain).
import { eq } from "drizzle-orm";
import { appointmentRules, appointments, appointmentTypes } from "@db/tenant/appointments";
import { operatories, providers } from "@db/tenant/practice";
import { patients } from "@db/tenant/patients";
import { all, run } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";

const now = () => new Date().toISOString();
const meta = () => ({ id: Bun.randomUUIDv7(), version: 1, created_at: now(), updated_at: now() });

async function orgDb(t: TestApp, orgId: string) {
  return t.rt.orgDbs.get(orgId, (await t.rt.access.org(orgId))!.shard);
}

async function insert<T extends Record<string, unknown>>(t: TestApp, orgId: string, table: any, values: T): Promise<T & { id: string }> {
  const row = { ...meta(), ...values };
  const db = await orgDb(t, orgId);
  await db.write(function* (tx) {
    yield* run(tx.insert(table).values(row));
  });
  return row as T & { id: string };
}

export async function createLocation(t: TestApp, orgId: string, timezone = "America/New_York", name = `Clinic ${timezone}`) {
  const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token: await t.adminToken(), body: { name, timezone } });
  if (r.status !== 201) throw new Error(`location: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string; timezone: string };
}

export const createProvider = (t: TestApp, orgId: string, v: Partial<typeof providers.$inferInsert> = {}) =>
  insert(t, orgId, providers, { abbreviation: "DR1", first_name: "Ada", last_name: "Molar", title: "Dr.", ...v });

export const createOperatory = (t: TestApp, orgId: string, locationId: string, v: Partial<typeof operatories.$inferInsert> = {}) =>
  insert(t, orgId, operatories, { location_id: locationId, name: "Op 1", ...v });

export const createPatient = (t: TestApp, orgId: string, v: Partial<typeof patients.$inferInsert> = {}) =>
  insert(t, orgId, patients, { first_name: "Pat", last_name: "Ient", ...v });

export const createType = (t: TestApp, orgId: string, v: Partial<typeof appointmentTypes.$inferInsert> = {}) =>
  insert(t, orgId, appointmentTypes, { code: "EXAM", name: "Exam", duration_minutes: 60, color: "#3366FF", ...v });

export const createRule = (t: TestApp, orgId: string, a: string, b: string, allow_overlap: boolean, location_id: string | null = null) =>
  insert(t, orgId, appointmentRules, { appointment_type_a_id: a, appointment_type_b_id: b, allow_overlap, location_id });

/** Change a fixture row in place (e.g. a patient's balance). */
export async function patchRow(t: TestApp, orgId: string, table: any, id: string, values: Record<string, unknown>) {
  const db = await orgDb(t, orgId);
  await db.write(function* (tx) {
    yield* run(tx.update(table).set(values).where(eq(table.id, id)));
  });
}

/** Every appointment row of the org, straight from its database. */
export async function appointmentRows(t: TestApp, orgId: string) {
  const db = await orgDb(t, orgId);
  return db.read((d) => all<typeof appointments.$inferSelect>(d.select().from(appointments)));
}

/** One org's booking set-up: a location in `timezone`, a provider, two operatories, a patient and a 60-minute type. */
export async function bookingSetup(t: TestApp, orgId: string, timezone = "America/New_York") {
  const location = await createLocation(t, orgId, timezone);
  const provider = await createProvider(t, orgId);
  const operatory = await createOperatory(t, orgId, location.id);
  const operatory2 = await createOperatory(t, orgId, location.id, { name: "Op 2" });
  const patient = await createPatient(t, orgId);
  const type = await createType(t, orgId);
  return { location, provider, operatory, operatory2, patient, type };
}

export type Setup = Awaited<ReturnType<typeof bookingSetup>>;

/** A valid create body for `s`, with overrides. */
export const bookingBody = (s: Setup, v: Record<string, unknown> = {}) => ({
  patient_uuid: s.patient.id,
  appointment_type_uuid: s.type.id,
  location_uuid: s.location.id,
  provider_uuid: s.provider.id,
  scheduled_start: "2026-03-09T09:00:00",
  scheduled_end: "2026-03-09T10:00:00",
  ...v,
});
