// The claims tests' world, built through the API as an office would: the
// estimate tests' plans A (Delta Dental PPO, primary) and B (Cigna PPO,
// secondary) with their carriers' electronic ids, a dentist with an NPI, and
// patients with completed and treatment-planned procedures; members who bill,
// who only read, who post payments, and a member of org B.
import { eq } from "drizzle-orm";
import { ledgerEntries } from "@db/tenant/ledger";
import { claimPaymentSplits, claimProcedures, claims } from "@db/tenant/claims";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { all } from "@/platform/db/work";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { twoOrgApp, type TestResponse } from "@tests/helpers";
import { setUpOffice } from "@tests/domains/insurance/estimates/fixtures";

export const MISSING = "01970000-0000-7000-8000-00000000c1a1";
export const BILLER = [
  "insurance.claims.read",
  "insurance.claims.write",
  "insurance.payments.post",
  "insurance.read",
  "billing.ledger.read",
  "patients.read",
  "clinical.read",
];

export async function claimsWorld(options: { withQueue?: boolean; env?: Record<string, string> } = {}) {
  const w = await twoOrgApp(
    {
      biller: BILLER,
      reader: ["insurance.claims.read"],
      clinician: ["patients.read", "clinical.read", "clinical.write"],
      memberOfB: { org: "B", keys: BILLER },
    },
    { events: true, withQueue: options.withQueue, env: options.env },
  );
  const { t, admin: token, pathA: A, orgA } = w;
  const ok = async (r: Promise<TestResponse>, status = 201) => {
    const res = await r;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
    return res.body;
  };
  const post = (path: string, body: unknown, as = token) => t.request("POST", `${A}${path}`, { token: as, body });
  const patch = (path: string, body: unknown, as = token) => t.request("PATCH", `${A}${path}`, { token: as, body });
  const get = (path: string, as = token) => t.request("GET", `${A}${path}`, { token: as });
  const office = await setUpOffice(t, token, orgA);
  await ok(
    patch(`/insurance/carriers/${office.carriers.delta}`, {
      base_version: 1,
      electronic_id: "CDCA1",
      address_line1: "PO Box 997330",
      city: "Sacramento",
      state: "CA",
      zip_code: "95899",
    }),
    200,
  );
  await ok(
    patch(`/insurance/carriers/${office.carriers.cigna}`, { base_version: 1, electronic_id: "62308", city: "Chattanooga", state: "TN", zip_code: "37422" }),
    200,
  );
  const location = await ok(
    post("/locations", { name: "Harbor", timezone: "UTC", address_line1: "1 Harbor Way", city: "Portland", state: "OR", postal_code: "97201" }),
  );
  const dentist = await ok(post("/providers", { abbreviation: "DRA", first_name: "Ann", last_name: "Apex", national_provider_id: "1234567893" }));

  /**
   * A patient covered by plan A (primary, member id W1) and, unless
   * `secondary: false`, plan B (secondary, member id C2), with procedures
   * charted as given ([code, fee, tooth or "tooth/surfaces", status]).
   */
  const patientWith = async (
    procedures: [code: string, fee: number, tooth?: string, status?: string][],
    opts: { secondary?: boolean; first?: string } = {},
  ) => {
    const patient = await ok(
      post("/patients", { first_name: opts.first ?? "Maria", last_name: "Lopez", date_of_birth: "1985-04-12", location_uuid: location.id }),
    );
    const plans: string[] = [];
    for (const [plan, member, ordinal] of [[office.planA, "W1", 1], ...(opts.secondary === false ? [] : [[office.planB, "C2", 2]])] as [
      string,
      string,
      number,
    ][]) {
      const sub = await ok(
        post("/insurance/subscriptions", {
          plan_uuid: plan,
          subscriber_patient_uuid: patient.id,
          subscriber_id: `${member}${patient.id.slice(-6)}`,
          effective_date: "2025-01-01",
        }),
      );
      plans.push((await ok(post("/insurance/patient-plans", { patient_uuid: patient.id, subscription_uuid: sub.id, ordinal }))).id);
    }
    // charted into a treatment plan and estimated there (as an office does before the visit), then completed
    const plan = await ok(post(`/clinical/patients/${patient.id}/treatment-plans`, { name: "Visit" }));
    const procs: string[] = [];
    for (const [code, fee, tooth] of procedures) {
      const [toothNumber, surfaces] = (tooth ?? "").split("/");
      const p = await ok(
        post(`/clinical/patients/${patient.id}/procedures`, {
          procedure_code_uuid: office.codes[code],
          fee_override: fee,
          provider_uuid: dentist.id,
          location_uuid: location.id,
          ...(toothNumber ? { tooth_number: toothNumber } : {}),
          ...(surfaces ? { surfaces } : {}),
        }),
      );
      await ok(post(`/clinical/patients/${patient.id}/treatment-plans/${plan.id}/procedures`, { procedure_uuid: p.id }));
      procs.push(p.id);
    }
    await ok(post(`/clinical/patients/${patient.id}/treatment-plans/${plan.id}/estimate`, {}), 200);
    for (const [i, [, , , status]] of procedures.entries()) {
      if ((status ?? "complete") === "treatment_planned") continue;
      await ok(patch(`/clinical/procedures/${procs[i]}`, { base_version: 1, status: status ?? "complete", date_service: "2025-03-05" }), 200);
    }
    return { patient: patient.id as string, primary: plans[0]!, secondary: plans[1] ?? null, procedures: procs, treatmentPlan: plan.id as string };
  };

  const claimFor = async (patient: { patient: string; primary: string; procedures: string[] }, body: Record<string, unknown> = {}) =>
    ok(
      post("/insurance/claims", {
        patient_uuid: patient.patient,
        patient_plan_uuid: patient.primary,
        claim_type: "primary",
        procedure_uuids: patient.procedures,
        ...body,
      }),
    );
  const move = async (claim: { id: string }, status: string, extra: Record<string, unknown> = {}) => {
    const current = await ok(get(`/insurance/claims/${claim.id}`), 200);
    return ok(post(`/insurance/claims/${claim.id}/status`, { base_version: current.version, status, ...extra }), 200);
  };

  const db = () => orgDb(t, orgA);
  /** Every claim-related row of org A and the ledger: to prove a refusal changed nothing. */
  const snapshot = async () =>
    (await db()).read(function* (d) {
      return {
        claims: yield* all(d.select().from(claims).orderBy(claims.id)),
        claimProcedures: yield* all(d.select().from(claimProcedures).orderBy(claimProcedures.id)),
        splits: yield* all(d.select().from(claimPaymentSplits).orderBy(claimPaymentSplits.id)),
        ledger: yield* all(d.select().from(ledgerEntries).orderBy(ledgerEntries.id)),
        procedures: yield* all(
          d
            .select({
              id: chartedProcedures.id,
              has_active_claim: chartedProcedures.has_active_claim,
              code_sent: chartedProcedures.code_sent,
              version: chartedProcedures.version,
            })
            .from(chartedProcedures)
            .orderBy(chartedProcedures.id),
        ),
      };
    });
  const ledgerOf = async (patientId: string) =>
    (await db()).read((d) =>
      all<typeof ledgerEntries.$inferSelect>(d.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId)).orderBy(ledgerEntries.id)),
    );
  return { ...w, token, A, ok, post, patch, get, office, location, dentist, patientWith, claimFor, move, db, snapshot, ledgerOf };
}

export type ClaimsWorld = Awaited<ReturnType<typeof claimsWorld>>;

/** The world on the embedded queue with the workers running in-process; `close` stops them and the app. */
export async function claimsWorldWithWorkers() {
  const w = await claimsWorld({ withQueue: true });
  const stop = await startWorkers(w.t.rt, JOBS);
  return {
    ...w,
    async close() {
      await stop();
      await w.t.close();
    },
  };
}

export type ClaimsWorkersWorld = Awaited<ReturnType<typeof claimsWorldWithWorkers>>;
