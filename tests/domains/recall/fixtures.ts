// The recall tests' world: two orgs, patients and their history charted over
// HTTP, the org's seeded recall types by kind, and the recompute run directly
// (the job's own tests run it on the queue: recompute.test.ts).
import { eq } from "drizzle-orm";
import { patientRecalls } from "@db/tenant/recall";
import { all } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { recomputeRecalls } from "@/domains/recall/patient-recalls/recompute";
import type { JobRecord } from "@/platform/queue/types";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { recordSentJobs } from "@tests/support/jobs";
import { busDrained, twoOrgApp, waitFor, type MemberSpec, type TestApp, type TwoOrgOptions } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export const MISSING = "01970000-0000-7000-8000-0000000000aa";
export const SETUP_TIMEOUT_MS = 60_000;

type Res = { status: number; text: string; body: any };

/** `date` moved by days (negative: back). */
export const shift = (date: string, days: number) => Temporal.PlainDate.from(date).add({ days }).toString();
/** `date` plus months (the month's last day when it has no such day). */
export const plusMonths = (date: string, months: number) => Temporal.PlainDate.from(date).add({ months }).toString();
export const todayUtc = () => new Date().toISOString().slice(0, 10);

export async function recallWorld<const M extends Record<string, MemberSpec> = {}>(members: M = {} as M, options: TwoOrgOptions = {}) {
  const w = await twoOrgApp(members, { events: true, ...options });
  const { t, admin } = w;
  const token = admin;
  const A = w.pathA;

  const ok = async (p: Promise<Res>, want = 200): Promise<any> => {
    const r = await p;
    if (r.status !== want) throw new Error(`${r.status} (wanted ${want}) ${r.text}`);
    return r.body;
  };
  const get = (path: string, P = A) => ok(t.request("GET", P + path, { token }));
  const post = (path: string, body: unknown, want = 201, P = A) => ok(t.request("POST", P + path, { token, body }), want);

  const codes = new Map<string, string>();
  /** A seeded procedure code's id. */
  const codeId = async (code: string, P = A) => {
    const key = `${P}:${code}`;
    if (!codes.has(key)) {
      const r = await get(`/codes/procedure-codes?search=${code}`, P);
      const found = r.items.find((c: { code: string }) => c.code === code);
      if (!found) throw new Error(`no procedure code ${code}`);
      codes.set(key, found.id);
    }
    return codes.get(key)!;
  };

  /** The org's seeded recall type of a kind (prophy, perio, child_prophy, bitewings, pano). */
  const typeOf = async (seed: string, P = A) => {
    const r = await get("/recall-types?include_archived=true&page_size=200", P);
    const found = r.items.find((x: { seed_key: string | null }) => x.seed_key === seed);
    if (!found) throw new Error(`no recall type ${seed}`);
    return found as { id: string; version: number; name: string; [k: string]: unknown };
  };

  let n = 0;
  const patient = async (body: Record<string, unknown> = {}, P = A) =>
    (await post("/patients", { first_name: "Pat", last_name: `Recall${n++}`, ...body }, 201, P)) as { id: string; [k: string]: any };

  /** A completed procedure of `code` on `date`, charted over HTTP (procedure.completed is announced). */
  const complete = async (patientId: string, code: string, date: string, extra: Record<string, unknown> = {}, P = A) =>
    post(
      `/clinical/patients/${patientId}/procedures`,
      { procedure_code_uuid: await codeId(code, P), status: "complete", date_service: date, ...extra },
      201,
      P,
    );

  /** A treatment-planned procedure of `code`, on an appointment when one is named. */
  const plan = async (patientId: string, code: string, extra: Record<string, unknown> = {}, P = A) =>
    post(`/clinical/patients/${patientId}/procedures`, { procedure_code_uuid: await codeId(code, P), ...extra }, 201, P);

  /** The org's recalls worked out again, as the job does (for these patients, or everyone). */
  const recompute = async (patientIds?: string[], orgId = w.orgA) => {
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: systemActor("recalls.recompute"), requestId: null }))!;
    const out = await recomputeRecalls(ctx, patientIds ? { patient_ids: patientIds } : { all: true });
    await busDrained(t.rt.bus);
    return out;
  };

  /** The patient's recalls as the API answers them, by recall type name. */
  const recallsOf = async (patientId: string, P = A) => (await get(`/patients/${patientId}/recalls?page_size=200`, P)).items as any[];
  const byType = async (patientId: string): Promise<Record<string, any>> =>
    Object.fromEntries((await recallsOf(patientId)).map((r) => [r.recall_type.name, r]));

  /** Every recall row of a patient (deleted ones too), straight from the database. */
  const rows = async (patientId: string, orgId = w.orgA) =>
    (await orgDb(t, orgId)).read((d) =>
      all<typeof patientRecalls.$inferSelect>(d.select().from(patientRecalls).where(eq(patientRecalls.patient_id, patientId))),
    );

  return { ...w, token, A, ok, get, post, codeId, typeOf, patient, complete, plan, recompute, recallsOf, byType, rows };
}
export type RecallWorld = Awaited<ReturnType<typeof recallWorld>>;
export type { TestApp };

/** A recall world with the queue and in-process workers, recording every job sent. */
export type RecallQueueWorld = RecallWorld & {
  sent: { name: string; id: string }[];
  stop: () => Promise<void>;
  /** Set-up writes whose recall jobs are not sent: the test builds the state the job then finds. */
  quietly<T>(work: () => Promise<T>): Promise<T>;
};

export async function recallQueueWorld(env: Record<string, string> = {}): Promise<RecallQueueWorld> {
  const w = await recallWorld({}, { withQueue: true, env });
  const { sent, quietly } = recordSentJobs(w.t, "recalls.recompute");
  const stop = await startWorkers(w.t.rt, JOBS);
  return { ...w, sent, stop, quietly };
}

/** The states a job ends in. */
export const FINAL = ["completed", "failed", "cancelled"];

/** Waits until every job sent from index `from` has finished; answers the recall jobs among them. */
export async function drained(w: RecallQueueWorld, from = 0): Promise<JobRecord[]> {
  await busDrained(w.t.rt.bus);
  const records: JobRecord[] = [];
  for (const j of w.sent.slice(from)) {
    records.push(
      await waitFor(
        async () => {
          const r = await w.t.rt.queue!.getJob(j.name, j.id);
          return r && FINAL.includes(r.state) ? r : null;
        },
        { timeoutMs: 30_000, intervalMs: 25, what: `job ${j.name} ${j.id}` },
      ),
    );
  }
  return records.filter((r) => r.name === "recalls.recompute");
}
