// Scheduling fixtures: locations go through their API; providers, operatories,
// patients, types and definition rows are written straight to the org database
// (tests/domains/appointments/fixtures.ts does the same for booking).
import { eq } from "drizzle-orm";
import { definitions } from "@db/tenant/definitions";
import { all, run } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";
import { createLocation, createOperatory, createPatient, createProvider, createType } from "@tests/domains/scheduling/appointments/fixtures";

export { createLocation, createOperatory, createPatient, createProvider, createType };

export async function orgDb(t: TestApp, orgId: string) {
  return t.rt.orgDbs.get(orgId, (await t.rt.access.org(orgId))!.shard);
}

/** A definitions row (blockout type, holiday, ...) as issue 6's endpoints will write them. */
export async function insertDefinition(
  t: TestApp,
  orgId: string,
  category: string,
  item_name: string,
  item_value: string | null = null,
  v: Partial<typeof definitions.$inferInsert> = {},
) {
  const now = new Date().toISOString();
  const row = { id: Bun.randomUUIDv7(), category, item_name, item_value, created_at: now, updated_at: now, version: 1, ...v };
  const db = await orgDb(t, orgId);
  await db.write((tx) => run(tx.insert(definitions).values(row)));
  return row;
}

/** Every row of `table` (including soft-deleted ones), straight from the org database. */
export async function rowsOf<T = any>(t: TestApp, orgId: string, table: any, id?: string): Promise<T[]> {
  const db = await orgDb(t, orgId);
  return db.read((d) => all<T>(id ? d.select().from(table).where(eq(table.id, id)) : d.select().from(table)));
}

/** One org with a location in `timezone`, two providers and two operatories. */
export async function scheduleSetup(t: TestApp, orgId: string, timezone = "America/New_York") {
  const location = await createLocation(t, orgId, timezone, `Clinic ${Bun.randomUUIDv7().slice(-6)}`);
  const provider = await createProvider(t, orgId, { abbreviation: "ADA", first_name: "Ada", last_name: "Molar" });
  const provider2 = await createProvider(t, orgId, { abbreviation: "GRA", first_name: "Grace", last_name: "Canine" });
  const operatory = await createOperatory(t, orgId, location.id, { name: "Op 1", item_order: 1 });
  const operatory2 = await createOperatory(t, orgId, location.id, { name: "Op 2", item_order: 2 });
  return { location, provider, provider2, operatory, operatory2 };
}
export type ScheduleSetup = Awaited<ReturnType<typeof scheduleSetup>>;

/** Headers + body for a malformed JSON request. */
export const malformed = { rawBody: '{"weekday": 1,', headers: { "content-type": "application/json" } };

/** An appointment row written directly (any status, e.g. broken); times are wall clock of `timeZone`. */
export async function insertAppointment(
  t: TestApp,
  orgId: string,
  v: {
    timeZone: string;
    location_id: string;
    provider_id: string;
    patient_id: string;
    appointment_type_id: string;
    operatory_id?: string | null;
    start: string;
    end: string;
    status?: string;
  },
) {
  const { appointments } = await import("@db/tenant/appointments");
  const utc = (wall: string) =>
    new Date(Temporal.PlainDateTime.from(wall).toZonedDateTime(v.timeZone, { disambiguation: "earlier" }).epochMilliseconds).toISOString();
  const now = new Date().toISOString();
  const row = {
    id: Bun.randomUUIDv7(),
    patient_id: v.patient_id,
    appointment_type_id: v.appointment_type_id,
    location_id: v.location_id,
    provider_id: v.provider_id,
    operatory_id: v.operatory_id ?? null,
    status: v.status ?? "scheduled",
    scheduled_start: `${v.start}:00`,
    scheduled_end: `${v.end}:00`,
    start_utc: utc(v.start),
    end_utc: utc(v.end),
    created_at: now,
    updated_at: now,
    version: 1,
  };
  const db = await orgDb(t, orgId);
  await db.write((tx) => run(tx.insert(appointments).values(row)));
  return row;
}
