import { eq } from "drizzle-orm";
import { chartedProcedures, procedureSpanMembers, procedureSpans, treatmentPlanProcedures, treatmentPlans } from "@db/tenant/charted-procedures";
import { appointmentTypes, appointments } from "@db/tenant/appointments";
import { locations } from "@db/tenant/practice";
import { all, get, run } from "@/platform/db/work";
import { busDrained, twoOrgApp, type MemberSpec } from "@tests/helpers";
import { insertProvider, orgDb } from "@tests/domains/patients/record/fixtures";

export { insertProvider, orgDb };
export const READ = "clinical.read";
export const WRITE = "clinical.write";
export const MISSING = "0190a1b2-0000-7000-8000-0000000000ff";

const TABLES = { procedure: chartedProcedures, plan: treatmentPlans, span: procedureSpans } as const;

/** An app with two orgs and helpers for patients, codes and charted procedures (shared by plans and spans tests); `members` as twoOrgApp makes them (their `tokens`). */
export async function chartApp<const M extends Record<string, MemberSpec> = {}>(members: M = {} as M) {
  const { t, admin: token, orgA: orgId, orgB: otherOrg, events, tokens } = await twoOrgApp(members, { events: true });

  const P = (org = orgId) => `/api/v1/${org}/clinical`;
  const ok = (r: { status: number; text: string }, want: number, what: string) => {
    if (r.status !== want) throw new Error(`${what} failed: ${r.status} ${r.text}`);
  };

  const createPatient = async (body: Record<string, unknown> = {}, org = orgId) => {
    const r = await t.request("POST", `/api/v1/${org}/patients`, { token, body: { first_name: "Pat", last_name: "Ient", ...body } });
    ok(r, 201, "patient create");
    return r.body as { id: string; version: number; [k: string]: unknown };
  };

  const codeCache = new Map<string, string>();
  /** The id of a seeded (or created) procedure code by its code. */
  const codeId = async (code: string, org = orgId) => {
    const key = `${org}:${code}`;
    if (!codeCache.has(key)) {
      const r = await t.request("GET", `/api/v1/${org}/codes/procedure-codes?search=${code}`, { token });
      const found = r.body.items.find((c: { code: string }) => c.code === code);
      if (!found) throw new Error(`no procedure code ${code}`);
      codeCache.set(key, found.id);
    }
    return codeCache.get(key)!;
  };
  const createCode = async (body: Record<string, unknown>, org = orgId) => {
    const r = await t.request("POST", `/api/v1/${org}/codes/procedure-codes`, { token, body });
    ok(r, 201, "code create");
    return r.body as { id: string; code: string; version: number };
  };

  /** A definition of the category (seeded), by its name or the first one. */
  const definitionId = async (category: string, name?: string, org = orgId) => {
    const r = await t.request("GET", `/api/v1/${org}/definitions?category=${category}`, { token });
    const item = name ? r.body.items.find((d: { item_name: string }) => d.item_name === name) : r.body.items[0];
    return item.id as string;
  };

  const procPath = (patientId: string, org = orgId) => `${P(org)}/patients/${patientId}/procedures`;
  const procById = (id: string, org = orgId) => `${P(org)}/procedures/${id}`;
  /** Chart a procedure: `code` is a code (e.g. "D2391") looked up in the org, plus any fields. */
  const chart = async (patientId: string, code: string, body: Record<string, unknown> = {}, org = orgId) => {
    const r = await t.request("POST", procPath(patientId, org), { token, body: { procedure_code_uuid: await codeId(code, org), ...body } });
    ok(r, 201, `chart ${code}`);
    return r.body;
  };
  const setStatus = async (id: string, status: string, org = orgId) => {
    const cur = await t.request("GET", procById(id, org), { token });
    const r = await t.request("PATCH", procById(id, org), { token, body: { base_version: cur.body.version, status } });
    ok(r, 200, `status ${status}`);
    return r.body;
  };

  const rowOf = async (kind: keyof typeof TABLES, id: string, org = orgId) => {
    const table = TABLES[kind] as typeof chartedProcedures;
    return (await orgDb(t, org)).read((d) => get(d.select().from(table).where(eq(table.id, id)))) as Promise<any>;
  };
  const planLinks = async (planId: string, org = orgId) =>
    (await orgDb(t, org)).read((d) => all(d.select().from(treatmentPlanProcedures).where(eq(treatmentPlanProcedures.treatment_plan_id, planId))));
  const spanMembers = async (spanId: string, org = orgId) =>
    (await orgDb(t, org)).read((d) => all(d.select().from(procedureSpanMembers).where(eq(procedureSpanMembers.span_id, spanId))));

  const createLocation = async (name = "Main St", timezone = "America/Chicago", org = orgId) => {
    const r = await t.request("POST", `/api/v1/${org}/locations`, { token, body: { name, timezone } });
    ok(r, 201, "location create");
    return r.body.id as string;
  };

  /** An appointment of the patient, written straight to the org's database (booking needs much more set-up). */
  const insertAppointment = async (patientId: string, org = orgId) => {
    const db = await orgDb(t, org);
    const locationId = await createLocation("Appt office", "UTC", org);
    const providerId = await insertProvider(t, org, { first_name: "Appt", last_name: "Doc" });
    const now = new Date().toISOString();
    const typeId = Bun.randomUUIDv7();
    const id = Bun.randomUUIDv7();
    await db.write(function* (tx) {
      yield* run(
        tx
          .insert(appointmentTypes)
          .values({ id: typeId, code: "X", name: "Exam", duration_minutes: 30, color: "#000000", created_at: now, updated_at: now, version: 1 }),
      );
      yield* run(
        tx.insert(appointments).values({
          id,
          patient_id: patientId,
          appointment_type_id: typeId,
          location_id: locationId,
          provider_id: providerId,
          scheduled_start: "2030-01-02T09:00:00",
          scheduled_end: "2030-01-02T09:30:00",
          start_utc: "2030-01-02T09:00:00.000Z",
          end_utc: "2030-01-02T09:30:00.000Z",
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      );
    });
    return id;
  };
  const archiveLocationRow = async (id: string, org = orgId) => {
    const db = await orgDb(t, org);
    await db.write((tx) => run(tx.update(locations).set({ deleted_at: new Date().toISOString() }).where(eq(locations.id, id))));
  };

  /** The resource's events so far: after the bus fence, every event of each finished write is in. */
  const eventsOf = async (id: string) => {
    await busDrained(t.rt.bus);
    return events.filter((e) => e.resource_id === id);
  };
  const today = () => new Date().toISOString().slice(0, 10);

  return {
    t,
    token,
    orgId,
    otherOrg,
    tokens,
    events,
    P,
    createPatient,
    codeId,
    createCode,
    definitionId,
    procPath,
    procById,
    chart,
    setStatus,
    rowOf,
    planLinks,
    spanMembers,
    createLocation,
    insertAppointment,
    archiveLocationRow,
    eventsOf,
    today,
  };
}
export type ChartApp = Awaited<ReturnType<typeof chartApp>>;
