// Fixtures and the drafts run of rows (f1) and (f2), all through the API (bench/README.md).
//
// (f1) a subscriber patient with primary and secondary insurance (one carrier,
//      two plans, two subscriptions, patient plans ordinal 1 and 2) and a
//      treatment plan of 10 charted procedures, estimated again and again.
// (f2) 10,000 draft rows imported in chunks that the default body limits
//      accept; every row matches the carrier by name, a plan by group number
//      and the subscriber by name and date of birth. Timed from the first
//      import to the last row matched by the in-process job.

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

export const CARRIER_NAME = "Bench Mutual Dental";
export const PLAN_GROUPS = ["BENCH-100", "BENCH-200"] as const;
export const SUBSCRIBER = { first_name: "Sub", last_name: "Scriber", date_of_birth: "1975-03-14" };
export const PLAN_CODES = ["D0120", "D1110", "D0274", "D2392", "D2740", "D3330", "D4341", "D7140", "D2950", "D1206"] as const;

/** A site that fits each treatment area (charted-procedures/site.ts). */
const SITES: Record<string, Record<string, unknown>> = {
  mouth: {},
  tooth: { tooth_number: "19" },
  surface: { tooth_number: "30", surfaces: "MO" },
  quadrant: { quadrant: "LR" },
  arch: { arch: "lower" },
  sextant: { sextant: 1 },
  tooth_range: { tooth_range: "3-5" },
};

export type InsuranceFixture = {
  org: string;
  patient: string;
  dependent: string;
  plan: string;
  estimatePath: string;
  /** The first estimate run's answer (it writes the 20 estimates). */
  first: { estimate_count: number; total_fee_billed: string; total_insurance_estimate: string; total_patient_estimate: string };
};

export async function buildInsuranceFixture(api: Api, org: string): Promise<InsuranceFixture> {
  const P = `/api/v1/${org}`;
  const carrier = await api("POST", `${P}/insurance/carriers`, { carrier_name: CARRIER_NAME });
  const categories = (await api("GET", `${P}/insurance/coverage-categories?page_size=200`)).items as {
    id: string;
    category_name: string;
    system_key: string | null;
  }[];
  const keyOf = (c: (typeof categories)[number]) => (c.system_key ?? c.category_name).toLowerCase();
  const coverage = categories.map((c) => {
    const k = keyOf(c);
    return { category_uuid: c.id, percent: k.includes("diagnostic") || k.includes("preventive") ? 100 : k.includes("restorative") ? 80 : 50 };
  });
  const deductibleCategories = categories.filter((c) => !/diagnostic|preventive/.test(keyOf(c))).map((c) => c.id);
  const plans: string[] = [];
  for (const [i, group] of PLAN_GROUPS.entries()) {
    const plan = await api("POST", `${P}/insurance/plans`, {
      carrier_uuid: carrier.id,
      plan_name: `Bench PPO ${i + 1}`,
      group_name: `Bench Employer ${i + 1}`,
      group_number: group,
      plan_type: "ppo",
      annual_max: i === 0 ? 1500 : 1000,
      deductible_individual: 50,
      deductible_category_uuids: deductibleCategories,
      coverage,
    });
    plans.push(plan.id);
  }
  const patient = await api("POST", `${P}/patients`, SUBSCRIBER);
  for (const [i, plan] of plans.entries()) {
    const sub = await api("POST", `${P}/insurance/subscriptions`, { plan_uuid: plan, subscriber_patient_uuid: patient.id, subscriber_id: `M${i + 1}00` });
    await api("POST", `${P}/insurance/patient-plans`, { patient_uuid: patient.id, subscription_uuid: sub.id, ordinal: i + 1 });
  }
  const procedures: string[] = [];
  for (const code of PLAN_CODES) {
    const found = (await api("GET", `${P}/codes/procedure-codes?search=${code}&page_size=50`)).items as { id: string; code: string; treatment_area: string }[];
    const pc = found.find((c) => c.code === code);
    if (!pc) throw new Error(`procedure code ${code} is not in the seeded catalogue`);
    const proc = await api("POST", `${P}/clinical/patients/${patient.id}/procedures`, {
      procedure_code_uuid: pc.id,
      status: "treatment_planned",
      ...SITES[pc.treatment_area],
    });
    procedures.push(proc.id);
  }
  const tp = await api("POST", `${P}/clinical/patients/${patient.id}/treatment-plans`, { name: "Bench plan" });
  for (const id of procedures) await api("POST", `${P}/clinical/patients/${patient.id}/treatment-plans/${tp.id}/procedures`, { procedure_uuid: id });
  const estimatePath = `${P}/clinical/patients/${patient.id}/treatment-plans/${tp.id}/estimate`;
  const first = await api("POST", estimatePath);
  const expected = PLAN_CODES.length * PLAN_GROUPS.length;
  if (first.estimate_count !== expected) throw new Error(`${estimatePath} answered estimate_count ${first.estimate_count}, expected ${expected}`);
  // The dependent the (f2) imports are for: each row names the subscriber above.
  const dependent = await api("POST", `${P}/patients`, { first_name: "Kid", last_name: "Scriber", date_of_birth: "2012-09-02" });
  return { org, patient: patient.id, dependent: dependent.id, plan: tp.id, estimatePath, first };
}

