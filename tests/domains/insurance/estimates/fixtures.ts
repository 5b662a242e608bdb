import { eq } from "drizzle-orm";
import { procedureEstimates } from "@db/tenant/insurance";
import { all } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { busDrained, twoOrgApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// The estimate tests' world, built through the API as an office would: the
// worked examples' plans (docs/insurance/insurance-estimates.md): plan A, Delta Dental
// PPO, and plan B, Cigna PPO (standard COB), with their allowed fees, the
// "Crowns and onlays" category before Restorative, and patients covered by
// A (primary) and B (secondary) with treatment plans.

export const SETUP_TIMEOUT_MS = 60_000;
export const MISSING = "01970000-0000-7000-8000-00000000e571";

export type Office = Awaited<ReturnType<typeof setUpOffice>>;

/** One app per file: an admin, two orgs (A, B), a reader (clinical.read), an estimator (insurance.estimates.write) and an outsider in A, A's events. */
export async function estimateWorld(env: Record<string, string> = {}, options: { withQueue?: boolean } = {}) {
  const { t, admin, orgA, orgB, events, tokens } = await twoOrgApp(
    { reader: ["clinical.read"], estimator: ["insurance.estimates.write"], outsider: ["patients.read", "insurance.read"] },
    { env, withQueue: options.withQueue, events: true },
  );
  return { t, admin, orgA, orgB, events, ...tokens };
}

async function call(t: TestApp, token: string, method: string, path: string, body: unknown, want: number) {
  const r = await t.request(method, path, { token, body });
  if (r.status !== want) throw new Error(`${method} ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Plans A and B with their books and allowed fees, and the codes' ids, in one org. */
export async function setUpOffice(t: TestApp, token: string, orgId: string) {
  const api = `/api/v1/${orgId}`;
  const post = (path: string, body: unknown) => call(t, token, "POST", `${api}${path}`, body, 201);
  const categories = (await call(t, token, "GET", `${api}/insurance/coverage-categories?page_size=100`, undefined, 200)).items as {
    id: string;
    category_name: string;
  }[];
  const cat = (name: string) => categories.find((c) => c.category_name === name)!.id;
  // the docs' "Crowns and onlays" before Restorative (item_order 30): D2740 is a crown (one per org)
  const crowns =
    categories.find((x) => x.category_name === "Crowns and onlays")?.id ??
    ((
      await post("/insurance/coverage-categories", {
        category_name: "Crowns and onlays",
        item_order: 25,
        spans: [{ from_code: "D2700", to_code: "D2799" }],
      })
    ).id as string);
  const c = {
    diagnostic: cat("Diagnostic"),
    preventive: cat("Preventive"),
    restorative: cat("Restorative"),
    crowns,
    endodontics: cat("Endodontics"),
    periodontics: cat("Periodontics"),
    prosthodontics: cat("Prosthodontics"),
    oralSurgery: cat("Oral surgery"),
    adjunctive: cat("Adjunctive general services"),
  };
  const codes: Record<string, string> = {};
  for (const code of ["D0150", "D2740", "D7140", "D2150", "D1110", "D2392"]) {
    const found = (await call(t, token, "GET", `${api}/codes/procedure-codes?search=${code}`, undefined, 200)).items.find(
      (x: { code: string }) => x.code === code,
    );
    codes[code] = found.id;
  }
  const delta = (await post("/insurance/carriers", { carrier_name: "Delta Dental" })).id as string;
  const cigna = (await post("/insurance/carriers", { carrier_name: "Cigna" })).id as string;
  const planA = await post("/insurance/plans", {
    carrier_uuid: delta,
    plan_name: "Delta Dental PPO",
    plan_type: "ppo",
    annual_max: 1500,
    deductible_individual: 50,
    deductible_category_uuids: [c.restorative, c.crowns, c.endodontics, c.periodontics, c.prosthodontics, c.oralSurgery],
    coverage: [
      { category_uuid: c.diagnostic, percent: 100 },
      { category_uuid: c.preventive, percent: 100 },
      { category_uuid: c.restorative, percent: 80 },
      { category_uuid: c.crowns, percent: 50 },
      { category_uuid: c.endodontics, percent: 80 },
      { category_uuid: c.periodontics, percent: 80 },
      { category_uuid: c.prosthodontics, percent: 50 },
      { category_uuid: c.oralSurgery, percent: 80 },
      { category_uuid: c.adjunctive, percent: 50 },
    ],
    downgrades: [
      { codes: ["D2391"], to_code: "D2140" },
      { codes: ["D2392"], to_code: "D2150" },
      { codes: ["D2393"], to_code: "D2160" },
      { codes: ["D2394"], to_code: "D2161" },
    ],
  });
  const planB = await post("/insurance/plans", {
    carrier_uuid: cigna,
    plan_name: "Cigna PPO",
    plan_type: "ppo",
    cob_method: "standard",
    annual_max: 1000,
    deductible_individual: 50,
    deductible_category_uuids: [c.restorative, c.crowns, c.endodontics],
    coverage: [
      { category_uuid: c.crowns, percent: 50 },
      { category_uuid: c.restorative, percent: 80 },
      { category_uuid: c.endodontics, percent: 80 },
    ],
  });
  const computedAt = new Date(Date.now() - 3_600_000).toISOString();
  const book = async (planId: string, fees: Record<string, number>) => {
    const b = await post("/insurance/estimate-books", {
      name: `Fees ${planId.slice(-4)}`,
      rule_type: "manual_fee_schedule",
      scope_type: "plan",
      insurance_plan_uuid: planId,
    });
    for (const [code, fee] of Object.entries(fees)) {
      await post(`/insurance/estimate-books/${b.id}/allowed-fees`, {
        allowed_fee: fee,
        computed_at: computedAt,
        procedure_code_uuid: codes[code],
        resolution_scope_type: "insurance_plan",
      });
    }
    return b.id as string;
  };
  const bookA = await book(planA.id, { D0150: 75, D2740: 900, D7140: 130, D2150: 110, D1110: 80, D2392: 160 });
  const bookB = await book(planB.id, { D2740: 850, D2150: 100 });
  return { orgId, api, categories: c, codes, carriers: { delta, cigna }, planA: planA.id as string, planB: planB.id as string, bookA, bookB };
}

/**
 * A patient born 1985-04-12 covered by plan A (primary, deductible already met
 * this benefit year) and, unless `secondary: false`, plan B (secondary), with
 * a treatment plan holding the procedures given (code, fee, tooth or "tooth/surfaces", phase) in that order.
 */
export async function coveredPatient(
  t: TestApp,
  token: string,
  office: Office,
  opts: { secondary?: boolean; primary?: boolean; deductibleMet?: boolean; procedures?: [code: string, fee: number, tooth?: string, phase?: number][] } = {},
) {
  const { api } = office;
  const post = (path: string, body: unknown) => call(t, token, "POST", `${api}${path}`, body, 201);
  const patient = await post("/patients", { first_name: "Maria", last_name: "Lopez", date_of_birth: "1985-04-12" });
  const patientPlans: string[] = [];
  const cover = async (planId: string, ordinal: number) => {
    const sub = await post("/insurance/subscriptions", { plan_uuid: planId, subscriber_patient_uuid: patient.id, effective_date: "2025-01-01" });
    const pp = await post("/insurance/patient-plans", { patient_uuid: patient.id, subscription_uuid: sub.id, ordinal });
    patientPlans.push(pp.id);
    return pp.id as string;
  };
  if (opts.primary !== false) {
    const ppA = await cover(office.planA, 1);
    if (opts.deductibleMet !== false) await post(`/insurance/patient-plans/${ppA}/benefit-adjustments`, { deductible_met: 50 });
  }
  if (opts.secondary !== false && opts.primary !== false) await cover(office.planB, 2);
  const plan = await post(`/clinical/patients/${patient.id}/treatment-plans`, { name: "Restorative phase" });
  const procedures: string[] = [];
  for (const [code, fee, tooth, phase] of opts.procedures ?? [["D2740", 1300, "3"]]) {
    const proc = await post(`/clinical/patients/${patient.id}/procedures`, {
      procedure_code_uuid: office.codes[code],
      fee_override: fee,
      ...(tooth ? { tooth_number: tooth.split("/")[0], ...(tooth.includes("/") ? { surfaces: tooth.split("/")[1] } : {}) } : {}),
    });
    await call(t, token, "POST", `${api}/clinical/patients/${patient.id}/treatment-plans/${plan.id}/procedures`, { procedure_uuid: proc.id, phase }, 201);
    procedures.push(proc.id);
  }
  const P = `${api}/clinical/patients/${patient.id}/treatment-plans/${plan.id}`;
  return { patient: patient.id as string, plan: plan.id as string, patientPlans, procedures, P };
}

/** Every estimate row of the org (deleted ones too), by id: to prove a refusal or a re-run changed nothing. */
export async function estimateRows(t: TestApp, orgId: string, patientId?: string) {
  const db = await orgDb(t, orgId);
  const rows = await db.read((d) =>
    all<any>(
      d
        .select()
        .from(procedureEstimates)
        .where(patientId ? eq(procedureEstimates.patient_id, patientId) : undefined),
    ),
  );
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The events of these types received so far (after the bus fence: every finished write's events are in). */
export async function eventsOfType(t: TestApp, events: EventEnvelope[], prefix: string, from = 0) {
  await busDrained(t.rt.bus);
  return events.slice(from).filter((e) => e.type.startsWith(prefix));
}
