// The patient account's test world: org A with a location, two providers,
// patients and completed procedures (which post their charges), members who may
// read or also write the account, and org B for isolation checks.
import { eq } from "drizzle-orm";
import { ledgerEntries } from "@db/tenant/ledger";
import { payments } from "@db/tenant/account";
import { all } from "@/platform/db/work";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { twoOrgApp, type TestApp, type TestResponse } from "@tests/helpers";

export const BILLING = ["billing.ledger.read", "billing.ledger.write", "patients.read"];

/**
 * What every account test world starts from: orgs A and B, the billing members
 * (writer, reader, a clinician, a member of B), request helpers on org A, the
 * definitions by name and the ledger rows straight from the database.
 */
export async function billingWorld(options: { withQueue?: boolean; env?: Record<string, string>; location?: Record<string, unknown> } = {}) {
  const w = await twoOrgApp(
    {
      writer: BILLING,
      reader: ["billing.ledger.read"],
      clinician: ["patients.read", "clinical.read", "clinical.write"],
      memberOfB: { org: "B", keys: BILLING },
    },
    { events: true, withQueue: options.withQueue, env: options.env },
  );
  const { t, admin: token, pathA: A, pathB: B, orgA } = w;
  const ok = async (r: Promise<TestResponse>, status = 201) => {
    const res = await r;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
    return res.body;
  };
  const post = (path: string, body: unknown, as = token) => t.request("POST", `${A}${path}`, { token: as, body });
  const get = (path: string, as = token) => t.request("GET", `${A}${path}`, { token: as });
  /** A definition's id by category and name (the seeded payment and adjustment types among them). */
  const definition = async (category: string, name: string, org = A) =>
    (await ok(t.request("GET", `${org}/definitions?category=${category}&page_size=200`, { token }), 200)).items.find(
      (d: { item_name: string }) => d.item_name === name,
    )!.id as string;
  /** The practice: a location in UTC (named Harbor unless `options.location` says otherwise). */
  const location = await ok(post("/locations", { name: "Harbor", timezone: "UTC", ...options.location }));
  /** A patient of org A at the location, with `fields` (responsible_party_uuid makes them a family member). */
  const person = async (first: string, fields: Record<string, unknown> = {}, last = "Ledger") =>
    (await ok(post("/patients", { first_name: first, last_name: last, date_of_birth: "1980-02-03", location_uuid: location.id, ...fields }))).uuid as string;
  const db = () => orgDb(t, orgA);
  /** A patient's ledger rows, straight from the database. */
  const entries = async (patientId: string) =>
    (await db()).read((d) => all<typeof ledgerEntries.$inferSelect>(d.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId))));
  const readPatient = async (id: string) => (await get(`/patients/${id}`)).body;
  return { ...w, t: t as TestApp, token, A, B, ok, post, get, definition, location, person, db, entries, readPatient };
}

export async function accountWorld() {
  const base = await billingWorld();
  const { t, token, A, ok, post, definition, location, person, db } = base;
  const drA = await ok(post("/providers", { abbreviation: "DRA", first_name: "Ann", last_name: "Apex" }));
  const drB = await ok(post("/providers", { abbreviation: "DRB", first_name: "Ben", last_name: "Bite" }));
  const codeIds = new Map<string, string>();
  const codeId = async (code: string) => {
    if (!codeIds.has(code)) {
      const r = await t.request("GET", `${A}/codes/procedure-codes?search=${code}`, { token });
      codeIds.set(code, r.body.items.find((c: { code: string }) => c.code === code).id);
    }
    return codeIds.get(code)!;
  };
  const paymentType = (name: string, org = A) => definition("payment_types", name, org);
  const adjustmentType = (name: string) => definition("adjustment_types", name);

  /** A patient of org A at the location; `guarantor` makes them a family member. */
  const patient = (first: string, guarantor?: string) => person(first, guarantor ? { responsible_party_uuid: guarantor } : {});

  /** A procedure charted complete (posting its charge) at `fee` dollars by `provider`, on `date`. */
  const completed = async (patientId: string, fee: number, provider = drA.id, date?: string, code = "D2391") =>
    ok(
      post(`/clinical/patients/${patientId}/procedures`, {
        procedure_code_uuid: await codeId(code),
        status: "complete",
        fee_override: fee,
        provider_uuid: provider,
        location_uuid: location.id,
        tooth_number: "3",
        surfaces: "O",
        ...(date ? { date_service: date } : {}),
      }),
    );

  const paymentRows = async (patientId: string) =>
    (await db()).read((d) => all<typeof payments.$inferSelect>(d.select().from(payments).where(eq(payments.patient_id, patientId))));

  return {
    ...base,
    drA,
    drB,
    codeId,
    paymentType,
    adjustmentType,
    patient,
    completed,
    paymentRows,
  };
}

export type AccountWorld = Awaited<ReturnType<typeof accountWorld>>;