export type DraftsRun = {
  rows: number;
  imports: number;
  import_ms: number;
  total_ms: number;
  matched: number;
  pending: number;
  error: number;
  polls: number;
  timed_out: boolean;
};

/** A realistic eligibility row (9 keys) that matches the (f1) carrier, plan and subscriber. */
function draftRow(i: number) {
  return {
    carrier_name: CARRIER_NAME,
    group_number: PLAN_GROUPS[i % 2],
    group_name: `Bench Employer ${(i % 2) + 1}`,
    subscriber_first_name: SUBSCRIBER.first_name,
    subscriber_last_name: SUBSCRIBER.last_name,
    subscriber_dob: SUBSCRIBER.date_of_birth,
    member_id: `M${(i % 2) + 1}00`,
    relationship: "child",
    source_ref: `row-${i}`,
  };
}

/**
 * Imports `total` rows in chunks of `chunk` (one after another, as a client
 * would send them) and polls the import totals until no row is left
 * unattempted; the time runs from the first import's request to the poll that
 * saw the last row matched.
 */
export async function runDraftsMatching(api: Api, fx: InsuranceFixture, total: number, chunk: number, timeoutMs = 120_000): Promise<DraftsRun> {
  const P = `/api/v1/${fx.org}`;
  const importIds: string[] = [];
  const t0 = performance.now();
  for (let start = 0; start < total; start += chunk) {
    const rows = Array.from({ length: Math.min(chunk, total - start) }, (_, k) => draftRow(start + k));
    const r = await api("POST", `${P}/insurance/drafts/import`, { patient_uuid: fx.dependent, rows, source_system: "bench" });
    if (r.draft_count !== rows.length) throw new Error(`import answered draft_count ${r.draft_count} for ${rows.length} rows`);
    importIds.push(r.import_id);
  }
  const importMs = performance.now() - t0;
  const count = async (status: string) =>
    (await api("GET", `${P}/insurance/drafts?patient_uuid=${fx.dependent}&review_status=${status}&page_size=1`)).total as number;
  let polls = 0;
  for (;;) {
    polls++;
    const [matched, error] = await Promise.all([count("matched"), count("error")]);
    const elapsed = performance.now() - t0;
    if (matched + error >= total || elapsed > timeoutMs) {
      const pending = await count("pending");
      return {
        rows: total,
        imports: importIds.length,
        import_ms: importMs,
        total_ms: elapsed,
        matched,
        pending,
        error,
        polls,
        timed_out: matched + error < total,
      };
    }
    await Bun.sleep(50);
  }
}
